"""Verdicts from server results: the strict validity rule, infra vs proof failures, axioms, positions, real outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kimina_verify import (
    CheckCode,
    IntegrityPolicy,
    ServerResult,
    Verdict,
    VerdictKind,
    Violation,
    build_check_code,
    verdict_from_result,
)


def msg(severity: str, data: str, line: int = 1, column: int = 0) -> dict[str, Any]:
    return {"severity": severity, "pos": {"line": line, "column": column}, "endPos": None, "data": data}


def kind(response: dict[str, Any] | None = None, error: str | None = None) -> VerdictKind:
    return verdict_from_result({"id": "0", "time": 0.5, "response": response, "error": error}).kind


SORRY_OLD = "declaration uses 'sorry'"
SORRY_NEW = "declaration uses `sorry`"


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ({"env": 0}, VerdictKind.VALID),
        ({"env": 0, "messages": [msg("warning", "unused variable `h`")]}, VerdictKind.VALID),
        ({"env": 0, "messages": [msg("info", "Goals accomplished!")]}, VerdictKind.VALID),
        ({"env": 0, "messages": [msg("warning", SORRY_OLD)]}, VerdictKind.SORRY),
        ({"env": 0, "messages": [msg("warning", SORRY_NEW)]}, VerdictKind.SORRY),
        ({"env": 0, "sorries": [{"pos": {"line": 1, "column": 2}, "goal": "⊢ True"}]}, VerdictKind.SORRY),
        ({"env": 0, "sorries": [{"proofState": 0}]}, VerdictKind.SORRY),  # tactic-mode sorry without a position
        ({"env": 0, "messages": [msg("error", "linarith failed")]}, VerdictKind.LEAN_ERROR),
        ({"env": 0, "messages": [msg("error", "x"), msg("warning", SORRY_OLD)]}, VerdictKind.LEAN_ERROR),
        ({"message": "Unknown environment."}, VerdictKind.INFRA),
        ({"message": "Lean error:\nunknown tactic"}, VerdictKind.LEAN_ERROR),
    ],
)
def test_validity_rule(response: dict[str, Any], expected: VerdictKind) -> None:
    assert kind(response) is expected


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        ("Lean REPL command timed out in 60.0 seconds", VerdictKind.TIMEOUT),
        ("Lean process timed out", VerdictKind.TIMEOUT),
        ("Lean REPL header command timed out in 60.0 seconds", VerdictKind.INFRA),
        ("No available REPLs", VerdictKind.INFRA),
        ("Snippet execution failed: JSON decode error", VerdictKind.INFRA),
        ("Lean REPL crashed while checking this snippet (exit code -11): stack overflow", VerdictKind.INFRA),
        (
            "lean_error: Lean crashed on this snippet on two fresh REPLs (exit code 134), so the snippet crashes it:"
            " Stack overflow detected. Aborting.",
            VerdictKind.LEAN_ERROR,
        ),
        ("Lean REPL ran out of memory while checking this snippet (limit 8192 MiB)", VerdictKind.TIMEOUT),
        ("snippet is 2000000 bytes, over this server's limit of 1048576 bytes", VerdictKind.LEAN_ERROR),
    ],
)
def test_server_errors(error: str, expected: VerdictKind) -> None:
    assert kind(error=error) is expected


def test_missing_response_and_transport_failures_are_infra() -> None:
    assert kind() is VerdictKind.INFRA
    verdict = verdict_from_result(ServerResult.infra_failure("cannot reach http://x: ConnectError"))
    assert verdict.is_infra and not verdict.ok and "ConnectError" in verdict.detail


def test_timeout_keeps_its_time() -> None:
    verdict = verdict_from_result({"id": "0", "time": 60.0, "error": "Lean REPL command timed out in 60.0 seconds"})
    assert verdict.kind is VerdictKind.TIMEOUT and verdict.time_s == 60.0 and not verdict.is_infra


def test_v1_shape_with_time_inside_response() -> None:
    verdict = verdict_from_result({"custom_id": "1", "error": None, "response": {"env": 1, "time": 0.25}})
    assert verdict.ok and verdict.time_s == 0.25


# --- axioms ------------------------------------------------------------------------------------------------------

CODE = "import Mathlib\n\ntheorem t : 2 + 2 = 4 := by\n  norm_num\n"


def answer(check: CheckCode, axioms: str, positions: str = "file") -> dict[str, Any]:
    lines = check.text.split("\n")
    line = next(i for i, text in enumerate(lines, start=1) if text.startswith("#print axioms"))
    if positions == "body":
        line -= check.server_header_lines
    return {"id": "0", "time": 0.1, "response": {"env": 1, "messages": [msg("info", axioms, line)]}}


@pytest.mark.parametrize(
    ("axioms", "policy", "expected"),
    [
        ("'t' depends on axioms: [propext, Classical.choice, Quot.sound]", None, VerdictKind.VALID),
        ("'t' does not depend on any axioms", None, VerdictKind.VALID),
        ("'t' depends on axioms: [propext, sorryAx]", None, VerdictKind.SORRY),
        ("'t' depends on axioms: [propext, cheat]", None, VerdictKind.INTEGRITY),
        ("'t' depends on axioms: [Lean.ofReduceBool]", None, VerdictKind.VALID),
        (
            "'t' depends on axioms: [Lean.ofReduceBool]",
            IntegrityPolicy(allow_native_decide=False),
            VerdictKind.INTEGRITY,
        ),
        ("something else entirely", None, VerdictKind.INTEGRITY),
    ],
)
def test_axioms(axioms: str, policy: IntegrityPolicy | None, expected: VerdictKind) -> None:
    check = build_check_code(CODE)
    verdict = verdict_from_result(answer(check, axioms), check, policy=policy)
    assert verdict.kind is expected
    if expected is VerdictKind.VALID:
        assert verdict.messages == ()  # our #print axioms output is not shown as a message


def test_offending_axioms_are_named() -> None:
    check = build_check_code(CODE)
    verdict = verdict_from_result(answer(check, "'t' depends on axioms: [propext, cheat, other]"), check)
    assert verdict.violations == (
        Violation("axioms", "the proof depends on axioms outside the accepted set: cheat, other"),
    )
    assert verdict.axioms == ("propext", "cheat", "other")


def test_missing_axioms_report_is_not_valid() -> None:
    check = build_check_code(CODE)
    verdict = verdict_from_result({"id": "0", "time": 0.1, "response": {"env": 1}}, check)
    assert verdict.kind is VerdictKind.INTEGRITY
    assert verdict.violations[0].code == "axioms_unchecked"


def test_a_forged_axioms_message_elsewhere_is_ignored() -> None:
    check = build_check_code(CODE)
    forged = msg("info", "'t' does not depend on any axioms", line=3)
    verdict = verdict_from_result({"id": "0", "response": {"env": 1, "messages": [forged]}}, check)
    assert verdict.kind is VerdictKind.INTEGRITY


def test_a_trace_spelled_like_the_answer_makes_the_answer_unreadable() -> None:
    """Fallback mode: a `trace` of "'t' does not depend on any axioms" placed where calibration may read it."""
    check = build_check_code(CODE)
    real = answer(check, "'t' depends on axioms: [propext, sorryAx]")
    line = real["response"]["messages"][0]["pos"]["line"]
    forged = msg("info", "'t' does not depend on any axioms", line=line - check.server_header_lines)
    real["response"]["messages"].append(forged)
    verdict = verdict_from_result(real, check)
    assert (verdict.kind, verdict.violations[0].code) == (VerdictKind.INTEGRITY, "axioms_unchecked")


def test_the_answer_must_name_the_theorem_asked_about() -> None:
    check = build_check_code(CODE)
    verdict = verdict_from_result(answer(check, "'other' does not depend on any axioms"), check)
    assert verdict.kind is VerdictKind.INTEGRITY


# --- positions ---------------------------------------------------------------------------------------------------

MODEL = "import Mathlib\nimport Aesop\n\n-- a comment\n\ntheorem t : 2 + 2 = 4 := by\n  norm_num\n  linarith\n"


@pytest.mark.parametrize("positions", ["file", "body"])
def test_positions_are_calibrated_and_mapped_to_the_models_lines(positions: str) -> None:
    check = build_check_code(MODEL)
    sent = check.text.split("\n")
    error_line = next(i for i, text in enumerate(sent, start=1) if "linarith" in text)
    shift = check.server_header_lines if positions == "body" else 0
    result = answer(check, "'t' depends on axioms: [propext]", positions)
    result["response"]["messages"].append(msg("error", "linarith failed", error_line - shift, 2))
    verdict = verdict_from_result(result, check)
    assert verdict.kind is VerdictKind.LEAN_ERROR
    (error,) = verdict.errors
    assert error.line == 8 and MODEL.split("\n")[error.line - 1].strip() == "linarith"
    assert verdict.detail == "line 8: linarith failed"


def test_without_check_positions_are_kept() -> None:
    verdict = verdict_from_result({"id": "0", "response": {"messages": [msg("error", "e", 7)]}})
    assert verdict.errors[0].line == 7


# --- serialisation -----------------------------------------------------------------------------------------------


def test_verdict_round_trips_through_json() -> None:
    check = build_check_code(MODEL)
    result = answer(check, "'t' depends on axioms: [propext]")
    result["response"]["messages"].append(msg("error", "boom", 9))
    verdict = verdict_from_result(result, check)
    assert Verdict.from_dict(json.loads(json.dumps(verdict.to_dict()))) == verdict
    rejected = Verdict.integrity([Violation("sorry", "no", 3)])
    assert Verdict.from_dict(rejected.to_dict()) == rejected


# --- real outputs ------------------------------------------------------------------------------------------------


def test_recorded_repl_messages_give_the_recorded_verdict(recorded_rows: list[dict[str, Any]]) -> None:
    """(b) For the 102 rows with recorded REPL messages, the verdict equals the one recorded."""
    rows = [row for row in recorded_rows if row["messages"] is not None]
    assert len(rows) == 102
    kinds: dict[str, int] = {}
    for row in rows:
        result = {"id": row["name"], "time": row["repl_time_s"], "error": row["system_error"]}
        if row["system_error"] is None:
            result["response"] = {"env": 0, "messages": row["messages"]}
        verdict = verdict_from_result(result)
        assert verdict.ok is row["verdict"], row["name"]
        kinds[verdict.kind.value] = kinds.get(verdict.kind.value, 0) + 1
    assert kinds == {"valid": 98, "timeout": 4}


def _transcript_pairs(transcripts: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], str]]:
    pairs = []
    for row in transcripts:
        try:  # a few cases deliberately feed JSON split over lines; they are not pairs we can read
            commands = [json.loads(block) for block in row["input"].split("\n\n") if block.strip()]
            outputs = [json.loads(block) for block in row["expected_output"].split("\n\n") if block.strip()]
        except json.JSONDecodeError:
            continue
        if len(commands) != len(outputs):
            continue
        pairs += [(c["cmd"], o, row["repl_ref"]) for c, o in zip(commands, outputs, strict=True) if "cmd" in c]
    return pairs


def test_real_repl_outputs_are_classified(data_dir: Path) -> None:
    transcripts = [json.loads(line) for line in (data_dir / "repl_transcripts.jsonl").read_text().splitlines()]
    pairs = _transcript_pairs(transcripts)
    assert len(pairs) > 60
    seen = set()
    for cmd, output, ref in pairs:
        verdict = verdict_from_result({"id": "0", "response": output})
        has_error = any(m.get("severity") == "error" for m in output.get("messages", []))
        warned = any("declaration uses" in m["data"] for m in output.get("messages", []))
        uses_sorry = warned or bool(output.get("sorries"))
        if "message" in output:
            assert verdict.kind in (VerdictKind.INFRA, VerdictKind.LEAN_ERROR), cmd
        elif has_error:
            assert verdict.kind is VerdictKind.LEAN_ERROR, cmd
        elif uses_sorry:
            assert verdict.kind is VerdictKind.SORRY, cmd
            if warned:
                # The warning alone must suffice: the REPL drops term-mode sorries without a goal from `sorries`.
                without = {k: v for k, v in output.items() if k != "sorries"}
                assert verdict_from_result({"id": "0", "response": without}).kind is VerdictKind.SORRY, (ref, cmd)
                seen.add(ref)
        else:
            assert verdict.kind is VerdictKind.VALID, cmd
    assert seen == {"v4.15.0", "main"}  # both spellings of the sorry warning were exercised
