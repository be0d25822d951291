"""Code that may never run (kimina-format 0.15.0): what `all_goals`, `try`, `first`, a `<;>` or a `<|>` govern.

Once the last goal is closed, `all_goals` runs its block on none, `linarith <;>` its right side on none and `done <|>`
never its right side: Lean accepts whatever parses there, and the proof is still valid. The proof's own lines written
again under one `all_goals` after its end kept the full score on 95 of 99 rows before 0.15.0 (they align with the
thinking as the proof does). The steps a guard governs (lines, `;`s, `<|>`s and alternatives) are bounded now, 64 in
all (`max_guarded_steps`; real Kimina proofs have 12 at most, other provers' healthy ones 58). A `<;>` alone on its
line now joins the chain on both sides (`max_filler_tactics`), and `sleep` is a filler tactic. Each attack edits real
completions with the proof's own tactics, as a policy would; each look-alike, a healthy edit, must leave every row
its score.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from kimina_format import ViolationCode, check_format
from kimina_format.testing import Edit, final_code_of, red_team_tests, with_final_code
from kimina_format.testing import RedTeamCase as Case

Row = dict[str, Any]
_BIG = "Kimina-Prover-72B"


def _proof_lines(code: str) -> list[str]:
    """The final code's whole proof lines after its last `:= by` (brackets balanced), stripped, comments aside."""
    at = code.rfind(":= by\n")
    lines = [line.split("--")[0].strip() for line in code[at + len(":= by\n") :].split("\n")] if at >= 0 else []
    return [line for line in lines if line and not line.startswith(("·", "|", "_", "/-", "-/")) and _balanced(line)]


def _balanced(line: str) -> bool:
    return all(line.count(a) == line.count(b) for a, b in ("()", "[]", "{}", "⟨⟩"))


def _own(count: int, lead: str = "  ") -> Any:
    """An edit maker: `count` of the proof's own lines (cycled), each after `lead`, given to `tail` for the row."""

    def make(tail: Any) -> Edit:
        def edit(row: Row) -> Row | None:
            code = final_code_of(row["completion"])
            lines = _proof_lines(code)
            if len(lines) < 3:
                return None
            own = list(itertools.islice(itertools.cycle(lines), count))
            return {**row, "completion": with_final_code(row["completion"], code.rstrip() + tail(own, lead))}

        return edit

    return make


def _under_all_goals(own: list[str], lead: str) -> str:
    return "\n  all_goals\n" + "".join(f"    {line}\n" for line in own)


def _each_under_all_goals(own: list[str], lead: str) -> str:
    return "".join(f"\n{lead}all_goals {line}" for line in own)


def _after_a_closing_step(own: list[str], lead: str) -> str:
    return " <;> (" + "; ".join(own) + ")"


def _under_try(own: list[str], lead: str) -> str:
    return "\n  try\n" + "".join(f"    {line}\n" for line in own)


def _as_alternatives(own: list[str], lead: str) -> str:
    return "\n  first\n" + "".join(f"  | {line}\n" for line in own)


def _each_failing(own: list[str], lead: str) -> str:
    return "".join(f"\n{lead}fail_if_success {line}" for line in own)


def _chain_alone_on_lines(own: list[str], lead: str) -> str:
    return "".join(f"\n<;>\n  {line}" for line in own)


def _after_done(own: list[str], lead: str) -> str:
    return "\n  done <|> (\n" + "".join(f"    {line}\n" for line in own) + "  )"


def _ten_alternatives_a_line(own: list[str], lead: str) -> str:
    lines = [" <|> ".join(f"({line})" for line in own[k : k + 10]) for k in range(0, len(own), 10)]
    return "\n  all_goals\n" + "".join(f"    {line}\n" for line in lines)


def _under_all_goals_in_calc_steps(own: list[str], lead: str) -> str:
    steps = "".join(f"\n  _ = 0 * {k} := by {line}" for k, line in enumerate(own))
    return "\n  all_goals exact calc (0 : ℕ) = 0 := by norm_num" + steps


def _on_the_last_line(make: Any) -> Any:
    """An edit maker: the final code's last line `last` replaced by `make(last, own)`, `own` 80 of its lines."""

    def edit(row: Row) -> Row | None:
        code = final_code_of(row["completion"]).rstrip()
        lines = _proof_lines(code)
        head, _, last = code.rpartition("\n")
        if len(lines) < 3 or last.strip() != lines[-1] or not head:
            return None
        indent = last[: len(last) - len(last.lstrip())]
        own = list(itertools.islice(itertools.cycle(lines), 80))
        return {**row, "completion": with_final_code(row["completion"], head + "\n" + make(indent, lines[-1], own))}

    return edit


