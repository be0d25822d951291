"""Padding where no rule read it (kimina-format 0.14.0): the tactic blocks' long lines, and `<;>` chains.

Nothing checks a tactic block's Lean, and the English-line rules look for words: one line of 20,000 `~` in the first
tactic block kept the full score on 44 of 47 real rows (every fourth), a dozen lines of `&nbsp;` or `norm_num `
written again and again on 26 of 47. A tactic-block line is bounded as a final-code line is (`max_code_line_chars`),
and more than one of 256 characters or more that compresses below a tenth, the final code's lines aside, is padding
(`max_padded_tactic_lines`). Lean accepts a proof that ends in `<;> norm_num` 300 times (run on no goal), which kept
the full score on every row: a step written a seventh time in its chain (which goes on over a line break before or
after a `<;>`; a bracket holds chains of its own), or past the 16th, is a filler tactic now. The twenty-first red team's false rejects of the first
bounds (a step a third time, any padded line) are look-alikes here. Each attack edits real completions; each
look-alike, a healthy edit, must leave every row its score.
"""

from __future__ import annotations

import re
from typing import Any

from kimina_format import ViolationCode, check_format
from kimina_format.testing import Edit, final_code_of, red_team_tests, thinking_of, with_final_code, with_thinking
from kimina_format.testing import RedTeamCase as Case

Row = dict[str, Any]
_OPEN = "`" * 3 + "tactics\n"


def _in_first_block(lines: list[str]) -> Edit:
    """`lines` at the head of the thinking's first tactic block."""

    def edit(row: Row) -> Row | None:
        thinking = thinking_of(row["completion"])
        at = thinking.find(_OPEN)
        if at == -1:
            return None
        at += len(_OPEN)
        changed = thinking[:at] + "\n".join(lines) + "\n" + thinking[at:]
        return {**row, "completion": with_thinking(row["completion"], changed)}

    return edit


def _after_the_proof(tail: str) -> Edit:
    """`tail` after the final code's last line."""

    def edit(row: Row) -> Row:
        code = final_code_of(row["completion"])
        return {**row, "completion": with_final_code(row["completion"], code.rstrip() + tail)}

    return edit


