"""The thirty-third red team's holes (kimina-format 0.18.0).

- Markup that renders as nothing, after every prose line: an empty fenced block (114 of 188 rows kept the full score
  under 0.17.0), an empty code span, bold or formula (`` ` ` ``, `****`, `\\( \\)`, `$$$$`: 186 to 187 of 188). They
  count in `max_blank_markup` now; two code spans, bold words or formulas side by side (`` `a` `b` ``) hold none.
- The reasoning as one `--` comment on the `:= by` line: one line of 300 characters quoting the prose kept the full
  score on 100 of 133 rows, since fewer than five quoting comment lines counted nothing (they may label a plan's
  steps). A line longer than a label (`_LONGEST_LABEL_COMMENT`, about 120 characters) counts alone now.
- The proof pasted as prose, each line behind a label (`Then: `, `1) `, `* next apply `) and two blocks of its
  tactics' names around one stock sentence: 140 of 188 rows kept the full score, since `max_prose_code_share`
  counted lines equal to a code line or marked as a list item or inline code only. A line that is a code line after
  a label of up to 16 key bytes counts now, and the bound is 0.1 (real prose: at most 0.016).
- False rejects: a statement spelled with `->`, `<=`, `/\\` or `forall` (Lean reads each as `→`, `≤`, `∧`, `∀`)
  lost the full score on every row. The statement normaliser reads them alike now (`Declaration.compared`); `¬`
  spelled `Not` still differs, since it parses otherwise, and so does `Real` for `ℝ`: a name the code may bind.
- The thirty-fourth red team, on the fixes: a code line with words after it (`(done)`, quotes, `!`), four comment
  lines of 99 key bytes, `~` runs inside `\\( \\)`, and `Real` bound by a `variable` and written for `ℝ` (an
  integrity hole of a first version); a display ending in `\\\\` was a false reject.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kimina_format.testing import (
    Edit,
    after_every_prose_line,
    appended_lines,
    final_code_of,
    red_team_tests,
    thinking_edit,
    thinking_of,
    with_final_code,
    with_thinking,
)
from kimina_format.testing import RedTeamCase as Case

_LEAD = "We now build the proof step by step, checking each tactic carefully against the goal state."


def _by_line_comment(text: Callable[[str], str]) -> Edit:
    """The edit that writes `text(thinking)` as a comment after the final code's `:= by` (where it ends a line and
    the text is not empty)."""

    def edit(row: dict[str, Any]) -> dict[str, Any] | None:
        completion = row["completion"]
        code = final_code_of(completion)
        comment = text(thinking_of(completion))
        if ":= by\n" not in code or not comment:
            return None
        new = code.replace(":= by\n", f":= by -- {comment}\n", 1)
        return {**row, "completion": with_final_code(completion, new)}

    return edit


def _statement_spelled(spell: Callable[[str], str]) -> Edit:
    """The edit that spells the final code's theorem statement (up to its `:= by`) by `spell`; None where unchanged."""

    def edit(row: dict[str, Any]) -> dict[str, Any] | None:
        completion = row["completion"]
        code = final_code_of(completion)
        found = re.search(r"^(?:theorem|lemma) .*?:= by", code, re.M | re.S)
        if found is None or spell(found.group()) == found.group():
            return None
        new = code[: found.start()] + spell(found.group()) + code[found.end() :]
        return {**row, "completion": with_final_code(completion, new)}

    return edit


def _proof_lines(completion: str) -> list[str]:
    """The final code's proof lines (after its first `:= by`), stripped."""
    code = final_code_of(completion)
    at = code.find(":= by")
    return [line.strip() for line in code[at + 5 :].split("\n") if line.strip()] if at >= 0 else []


