"""The reward's outage budget (`scorer.infra_retry_s`), on a fake clock: the attempt protocol's retries, bounded in time."""

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import pytest
from kimina_rl.scoring import RewardProblem
from kimina_rl.service import Scorer
from kimina_rl.settings import ScorerSettings, Settings
from kimina_verify import Verdict, VerdictKind, VerifierUnavailable, VerifyItem
from kimina_verify.attempts import RetryPolicy


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _FailingServer:
    """A verifier whose server answers `infra` (each call taking `call_s` on the fake clock) `failures` times."""

    url = "http://lean.invalid:8000"

    def __init__(self, clock: _Clock, *, call_s: float = 0.0, failures: float = float("inf")) -> None:
        self.clock, self.call_s, self.failures = clock, call_s, failures
        self.calls: list[float] = []

    async def verify(self, items: Sequence[VerifyItem]) -> list[Verdict]:
        self.calls.append(self.clock.now)
        self.clock.now += self.call_s
        if len(self.calls) <= self.failures:
            return [Verdict.infra("HTTP 503") for _ in items]
        return [Verdict(VerdictKind.VALID) for _ in items]

    async def aclose(self) -> None:
        pass


@pytest.fixture
async def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    """A fake clock that `asyncio.sleep` (the retries' waits) advances instead of waiting, in this test's loop."""
    fake = _Clock()
    real_sleep = asyncio.sleep
    loop = asyncio.get_running_loop()

    async def sleep(delay: float, result: Any = None) -> Any:
        if asyncio.get_running_loop() is not loop:  # another thread's loop (a test server's): real time
            return await real_sleep(delay, result)
        start = fake.now
        await real_sleep(0)  # the other samples reach their own waits: waits that overlap in time do not add up
        fake.now = max(fake.now, start + delay)
        return result

    monkeypatch.setattr(asyncio, "sleep", sleep)
    return fake


async def _attempt(server: _FailingServer, clock: _Clock, budget: float, row: dict[str, Any]) -> Any:
    settings = Settings.from_mapping({"scorer": {"infra_retry_s": budget}})
    scorer = Scorer(settings, verifier=server, clock=clock)  # type: ignore[arg-type]
    try:
        return await scorer.attempt(row["completion"], RewardProblem(row["formal_statement"], "p1"))
    finally:
        await scorer.aclose()


async def test_an_outage_is_retried_for_the_whole_budget_then_raises(
    well_formed: list[dict[str, Any]], clock: _Clock
) -> None:
    server = _FailingServer(clock)
    with pytest.raises(VerifierUnavailable, match=r"kept failing for \d+ s \(retry budget .*infra_retry_s=600\)"):
        await _attempt(server, clock, 600, well_formed[0])
    assert 570 < clock.now <= 600  # used the budget (the next wait, 30 s at most, would pass it), never more
    assert all(at <= 600 for at in server.calls) and len(server.calls) > 20


async def test_slow_failing_calls_count_against_the_budget(well_formed: list[dict[str, Any]], clock: _Clock) -> None:
    server = _FailingServer(clock, call_s=100)  # a server that hangs until the client's timeout
    with pytest.raises(VerifierUnavailable, match="infra_retry_s=600"):
        await _attempt(server, clock, 600, well_formed[0])
    # Rounds alone (23 for 600 s of waits) would keep trying for 40 minutes; the budget is wall-clock time.
    assert len(server.calls) <= 6 and clock.now <= 700
    assert all(at <= 600 for at in server.calls)


async def test_a_server_that_comes_back_within_the_budget_is_scored(
    well_formed: list[dict[str, Any]], clock: _Clock
) -> None:
    server = _FailingServer(clock, failures=3)
    attempt = await _attempt(server, clock, 600, well_formed[0])
    assert attempt.verdict is not None and attempt.verdict.ok
    assert len(server.calls) == 4 and clock.now < 30  # three waits of 1.5-2, 3-4, 6-8 s


async def test_no_budget_means_no_retry(well_formed: list[dict[str, Any]], clock: _Clock) -> None:
    server = _FailingServer(clock)
    with pytest.raises(VerifierUnavailable):
        await _attempt(server, clock, 0, well_formed[0])
    assert len(server.calls) == 1 and clock.now == 0


async def test_one_warning_per_interval_during_an_outage(
    well_formed: list[dict[str, Any]], clock: _Clock, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings.from_mapping({"scorer": {"infra_retry_s": 600}})
    server = _FailingServer(clock)
    scorer = Scorer(settings, verifier=server, clock=clock)  # type: ignore[arg-type]
    rows = well_formed[:10]  # ten samples waiting out the same outage, each retrying ~20 times
    with caplog.at_level(logging.WARNING):
        results = await asyncio.gather(
            *(
                scorer.attempt(r["completion"], RewardProblem(r["formal_statement"], f"p{i}"))
                for i, r in enumerate(rows)
            ),
            return_exceptions=True,
        )
    await scorer.aclose()
    assert all(isinstance(result, VerifierUnavailable) for result in results) and clock.now <= 600
    assert not [r for r in caplog.records if r.name == "kimina_verify.attempts"]  # the scorer warns for them
    warnings = [r for r in caplog.records if r.name == "kimina_rl.service"]
    # One per sample and round would be ~230 (the calls are batched: ~24 of them, each for the ten samples).
    assert 1 <= len(warnings) <= 600 / 10 + 1 and len(server.calls) > 20


def test_the_policy_fits_the_budget() -> None:
    assert ScorerSettings(infra_retry_s=600).retry_policy() == RetryPolicy(rounds=23, first_delay_s=2, max_delay_s=30)
    for budget in (0, 1, 2, 3, 7, 29, 30, 31, 100, 600, 3600):
        for scale in (0.75, 0.9, 1.0):
            delays = ScorerSettings(infra_retry_s=budget).retry_policy(scale=scale).delays()
            following = min(2 * scale * 2 ** len(delays), 30 * scale)
            assert sum(delays) <= budget < sum(delays) + following, (budget, scale)
