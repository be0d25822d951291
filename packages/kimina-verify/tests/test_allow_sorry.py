"""`VerifyItem(allow_sorry=True)`: elaborate statements and lemma sketches that hold `sorry`, through the Verifier."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kimina_verify import Endpoint, Retries, VerdictKind, Verifier, VerifierOptions, VerifyItem

StandIn = Any  # the `standin` fixture of conftest.py

SKETCH = "import Mathlib\n\ntheorem t (x : ℕ) : x + 0 = x := by\n  -- @sorrywarn\n  sorry\n"


async def test_sorry_is_elaborated_only_when_allowed(standin: StandIn) -> None:
    async with Verifier(VerifierOptions(Endpoint(standin.url), retries=Retries(count=0))) as verifier:
        verdicts = await verifier.verify([VerifyItem(SKETCH, allow_sorry=True)] * 3 + [VerifyItem(SKETCH)])
    assert [v.kind for v in verdicts] == [VerdictKind.SORRY] * 3 + [VerdictKind.INTEGRITY]
    assert verdicts[3].violations[0].code == "sorry"
    assert len(standin.snippets) == 1  # de-duplicated, and the disallowed one never reached Lean


async def test_every_other_rule_still_applies(standin: StandIn) -> None:
    statement = "import Mathlib\n\ntheorem t (x : ℕ) : x + 0 = x := by\n  sorry\n"
    items = [
        VerifyItem("axiom cheat : False\n" + SKETCH, allow_sorry=True),
        VerifyItem(SKETCH + "\n#eval 1\n", allow_sorry=True),
        VerifyItem(SKETCH.replace("x + 0", "0 + x"), statement, allow_sorry=True),
        VerifyItem(SKETCH.replace("\n  sorry", "\n  admit"), allow_sorry=True),
        VerifyItem(SKETCH.replace("\n  sorry", "\n  exact sorryAx _ false"), allow_sorry=True),
    ]
    async with Verifier(VerifierOptions(Endpoint(standin.url), retries=Retries(count=0))) as verifier:
        verdicts = await verifier.verify(items)
    assert [v.kind for v in verdicts] == [VerdictKind.INTEGRITY] * 3 + [VerdictKind.SORRY] * 2
    assert [v.violations[0].code for v in verdicts[:3]] == ["axiom", "side_command", "statement_mismatch"]


async def test_results_are_cached(standin: StandIn, tmp_path: Path) -> None:
    cache = tmp_path / "verdicts.sqlite"
    for cached in (False, True):
        async with Verifier(
            VerifierOptions(Endpoint(standin.url), retries=Retries(count=0), cache=str(cache))
        ) as verifier:
            (verdict,) = await verifier.verify([VerifyItem(SKETCH, allow_sorry=True)])
        assert verdict.kind is VerdictKind.SORRY and verdict.cached is cached
    assert len(standin.snippets) == 1


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    from kimina_verify.testing import sim_server

    with sim_server(max_repls=1) as url:
        yield url


async def test_statement_checks_against_lean_repl_sim(sim_url: str) -> None:
    """The sim elaborates `sorry` (sorries + warning + sorryAx) and reports errors as Lean would."""
    items = [
        VerifyItem("import Mathlib\n\ntheorem s (x : ℕ) : x + 0 = x := by\n  sorry\n", allow_sorry=True),
        VerifyItem(
            "import Mathlib\n\ntheorem s (x : ℕ) : x + 0 = y := by\n  sorry -- sim: error unknown identifier 'y'\n",
            allow_sorry=True,
        ),
        VerifyItem("import Mathlib\n\ntheorem s (x : ℕ) : x + 0 = x := by\n  simp\n", allow_sorry=True),
    ]
    async with Verifier(VerifierOptions(Endpoint(sim_url), retries=Retries(count=0))) as verifier:
        verdicts = await verifier.verify(items)
    assert [v.kind for v in verdicts] == [VerdictKind.SORRY, VerdictKind.LEAN_ERROR, VerdictKind.VALID]
    assert verdicts[1].detail == "line 4: unknown identifier 'y'"