def _units(unit: str, lines: int = 12) -> list[str]:
    """`lines` lines of `unit` written again and again, each longer than the one before (no two alike)."""
    return ["  " + unit * ((400 + 37 * k) // len(unit)) for k in range(lines)]


_STEPS = "norm_num linarith nlinarith simp ring_nf omega positivity field_simp".split()
_HINTS = ", ".join(f"sq_nonneg (x - {k})" for k in range(40))

ATTACKS = {
    "one_line_of_a_mark_in_a_tactic_block": Case("tactic_block_too_long", _in_first_block(["~" * 20_000])),
    "lines_of_quad_in_a_tactic_block": Case("tactic_block_too_long", _in_first_block(_units("$\\quad$"))),
    "lines_of_a_tactic_name_in_a_tactic_block": Case("tactic_block_too_long", _in_first_block(_units("norm_num "))),
    "lines_of_html_spaces_in_a_tactic_block": Case("tactic_block_too_long", _in_first_block(_units("&nbsp;"))),
    "lines_of_one_letter_pair_in_a_tactic_block": Case("tactic_block_too_long", _in_first_block(_units("ab"))),
    "a_tactic_run_on_no_goal_300_times": Case("code_padding", _after_the_proof(" <;> norm_num" * 300)),
    "two_tactics_in_turn_on_no_goal": Case("code_padding", _after_the_proof(" <;> norm_num <;> simp" * 100)),
    "a_parenthesised_step_on_lines_of_its_own": Case("code_padding", _after_the_proof("\n  <;> (norm_num)" * 50)),
    "a_chain_of_many_different_steps": Case(
        "code_padding", _after_the_proof("".join(f" <;> {step} at *" for step in _STEPS * 2) + " <;> rfl")
    ),
    # Each line ends in `<;>`: one chain over 40 lines (the twenty-first red team: 47 of 47 rows kept the score).
    "a_step_a_line_each_ending_in_the_combinator": Case(
        "code_padding", _after_the_proof("\n  <;> norm_num <;>" + "\n  norm_num <;>" * 38 + "\n  norm_num")
    ),
    "two_padded_lines_in_a_tactic_block": Case("tactic_block_too_long", _in_first_block(_units("~", 2))),
}


_REWRITES = "  rw [" + ", ".join(["Finset.sum_range_succ"] * 20) + "]"
_SIMP_ONLY = "  simp only [" + ", ".join(["Finset.sum_range_succ"] * 30 + ["Finset.sum_range_zero"]) + "]"


def _drafted(line: str) -> Edit:
    """`line` at the head of the first tactic block and after the final code's last line: a draft of the proof."""

    def edit(row: Row) -> Row | None:
        drafted = _in_first_block([line])(row)
        if drafted is None:
            return None
        return _after_the_proof("\n" + line)(drafted)

    return edit


def _own_chain(row: Row) -> Row | None:
    """A chain of the final code's last two different tactics, each twice (`A <;> B <;> A <;> B`), on a line of its own."""
    code = final_code_of(row["completion"])
    names = list(dict.fromkeys(m.group(1) for m in re.finditer(r"(?m)^\s+([a-z_]+)\b", code)))[-2:]
    if len(names) < 2:
        return None
    chain = " <;> ".join(names * 2)
    return {**row, "completion": with_final_code(row["completion"], f"{code.rstrip()}\n  {chain}")}


LOOK_ALIKES = {
    # Forty hints of one form on one line compress to 0.17 of their bytes; real tactic-block lines, 0.26 at least.
    # One row loses the score to alignment: `nlinarith` is new to its blocks (tactic name IoU 0.14, limit 0.15).
    "a_long_hint_list_in_a_tactic_block": Case(
        "tactic_block_too_long", _in_first_block([f"  nlinarith [{_HINTS}]"]), most_lost=1
    ),
    "a_chain_that_takes_two_steps_twice": Case("code_padding", _own_chain),
    # The twenty-first red team's false rejects of the first bounds (47 of 47 rows each).
    "a_rewrite_list_unfolding_a_sum_drafted_then_used": Case("tactic_block_too_long", _drafted(_REWRITES)),
    # Two drafts that unfold a sum in a way the final code does not (the twenty-second red team: 94 of 94 rows lost
    # the score, a list of names twenty times compresses below a tenth).
    "two_drafts_of_a_rewrite_list": Case(
        "tactic_block_too_long",
        _in_first_block([_REWRITES + " at h", "  rw [" + ", ".join(["Finset.sum_range_succ"] * 25) + "] at h ⊢"]),
    ),
    # One row loses the score to alignment, as with the hint list above.
    "one_draft_line_of_a_long_simp_list": Case("tactic_block_too_long", _in_first_block([_SIMP_ONLY]), most_lost=1),
    # Chains drafted in a block, then used (their tactics new to the final code would tip its alignment).
    "a_chain_that_takes_a_step_three_times": Case(
        "code_padding", _drafted("  norm_num <;> simp_all <;> nlinarith <;> simp_all <;> nlinarith <;> simp_all")
    ),
    "a_chain_that_tries_between_its_steps": Case(
        "code_padding",
        _drafted("  nlinarith <;> norm_num <;> (try ring_nf) <;> norm_num <;> (try linarith) <;> norm_num"),
    ),
    "a_chain_over_lines_that_takes_a_step_three_times": Case(
        "code_padding",
        _drafted(
            "  nlinarith [sq_nonneg (x - 1)]\n  <;> norm_num at h ⊢\n  <;> ring_nf at h ⊢\n  <;> norm_num at h ⊢"
            "\n  <;> nlinarith [sq_nonneg (x - 1)]\n  <;> norm_num at h ⊢"
        ),
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)

_PROOF = "theorem t (x : ℝ) : x ^ 2 ≥ 0 := by\n  nlinarith [sq_nonneg x]"


def _completion(block: str, proof: str = _PROOF) -> str:
    return (
        f"<think>\nThe square of a real number is never negative, so nlinarith closes it.\n{_OPEN}{block}\n```\n"
        f"Then the final proof.\n{_OPEN}nlinarith [sq_nonneg x]\n```\n</think>\n```lean4\n{proof}\n```"
    )


def test_a_tactic_block_line_is_measured() -> None:
    verdict = check_format(_completion("nlinarith [" + "~" * 5_000 + "]"))
    assert verdict.metrics.longest_tactic_line == 5_000 + len("nlinarith[]")
    assert ViolationCode.TACTIC_BLOCK_TOO_LONG in verdict.codes
    assert any("tactic-block line has" in v.message for v in verdict.violations)
    padded = check_format(_completion("\n".join(_units("$\\quad$", 3))))
    assert padded.metrics.padded_tactic_lines == 3
    assert any("one short unit written again and again" in v.message for v in padded.violations)
    # Short lines are not read: they cannot pad a block much.
    short = check_format(_completion("norm_num " * 20))
    assert (short.metrics.longest_tactic_line, short.metrics.padded_tactic_lines) == (0, 0)


def test_chain_fillers_are_counted_per_chain() -> None:
    def fillers(proof: str) -> int:
        return check_format(_completion("nlinarith [sq_nonneg x]", _PROOF + proof)).metrics.filler_tactics

    # A step six times in each of two chains is no filler; a seventh time in one chain is, its parentheses aside and
    # over line breaks before and after a `<;>`.
    assert fillers(" <;> norm_num" * 6 + "\n  all_goals norm_num" + " <;> norm_num" * 6) == 0
    assert fillers(" <;> norm_num <;> (norm_num)\n  <;> norm_num <;>\n  norm_num" + " <;> norm_num" * 3) == 1
    assert fillers("".join(f" <;> simp [h{k}]" for k in range(20))) == 4
    # Sixteen steps, none seven times: the bound.
    assert fillers("".join(f" <;> {step} at *" for step in _STEPS * 2)) == 0
    # Each bracket holds chains of its own, and a comma or a semicolon ends one.
    assert fillers("\n  exact ⟨" + ", ".join(["by norm_num <;> linarith"] * 8) + "⟩") == 0
    assert fillers("\n  exact ⟨by norm_num" + " <;> norm_num" * 9 + "⟩") == 3
    assert fillers("\n  " + "; ".join(["constructor <;> norm_num"] * 8)) == 0
    assert fillers("".join(f" <;> nlinarith [sq_nonneg (x - {k}), h] <;> linarith" for k in range(5))) == 0
