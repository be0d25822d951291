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

from kimina_format import check_format
from kimina_format.testing import Edit, final_code_of, red_team_tests, thinking_of, with_final_code, with_thinking
from kimina_format.testing import (
    RedTeamCase as Case,
)

Row = dict[str, Any]


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


def _before_the_thinking(text: str) -> Edit:
    """`text` written at the start of the thinking (the rows it leaves alike are not applied)."""
    return lambda row: {
        **row,
        "completion": with_thinking(row["completion"], text + "\n\n" + thinking_of(row["completion"])),
    }


def _residue_table(modulus: int) -> str:
    """A table of residues written with spaces, as a model drafts one in plain text."""
    rows = "\n".join(
        f"{n:<4} {n * n % modulus:<12} {n**3 % modulus:<12} {(n * n + n**3) % modulus}" for n in range(modulus)
    )
    return f"Residues mod {modulus}:\n\nn    n^2 mod {modulus}    n^3 mod {modulus}    n^2 + n^3 mod {modulus}\n{rows}"


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


_CALC = """have h_amgm : ∀ a b : ℝ, 0 < a → 0 < b → (a + b) * (1 / a + 1 / b) ≥ 4 := by
  intro a b ha hb
  calc (a + b) * (1 / a + 1 / b) = 2 + a / b + b / a := by field_simp; ring
                              _ = 2 + (a ^ 2 + b ^ 2) / (a * b) := by field_simp; ring
                              _ ≥ 2 + (2 * a * b) / (a * b) := by gcongr; nlinarith [sq_nonneg (a - b)]
                              _ = 4 := by field_simp; ring"""

ATTACKS: dict[str, Case] = {
    # Between words.
    "three_spaces_between_words": Case("max_spaced_gap_chars", _prose_lines(lambda line: line.replace(" ", "   "))),
    "two_spaces_between_words": Case(
        "max_spaced_gap_chars",
        _prose_lines(lambda line: line.replace(" ", "  ")),
        most_kept=6,  # thinkings of 300 words or fewer
    ),
    "forty_spaces_after_each_sentence": Case(
        "max_spaced_gap_chars",
        _prose_lines(lambda line: re.sub(r"(?<=[.!?]) ", " " * 40, line)),
        most_kept=35,  # thinkings of eight sentences or fewer
    ),
    "spaces_around_each_operator_of_the_code": Case(
        "max_spaced_gap_chars",
        _code(lambda code: re.sub(r" ([=+*<≤≥-]) ", " " * 20 + r"\1" + " " * 20, code)),
        most_kept=92,  # proofs with seven operators or fewer on lines with words (`_ = 4` lines are aligned terms)
    ),
    # Indentation.
    "the_thinking_shifted_by_30": Case("max_deep_indent_chars", _prose_lines(lambda line: " " * 30 + line)),
    "the_thinking_shifted_by_20": Case(
        "max_deep_indent_chars",
        _prose_lines(lambda line: " " * 20 + line),
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
    ),
    "two_tables_aligned_with_spaces": Case(
        "max_spaced_gap_chars", _before_the_thinking(_residue_table(7) + "\n\n" + _residue_table(9))
    ),
    "derivations_aligned_under_their_relations": Case(
        "max_deep_indent_chars",
        _before_the_thinking(
            "$$\n\\begin{aligned}\n(a + b + c)(a^2 + b^2 + c^2 - ab - bc - ca) &= a^3 + ab^2 + ac^2 - a^2 b - abc\n"
            + " " * 44
            + "&\\quad + a^2 b + b^3 + bc^2 - ab^2 - b^2 c - abc\n"
            + " " * 44
            + "&= a^3 + b^3 + c^3 - 3abc\n\\end{aligned}\n$$\n\n"
            + "(x + y)^2 + (x - y)^2 = x^2 + 2xy + y^2 + x^2 - 2xy + y^2\n"
            + "\n".join(" " * 22 + f"= {rhs}" for rhs in ("2x^2 + 2y^2", "2(x^2 + y^2)", "2 * 25", "50"))
        ),
    ),
    "a_calc_chain_aligned_on_its_relations_in_a_block": Case(
        "max_deep_indent_chars",
        lambda row: {
            **row,
            "completion": with_thinking(
                row["completion"],
                "```tactics\n" + _CALC + "\n```\n\n" + thinking_of(row["completion"]),
            ),
        },
        most_lost=44,  # rows whose final code uses none of the block's tactics: the alignment rule
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
        most_lost=1,  # a row whose final code uses no `positivity`: the alignment rule
    ),
}


test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)


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
