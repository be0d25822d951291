import pytest
from kimina_verify import Verdict, VerdictKind
from kimina_verify.attempts import (
    FIRST_TURN,
    FIX_TURN,
    FIXABLE_KINDS,
    RetryPolicy,
    fix_messages,
    gets_fix_turn,
    verify_retrying,
)

CODE = "theorem t : 1 = 2 := by simp"


@pytest.mark.parametrize("kind", list(VerdictKind))
def test_only_a_lean_refusal_of_well_formatted_code_gets_a_fix_turn(kind: VerdictKind) -> None:
    wanted = kind in (VerdictKind.LEAN_ERROR, VerdictKind.SORRY)
    assert gets_fix_turn(format_ok=True, code=CODE, verdict=Verdict(kind)) is wanted
    assert gets_fix_turn(format_ok=True, code=CODE, verdict=kind.value) is wanted  # as records store it
    assert gets_fix_turn(format_ok=False, code=CODE, verdict=kind) is False
    assert gets_fix_turn(format_ok=None, code=CODE, verdict=kind) is False
    assert gets_fix_turn(format_ok=True, code=None, verdict=kind) is False
    assert FIXABLE_KINDS == {VerdictKind.LEAN_ERROR, VerdictKind.SORRY} and (FIRST_TURN, FIX_TURN) == (1, 2)


def test_no_code_and_unknown_kinds_get_none() -> None:
    assert gets_fix_turn(format_ok=True, code=CODE, verdict=None) is False
    assert gets_fix_turn(format_ok=True, code=CODE, verdict="no_proof") is False


def test_fix_messages_append_the_attempt_and_the_feedback() -> None:
    prompt = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    out = fix_messages(prompt, "my attempt", "# Error 1\nlinarith failed")
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert out[2]["content"] == "my attempt" and "linarith failed" in out[3]["content"] and len(prompt) == 2


def test_retry_policy_delays_double_and_are_capped() -> None:
    assert RetryPolicy(rounds=5, first_delay_s=2, max_delay_s=10).delays() == [2, 4, 8, 10, 10]
    assert RetryPolicy(rounds=0).delays() == []
    with pytest.raises(ValueError):
        RetryPolicy(rounds=-1)


async def test_verify_retrying_calls_again_only_for_infra_and_counts_tries() -> None:
    calls: list[list[str]] = []
    outage = {"b": 2}

    async def verify(items: list[str]) -> list[Verdict]:
        calls.append(list(items))
        out = []
        for item in items:
            if outage.get(item, 0) > 0:
                outage[item] -= 1
                out.append(Verdict.infra("HTTP 503"))
            else:
                out.append(Verdict(VerdictKind.VALID))
        return out

    verdicts, tries = await verify_retrying(verify, ["a", "b"], RetryPolicy(rounds=3, first_delay_s=0))
    assert [v.kind for v in verdicts] == [VerdictKind.VALID, VerdictKind.VALID] and tries == [1, 3]
    assert calls == [["a", "b"], ["b"], ["b"]]
    outage["c"] = 9
    verdicts, tries = await verify_retrying(verify, ["c"], RetryPolicy(rounds=1, first_delay_s=0))
    assert verdicts[0].is_infra and tries == [2]
    assert await verify_retrying(verify, [], RetryPolicy()) == ([], [])