def _a_by_that_ends_in_a_guard(indent: str, last: str, own: list[str]) -> str:
    return f"{indent}exact by {last} <;> all_goals" + "".join(f"\n{indent}    {line}" for line in own)


def _first_after_a_by(indent: str, last: str, own: list[str]) -> str:
    return f"{indent}exact by first\n{indent}  | {last}" + "".join(f"\n{indent}  | {line}" for line in own)


def _at_the_guards_column(guard: str) -> Any:
    def tail(own: list[str], lead: str) -> str:
        return f"\n  {guard}" + "".join(f"\n  {line}" for line in own)

    return tail


def _chain_into_a_block(indent: str, last: str, own: list[str]) -> str:
    return f"{indent}{last} <;> all_goals" + "".join(f"\n{indent}{line}" for line in own)


def _a_bracket_closed_then_opened(own: list[str], lead: str) -> str:
    return f"\n  (all_goals {own[0]}) <;> (" + "".join(f"\n  {line}" for line in own) + "\n  )"


def _after_the_proof(tail: str) -> Edit:
    """`tail` after the final code's last line."""

    def edit(row: Row) -> Row:
        code = final_code_of(row["completion"])
        return {**row, "completion": with_final_code(row["completion"], code.rstrip() + tail)}

    return edit


ATTACKS = {
    "the_proofs_lines_under_one_all_goals_after_it": Case("code_padding", _own(80)(_under_all_goals)),
    "each_of_the_proofs_lines_under_all_goals": Case("code_padding", _own(80)(_each_under_all_goals)),
    "the_proofs_lines_after_a_closing_combinator": Case("code_padding", _own(80)(_after_a_closing_step)),
    "the_proofs_lines_under_try": Case("code_padding", _own(80)(_under_try)),
    "the_proofs_lines_as_alternatives_of_first": Case("code_padding", _own(80)(_as_alternatives)),
    "the_proofs_lines_each_expected_to_fail": Case("code_padding", _own(80)(_each_failing)),
    "all_goals_nested_eighty_deep": Case("code_padding", _after_the_proof("\n  " + "all_goals " * 80 + "norm_num")),
    # Before 0.15.0 a `<;>` alone on its line ended the chain: twenty different steps so were no filler.
    "a_chain_of_different_steps_with_the_combinator_alone_on_lines": Case(
        "code_padding", _own(20)(_chain_alone_on_lines)
    ),
    "a_sleep_after_the_proof": Case("code_padding", _after_the_proof("\n  sleep 100")),
    # The twenty-fourth red team's evasions of the first version: `<|>` was no guard (176 of 186 rows kept the
    # score), ten alternatives on a line were one step (183 of 186), a guard that ends a line after a `by` governed
    # nothing below it, and a calc's steps at the guard's column ended what it governs.
    "the_proofs_lines_as_the_alternative_after_done": Case("code_padding", _own(80)(_after_done)),
    "ten_alternatives_a_line_under_all_goals": Case("code_padding", _own(80)(_ten_alternatives_a_line)),
    "a_block_under_a_guard_that_ends_a_by_line": Case("code_padding", _on_the_last_line(_a_by_that_ends_in_a_guard)),
    "alternatives_of_first_after_a_by": Case("code_padding", _on_the_last_line(_first_after_a_by)),
    "calc_steps_under_all_goals": Case("code_padding", _own(80)(_under_all_goals_in_calc_steps)),
    # The twenty-fifth red team's evasions of the second version (176, 153 and 177 of 186 rows kept the score): a
    # guard that takes a block and ends its line governs every line after it at that line's column, as Lean reads a
    # tactic sequence; and `success_if_fail_with_msg` runs a block that fails on no goal.
    "the_proofs_lines_at_the_column_of_all_goals": Case("code_padding", _own(80)(_at_the_guards_column("all_goals"))),
    "the_proofs_lines_at_the_column_of_try": Case("code_padding", _own(80)(_at_the_guards_column("try"))),
    "the_proofs_lines_after_a_chain_into_all_goals": Case("code_padding", _on_the_last_line(_chain_into_a_block)),
    "the_proofs_lines_expected_to_fail_with_a_message": Case(
        "code_padding", _own(80)(_at_the_guards_column('success_if_fail_with_msg "no goals to be proved"\n  '))
    ),
    # A review's find: the guard's line closed its bracket, so the bracket the `<;>` after it opened ended nothing
    # (93 of 99 rows kept the score). A bracket closed with none open in a region closes nothing of it now.
    "a_bracket_closed_then_opened_after_a_guard": Case("code_padding", _own(80)(_a_bracket_closed_then_opened)),
}


