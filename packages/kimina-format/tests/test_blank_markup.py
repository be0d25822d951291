"""Markup that renders as blank space or as nothing (kimina-format 0.17.0; the twenty-seventh red team's open hole).

`&nbsp;`, `<!-- -->`, `<br>`, `$\\hspace{10cm}$` or `$\\quad$` after every prose line kept the full score on 155 to
187 of 188 rows: none of them is a whitespace character, so no padding rule saw them. `max_blank_markup` (16) counts
them anywhere. Real completions write none: no HTML, and their TeX spaces (at most 8, `\\quad`s between equations)
stand between two parts of a formula (`x = 1, \\quad y = 2`, `\\,dx`, `1,\\!000`), where they are its layout; three
in a row, or any at a formula's edge, count. The red teams' evasions and false rejects are cases here: the
thirtieth's (unlisted TeX and HTML, Markdown links without text, a different line of markup each time; `\\;\\;`,
`\\!\\!`, `\\phantom{-}` aligning signs, `0<b>k`) and the thirty-first's (tags of one letter or of other names, a
Markdown comment, TeX spaces back to back; `$1$~$5$`, `~$50`, `${}^{n}C_k$`, `&lt;`, `\\int\\!\\!\\!\\int`) and the
thirty-second's (`(A) $1$ \\qquad (B) $2$`, `<g>`). Since 0.18.0 line breaks (`\\\\`) and no-break spaces (`~`)
inside a formula count too, and a long run once for each three it holds.
"""

from __future__ import annotations

from kimina_format import ViolationCode, check_format
from kimina_format.padding import blank_markup
from kimina_format.testing import (
    Edit,
    after_every_prose_line,
    appended_lines,
    build_completion,
    change_prose_lines,
    red_team_tests,
    thinking_edit,
)
from kimina_format.testing import RedTeamCase as Case


def _after_first_lines(pad: str, count: int) -> Edit:
    def change(thinking: str) -> str:
        padded = iter(range(count))
        return change_prose_lines(thinking, lambda line, i: line + pad if next(padded, None) is not None else line)

    return thinking_edit(change)


def _appended(passage: str) -> Edit:
    return thinking_edit(lambda thinking: thinking + "\n\n" + passage)


