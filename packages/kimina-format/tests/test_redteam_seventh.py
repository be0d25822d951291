"""The eleventh red team's whitespace spread thin, and the rules it called for (kimina-format 0.9.0).

Whitespace in runs, in blank lines, after the code or at the ends of lines was bounded; spread between the words of
every line, or as indentation that no nesting needs, it kept the full score: three spaces between every two words on
180 of 188 rows, the thinking shifted right by 30 columns on 82, the final proof by 40 on 171. Each attack asserts
how few rows keep the full score; each look-alike, the healthy edit beside it, that every row keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from kimina_format import check_format
from kimina_format.testing import (
    RedTeamCase as Case,
)
from kimina_format.testing import (
    assert_red_team_case,
    final_code_of,
    thinking_of,
    with_final_code,
    with_thinking,
    xfail_params,
)

Row = dict[str, Any]
Edit = Callable[[Row], "Row | None"]


def _prose_lines(change: Callable[[str], str]) -> Edit:
    """Each non-blank line of the thinking outside its fences changed by `change`."""

    def edit(row: Row) -> Row:
        out, fenced = [], False
        for line in thinking_of(row["completion"]).split("\n"):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced and line.strip():
                line = change(line)
            out.append(line)
        return {**row, "completion": with_thinking(row["completion"], "\n".join(out))}

    return edit


def _code(change: Callable[[str], str]) -> Edit:
    """The final code changed by `change` (rows it leaves as they are are not applied)."""

    def edit(row: Row) -> Row | None:
        code = final_code_of(row["completion"])
        new = change(code)
        return None if new == code else {**row, "completion": with_final_code(row["completion"], new)}

    return edit


def _indented_lines(by: int) -> Callable[[str], str]:
    """Every indented line of a Lean text `by` columns further right (Lean takes the proof as it is)."""
    return lambda code: re.sub(r"\n(?= )", "\n" + " " * by, code)


def _nested_blocks(by: int) -> Callable[[str], str]:
    """The lines under each `... := by` line of the proof `by` columns further right than Lean needs."""

    def change(code: str) -> str:
        out, shift, opened = [], 0, None
        for line in code.split("\n"):
            indent = len(line) - len(line.lstrip(" "))
            if opened is not None and line.strip() and indent <= opened:
                shift, opened = 0, None
            out.append(" " * shift + line if line.strip() else line)
            if opened is None and indent > 0 and line.rstrip().endswith(":= by"):
                shift, opened = by, indent
        return "\n".join(out)

    return change


ATTACKS: dict[str, Case] = {
    # Between words.
    "three_spaces_between_words": Case("max_spaced_gap_chars", _prose_lines(lambda line: line.replace(" ", "   "))),
    "two_spaces_between_words": Case(
        "max_spaced_gap_chars",
        _prose_lines(lambda line: line.replace(" ", "  ")),
        most_kept=10,  # thinkings of a few hundred words: a few hundred spaces
    ),
    "forty_spaces_after_each_sentence": Case(
        "max_spaced_gap_chars",
        _prose_lines(lambda line: re.sub(r"(?<=[.!?]) ", " " * 40, line)),
        most_kept=20,  # thinkings of seven sentences or fewer
    ),
    "spaces_around_each_operator_of_the_code": Case(
        "max_spaced_gap_chars",
        _code(lambda code: re.sub(r" ([=+*<≤≥-]) ", " " * 20 + r"\1" + " " * 20, code)),
        most_kept=70,  # proofs with seven operators or fewer: 266 spaces at most
    ),
    # Indentation.
    "the_thinking_shifted_by_30": Case("max_deep_indent_chars", _prose_lines(lambda line: " " * 30 + line)),
    "the_thinking_shifted_by_20": Case(
        "max_deep_indent_chars",
        _prose_lines(lambda line: " " * 20 + line),
        most_kept=15,  # thinkings of 25 lines or fewer
    ),
    "every_line_of_the_thinking_brought_to_column_12": Case(
        "max_indented_prose_lines",
        _prose_lines(
            lambda line: line.strip().rjust(len(line.strip()) + 12) if len(line) - len(line.lstrip()) < 12 else line
        ),
        most_kept=3,  # thinkings of 20 prose lines or fewer
    ),
    "the_thinking_shifted_by_6": Case(
        "max_indented_prose_lines",
        _prose_lines(lambda line: " " * 6 + line),
        most_kept=3,  # thinkings of 20 prose lines or fewer
    ),
    "the_proof_indented_by_40": Case("max_code_indent", _code(_indented_lines(40))),
    "the_proof_indented_by_12": Case("max_code_indent", _code(_indented_lines(12))),
    "the_nested_blocks_shifted_by_40": Case(
        "max_deep_indent_chars",
        _code(_nested_blocks(40)),
        most_kept=32,  # proofs with three nested lines or fewer: 30 columns each past the 12 a step may take
    ),
    "the_whole_code_indented_by_12": Case("max_code_indent", _code(lambda code: re.sub(r"(?m)^", " " * 12, code))),
    "each_tactic_block_indented_by_60": Case(
        "max_deep_indent_chars",
        lambda row: {
            **row,
            "completion": re.sub(
                r"```tactics\n(.*?)```",
                lambda m: "```tactics\n" + re.sub(r"(?m)^(?=.)", " " * 60, m.group(1)) + "```",
                row["completion"],
                flags=re.DOTALL,
            ),
        },
        most_kept=7,  # thinkings whose blocks hold five lines or fewer
    ),
}

LOOK_ALIKES: dict[str, Case] = {
    "two_spaces_after_each_sentence": Case(
        "max_spaced_gap_chars", _prose_lines(lambda line: re.sub(r"(?<=[.!?]) ", "  ", line))
    ),
    "markdown_line_breaks": Case("max_spaced_gap_chars", _prose_lines(lambda line: line + "  ")),
    "an_aligned_table_and_aligned_code": Case(
        "max_spaced_gap_chars",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                "| n  | n^2  | n^3   |\n|----|------|-------|\n"
                + "\n".join(f"| {n:<2} | {n * n:<4} | {n**3:<5} |" for n in range(1, 13))
                + "\n\n```tactics\n"
                + "\n".join(f"have h{k}  : (x{k} : ℝ) ≥ 0        := sq_nonneg _" for k in range(10))
                + "\n```\n\n"
                + thinking_of(row["completion"]),
            ),
        },
        most_lost=16,  # rows whose final code uses no `have`: the alignment rule
    ),
    "a_markdown_outline_three_levels_deep": Case(
        "max_indented_prose_lines",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                "Plan:\n"
                + "\n".join(
                    f"- Step {i}: bound the term\n  - case {i}a: it is even\n    - then {i} divides it"
                    for i in range(1, 13)
                )
                + "\n\n"
                + thinking_of(row["completion"]),
            ),
        },
    ),
    "an_unfenced_lean_proof_indented_as_markdown_code": Case(
        "max_indented_prose_lines",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                "A first draft, as Markdown code:\n\n"
                + "\n".join(
                    f"    have h{k} : 0 ≤ x{k} := by\n      rcases hx with ⟨a, b⟩\n      nlinarith [sq_nonneg a]"
                    for k in range(10)
                )
                + "\n\n"
                + thinking_of(row["completion"]),
            ),
        },
        most_lost=30,  # rows whose final code uses no `rcases` or `nlinarith`: the alignment rule
    ),
    "the_code_in_four_space_style": Case(
        "max_code_indent", _code(lambda code: re.sub(r"(?m)^( +)", lambda m: m.group(1) * 2, code))
    ),
    "a_markdown_code_block_in_the_prose": Case(
        "max_deep_indent_chars",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                "The shape of the proof:\n\n    have key : 0 ≤ x := by\n      rcases h with ⟨a, b⟩\n"
                "      · nlinarith [sq_nonneg a]\n      · exact le_of_lt hb\n    exact key\n\n"
                + thinking_of(row["completion"]),
            ),
        },
    ),
    "a_deeply_nested_tactic_block_in_four_space_style": Case(
        "max_deep_indent_chars",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                "```tactics\n"
                + "\n".join(" " * (4 * k + 20) + f"have h{k} : 0 ≤ x{k} := by" for k in range(5))
                + "\n"
                + " " * 40
                + "positivity\n```\n\n"
                + thinking_of(row["completion"]),
            ),
        },
        most_lost=24,  # rows whose final code uses no `have` or `positivity`: the alignment rule
    ),
}


@pytest.mark.parametrize("name", xfail_params(ATTACKS))
def test_an_attack_loses_the_full_score(full_score_rows: list[Row], name: str) -> None:
    assert_red_team_case(full_score_rows, name, ATTACKS[name], attack=True)


@pytest.mark.parametrize("name", xfail_params(LOOK_ALIKES))
def test_a_look_alike_keeps_the_full_score(full_score_rows: list[Row], name: str) -> None:
    assert_red_team_case(full_score_rows, name, LOOK_ALIKES[name], attack=False)


def test_the_whitespace_measures_count_what_they_say() -> None:
    text = (
        "<think>\nWe  have x.  So   y.   Then z   \n"
        + " " * 30
        + "indented\n```tactics\nnorm_num\n```\n</think>\n"
        + "```lean4\ntheorem t : True := by\n"
        + " " * 10
        + "trivial\n```"
    )
    metrics = check_format(text).metrics
    # `We  have`: 1; `x.  So`: two after a sentence's end, none; `So   y`: 2; `y.   Then`: 2; the trailing run: none.
    assert metrics.spaced_gap_chars == 5
    # 30 columns of the prose: 18 past column 12, one line of five or more.
    assert metrics.deep_indent_chars == 18
    assert metrics.indented_prose_lines == 1
    assert metrics.code_indent == 10


def test_the_nested_shift_is_measured_as_deep_indentation() -> None:
    code = "theorem t : True := by\n  have h : True := by\n    trivial\n  exact h"
    shifted = _nested_blocks(60)(code)
    assert "\n" + " " * 64 + "trivial" in shifted
    text = f"<think>\nPlan.\n```tactics\ntrivial\n```\n</think>\n```lean4\n{shifted}\n```"
    # `trivial` nests under `have` (column 2): 62 columns past it, 12 of them needed.
    assert check_format(text).metrics.deep_indent_chars == 62 - 12