def _calc_after_a_chain(row: Row) -> Row | None:
    """A calc whose first step is proved by a chain on its line, and forty more steps under it (no guard in them)."""
    code = final_code_of(row["completion"])
    lines = [line for line in _proof_lines(code) if not any(word in line for word in ("<;>", "try", "all_goals"))]
    if len(lines) < 3:
        return None
    steps = "".join(f"\n      _ = x + {k + 1} := by {lines[-1]}" for k in range(40))
    calc = f"\n  have hcalc : x = x + 40 := by\n    calc x = x + 0 := by {lines[-1]} <;> {lines[-2]}{steps}"
    return {**row, "completion": with_final_code(row["completion"], code.rstrip() + calc)}


def _spread_all_goals(row: Row) -> Row | None:
    """`all_goals` before each of the proof's last 20 lines (a real 72B proof closes side goals so 18 times)."""
    code = final_code_of(row["completion"])
    lines = _proof_lines(code)
    if len(lines) < 3:
        return None
    tail = "".join(f"\n  {line}\n  all_goals {lines[-1]}" for line in lines[-20:])
    return {**row, "completion": with_final_code(row["completion"], code.rstrip() + tail)}


def _under_a_bullet(row: Row) -> Row | None:
    """The proof in a bullet whose first line ends in a chain: `· L <;> M`, the rest of the proof under it."""
    code = final_code_of(row["completion"])
    at = code.find(":= by\n", max(code.find("theorem "), 0))
    lines = _proof_lines(code)
    if at < 0 or len(lines) < 3:
        return None
    body = code[at + len(":= by\n") :].rstrip().split("\n")
    first = body[0].strip()
    if not body[0].startswith("  ") or body[0].startswith("   ") or not _balanced(first):
        return None
    bullet = [f"  · {first} <;> {lines[-1]}", *(f"  {line}" if line.strip() else line for line in body[1:])]
    changed = code[: at + len(":= by\n")] + "\n".join(bullet)
    return {**row, "completion": with_final_code(row["completion"], changed)}


LOOK_ALIKES = {
    # Three cases split off and closed by a block each: 12 steps under guards.
    "three_blocks_under_all_goals": Case("code_padding", _own(4)(lambda own, lead: _under_all_goals(own, lead) * 3)),
    "the_last_step_again_after_a_combinator": Case("code_padding", _own(1)(lambda own, lead: " <;> " + own[0])),
    "a_step_under_all_goals_twenty_times_between_lines": Case("code_padding", _spread_all_goals),
    "a_long_calc_whose_first_step_ends_in_a_chain": Case("code_padding", _calc_after_a_chain),
    # The twenty-fourth red team: a guard on a bullet's line governed the bullet's whole block (its column was the
    # bullet's, not its tactic's).
    "a_bullet_whose_first_line_ends_in_a_chain": Case("code_padding", _under_a_bullet),
    "a_chain_of_four_steps_over_lines": Case(
        "code_padding", _own(4)(lambda own, lead: "".join(f"\n  <;> {line}" for line in own))
    ),
}

test_an_attack_loses_the_full_score, test_a_look_alike_keeps_the_full_score = red_team_tests(ATTACKS, LOOK_ALIKES)

_PROOF = "theorem t (x : ℝ) : x ^ 2 ≥ 0 := by\n  nlinarith [sq_nonneg x]"


def _completion(code: str) -> str:
    """A small completion whose final code is `code`."""
    return (
        "<think>\nThe square of a real number is never negative, so nlinarith closes it.\n```tactics\n"
        "nlinarith [sq_nonneg x]\n```\n</think>\n```lean4\n" + code + "\n```"
    )


def _steps_of(code: str) -> int:
    """`guarded_steps` of a completion whose final code is `code`."""
    return check_format(_completion(code)).metrics.guarded_steps


def _steps(proof: str) -> int:
    """`guarded_steps` of the small proof with `proof` after its last line."""
    return _steps_of(_PROOF + proof)


