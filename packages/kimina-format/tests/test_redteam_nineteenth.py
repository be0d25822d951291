"""The nineteenth red team's finds (kimina-format 0.13.0): bare lines in a row, and a paragraph reworded word by word.

25 lines of `...` (or `---`, `$$ $$`, `\\,\\,\\,`, `1.`, `*`) in a row in the middle of the thinking kept the full score
on 123 of 188 rows, 199 of them on 19: a line without a letter is a matrix's row to the short-loop rule, and
`max_bare_lines` allows 200 such lines, or a third of the prose's. Copies in a row of one bare line (marks and symbols
with one letter or digit at most) now count as a short loop (`max_short_consecutive_repeats`, 6); a matrix's rows
hold digits and stay free.

The longest paragraph of the thinking written 8 more times in a row, each copy reworded word by word (about half of
`the`, `so`, `is`, ... swapped for `this`, `thus`, `must be`, and a filler word in each line), kept the full score on
112 of 188 rows: groups of reworded lines were bounded at 8, and a line might differ in four words at most, which a
long line reworded so differs in more. `max_reworded_lines` is 4 now, and a line of 40 words or more may differ in a
fifth of them; paragraphs of formula lines (which lead no group) and short paragraphs still keep it (below). Each
attack edits real completions; each look-alike, the healthy edit beside it, must leave every row its score.
"""

from __future__ import annotations

import random
from typing import Any

from kimina_format.testing import Edit, red_team_tests, thinking_of, with_thinking
from kimina_format.testing import RedTeamCase as Case

Row = dict[str, Any]


