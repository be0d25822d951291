"""Red-team cases against a real Lean workspace: what the report predicts real Lean v4.15 does with each attack.

Set KIMINA_LEAN_WORKSPACE (see test_lean.py); skipped otherwise. The holes of the report are closed by the static
rules now (`meta_code`, the lexer's third character, the meaning rules), so their cases expect `integrity` with and
without the extension. The other cases are the report's claim that Lean's side (the checks in Lean) refuses an
attack the static rules let through.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from kimina_verify import Checks, Endpoint, Retries, Timeouts, VerdictKind, Verifier, VerifierOptions, VerifyItem
from kimina_verify.attacks import CHEAT, HEADER, PROOF, SIGNATURE, STATEMENT
from kimina_verify.server.settings import ServerSettings
from kimina_verify.testing import ServerThread

WORKSPACE = os.environ.get("KIMINA_LEAN_WORKSPACE")
pytestmark = [
    pytest.mark.lean,
    pytest.mark.skipif(not WORKSPACE, reason="set KIMINA_LEAN_WORKSPACE to a Lean workspace to run real-Lean tests"),
]
HIDE_OPEN, HIDE_CLOSE = "/-/-/\n", "-- -/ -/\n"
IMPLEMENTED_BY = (
    "def fakeImpl (_ : Unit) : Bool := true\n"
    "@[implemented_by fakeImpl] def really (_ : Unit) : Bool := false\n"
    "theorem cheat : False := by\n"
    "  have h : really () = true := by native_decide\n"
    "  simp [really] at h\n"
)
BY_ELAB = (
    "def helper : Unit := by_elab do\n"
    "  let decl := Lean.Declaration.thmDecl\n"
    "    { name := `cheat, levelParams := [], type := Lean.mkConst ``False, value := Lean.mkConst ``True.intro }\n"
    "  Lean.withOptions (fun o => o.setBool `debug.skipKernelTC true) (Lean.addDecl decl)\n"
    "  return Lean.mkConst ``Unit.unit\n\n"
)
DOTTED = SIGNATURE.replace("theorem target", "theorem Hack.target")
DOTTED_ATTACK = HEADER + "noncomputable def Hack.Real.log (x : ℝ) : ℝ := 0\n\n" + DOTTED + "\n  simp [Hack.Real.log]\n"
DOTTED_STATEMENT = HEADER + DOTTED + "\n  sorry\n"
CONTEXT_STATEMENT = HEADER + "instance : Fact (1 < 2) := ⟨by norm_num⟩\n\n" + SIGNATURE + "\n  sorry\n"
CONTEXT_ATTACK = (
    HEADER + "instance : Fact (1 < 2) := ⟨by norm_num⟩\nvariable (cheat : False)\ninclude cheat\n\n" + CHEAT
)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    root = Path(WORKSPACE or "")
    settings = ServerSettings(
        host="127.0.0.1",
        port=0,
        project_dir=str(root / "mathlib4"),
        repl_path=str(root / "repl" / ".lake" / "build" / "bin" / "repl"),
        max_repls=2,
        timeout=120,
        import_timeout=900,
        init_repls={"import Mathlib\nimport Aesop": 2},
    )
    server = ServerThread(settings).start(timeout=1200)
    try:
        yield server.url
    finally:
        server.stop()


async def verdicts(url: str, items: list[VerifyItem], *, lean_checks: bool) -> list[VerdictKind]:
    async with Verifier(
        VerifierOptions(Endpoint(url), Timeouts(lean_s=120), Retries(count=0), checks=Checks(lean_checks=lean_checks))
    ) as verifier:
        return [v.kind for v in await verifier.verify(items)]


@pytest.mark.parametrize("lean_checks", [True, False])
async def test_kernel_bypasses_are_refused(url: str, lean_checks: bool) -> None:
    items = [
        VerifyItem(HEADER + HIDE_OPEN + IMPLEMENTED_BY + HIDE_CLOSE + "\n" + CHEAT, STATEMENT),
        VerifyItem(HEADER + BY_ELAB + CHEAT, STATEMENT),
    ]
    assert await verdicts(url, items, lean_checks=lean_checks) == [VerdictKind.INTEGRITY] * 2


async def test_changed_meaning_is_refused_without_the_extension(url: str) -> None:
    items = [
        VerifyItem(DOTTED_ATTACK, DOTTED_STATEMENT),
        VerifyItem(CONTEXT_ATTACK, CONTEXT_STATEMENT),
        VerifyItem(
            HEADER + HIDE_OPEN + "variable (cheat : False)\ninclude cheat\n" + HIDE_CLOSE + "\n" + CHEAT, STATEMENT
        ),
    ]
    assert VerdictKind.VALID not in await verdicts(url, items, lean_checks=False)


async def test_changed_meaning_is_a_type_mismatch_in_lean(url: str) -> None:
    # The report's claim: `#check` under pp.all prints `Hack.Real.log`, or the binders `variable` adds.
    items = [
        VerifyItem(DOTTED_ATTACK, DOTTED_STATEMENT),
        VerifyItem(CONTEXT_ATTACK, CONTEXT_STATEMENT),
        VerifyItem(
            HEADER + "variable? [cheat : Fact False]\n\n" + CHEAT.replace("cheat.elim", "cheat.out.elim"), STATEMENT
        ),
    ]
    assert await verdicts(url, items, lean_checks=True) == [VerdictKind.INTEGRITY] * 3


async def test_lean_side_refuses_what_the_sim_accepts(url: str) -> None:
    # A theorem hidden from the rules by the lexer still clashes with the visible one; `by_elab` returning a sorry
    # leaves `sorryAx` in the axioms.
    hidden_duplicate = HEADER + HIDE_OPEN + "theorem target : True := trivial\n" + HIDE_CLOSE + "\n" + PROOF
    sorry_term = HEADER + SIGNATURE + "\n  exact by_elab do\n    Lean.Meta.mkSorry (Lean.mkConst ``True) false\n"
    items = [VerifyItem(hidden_duplicate, STATEMENT), VerifyItem(sorry_term, STATEMENT)]
    kinds = await verdicts(url, items, lean_checks=True)
    # Both are refused before Lean now (`statement_duplicate`: the lexer sees the hidden theorem; `meta_code`).
    assert kinds == [VerdictKind.INTEGRITY, VerdictKind.INTEGRITY]
