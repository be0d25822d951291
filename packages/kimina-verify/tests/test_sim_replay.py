"""Recorded-verdict replay (`lean-repl-sim --verdicts`) through kimina's own client, which reassembles the code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kimina_verify import (
    Endpoint,
    Retries,
    VerdictKind,
    Verifier,
    VerifierOptions,
    VerifyItem,
    build_check_code,
    check_integrity,
)
from kimina_verify.sim.recorded import UNRECORDED_ERROR, RecordedVerdicts, replay_key
from kimina_verify.testing import sim_server

RECORDED = "recorded_verdicts.jsonl"


def statement_of(row: dict[str, Any], minif2f_rows: list[dict[str, Any]]) -> str:
    problem = next(p for p in minif2f_rows if p["name"] == row["name"])
    return str(problem["header"] + problem["formal_statement"])


@pytest.fixture(scope="module")
def replayable(recorded_rows: list[dict[str, Any]], minif2f_rows: list[dict[str, Any]]) -> list[VerifyItem]:
    """Two recorded successes and two recorded failures (no timeouts) whose statement is miniF2F's, unchanged."""
    picked: list[VerifyItem] = []
    for verdict in (True, False):
        rows = [
            r
            for r in recorded_rows
            if r["verdict"] is verdict and not r["system_error"] and r["split"] == "test" and r["dataset"] == "minif2f"
        ]
        kept = 0
        for row in rows:
            item = VerifyItem(row["full_code"], statement_of(row, minif2f_rows))
            if kept < 2 and not check_integrity(item.code, item.formal_statement):
                picked.append(item)
                kept += 1
    assert len(picked) == 4
    return picked


@pytest.fixture(scope="module")
def strict_url(data_dir: Path) -> Iterator[str]:
    options = {"verdicts": data_dir / RECORDED, "time_scale": 0.0, "sim_args": ["--unrecorded", "error"]}
    with sim_server(max_repls=1, timeout=10, **options) as url:
        yield url


def test_the_key_ignores_how_a_client_assembles_code() -> None:
    recorded = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 0\n\nopen Real\n\n\ntheorem t : 1 = 1 := by\n  rfl  \n"
    assembled = "import Mathlib\nimport Aesop\nset_option maxHeartbeats 400000\nopen Real\ntheorem t : 1 = 1 := by\n  rfl\n\n#print axioms t"
    assert replay_key(recorded) == replay_key(assembled) == "theorem t : 1 = 1 := by\n  rfl"


@pytest.mark.parametrize(
    "changed",
    [
        "theorem t : 1 = 1 := by\n  simp",  # another tactic
        "theorem t : 1 = 1 := by\nrfl",  # indentation is read by Lean
        "set_option maxHeartbeats 0 in\ntheorem t : 1 = 1 := by\n  rfl",  # `set_option ... in` is the declaration's
        "theorem t : 2 = 2 := by\n  rfl",  # another statement
    ],
)
def test_the_key_keeps_what_lean_reads(changed: str) -> None:
    assert replay_key("import Mathlib\n" + changed) != replay_key("import Mathlib\ntheorem t : 1 = 1 := by\n  rfl")


def test_every_recorded_row_has_its_own_key(data_dir: Path, recorded_rows: list[dict[str, Any]]) -> None:
    recorded = RecordedVerdicts.load(data_dir / RECORDED)
    assert len(recorded) == len({r["full_code"] for r in recorded_rows}) == 1287  # one row is recorded twice


def test_client_assembled_code_finds_its_recorded_row(
    data_dir: Path, recorded_rows: list[dict[str, Any]], minif2f_rows: list[dict[str, Any]]
) -> None:
    """The client rebuilds the header from the dataset statement and appends `#print axioms`: rows still match."""
    recorded = RecordedVerdicts.load(data_dir / RECORDED)
    found = 0
    for row in recorded_rows:
        if row["dataset"] != "minif2f":
            continue
        assembled = build_check_code(row["full_code"], statement_of(row, minif2f_rows))
        match = recorded.lookup(assembled.text)
        if match is not None:
            assert match.verdict is row["verdict"]
            found += 1
    # The three that do not match hold an unterminated comment, which swallows the appended `#print axioms` (the
    # client's integrity rules reject them before any server sees them).
    assert found == sum(r["dataset"] == "minif2f" for r in recorded_rows) - 3


async def test_replay_through_the_client_gives_the_recorded_verdicts(
    strict_url: str, replayable: list[VerifyItem]
) -> None:
    async with Verifier(VerifierOptions(Endpoint(strict_url), retries=Retries(count=0))) as verifier:
        verdicts = await verifier.verify(replayable)
    assert [v.kind for v in verdicts] == [VerdictKind.VALID] * 2 + [VerdictKind.LEAN_ERROR] * 2
    assert all(UNRECORDED_ERROR not in (v.detail or "") for v in verdicts)


async def test_unrecorded_code_fails_under_unrecorded_error(strict_url: str, replayable: list[VerifyItem]) -> None:
    """A recorded success with one tactic changed was never recorded: strict replay fails it, never accepts it."""
    valid = replayable[0]
    changed = VerifyItem(valid.code.rstrip() + "\n  <;> rfl\n", valid.formal_statement)
    async with Verifier(VerifierOptions(Endpoint(strict_url), retries=Retries(count=0))) as verifier:
        (verdict,) = await verifier.verify([changed])
    assert verdict.kind is VerdictKind.LEAN_ERROR and UNRECORDED_ERROR in (verdict.detail or "")


async def test_unrecorded_code_follows_the_rules_by_default(data_dir: Path, replayable: list[VerifyItem]) -> None:
    valid = replayable[0]
    changed = VerifyItem(valid.code.rstrip() + "\n  <;> rfl\n", valid.formal_statement)
    with sim_server(max_repls=1, timeout=10, verdicts=data_dir / RECORDED, time_scale=0.0) as url:
        async with Verifier(VerifierOptions(Endpoint(url), retries=Retries(count=0))) as verifier:
            verdicts = await verifier.verify([changed, replayable[2]])
    assert [v.kind for v in verdicts] == [VerdictKind.VALID, VerdictKind.LEAN_ERROR]
