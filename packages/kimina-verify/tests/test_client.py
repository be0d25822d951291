"""The async `Verifier` against real HTTP servers on loopback: the stand-in from conftest, and our own server."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import Any

import pytest
from kimina_verify import (
    Checks,
    Endpoint,
    Limits,
    Retries,
    Timeouts,
    VerdictKind,
    Verifier,
    VerifierOptions,
    VerifyItem,
    render_feedback,
    verify_sync,
)

StandIn = Any  # the `standin` fixture of conftest.py

HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen Real\n\n"


def proof(name: str, *directives: str) -> str:
    body = "".join(f"\n  -- @{d}" for d in directives)
    return f"{HEADER}theorem {name} : 1 + 1 = 2 := by{body}\n  norm_num\n"


def fast(url: str, *, retries: int = Retries.count, api_key: str | None = None, **groups: Any) -> Verifier:
    # Retries come quickly here; the tests name the other groups they change (`limits=Limits(...)`, ...).
    options = VerifierOptions(Endpoint(url, api_key), retries=Retries(retries, backoff_s=0.01, max_backoff_s=0.05))
    return Verifier(replace(options, **groups))


async def test_verdicts_come_back_in_input_order(standin: StandIn) -> None:
    items: list[str | VerifyItem] = [
        proof("a"),
        proof("b", "error linarith failed"),
        proof("c", "sorrywarn"),
        proof("d", "sorrywarn-new"),
        proof("e", "timeout"),
        "theorem f : 1 = 2 := by sorry",
        proof("g", "axioms propext, sorryAx"),
        proof("h", "axioms propext, cheat"),
        proof("i", "warning unused variable"),
    ]
    async with fast(standin.url) as verifier:
        verdicts = await verifier.verify(items)
    assert [v.kind for v in verdicts] == [
        VerdictKind.VALID,
        VerdictKind.LEAN_ERROR,
        VerdictKind.SORRY,
        VerdictKind.SORRY,
        VerdictKind.TIMEOUT,
        VerdictKind.INTEGRITY,
        VerdictKind.SORRY,
        VerdictKind.INTEGRITY,
        VerdictKind.VALID,
    ]
    assert verdicts[0].axioms == ("propext", "Classical.choice", "Quot.sound")
    assert verdicts[1].detail == "line 9: linarith failed"
    assert len(standin.snippets) == 8  # the statically rejected proof never reached the server


async def test_batches_and_concurrency(standin: StandIn) -> None:
    async with fast(standin.url, limits=Limits(batch_size=4, max_concurrency=2)) as verifier:
        verdicts = await verifier.verify([proof(f"t{i}") for i in range(20)])
    assert all(v.ok for v in verdicts)
    assert standin.requests == 5


async def test_statement_is_enforced_end_to_end(standin: StandIn) -> None:
    statement = HEADER + "theorem target : 1 + 1 = 2 := by\n  sorry"
    items = [
        VerifyItem("lemma helper : 2 = 1 + 1 := rfl\n\n" + proof("target").split("\n\n")[-1], statement),
        VerifyItem(proof("target").replace("1 + 1 = 2", "2 = 2"), statement),
        VerifyItem(proof("renamed"), statement),
    ]
    async with fast(standin.url) as verifier:
        verdicts = await verifier.verify(items)
    assert [v.kind for v in verdicts] == [VerdictKind.VALID, VerdictKind.INTEGRITY, VerdictKind.INTEGRITY]
    assert [v.violations[0].code for v in verdicts[1:]] == ["statement_mismatch", "statement_missing"]
    assert len(standin.snippets) == 1
    sent = standin.snippets[0]
    assert sent.startswith("import Mathlib\nimport Aesop\nset_option maxHeartbeats 400000\nopen Real")
    assert "lemma helper" in sent and sent.rstrip().endswith("#print axioms _root_.target")


async def test_server_down_is_infra_after_retries(dead_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kimina_verify")
    async with fast(dead_url, retries=2) as verifier:
        verdicts = await verifier.verify([proof("a"), proof("b")])
    assert all(v.kind is VerdictKind.INFRA and v.is_infra and not v.ok for v in verdicts)
    assert "cannot reach" in verdicts[0].detail
    assert sum("retrying" in r.message for r in caplog.records) == 2
    assert any("after 3 attempts" in r.message for r in caplog.records)


@pytest.mark.parametrize("status", [500, 502, 503, 504, 429])
async def test_transient_http_errors_are_retried(standin: StandIn, status: int) -> None:
    standin.statuses.extend([status, status])
    async with fast(standin.url, retries=3) as verifier:
        verdicts = await verifier.verify([proof("a"), proof("b", "error boom")])
    assert [v.kind for v in verdicts] == [VerdictKind.VALID, VerdictKind.LEAN_ERROR]
    assert standin.requests == 3


async def test_persistent_5xx_ends_as_infra(standin: StandIn) -> None:
    standin.statuses.extend([500] * 10)
    async with fast(standin.url, retries=2) as verifier:
        (verdict,) = await verifier.verify([proof("a")])
    assert verdict.kind is VerdictKind.INFRA and "HTTP 500" in verdict.detail
    assert standin.requests == 3


async def test_bad_api_key_is_not_retried(standin: StandIn) -> None:
    standin.api_key = "right"
    async with fast(standin.url, api_key="wrong", retries=3) as verifier:
        (verdict,) = await verifier.verify([proof("a")])
    assert verdict.kind is VerdictKind.INFRA and "API key" in verdict.detail
    assert standin.requests == 1
    async with fast(standin.url, api_key="right") as verifier:
        assert (await verifier.verify([proof("a")]))[0].ok


async def test_http_timeout_is_infra_and_retried(standin: StandIn) -> None:
    standin.delay_s = 1.0
    async with fast(standin.url, retries=1, timeouts=Timeouts(http_s=0.3)) as verifier:
        (verdict,) = await verifier.verify([proof("a")])
    assert verdict.kind is VerdictKind.INFRA and "timeout" in verdict.detail.lower()
    assert standin.requests == 2


async def test_lean_timeout_and_proof_failures_are_not_retried(standin: StandIn) -> None:
    async with fast(standin.url, retries=3) as verifier:
        verdicts = await verifier.verify([proof("a", "timeout"), proof("b", "error e"), proof("c", "sorrywarn")])
    assert [v.kind for v in verdicts] == [VerdictKind.TIMEOUT, VerdictKind.LEAN_ERROR, VerdictKind.SORRY]
    assert standin.requests == 1


async def test_repl_level_infra_errors_are_retried(standin: StandIn) -> None:
    async with fast(standin.url, retries=2) as verifier:
        (verdict,) = await verifier.verify([proof("a", "replmsg Unknown environment.")])
    assert verdict.kind is VerdictKind.INFRA and "Unknown environment" in verdict.detail
    assert standin.requests == 3


async def test_ten_thousand_items(standin: StandIn) -> None:
    items = [proof(f"t{i}", "error nope") if i % 7 == 0 else proof(f"t{i}") for i in range(10_000)]
    started = time.perf_counter()
    async with fast(standin.url, limits=Limits(batch_size=100, max_concurrency=8)) as verifier:
        verdicts = await verifier.verify(items)
    elapsed = time.perf_counter() - started
    assert len(verdicts) == 10_000
    assert [v.kind is VerdictKind.LEAN_ERROR for v in verdicts] == [i % 7 == 0 for i in range(10_000)]
    assert len(standin.snippets) == 10_000 and standin.requests == 100
    assert elapsed < 120


async def test_duplicates_are_sent_once(standin: StandIn) -> None:
    standin.delay_s = 0.3
    same = proof("same")
    async with fast(standin.url, limits=Limits(batch_size=4)) as verifier:
        first, second = await asyncio.gather(
            verifier.verify([same] * 50 + [proof("other")]),
            verifier.verify([proof("other"), same]),
        )
    assert all(v.ok for v in first + second)
    assert sorted(s.split("theorem ")[1].split()[0] for s in standin.snippets) == ["other", "same"]


async def test_v1_servers_are_used_through_verify(standin: StandIn) -> None:
    standin.v1_only = True
    async with fast(standin.url) as verifier:
        verdicts = await verifier.verify([proof("a"), proof("b", "error e"), proof("c", "timeout")])
    assert [v.kind for v in verdicts] == [VerdictKind.VALID, VerdictKind.LEAN_ERROR, VerdictKind.TIMEOUT]
    assert verdicts[0].time_s == 0.01


async def test_body_relative_positions_are_calibrated(standin: StandIn) -> None:
    standin.positions = "body"
    code = proof("a", "error linarith failed")
    async with fast(standin.url) as verifier:
        (verdict,) = await verifier.verify([code])
    assert verdict.errors[0].line == 9
    assert "9 >   -- @error linarith failed" in render_feedback(code, verdict)


async def test_goals_reach_the_feedback_when_an_infotree_is_requested(standin: StandIn) -> None:
    code = proof("a", "goal x : ℕ\\n⊢ x = x", "error failed")
    async with fast(standin.url, checks=Checks(infotree="original")) as verifier:
        (verdict,) = await verifier.verify([code])
    assert "Goals before the error:\nx : ℕ\n⊢ x = x" in render_feedback(code, verdict)


async def test_health_and_lean_env(standin: StandIn, dead_url: str) -> None:
    async with fast(standin.url) as verifier:
        assert (await verifier.health())["status"] == "ok"
        assert await verifier.lean_env() == "standin-v4.15.0"
    async with fast(dead_url) as verifier:
        assert await verifier.lean_env() is None


async def test_progress_is_reported(standin: StandIn) -> None:
    seen: list[tuple[int, int]] = []
    async with fast(standin.url, limits=Limits(batch_size=2)) as verifier:
        await verifier.verify(
            [proof(f"t{i}") for i in range(6)] + ["theorem x : 1 = 2 := by sorry"],
            progress=lambda d, t: seen.append((d, t)),
        )
    assert seen[0] == (1, 7) and seen[-1] == (7, 7)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_verify_sync(standin: StandIn) -> None:
    verdicts = verify_sync([proof("a"), proof("b", "error e")], VerifierOptions(Endpoint(standin.url)))
    assert [v.kind for v in verdicts] == [VerdictKind.VALID, VerdictKind.LEAN_ERROR]


async def test_verify_sync_inside_a_running_loop(standin: StandIn) -> None:
    assert verify_sync([proof("a")], VerifierOptions(Endpoint(standin.url)))[0].ok


def test_flat_keywords_still_work_and_warn(standin: StandIn) -> None:
    """The 0.4 keywords of `Verifier` and `verify_sync` still work for one release, mapped onto the groups, and warn.

    This is the one test that uses them; every other test passes `VerifierOptions`.
    """
    with pytest.warns(DeprecationWarning, match="deprecated since kimina-verify 0.5"):
        verifier = Verifier("http://127.0.0.1:1", timeout=5, batch_size=3, retries=0, infotree="original")
    assert verifier.options == VerifierOptions(
        Endpoint("http://127.0.0.1:1"),
        Timeouts(lean_s=5),
        Retries(count=0),
        Limits(batch_size=3),
        Checks(infotree="original"),
    )
    assert verifier.url == "http://127.0.0.1:1"
    with pytest.warns(DeprecationWarning, match="VerifierOptions"):
        assert verify_sync([proof("a")], url=standin.url, timeout=30)[0].ok
    with pytest.raises(TypeError, match="did you mean batch_size"), pytest.warns(DeprecationWarning):
        Verifier("http://127.0.0.1:1", batch_sise=3)


def test_invalid_options_are_refused_when_built() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        VerifierOptions(limits=Limits(batch_size=0))
    with pytest.raises(ValueError, match="timeouts must be positive"):
        Timeouts(lean_s=0)


# --- our own server with lean-repl-sim -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sim_url() -> Any:
    testing = pytest.importorskip("kimina_verify.testing", reason="kimina_verify.testing (the server) is absent")
    with testing.sim_server(max_repls=2) as url:
        yield url


async def test_verifier_against_our_server(sim_url: str) -> None:
    items = [
        "import Mathlib\n\ntheorem a : 1 + 1 = 2 := by\n  norm_num\n",
        "import Mathlib\n\ntheorem b : 1 + 1 = 2 := by\n  -- sim: error linarith failed\n  norm_num\n",
        "import Mathlib\n\ntheorem c : 1 = 2 := by\n  sorry\n",
    ]
    async with Verifier(VerifierOptions(Endpoint(sim_url), checks=Checks(print_axioms=False))) as verifier:
        verdicts = await verifier.verify(items)
    assert [v.kind for v in verdicts] == [VerdictKind.VALID, VerdictKind.LEAN_ERROR, VerdictKind.INTEGRITY]
    assert verdicts[1].errors[0].line == 4 and "linarith failed" in verdicts[1].detail


async def test_axiom_check_against_our_server(sim_url: str) -> None:
    async with Verifier(VerifierOptions(Endpoint(sim_url))) as verifier:
        (verdict,) = await verifier.verify(["import Mathlib\n\ntheorem a : 1 + 1 = 2 := by\n  norm_num\n"])
    assert verdict.kind is VerdictKind.VALID, verdict.detail
    assert verdict.axioms == ("propext", "Classical.choice", "Quot.sound")
    assert verdict.messages == ()  # our own `#print axioms` answer is consumed, not shown


async def test_repl_crash_and_lean_timeout_on_our_server(sim_url: str) -> None:
    crash = "import Mathlib\n\ntheorem c : 1 + 1 = 2 := by\n  -- sim: crash\n  norm_num\n"
    slow = "import Mathlib\n\ntheorem s : 1 + 1 = 2 := by\n  -- sim: sleep 5\n  norm_num\n"
    options = VerifierOptions(
        Endpoint(sim_url), Timeouts(lean_s=1), Retries(count=1, backoff_s=0.01), checks=Checks(print_axioms=False)
    )
    async with Verifier(options) as verifier:
        crashed, timed_out = await verifier.verify([crash, slow])
    # It crashes a fresh REPL too: the snippet's own failure, never `infra` (which a caller would retry for ever).
    assert crashed.kind is VerdictKind.LEAN_ERROR and "crash" in crashed.detail.lower()
    assert timed_out.kind is VerdictKind.TIMEOUT
