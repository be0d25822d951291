"""Second red-team pass (redteam2): fresh attacks end to end through `kimina_rl.reward.compute_score`.

The static and Verifier cases are in kimina-verify's `test_redteam2.py` (why real Lean accepts each is argued there);
here a completion whose format is fine wraps each cheat, so only the Lean side can refuse it, and a batch mixing
unencodable, huge and deeply nested samples with a good one must give each sample its own verdict. Cases that scored
1 on main at 7c027c9 say why in their last field; all are fixed (harden), so every case is strict.
"""

from __future__ import annotations

import asyncio

import pytest
from kimina_rl.reward import compute_score
from kimina_verify.attacks import HEADER, PROOF, SIGNATURE, STATEMENT

OPEN_LINE = "open BigOperators Real Nat Topology Rat"
IMPLEMENTED_BY_CHEAT = (
    "def fakeImpl (_ : Unit) : Bool := true\n"
    "@[implemented_by fakeImpl] def really (_ : Unit) : Bool := false\n"
    "theorem cheat : False := by\n"
    "  have h : really () = true := by native_decide\n"
    "  simp [really] at h\n"
)
IO_VALUE = '(match unsafeIO (IO.Process.run { cmd := "id" }) with | .ok s => 100000 + s.length | .error _ => 100000)'
SIMP_IO = f"  try simp (config := {{ maxSteps := {IO_VALUE} }}) only []"
LET_STATEMENT = HEADER + "theorem target : let y := 2; y + y = 4 := by\n  sorry\n"


def completion(code: str, tactics: str, helper: str = "") -> str:
    """A well-formed completion: reasoning, tactics blocks matching the proof (and the helper's), the final code."""
    block = f"```tactics\n{tactics}\n```"
    first = "```tactics\n  simp\n```"  # a first try: the format asks for two different drafts
    helper_block = f"First a helper.\n\n```tactics\n{helper}\n```\n\n" if helper else ""
    thinking = (
        "We need the identity for the logarithm of a power. The hypothesis says the argument is positive, so the"
        " power rule applies without side conditions, and what remains is a numeric normalisation of the exponent."
        " Let me first recall the lemma, then rewrite with it, and finally let the normaliser close the goal."
    )
    return (
        f"<think>\n{thinking}\n\n{helper_block}{first}\n\nThat leaves the goal.\n\n{block}\n</think>\n"
        f"```lean4\n{code}\n```"
    )


# name -> (code, statement, tactics of the target, tactics of the helper, why it is a hole on main or None)
CHEATS = {
    "escaped_header_implemented_by": (
        HEADER.replace(OPEN_LINE, OPEN_LINE + " «")
        + IMPLEMENTED_BY_CHEAT
        + "-- »\n\n"
        + SIGNATURE
        + "\n  exact cheat.elim\n",
        STATEMENT,
        "  exact cheat.elim",
        "  have h : really () = true := by native_decide\n  simp [really] at h",
        "the assembly re-emits the header line without its `«`: the hidden `@[implemented_by]` cheat reaches Lean",
    ),
    "simp_config_unsafe_io": (
        HEADER + PROOF.replace("  norm_num", SIMP_IO + "\n  norm_num"),
        STATEMENT,
        "  rw [Real.log_pow]\n" + SIMP_IO + "\n  norm_num",
        "",
        "`unsafeIO` inside a tactic config (evaluated with `safety := .unsafe`) is not meta code to the rules",
    ),
    # Scored 1 once kimina-format shared kimina-verify's matcher, which compared the type only up to the `let`'s
    # `:=` (format3); `lean_decls` now ends a statement at the declaration's own `:=`.
    "let_type_truncated": (
        HEADER + "theorem target : let y := 2; True := by\n  intro y\n  trivial\n",
        LET_STATEMENT,
        "  intro y\n  trivial",
        "",
        None,
    ),
}


@pytest.mark.parametrize(
    "name",
    [
        # Every hole is closed (harden): the reason stays as a record of why main scored the cheat 1, no mark.
        pytest.param(n, id=n)
        for n in CHEATS
    ],
)
async def test_cheat_scores_zero(lean_server: str, name: str) -> None:
    code, statement, tactics, helper, _ = CHEATS[name]
    info = {"formal_statement": statement, "uid": f"redteam2-{name}"}
    text = completion(code, tactics, helper)
    result = await compute_score("minif2f", text, statement, info, verifier={"endpoint": {"url": lean_server}})
    assert result["score"] == 0.0, result


async def test_the_good_proof_scores_one(lean_server: str) -> None:
    # The look-alike of every cheat above: the real proof in the same completion scores 1.
    info = {"formal_statement": STATEMENT, "uid": "redteam2-good"}
    text = completion(HEADER + PROOF, "  rw [Real.log_pow]\n  norm_num")
    result = await compute_score("minif2f", text, STATEMENT, info, verifier={"endpoint": {"url": lean_server}})
    assert result["score"] == 1.0, result


async def test_a_batch_of_hostile_samples_gets_one_verdict_each(lean_server: str) -> None:
    # Class 7: unencodable text, control characters, a huge sample and deep nesting, scored concurrently with a good
    # proof: each gets its own verdict (score 0), the good one still scores 1, and nothing raises for the batch.
    good = completion(HEADER + PROOF, "  rw [Real.log_pow]\n  norm_num")
    hostile = [
        good.replace("We need", "We \udc80need"),  # a lone low surrogate in the thinking
        good.replace("norm_num\n\n```", "norm_num -- \ud83d\n\n```"),  # a lone high surrogate in the final code
        good.replace("norm_num\n\n```", "norm_num\x00\n\n```"),  # NUL in the final code
        good.replace("```lean4\n", "```lean4\n/-" + "é" * 600_000 + "-/\n"),  # over 1 MiB of code
        good.replace("```lean4\n", "```lean4\ndef d : ℕ := " + "(" * 20_000 + "1" + ")" * 20_000 + "\n"),
    ]
    texts = [good, *hostile, good]
    results = await asyncio.gather(
        *(
            compute_score(
                "minif2f",
                text,
                STATEMENT,
                {"formal_statement": STATEMENT, "uid": f"redteam2-batch-{i}"},
                verifier={"endpoint": {"url": lean_server}},
                scorer={"infra_retry_s": 5},
            )
            for i, text in enumerate(texts)
        ),
        return_exceptions=True,
    )
    assert not [r for r in results if isinstance(r, BaseException)], results
    scores = [r["score"] for r in results if isinstance(r, dict)]
    assert scores[0] == scores[-1] == 1.0
    assert scores[1:-2] == [0.0] * 4  # the deep nesting may be valid (the stand-in accepts it): not asserted
