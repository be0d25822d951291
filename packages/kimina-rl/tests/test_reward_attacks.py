"""`compute_score` on kimina-verify's attack corpus: every attack scores 0, every look-alike is accepted by Lean."""

import asyncio
from typing import Any

import pytest
from kimina_rl.reward import compute_score
from kimina_rl.scoring import REWARD_KEYS
from kimina_verify.attacks import Case, attacks, lookalikes


def completion(code: str, thinking: str = "We rewrite the logarithm of the power.") -> str:
    """A completion in the Kimina layout whose final block is `code`."""
    first = "```tactics\n  rw [Real.log_pow]\n```"
    block = "```tactics\n  rw [Real.log_pow]\n  norm_num\n```"
    return f"<think>\n{thinking}\n\n{first}\n\nThen the rest.\n\n{block}\n</think>\n```lean4\n{code}\n```"


async def score(case: Case, url: str, text: str | None = None, **extra: Any) -> dict[str, Any]:
    info = {"formal_statement": case.statement, "uid": case.name, **extra}
    return await compute_score(
        "minif2f", text or completion(case.code), case.statement, info, verifier={"endpoint": {"url": url}}
    )


async def test_every_attack_scores_zero(lean_server: str) -> None:
    cases = [case for _, case in attacks()]
    results = await asyncio.gather(*(score(case, lean_server) for case in cases))
    assert {c.name: (c.verdict, 0.0, 0.0) for c in cases} == {
        c.name: (r["verdict"], r["acc"], r["score"]) for c, r in zip(cases, results, strict=True)
    }
    assert all(tuple(r) == REWARD_KEYS for r in results)


async def test_every_lookalike_is_accepted_by_lean(lean_server: str) -> None:
    cases = [case for _, case in lookalikes()]
    results = await asyncio.gather(*(score(case, lean_server) for case in cases))
    assert {c.name: ("valid", 1.0) for c in cases} == {
        c.name: (r["verdict"], r["acc"]) for c, r in zip(cases, results, strict=True)
    }


async def test_a_bad_character_costs_only_its_sample(lean_server: str) -> None:
    good = next(case for _, case in lookalikes() if case.name == "plain")
    texts = [
        completion(good.code),
        completion(good.code, thinking="We rewrite \ud800 the logarithm."),
        completion(good.code.replace("norm_num", "norm_num -- \ud800")),
        completion(good.code.replace("norm_num", "norm_num\x00")),
    ]
    results = await asyncio.gather(*(score(good, lean_server, text) for text in texts))
    # Anywhere in the response, such text is that sample's verdict; the others keep theirs.
    assert [(r["verdict"], r["acc"]) for r in results] == [
        ("valid", 1.0),
        ("integrity", 0.0),
        ("integrity", 0.0),
        ("integrity", 0.0),
    ]
    assert all(tuple(r) == REWARD_KEYS for r in results)


@pytest.mark.parametrize("uid", [None, "row-1"])
async def test_a_statement_that_cannot_be_encoded_is_that_rows_verdict(lean_server: str, uid: str | None) -> None:
    good = next(case for _, case in lookalikes() if case.name == "plain")
    bad_statement = good.statement.replace("sorry", "sorry -- \udfff")
    info = {"formal_statement": bad_statement} | ({"uid": uid} if uid else {})
    result = await compute_score(
        "minif2f", completion(good.code), bad_statement, info, verifier={"endpoint": {"url": lean_server}}
    )
    assert (result["verdict"], result["score"]) == ("integrity", 0.0)