def _labelled_proof(label: str, end: str = "", lead: str = _LEAD) -> Edit:
    """The edit that replaces the thinking by `lead`, each proof line behind `label`, and two blocks of its tactics' names."""

    def edit(row: dict[str, Any]) -> dict[str, Any] | None:
        lines = _proof_lines(row["completion"])
        if not lines:
            return None
        names = list(dict.fromkeys(re.match(r"[·.]?\s*(\S+)", line).group(1) for line in lines))  # type: ignore[union-attr]
        half = max(1, len(names) // 2)
        blocks = "".join(
            f"\n\n```tactics\n{chr(10).join(part)}\n```" for part in (names[:half], names[half:] or names[:1])
        )
        thinking = "\n".join([lead, "", *(label + line + end for line in lines)]) + blocks
        return {**row, "completion": with_thinking(row["completion"], thinking)}

    return edit


def _four_comment_lines(thinking: str) -> str:
    """Four long prose lines of the thinking, each cut to 110 characters, as four `--` comment lines ("" if fewer)."""
    lines = [line.strip()[:110] for line in thinking.split("\n") if len(line.strip()) > 110 and "`" not in line]
    return "\n  -- ".join(lines[:4]) if len(lines) >= 4 else ""


def _reasoning(thinking: str, chars: int) -> str:
    """The first `chars` characters of the thinking's long prose lines, joined into one line."""
    lines = [line for line in thinking.split("\n") if len(line) > 60 and not line.lstrip().startswith("```")]
    return " ".join(lines)[:chars]


_SENTENCES = (
    "Checking the goal once more, the step that should close it is",
    "Since the hypotheses are all in place, I think the right move is",
    "To double-check the arithmetic before the final answer, run",
    "If the simplifier leaves a side goal behind, we can still try",
    "The last piece of the argument, in Lean, would read as",
)


def _quoted_after_sentences(row: dict[str, Any]) -> dict[str, Any] | None:
    quotes = [f"{sentence} {line}" for sentence, line in zip(_SENTENCES, _proof_lines(row["completion"]), strict=False)]
    if not quotes:
        return None
    thinking = thinking_of(row["completion"]) + "\n\n" + "\n".join(quotes)
    return {**row, "completion": with_thinking(row["completion"], thinking)}


_NAME = r"[^\W\d]\w*'*"
_GROUP = re.compile(rf"([({{⦃])((?:{_NAME} )+{_NAME}) : ([^(){{}}⦃⦄]+?)([)}}⦄])")  # two names or more
_BARE = re.compile(rf"([∀∃]) ((?:{_NAME} )*{_NAME}) : ([^(){{}}⦃⦄,]+),")


def _split_groups(statement: str, retype: Callable[[str], str] = lambda type_: type_) -> str:
    """`statement` with each binder group of several names written one binder a name, the last one's type by
    `retype`."""

    def split(group: re.Match[str]) -> str:
        opener, names, type_, closer = group.groups()
        *first, last = names.split()
        return " ".join(
            [*(f"{opener}{name} : {type_}{closer}" for name in first), f"{opener}{last} : {retype(type_)}{closer}"]
        )

    return _GROUP.sub(split, statement)


def _bracket_bare_binders(statement: str) -> str:
    """`statement` with each bare typed run after `∀` or `∃` bracketed one binder a name: `∀ (x : ℝ) (y : ℝ),`."""
    return _BARE.sub(
        lambda run: run[1] + " " + " ".join(f"({name} : {run[3]})" for name in run[2].split()) + ",", statement
    )


ATTACKS = {
    "an_empty_fence_after_every_line": Case("max_blank_markup", after_every_prose_line("\n```\n```")),
    "an_empty_fence_with_blank_lines_after_every_line": Case(
        "max_blank_markup", after_every_prose_line("\n```\n\n\n```")
    ),
    "an_empty_code_span_after_every_line": Case("max_blank_markup", after_every_prose_line(" ` `")),
    "an_empty_double_code_span_after_every_line": Case("max_blank_markup", after_every_prose_line(" `` ``")),
    "a_code_span_of_spaces_after_every_line": Case("max_blank_markup", after_every_prose_line(" `      `")),
    "empty_bold_after_every_line": Case("max_blank_markup", after_every_prose_line(" ****")),
    "empty_bracketed_formula_after_every_line": Case("max_blank_markup", after_every_prose_line(" \\( \\)")),
    "an_empty_display_formula_after_every_line": Case("max_blank_markup", after_every_prose_line(" $$$$")),
    "the_reasoning_as_a_comment_on_the_by_line": Case(
        "max_proof_prose_comment_chars", _by_line_comment(lambda thinking: _reasoning(thinking, 300))
    ),
    "four_sentences_of_the_reasoning_as_comments": Case(
        "max_proof_prose_comment_chars", _by_line_comment(_four_comment_lines)
    ),
    "no_break_spaces_in_bracketed_formulas_after_every_line": Case(
        "max_blank_markup", after_every_prose_line(" \\( x ~~~~~~ y \\)")
    ),
    "a_sentence_of_the_reasoning_on_the_by_line": Case(
        "max_proof_prose_comment_chars", _by_line_comment(lambda thinking: _reasoning(thinking, 150))
    ),
    # The proof pasted as prose, each line behind a label (140 of 188 rows kept the full score under 0.17.0). Three
    # proofs of one short line (`norm_num [h₀]`) leave too few bytes to tell from a quote (`max_prose_code_share`).
    "the_proof_lines_each_behind_then": Case("max_prose_code_share", _labelled_proof("Then: "), most_kept=3),
    "the_proof_lines_each_behind_a_number": Case("max_prose_code_share", _labelled_proof("1) "), most_kept=3),
    "the_proof_lines_each_behind_words": Case("max_prose_code_share", _labelled_proof("* next apply "), most_kept=3),
    "the_proof_lines_each_with_a_word_after": Case(
        "max_prose_code_share", _labelled_proof("Then: ", " (done)!"), most_kept=3
    ),
    "the_proof_lines_each_quoted_and_closed": Case(
        "max_prose_code_share", _labelled_proof('Now "', '" closes it.'), most_kept=3
    ),
    "the_proof_lines_each_as_inline_code_behind_then": Case(
        "max_prose_code_share", _labelled_proof("then `", "`"), most_kept=3
    ),
    # The look-alike above with the last name of each group given another type: a changed statement.
    "binder_groups_split_with_one_type_changed": Case(
        "statement", _statement_spelled(lambda s: _split_groups(s, lambda type_: "ℤ" if type_ != "ℤ" else "ℕ"))
    ),
}

LOOK_ALIKES = {
    "code_spans_bold_words_and_formulas_side_by_side": Case(
        "max_blank_markup",
        thinking_edit(
            lambda thinking: (
                thinking
                + "\n\n"
                + "\n".join(f"- Case {k}: `a{k}` `b{k}`, **{k}** **{k + 1}**, $x_{k}$ $y_{k}$." for k in range(17))
            )
        ),
    ),
    # Lean reads each ASCII spelling as the Unicode one: the statement rule rejected every row spelled so (0 of 2 to
    # 40 kept the full score under 0.17.0).
    "a_statement_spelled_with_ascii_arrows_and_comparisons": Case(
        "statement",
        _statement_spelled(lambda s: s.replace("→", "->").replace("↔", "<->").replace("≤", "<=").replace("≥", ">=")),
    ),
    "a_statement_spelled_with_ascii_connectives_and_binders": Case(
        "statement",
        _statement_spelled(
            lambda s: s.replace("∧", "/\\").replace("∨", "\\/").replace("∀", "forall").replace("∃", "exists")
        ),
    ),
    # Lean elaborates a binder group as its binders one by one: `(x y : ℝ)` and `(x : ℝ) (y : ℝ)` state the same, and
    # so do `∀ x y : ℝ, P` and `∀ (x : ℝ) (y : ℝ), P`. Each lost the full score on every row under 0.18.0.
    "a_statement_with_its_binders_split_and_bracketed": Case(
        "statement", _statement_spelled(lambda s: _bracket_bare_binders(_split_groups(s)))
    ),
    # A display that ends a row with `\\` before its `$$` (the thirty-fourth red team): a line break alone at a
    # formula's edge is layout.
    "displays_ending_with_a_line_break": Case(
        "max_blank_markup", appended_lines(lambda k: f"$$ a_{{{k}}} = {k} + {k} \\\\ $$", 17)
    ),
    # A line of the proof quoted at the end of a sentence is reasoning about it.
    # aime_1987_p5's proof writes `sq_nonneg (y + k)` 22 times on one line: quoted in the prose, that is a loop there.
    "proof_lines_quoted_after_sentences": Case("max_prose_code_share", _quoted_after_sentences, most_lost=1),
    # One row's proof is a line: a comment of 34 characters is most of it (`max_proof_comment_density`).
    "a_short_comment_on_the_by_line": Case(
        "max_proof_prose_comment_chars",
        _by_line_comment(lambda thinking: "expand, then close with nlinarith"),
        most_lost=1,
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)
