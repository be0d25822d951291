"""Feedback for the error-fix turn: the model's own line numbers, the code window, goals, limits and budget."""

from __future__ import annotations

from typing import Any

import pytest
from kimina_verify import (
    CheckCode,
    IntegrityViolation,
    LeanCode,
    LeanMessage,
    Verdict,
    VerdictKind,
    build_check_code,
    check_integrity,
    render_feedback,
    verdict_from_result,
)
from kimina_verify.feedback import TRUNCATION_MARKER

# Blank lines and comments after the imports: upstream's marker was off by exactly these lines.
MODEL = """import Mathlib
import Aesop

set_option maxHeartbeats 400000

/- The problem:
   show x < 2. -/

-- main theorem
theorem t (x : ℝ) (h : x = 1) : x < 2 := by
  subst h
  norm_num
  linarith
"""
STATEMENT = "import Mathlib\nimport Aesop\n\nopen Real\n\ntheorem t (x : ℝ) (h : x = 1) : x < 2 := by\n  sorry"


def error_at(check: CheckCode, needle: str, data: str, *, shift: int = 0) -> dict[str, Any]:
    """A server result with an error on the sent line containing `needle` (reported `shift` lines up)."""
    sent = check.text.split("\n")
    line = next(i for i, text in enumerate(sent, start=1) if needle in text and not text.startswith("#"))
    axioms_line = check.axioms_checks[0][0] if check.axioms_checks else None
    messages = [{"severity": "error", "pos": {"line": line - shift, "column": 2}, "data": data}]
    if axioms_line is not None:
        messages.append(
            {"severity": "info", "pos": {"line": axioms_line - shift, "column": 0}, "data": "'t' depends on axioms: []"}
        )
    return {"id": "0", "time": 0.2, "response": {"env": 0, "messages": messages}}


@pytest.mark.parametrize("statement", [None, STATEMENT])
@pytest.mark.parametrize("body_relative", [False, True])
def test_error_line_is_numbered_in_the_models_code(statement: str | None, body_relative: bool) -> None:
    check = build_check_code(MODEL, statement)
    shift = check.server_header_lines if body_relative else 0
    verdict = verdict_from_result(error_at(check, "linarith", "linarith failed", shift=shift), check)
    feedback = render_feedback(MODEL, verdict)
    assert "# Error 1 (line 13)" in feedback
    assert "13 >   linarith" in feedback
    assert "11 |   subst h" in feedback and "12 |   norm_num" in feedback
    assert "linarith failed" in feedback


def test_recorded_body_relative_positions_land_on_the_right_line(recorded_rows: list[dict[str, Any]]) -> None:
    """Real REPL output from a kimina-lean-server that reported lines relative to the body."""
    row = next(r for r in recorded_rows if r["name"] == "lean_workbook_1001")
    code = row["full_code"]
    lean = LeanCode(code)
    identity = CheckCode(code, code, tuple(range(1, len(lean.lines) + 1)), (), lean.server_header_line_count)
    messages = [{**m, "severity": "error"} for m in row["messages"] if "never executed" in m["data"]]
    verdict = verdict_from_result({"id": "0", "response": {"messages": messages}}, identity, positions="body")
    feedback = render_feedback(code, verdict, max_errors=1)
    first = verdict.errors[0].line
    assert first is not None and code.split("\n")[first - 1].strip() == "<;> simp [Complex.I_sq]"
    assert f"{first} >   <;> simp [Complex.I_sq]" in feedback


def test_goals_before_the_error_come_from_the_infotree() -> None:
    check = build_check_code(MODEL)
    result = error_at(check, "linarith", "linarith failed")
    repl_line = next(i for i, t in enumerate(check.text.split("\n"), 1) if "linarith" in t) - check.server_header_lines
    node = {"stx": {"range": {"start": {"line": repl_line, "column": 2}, "finish": {"line": repl_line, "column": 10}}}}
    outer = {"stx": {"range": {"start": {"line": 1, "column": 0}, "finish": {"line": 99, "column": 0}}}}
    result["response"]["infotree"] = [
        {
            "node": {**outer, "goalsBefore": ["x : ℝ\n⊢ x < 2"]},
            "kind": "TacticInfo",
            "children": [{"node": {**node, "goalsBefore": ["⊢ 1 < 2"]}, "kind": "TacticInfo", "children": []}],
        }
    ]
    feedback = render_feedback(MODEL, verdict_from_result(result, check))
    assert "Goals before the error:\n⊢ 1 < 2" in feedback
    assert "x : ℝ\n⊢ x < 2" not in feedback  # the innermost tactic wins


def test_no_goals_section_without_an_infotree() -> None:
    check = build_check_code(MODEL)
    feedback = render_feedback(MODEL, verdict_from_result(error_at(check, "linarith", "failed"), check))
    assert "Goals" not in feedback


def test_only_the_first_errors_are_shown() -> None:
    messages = tuple(LeanMessage("error", f"problem {i}", line=11 + i % 3, column=2) for i in range(5))
    feedback = render_feedback(MODEL, Verdict(VerdictKind.LEAN_ERROR, messages=messages), max_errors=2)
    assert "problem 0" in feedback and "problem 1" in feedback and "problem 2" not in feedback
    assert "(3 more errors not shown)" in feedback


def test_budget_truncates_with_a_marker_instead_of_dropping() -> None:
    huge = "unsolved goals\n" + "⊢ " + "a + " * 5000 + "b"
    verdict = Verdict(VerdictKind.LEAN_ERROR, messages=(LeanMessage("error", huge, line=13, column=2),))
    feedback = render_feedback(MODEL, verdict, max_chars=500)
    assert len(feedback) <= 500
    assert feedback.startswith("# Error 1 (line 13)") and feedback.endswith(TRUNCATION_MARKER)


def test_sorry_feedback_points_at_the_declaration() -> None:
    messages = (LeanMessage("warning", "declaration uses `sorry`", line=10, column=8),)
    feedback = render_feedback(MODEL, Verdict(VerdictKind.SORRY, messages=messages))
    assert "declaration uses `sorry`" in feedback and "10 > theorem t" in feedback


def test_integrity_feedback_quotes_the_offending_line() -> None:
    code = MODEL.replace("  linarith", "  sorry")
    feedback = render_feedback(code, Verdict.integrity(check_integrity(code)))
    assert "# Rejected 1: sorry" in feedback and "13 >   sorry" in feedback


def test_axiom_violation_without_a_line() -> None:
    verdict = Verdict.integrity(
        [IntegrityViolation("axioms", "the proof depends on axioms outside the accepted set: cheat")]
    )
    assert render_feedback(MODEL, verdict) == (
        "# Rejected 1: axioms\nthe proof depends on axioms outside the accepted set: cheat"
    )


def test_timeout_feedback() -> None:
    feedback = render_feedback(MODEL, Verdict(VerdictKind.TIMEOUT, time_s=60.0))
    assert feedback.startswith("# Timeout") and "60 s" in feedback


def test_valid_and_infra_give_no_feedback() -> None:
    assert render_feedback(MODEL, Verdict(VerdictKind.VALID)) == ""
    assert render_feedback(MODEL, Verdict.infra("server down")) == ""


def test_error_outside_the_models_code_has_no_window() -> None:
    message = LeanMessage("error", "unknown module prefix 'Foo'", line=None)
    feedback = render_feedback(MODEL, Verdict(VerdictKind.LEAN_ERROR, messages=(message,)))
    assert feedback == "# Error 1\nError message:\nunknown module prefix 'Foo'"