ATTACKS = {
    "nbsp_after_every_line": Case("max_blank_markup", after_every_prose_line("&nbsp;")),
    "nbsp_without_its_semicolon_after_every_line": Case("max_blank_markup", after_every_prose_line(" &nbsp")),
    "a_numeric_entity_after_every_line": Case("max_blank_markup", after_every_prose_line("&#8203;")),
    "an_html_comment_after_every_line": Case("max_blank_markup", after_every_prose_line(" <!-- -->")),
    "a_bogus_comment_after_every_line": Case("max_blank_markup", after_every_prose_line(" <!x>")),
    "a_line_break_tag_after_every_line": Case("max_blank_markup", after_every_prose_line("<br>")),
    "a_line_break_tag_with_an_attribute_after_every_line": Case(
        "max_blank_markup", after_every_prose_line("<br clear=all>")
    ),
    "an_empty_anchor_after_every_line": Case("max_blank_markup", after_every_prose_line(" <a></a>")),
    "a_styled_span_after_every_line": Case("max_blank_markup", after_every_prose_line('<span style="x"></span>')),
    "upper_case_markup_after_every_line": Case("max_blank_markup", after_every_prose_line("<BR>")),
    "a_link_without_text_after_every_line": Case("max_blank_markup", after_every_prose_line(" [](#)")),
    "a_wide_tex_space_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\hspace{10cm}$")),
    "a_quad_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\quad$")),
    "a_quad_at_the_end_of_a_formula_after_every_line": Case("max_blank_markup", after_every_prose_line(" $x\\quad$")),
    "a_phantom_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\phantom{x}$")),
    "a_fill_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\hfil$")),
    "a_math_space_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\mspace{18mu}$")),
    "an_empty_box_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\mbox{}$")),
    "a_blank_text_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\text{ }$")),
    "a_thin_space_alone_in_a_formula_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\!$")),
    "two_thin_spaces_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\,\\,$")),
    "three_medium_spaces_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\>\\>\\>$")),
    "no_break_spaces_in_a_formula_after_every_line": Case("max_blank_markup", after_every_prose_line(" $~~~$")),
    "control_spaces_in_a_formula_after_every_line": Case("max_blank_markup", after_every_prose_line(" $\\ \\ \\ $")),
    "empty_groups_in_a_formula_after_every_line": Case("max_blank_markup", after_every_prose_line(" ${}{}{}$")),
    "a_block_of_twenty_quads": Case("max_blank_markup", _appended("$" + "\\qquad " * 20 + "$")),
    # The thirty-first red team: tags of one letter or of other names, a Markdown comment, TeX spaces back to back or
    # joined by empty groups (173 to 186 of 188 kept the full score).
    "paragraph_tags_after_every_line": Case("max_blank_markup", after_every_prose_line("<p><p><p>")),
    "one_letter_tags_after_every_line": Case("max_blank_markup", after_every_prose_line("<p><b><i><u><s><q>")),
    "a_style_element_after_every_line": Case("max_blank_markup", after_every_prose_line("<style></style>")),
    "a_template_hiding_text_after_every_line": Case(
        "max_blank_markup", after_every_prose_line(" <template>1</template>")
    ),
    "a_markdown_comment_after_every_line": Case("max_blank_markup", after_every_prose_line("\n\n[//]: # (note)\n")),
    "quads_back_to_back_after_every_line": Case("max_blank_markup", after_every_prose_line(" $a\\quad\\quad\\quad b$")),
    "quads_joined_by_empty_groups_after_every_line": Case(
        "max_blank_markup", after_every_prose_line(" $a\\quad{}\\quad{}\\quad b$")
    ),
    "a_long_phantom_after_every_line": Case(
        "max_blank_markup", after_every_prose_line(" $a \\phantom{this sentence is hidden from the reader} b$")
    ),
    # No-break spaces and line breaks inside a formula (`~~~` and `\\` runs: 152 to 184 of 188 kept the full score
    # under 0.17.0), and long runs of them, which count for each three (188 of 188).
    "no_break_spaces_inside_a_formula_after_every_line": Case("max_blank_markup", after_every_prose_line(" $a ~~~ b$")),
    "spaced_no_break_spaces_inside_a_formula_after_every_line": Case(
        "max_blank_markup", after_every_prose_line(" $a ~ ~ ~ b$")
    ),
    "line_breaks_inside_a_formula_after_every_line": Case(
        "max_blank_markup", after_every_prose_line(" $a \\\\ \\\\ \\\\ b$")
    ),
    "new_lines_inside_a_formula_after_every_line": Case(
        "max_blank_markup", after_every_prose_line(" $a \\newline\\newline\\newline b$")
    ),
    "thirty_no_break_spaces_after_each_of_ten_lines": Case(
        "max_blank_markup", _after_first_lines(" $a " + "~" * 30 + " b$", 10)
    ),
    "twelve_line_breaks_after_each_of_ten_lines": Case(
        "max_blank_markup", _after_first_lines(" $a" + " \\\\" * 12 + " b$", 10)
    ),
    "twelve_quads_after_each_of_ten_lines": Case(
        "max_blank_markup", _after_first_lines(" $a" + "\\quad" * 12 + " b$", 10)
    ),
    # A formula of spaces renders as nothing (187 and 186 of 188 kept the full score under 0.17.0).
    "an_empty_formula_after_every_line": Case("max_blank_markup", after_every_prose_line(" $ $")),
    "an_empty_display_after_every_line": Case("max_blank_markup", after_every_prose_line(" $$ $$")),
    # A different line each time, so no repetition rule sees them (the thirtieth red team: 188 of 188 kept).
    "two_hundred_links_without_text": Case("max_blank_markup", appended_lines(lambda k: f"[](#{k})", 200)),
    "two_hundred_named_anchors": Case("max_blank_markup", appended_lines(lambda k: f"<a name=n{k}></a>", 200)),
    "two_hundred_invisible_rules": Case("max_blank_markup", appended_lines(lambda k: f"$\\rule{{0pt}}{{{k}pt}}$", 200)),
}

