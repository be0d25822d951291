"""Red-team reproducers (see docs/red-team-2026-12.md): completions that `compute_score` rewards with 1.

Each is marked `xfail(strict=True)` while its hole is open; kimina-verify's `test_redteam.py` has the static cases.
"""

from __future__ import annotations

import pytest
from kimina_rl.reward import compute_score
from kimina_verify.attacks import CHEAT, HEADER, PROOF, STATEMENT

# `/-/-/` is a whole comment for Lean (the third character of `/-` is skipped); our lexer waits for two closers.
IMPLEMENTED_BY = (
    "/-/-/\n"
    "def fakeImpl (_ : Unit) : Bool := true\n"
    "@[implemented_by fakeImpl] def really (_ : Unit) : Bool := false\n"
    "theorem cheat : False := by\n"
    "  have h : really () = true := by native_decide\n"
    "  simp [really] at h\n"
    "-- -/ -/\n\n"
)
# `by_elab` runs meta code while the def elaborates: an unchecked `cheat : False`, no axiom.
BY_ELAB = (
    "def helper : Unit := by_elab do\n"
    "  let decl := Lean.Declaration.thmDecl\n"
    "    { name := `cheat, levelParams := [], type := Lean.mkConst ``False, value := Lean.mkConst ``True.intro }\n"
    "  Lean.withOptions (fun o => o.setBool `debug.skipKernelTC true) (Lean.addDecl decl)\n"
    "  return Lean.mkConst ``Unit.unit\n\n"
)


def completion(code: str) -> str:
    block = "```tactics\n  exact cheat.elim\n```"
    thinking = (
        "The hypotheses are contradictory, so the goal follows from them: once `cheat` gives `False`, any goal is"
        " closed by eliminating it."
    )
    # Two different drafts, as the format asks (a first try, then the proof).
    first = "```tactics\n  simp\n```"
    return f"<think>\n{thinking}\n\n{first}\n\nThat leaves the goal.\n\n{block}\n</think>\n```lean4\n{code}\n```"


@pytest.mark.parametrize("prefix", [IMPLEMENTED_BY, BY_ELAB], ids=["third_char_comment", "by_elab"])
async def test_cheat_scores_zero(lean_server: str, prefix: str) -> None:
    info = {"formal_statement": STATEMENT, "uid": "redteam"}
    result = await compute_score(
        "minif2f", completion(HEADER + prefix + CHEAT), STATEMENT, info, verifier={"endpoint": {"url": lean_server}}
    )
    assert result["format_score"] == 1.0  # the format holds: only Lean's side can refuse it
    assert (result["verdict"], result["score"]) == ("integrity", 0.0)


async def test_a_sample_that_crashes_the_repl_gets_its_own_verdict(lean_server: str) -> None:
    # Code that aborts Lean (a stack overflow: the stand-in's `crash` directive prints Lean's own "Stack overflow
    # detected. Aborting.") is an `infra` failure on every try, so the reward retries it for `infra_retry_s` and then
    # raises for the whole batch. A snippet that kills two fresh REPLs is the snippet's doing, as for out-of-step
    # replies; it should score 0 alone.
    info = {"formal_statement": STATEMENT, "uid": "redteam-crash"}
    text = completion(HEADER + PROOF + "-- sim: crash\n").replace("exact cheat.elim", "rw [Real.log_pow]\n  norm_num")
    result = await compute_score(
        "minif2f", text, STATEMENT, info, verifier={"endpoint": {"url": lean_server}}, scorer={"infra_retry_s": 3}
    )
    assert result["score"] == 0.0
