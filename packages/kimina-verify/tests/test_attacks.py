"""Every class of attack on the reward, and the harmless look-alike of each, through lint and the `Verifier`.

The corpus is `kimina_verify.attacks`; kimina-rl's tests run it through `compute_score`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from kimina_verify import Endpoint, Retries, Timeouts, VerdictKind, Verifier, VerifierOptions, VerifyItem
from kimina_verify.attacks import CLASSES, Case, attacks, lookalikes
from kimina_verify.cli import EXIT_FAILED, EXIT_OK, main
from kimina_verify.testing import sim_server

ATTACKS = attacks()
LOOKALIKES = lookalikes()


def test_every_class_has_three_attacks_and_lookalikes() -> None:
    assert [c.number for c in CLASSES] == [1, 2, 3, 4, 5, 6, 7, 8]
    for attack_class in CLASSES:
        assert len(attack_class.attacks) >= 3 and len(attack_class.lookalikes) >= 3, attack_class.title


def lint(cases: list[Case], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[list[str]]]:
    path = tmp_path / "rows.jsonl"
    rows = [{"id": i, "code": case.code, "formal_statement": case.statement} for i, case in enumerate(cases)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    code = main(["lint", str(path)])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["id"] for row in out] == list(range(len(cases)))
    return code, [row["violations"] for row in out]


def test_lint_rejects_every_attack_by_its_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    static = [case for _, case in ATTACKS if case.rule is not None]
    code, found = lint(static, tmp_path, capsys)
    assert code == EXIT_FAILED
    assert {case.name: case.rule for case in static} == {
        case.name: case.rule for case, codes in zip(static, found, strict=True) if case.rule in codes
    }


def test_lint_passes_every_lookalike(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [case for _, case in LOOKALIKES]
    code, found = lint(cases, tmp_path, capsys)
    assert {case.name: codes for case, codes in zip(cases, found, strict=True) if codes} == {}
    assert code == EXIT_OK


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with sim_server(max_repls=2, timeout=20) as base:
        yield base


async def test_verifier_gives_every_case_its_verdict(url: str) -> None:
    cases = [case for _, case in ATTACKS + LOOKALIKES]
    async with Verifier(VerifierOptions(Endpoint(url), Timeouts(lean_s=20), Retries(count=0))) as verifier:
        verdicts = await verifier.verify([VerifyItem(case.code, case.statement) for case in cases])
    assert {case.name: case.verdict for case in cases} == {
        case.name: verdict.kind.value for case, verdict in zip(cases, verdicts, strict=True)
    }
    # Verdicts that reached Lean were checked there (the stand-in server runs the checks).
    assert all(v.lean_checks for v in verdicts if v.kind is VerdictKind.VALID)
    forged = verdicts[cases.index(next(c for c in cases if c.name == "forged_reply"))]
    assert "out of step" in forged.detail


async def test_one_bad_character_costs_only_its_sample(url: str) -> None:
    bad = next(case for _, case in ATTACKS if case.name == "lone_surrogate")
    good = next(case for _, case in LOOKALIKES if case.name == "plain")
    async with Verifier(VerifierOptions(Endpoint(url), Timeouts(lean_s=20), Retries(count=0))) as verifier:
        verdicts = await verifier.verify([VerifyItem(good.code, good.statement), VerifyItem(bad.code, bad.statement)])
    assert [v.kind for v in verdicts] == [VerdictKind.VALID, VerdictKind.INTEGRITY]
    assert verdicts[1].violations[0].code == "text_encoding"