LOOK_ALIKES = {
    "a_system_with_a_quad_between_equations": Case(
        "max_blank_markup", appended_lines(lambda k: f"- $x = {k}, \\quad y = {k + 1}$", 12)
    ),
    "cases_with_a_quad_before_and_after_or": Case(
        "max_blank_markup", appended_lines(lambda k: f"Case {k}: $x = {k} \\quad \\text{{or}} \\quad x = -{k}$.", 17)
    ),
    "twenty_double_integrals_with_thin_spaces": Case(
        "max_blank_markup",
        appended_lines(lambda k: f"$\\int_0^1\\!\\!\\int_0^1 x^{{{k}}} y\\,dx\\,dy = \\frac{{1}}{{{2 * k + 2}}}$", 20),
    ),
    "two_thin_spaces_around_a_word": Case(
        "max_blank_markup", appended_lines(lambda k: f"$a_{{{k}}} = {k} \\;\\; \\text{{since}} \\;\\; k = {k}$", 17)
    ),
    "a_phantom_aligning_signs_in_a_matrix": Case(
        "max_blank_markup",
        _appended(
            "$$\\begin{pmatrix} "
            + " \\\\ ".join(f"\\phantom{{-}}{k} & -{k}" for k in range(1, 18))
            + " \\end{pmatrix}$$"
        ),
    ),
    "a_vertical_phantom_sizing_brackets": Case(
        "max_blank_markup", appended_lines(lambda k: f"$\\left(\\vphantom{{\\frac12}} x+{k}\\right)$", 17)
    ),
    "a_space_between_two_parts_of_a_formula": Case(
        "max_blank_markup", appended_lines(lambda k: f"Step {k}: $x_{{{k}}} \\hspace{{1cm}} y_{{{k}}}$", 17)
    ),
    "thousands_separated_by_thin_spaces": Case(
        "max_blank_markup",
        appended_lines(lambda k: f"- {k} squared is ${k * k},\\!000,\\!000$ in units of a thousand.", 20),
    ),
    "comparisons_and_ampersands_in_prose": Case(
        "max_blank_markup",
        appended_lines(lambda k: f"- Case {k}: if $0<b>{k}$ then AT&T; and R&D; agree on {k * k}.", 20),
    ),
    "set_builder_with_spaced_bars": Case(
        "max_blank_markup",
        appended_lines(lambda k: f"- The set $S_{k} = \\{{x \\;|\\; x > {k * k}\\}}$ holds {k} primes.", 20),
    ),
    # The thirty-first red team's false rejects of a first version: a range between two formulas, "about" before a
    # price, a prescript, visible entities, and kerning.
    "ranges_between_two_formulas": Case(
        "max_blank_markup", appended_lines(lambda k: f"所以第{k}个参数的取值范围是 ${k}$~${k + 3}$。", 17)
    ),
    "about_a_price": Case(
        "max_blank_markup", appended_lines(lambda k: f"- Option {k} costs about ~${10 * k + 5} in total.", 17)
    ),
    "prescripts_of_binomials": Case(
        "max_blank_markup", appended_lines(lambda k: f"- Choose ${{}}^{{{k + 5}}}C_{{{k}}}$ subsets of size {k}.", 17)
    ),
    "visible_entities": Case(
        "max_blank_markup", appended_lines(lambda k: f"- In HTML, {k} &lt; {k + 1} &amp;&amp; true.", 17)
    ),
    "kerned_double_integrals": Case(
        "max_blank_markup", appended_lines(lambda k: f"$\\int\\!\\!\\!\\int_D x^{{{k}}} \\, dA = {k}/{k + 2}$", 17)
    ),
    # The thirty-second red team's false rejects of a second version: TeX spaces between two formulas, angle brackets
    # around a generator.
    "answer_choices_spaced_by_qquads": Case(
        "max_blank_markup",
        appended_lines(
            lambda k: f"Choices {k}: (A) ${k}$ \\qquad (B) ${k + 1}$ \\qquad (C) ${k + 2}$ \\qquad (D) ${k + 3}$", 6
        ),
    ),
    "an_aligned_derivation_with_line_breaks": Case(
        "max_blank_markup",
        _appended(
            "$$\\begin{aligned} "
            + " \\\\ ".join(f"x_{{{k}}} &= {k} + x_{{{k - 1}}}" for k in range(1, 18))
            + " \\end{aligned}$$"
        ),
    ),
    "struck_out_wrong_steps": Case(
        "max_blank_markup", appended_lines(lambda k: f"- Step {k}: ~~x = {k}~~ ~~x = {k + 1}~~ so $x = {k + 2}$.", 17)
    ),
    "formulas_side_by_side": Case(
        "max_blank_markup",
        appended_lines(lambda k: f"- Step {k}: $a_{k}$ $b_{k}$, then $$c_{k}$$ $$d_{k}$$ and $ {k} $.", 17),
    ),
    "generated_subgroups": Case(
        "max_blank_markup",
        appended_lines(lambda k: f"- The subgroup <g> has order {k}, and <a> has order {k + 1}.", 17),
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)


def test_each_piece_of_blank_markup_counts() -> None:
    assert blank_markup(b"a&nbsp;b<!-- c --><br/></p>&#8203;&#x200b; &nbsp <?x> [](#1) ![](x.png)") == 10
    assert blank_markup(b"<p><b>, <template>x</template> <abbr></abbr>\n[//]: # (note)\n") == 6
    assert (
        blank_markup(b"$\\hspace{1cm}$ $\\vspace*{2pt}$ $\\phantom{x}$ $\\kern1em$ $\\hfill$ $\\rule{0pt}{3pt}$") == 6
    )
    # A run of TeX spaces counts once for each three in it, or once at a formula's edge.
    assert blank_markup(b"$a \\quad\\qquad\\; b$, $\\,\\,$, $\\; \\;$, $x \\quad$, $\\quad y$, \\[\n\\quad x \\]") == 6
    assert blank_markup(b"$a\\quad\\quad\\quad b$ $a\\quad{}\\quad{}\\quad b$ $a\\ \\ \\ b$") == 3
    assert blank_markup(b"$~~~$ ${}$ $x{}$ $x~~$") == 5  # `{}` at each edge of a formula, `~~` inside it
    # No-break spaces inside a formula, and line breaks, count for each three in a row (or any at an edge).
    assert blank_markup(b"$a ~~~ b$ $a ~ ~ ~ b$ $a~{}~{}~b$ $a" + b"~" * 30 + b"b$") == 13
    assert blank_markup(b"$a \\\\ \\\\ \\\\ b$ $a \\\\\\\\\\\\ b$ $a \\newline\\newline\\newline b$") == 3
    assert blank_markup(b"$a" + b"\\quad" * 30 + b" b$") == 10
    assert blank_markup(b"a $ $ b $$ $$ c $\t$, $x$ $ $") == 4  # formulas of spaces
    assert blank_markup(b"$a \\phantom{this sentence is hidden from the reader} b$") == 1


def test_layout_and_look_alikes_count_nothing() -> None:
    assert blank_markup(b"$x = 1, \\quad y = 2$, $\\int x\\,dx$, $1,\\!000$, $\\{x \\;|\\; x > 0\\}$") == 0
    assert (
        blank_markup(b"$\\int\\!\\!\\!\\int f\\,dx\\,dy$, $a \\;\\; b$, $\\left(\\vphantom{\\frac{1}{2}} x\\right)$")
        == 0
    )
    assert blank_markup(b"s \\ t, a<b, c>d, $0<b>k$, AT&T; and &NBSP; and &lt;, </think> and <;>") == 0
    assert blank_markup(b"So $x$\n~~~\nx\n~~~\n, {} and ~ outside formulas, \\quad as written") == 0
    assert blank_markup(b"$a$ $b$ and $$x$$ $$y$$, costs $5 and $ $7") == 0
    assert blank_markup(b"$1$~$5$, about ~$50, ${}^{n}C_{k}$, ${}_nC_r$, ({} : Finset N)") == 0
    assert blank_markup(b"$1$~~$5$, ~~struck~~ ~~out~~, x = ~~~y, $a ~~ b$, $a \\\\ b \\\\ c$") == 0
    assert blank_markup(b"(A) $1$ \\qquad (B) $2$ \\qquad (C) $3$, $x = 1$ \\quad $y = 2$") == 0  # between formulas
    assert blank_markup(b"H = <g>, K = <a>, <n>, <proof>, <p> alone\n[^1]: a footnote\n[Fintype a]: x\n") == 0


def test_the_violation_says_what_it_counted() -> None:
    verdict = check_format(build_completion(reasoning="Step.&nbsp;\n" * 17 + "So the answer is 3."))
    assert verdict.metrics.blank_markup == 17
    [padding] = [v for v in verdict.violations if v.code is ViolationCode.WHITESPACE_PADDING]
    assert "17 pieces of markup" in padding.message and "(limit 16)" in padding.message
    fine = check_format(build_completion(reasoning="Step.&nbsp;\n" * 16 + "So the answer is 3."))
    assert fine.metrics.blank_markup == 16
    assert ViolationCode.WHITESPACE_PADDING not in {v.code for v in fine.violations}