def _after_the_middle_line(passage: str) -> Edit:
    """`passage` after the middle prose line of the thinking (outside its fences)."""

    def edit(row: Row) -> Row | None:
        lines = thinking_of(row["completion"]).split("\n")
        fenced, prose = False, []
        for i, line in enumerate(lines):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced and line.strip():
                prose.append(i)
        at = prose[len(prose) // 2] + 1
        changed = "\n".join(lines[:at] + passage.split("\n") + lines[at:])
        return {**row, "completion": with_thinking(row["completion"], changed)}

    return edit


_SECTIONS = [
    "Expanding the product gives a quadratic in x with a positive leading coefficient.",
    "Its discriminant is negative, so the quadratic has no real roots at all.",
    "Hence it keeps one sign on the real line, the sign of its leading term.",
    "The boundary case where the parameter vanishes reduces to a perfect square.",
    "A perfect square is nonnegative, which settles that case directly.",
    "For the inductive step we assume the claim for n and prove it for n + 1.",
    "The difference of consecutive terms factors through the common ratio.",
    "Dividing both sides by the positive denominator keeps the inequality.",
    "The remaining goal is linear, so linarith closes it from the hypotheses.",
    "In Lean the expansion is what ring_nf does before nlinarith takes over.",
    "We pass the square of the difference as a hint to nlinarith.",
    "Finally the statement follows by combining the two cases above.",
]


def _rules_between_sections(row: Row) -> Row | None:
    """Twelve short sections, each after a rule (`---`)."""
    return _after_the_middle_line("\n".join(f"---\n{line}" for line in _SECTIONS))(row)


_SWAPS = {"we": "I", "the": "this", "so": "thus", "need": "want", "is": "must be", "have": "get", "show": "prove"}
_FILLERS = ["really", "actually", "basically", "clearly", "indeed", "simply"]


def _reworded(paragraph: str, seed: int) -> str:
    """`paragraph` reworded word by word: about half of the `_SWAPS` words swapped, and a filler word in each line."""
    pick = random.Random(seed)
    lines = []
    for line in paragraph.split("\n"):
        words = [_SWAPS[w] if w in _SWAPS and pick.random() < 0.5 else w for w in line.split(" ")]
        if len(words) > 4:
            words.insert(pick.randrange(1, len(words)), pick.choice(_FILLERS))
        lines.append(" ".join(words))
    return "\n".join(lines)


def _paragraph_reworded(copies: int) -> Edit:
    """The longest paragraph of the thinking (no fence in it) followed by `copies` reworded copies of itself."""

    def edit(row: Row) -> Row | None:
        thinking = thinking_of(row["completion"])
        paragraphs = [p.strip("\n") for p in thinking.split("\n\n") if "```" not in p and p.strip()]
        if not paragraphs:
            return None
        longest = max(paragraphs, key=len)
        at = thinking.index(longest) + len(longest)
        loop = "".join(f"\n\n{_reworded(longest, k)}" for k in range(copies))
        return {**row, "completion": with_thinking(row["completion"], thinking[:at] + loop + thinking[at:])}

    return edit


def _diagram(head: str, row: str, rows: int) -> Case:
    """A look-alike: `head`, then a diagram of `rows` bare rows `row`, in the middle of the thinking (two rows lose
    the full score to any line written six times there, as `an_all_ones_matrix` says)."""
    return Case(
        "max_short_consecutive_repeats", _after_the_middle_line(head + "\n" + "\n".join([row] * rows)), most_lost=2
    )


ATTACKS = {
    f"{name}_25_times_in_a_row": Case("max_short_consecutive_repeats", _after_the_middle_line("\n".join([line] * 25)))
    for name, line in (
        ("dots", "..."),
        ("a_rule", "---"),
        ("an_empty_display", "$$ $$"),
        ("latex_spaces", "\\,\\,\\,"),
        ("a_list_number", "1."),
        ("a_star", "*"),
        ("an_ellipsis_character", "…"),
    )
}
# Rows whose longest paragraph is formula lines (a word or two among them) or a line or two of few words.
ATTACKS["the_longest_paragraph_reworded_8_more_times"] = Case(
    "max_reworded_lines", _paragraph_reworded(8), most_kept=35
)
ATTACKS["the_longest_paragraph_reworded_15_more_times"] = Case(
    "max_reworded_lines", _paragraph_reworded(15), most_kept=11
)
ATTACKS["dots_with_blank_lines_between_twelve_times"] = Case(
    "max_short_consecutive_repeats", _after_the_middle_line("\n\n".join(["..."] * 12))
)
# Two bare lines in turn (the twentieth red team): no line repeats at once, but the row is bare.
ATTACKS["dots_and_an_ellipsis_in_turn_30_lines"] = Case(
    "max_short_consecutive_repeats", _after_the_middle_line("\n".join(["...", "…"] * 15))
)

LOOK_ALIKES = {
    # Sections apart, each after a rule: no two rules in a row.
    "a_rule_before_each_of_twelve_sections": Case("max_short_consecutive_repeats", _rules_between_sections),
    # A matrix's rows hold digits: ten rows of ones. On two rows (`mathd_algebra_452`, `numbertheory_x5neqy2p4`) any
    # line written six times or more in the middle of the thinking breaks `max_consecutive_repeats`, as before 0.13.0.
    "an_all_ones_matrix": Case(
        "max_short_consecutive_repeats",
        _after_the_middle_line("The matrix is\n" + "\n".join(["[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"] * 10)),
        most_lost=2,
    ),
    # Display formulas, each between its own `$$` lines.
    "twelve_displays": Case(
        "max_short_consecutive_repeats",
        _after_the_middle_line("\n".join(f"$$\nx_{k} = {k}^2 + 1\n$$" for k in range(12))),
    ),
    # A paragraph restated once, reworded, as a recap does. `algebra_9onxpypzleqsum2onxpy`'s longest paragraph is
    # a list of lines alike already (five lines with a word changed): written twice, its group has 9 lines, over
    # the bound before 0.13.0 too.
    "the_longest_paragraph_reworded_once": Case("max_reworded_lines", _paragraph_reworded(1), most_lost=1),
    # Ten dots in a row, the bound (the template bound: a diagram's rows are bare lines); `mathd_algebra_346` has a
    # bare line where they go (11 in a row).
    "dots_ten_times": Case(
        "max_short_consecutive_repeats", _after_the_middle_line("\n".join(["..."] * 10)), most_lost=3
    ),
    # Diagrams (the twentieth red team): a Ferrers diagram, an empty board, a table's empty rows.
    "a_ferrers_diagram": _diagram("The Ferrers diagram of 3 + 3 + 3 + 3 + 3 + 3 + 3 is", "* * *", 7),
    "an_empty_board": _diagram("The empty board:", ". . . . . . . .", 8),
    "a_table_with_empty_rows": _diagram("| n | value |\n|---|---|", "|   |   |", 8),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)