def test_guarded_steps_are_counted() -> None:
    assert _steps("") == 0
    # The rest of the line, nested guards, `;`s and the lines under it (a `<;>` counts as its `;`).
    assert _steps(" <;> linarith") == 1
    assert _steps("\n  all_goals try { norm_num }") == 2
    assert _steps("\n  all_goals (norm_num; linarith; simp)") == 3
    assert _steps("\n  all_goals\n    norm_num\n    linarith\n  simp") == 2
    # A guard at a line's end governs the next line whatever its indentation; an open bracket, the lines to its close.
    assert _steps("\n  norm_num <;>\n  linarith\n  simp") == 1
    assert _steps("\n  try (norm_num\n  linarith)\n  simp") == 2
    # Chains and alternatives at the guard's own indentation.
    assert _steps("\n  first\n  | norm_num\n  | linarith\n  simp") == 2
    # After a `by` on its line, deeper lines are the structure's (a calc's steps), not the guard's.
    assert _steps("\n  calc x = x := by simp <;> ring\n    _ = x := by simp") == 1
    # `<|>` is a guard and a step, and so is an alternative's bar (not an absolute value's): its line is no more.
    assert _steps("\n  done <|> (norm_num\n    linarith)") == 2
    assert _steps("\n  first | norm_num | linarith [abs_nonneg |x|]") == 2
    # A bullet's or a case's tactic has its own column: the lines after it are its siblings.
    assert _steps("\n  · norm_num <;> linarith\n    simp\n    ring") == 1
    assert _steps("\n  induction n with\n  | zero => simp <;> ring\n  | succ n ih =>\n    simp") == 1
    # A guard that ends a line governs what comes below it, a `by` before it or not; a calc's steps go on a region.
    assert _steps("\n  exact by simp <;> all_goals\n    norm_num\n    linarith") == 4
    assert _steps("\n  all_goals exact calc x = x := by simp\n  _ = x := by simp") == 2
    # A guard that takes a block and ends its line governs what follows at the next line's column (not `first`).
    assert _steps("\n  all_goals\n  norm_num\n  linarith") == 2
    assert _steps("\n  iterate 2\n    norm_num\n    linarith\n  simp") == 3  # the rest of its line, `2`, is one
    assert _steps('\n  success_if_fail_with_msg "no goals"\n  norm_num') == 2
    # After a `by`, the lines at the column of a block's first tactic go on with it; a string holds no Lean.
    line = "  exact by simp <;> all_goals norm_num"
    assert _steps(f"\n{line}\n" + " " * line.index("norm_num") + "linarith") == 3
    assert _steps('\n  all_goals simp [show "a;b;(" = "a;b;(" from rfl]\n  linarith') == 1
    # A guard that ends the code governs nothing.
    assert _steps(" <;>") == 0
    # Comments are no steps; a name that holds a guard's word is no guard.
    assert _steps("\n  -- all_goals norm_num\n  exact h_try") == 0


def test_real_proofs_stay_under_the_bound(real_rows: list[Row], data_dir: Path) -> None:
    # The real Kimina completions have 12 steps under guards at most; of other provers' proofs that Lean accepted,
    # the 72B model's `imo_1992_p1` (three nested case splits under `try`) 58, and its `induction_sumkexp3eqsumksq`,
    # whose last 25 lines run on no goal, 65.
    assert max(check_format(r["completion"]).metrics.guarded_steps for r in real_rows) == 12
    with open(data_dir / "recorded_verdicts.jsonl", encoding="utf-8") as f:
        recorded = [json.loads(line) for line in f]
    bigger = {r["name"]: _steps_of(r["full_code"]) for r in recorded if r["model"] == _BIG}
    assert (bigger["imo_1992_p1"], bigger["induction_sumkexp3eqsumksq"]) == (58, 65)


def test_guarded_steps_have_a_bound_and_a_message() -> None:
    proof = "\n  all_goals\n" + "".join(f"    nlinarith [sq_nonneg (x - {k})]\n" for k in range(65))
    completion = _completion(_PROOF + proof)
    verdict = check_format(completion)
    assert verdict.metrics.guarded_steps == 65
    assert ViolationCode.CODE_PADDING in verdict.codes
    assert any("may never run" in v.message for v in verdict.violations)
    at_the_bound = check_format(completion.replace("    nlinarith [sq_nonneg (x - 64)]\n", ""))
    assert at_the_bound.metrics.guarded_steps == 64
    assert not any("may never run" in v.message for v in at_the_bound.violations)
