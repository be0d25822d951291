"""The per-process checker behind the reward and the agent loop: format, then Lean in shared batches, then history."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
import socket
import time
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kimina_verify.errors import VerifierUnavailable

from kimina_rl.batching import MicroBatcher
from kimina_rl.history import Outcome, WinRateHistory
from kimina_rl.scoring import Attempt, RewardProblem
from kimina_rl.settings import Settings

__all__ = ["Scorer", "scorer_for"]

if TYPE_CHECKING:
    from kimina_verify import Verdict, Verifier, VerifyItem

logger = logging.getLogger(__name__)

_WARN_EVERY_S = 10.0

# Set while a sample's verification is re-verified by `verify_retrying`: that function warns before each of its
# rounds, which for a thousand samples waiting out one outage is a thousand lines a round; the scorer warns for them,
# once per `_WARN_EVERY_S`. Other callers of `verify_retrying` in the process keep their warnings.
_RETRYING: contextvars.ContextVar[bool] = contextvars.ContextVar("kimina_rl_retrying", default=False)


class _QuietWhileScoring(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not _RETRYING.get()


logging.getLogger("kimina_verify.attempts").addFilter(_QuietWhileScoring())


VerifierUnavailableError = VerifierUnavailable
"""Deprecated alias of `kimina_verify.VerifierUnavailable` (the same class), kept for kimina-rl 0.3 callers."""


class Scorer:
    """Checks answers for one worker process and records training outcomes.

    All concurrent calls in the process share one `kimina_verify.Verifier` (one HTTP pool, bounded concurrency)
    through a micro-batcher, so a burst of per-sample reward calls becomes a few batched requests. An `infra` verdict
    (server down, 5xx, REPL crash) is re-verified by the attempt protocol's `kimina_verify.attempts.verify_retrying`
    under `settings.scorer.retry_policy()` (2 s doubling to 30 s, jittered per sample) for
    `settings.scorer.infra_retry_s` seconds; after that `kimina_verify.VerifierUnavailable` is raised. It is never
    scored 0.

    Args:
        settings: The `kimina_rl` settings.
        verifier: A ready client (tests); by default one is built from `settings.verifier`.
        clock: Seconds on a monotonic clock, for the retry budget (tests pass a fake one).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        verifier: Verifier | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self._clock = clock
        self.format_config = settings.format_config()
        self._verifier = verifier if verifier is not None else _build_verifier(settings)
        scorer = settings.scorer
        self._verify_batcher: MicroBatcher[VerifyItem, Verdict] = MicroBatcher(
            self._verifier.verify,
            max_batch_size=scorer.max_batch_size,
            window_s=scorer.batch_window_ms / 1000,
            # As many verification calls in flight as the client has requests: each call is one request or more.
            max_concurrent=settings.verifier.limits.max_concurrency,
        )
        self._warned_at = float("-inf")
        self._history: WinRateHistory | None = None
        self._history_batcher: MicroBatcher[Outcome, int] | None = None
        if settings.history_path is not None:
            self._history = WinRateHistory(settings.history_path.replace("{host}", socket.gethostname()))
            self._history_batcher = MicroBatcher(self._write_history, max_batch_size=4096, window_s=0.02)

    @property
    def verification_calls(self) -> int:
        """How many batched verification calls went out (for tests and benchmarks)."""
        return self._verify_batcher.batches_sent

    async def attempt(self, text: str, problem: RewardProblem, *, tokens: int | None = None) -> Attempt:
        """Check one answer: the format rules, then Lean when there is a final code block.

        Args:
            text: The answer as the model wrote it (one assistant turn).
            problem: The theorem asked for.
            tokens: The answer's exact token count, for the length penalty; estimated from characters when None.

        Raises:
            kimina_verify.VerifierUnavailable: The server failed for the whole retry budget.
        """
        from kimina_format import check_format
        from kimina_verify import VerifyItem

        count_tokens = (lambda _text: tokens) if tokens is not None else None
        verdict_format = await asyncio.to_thread(
            check_format,
            text,
            formal_statement=problem.formal_statement,
            config=self.format_config,
            count_tokens=count_tokens,
        )
        code = verdict_format.completion.code
        if code is None:
            return Attempt(text, verdict_format, None)
        verdict = await self._verify(VerifyItem(code, formal_statement=problem.formal_statement))
        return Attempt(text, verdict_format, verdict)

    async def _verify(self, item: VerifyItem) -> Verdict:
        from kimina_verify import Verdict
        from kimina_verify.attempts import verify_retrying

        budget = self.settings.scorer.infra_retry_s
        # Each sample waits on its own scale of the delays, so the samples waiting out an outage come back spread out
        # and a recovering server is not hit by all of them at once.
        policy = self.settings.scorer.retry_policy(scale=random.uniform(0.75, 1.0))
        delays = policy.delays()
        started = self._clock()
        calls = 0

        async def call(items: list[VerifyItem]) -> list[Verdict]:
            nonlocal calls
            try:
                verdicts = [await self._verify_batcher.submit(one) for one in items]
            except (OSError, TimeoutError) as exc:  # the client reports server trouble as verdicts; this is local
                verdicts = [Verdict.infra(f"{type(exc).__name__}: {exc}") for _ in items]
            calls += 1
            failing = [verdict for verdict in verdicts if verdict.is_infra]
            if failing:
                problem = failing[0].detail or "infrastructure failure"
                # The budget is time: the rounds bound the waits, the clock also counts slow failing calls.
                if calls > len(delays) or self._clock() + delays[calls - 1] > started + budget:
                    raise VerifierUnavailable(
                        f"verification server {self._verifier.url} kept failing for {self._clock() - started:.0f} s "
                        f"(retry budget kimina_rl.scorer.infra_retry_s={budget:g}); last error: {problem}"
                    )
                self._warn(problem)
            return verdicts

        token = _RETRYING.set(True)
        try:
            (verdict,), _ = await verify_retrying(call, [item], policy)
        finally:
            _RETRYING.reset(token)
        return verdict

    def _warn(self, problem: str) -> None:
        # During an outage every waiting sample retries; one warning per interval and process is enough.
        if self._clock() - self._warned_at >= _WARN_EVERY_S:
            self._warned_at = self._clock()
            logger.warning("verification server %s failing (%s); retrying", self._verifier.url, problem)

    async def record(self, problem: RewardProblem, solved: bool) -> None:
        """Add one training outcome to the win-rate history; returns once it is on disk (no-op without history)."""
        if self._history_batcher is None or not problem.training:
            return
        outcome = Outcome(
            problem.problem_id,
            solved=solved,
            formal_statement=problem.formal_statement,
            data_source=problem.data_source,
            informal_problem=problem.informal_problem,
        )
        await self._history_batcher.submit(outcome)

    async def _write_history(self, outcomes: Sequence[Outcome]) -> list[int]:
        assert self._history is not None
        await asyncio.to_thread(self._history.record, outcomes)
        return [1] * len(outcomes)

    async def aclose(self) -> None:
        """Close the verifier's connections and the history file."""
        await self._verifier.aclose()
        if self._history is not None:
            self._history.close()


def _build_verifier(settings: Settings) -> Verifier:
    from kimina_verify import Verifier

    # `Settings` keeps the client's retries at the attempt protocol's `CLIENT_RETRIES` (0): the one retry layer is
    # the caller's, here `verify_retrying` within `_verify`'s time budget (infra_retry_s).
    return Verifier(settings.verifier)


_scorers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Scorer] = weakref.WeakKeyDictionary()
_closing: set[asyncio.Task[Any]] = set()


def scorer_for(settings: Settings) -> Scorer:
    """The process's scorer for the running event loop, built on first use (and rebuilt if the settings change).

    verl runs each reward worker and agent-loop worker as one process with one event loop, so this is one verifier
    client, one connection pool and one batcher per worker process.
    """
    loop = asyncio.get_running_loop()
    scorer = _scorers.get(loop)
    if scorer is None or scorer.settings != settings:
        if scorer is not None:
            task = loop.create_task(scorer.aclose())
            _closing.add(task)
            task.add_done_callback(_closing.discard)
        scorer = _scorers[loop] = Scorer(settings)
    return scorer
