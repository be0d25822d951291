"""The proving pipeline behind `/v1/prove`: sample attempts, check their format, verify them, fix failures once."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from kimina_eval.engines import Messages, SamplingParams
from kimina_format import build_messages, check_format
from kimina_format.prompts import TemplateName
from kimina_verify import LeanCode, Verdict, Verifier, VerifyItem
from kimina_verify.attempts import (
    FIRST_TURN,
    FIX_TURN,
    RetryPolicy,
    fix_feedback,
    fix_messages,
    gets_fix_turn,
    verify_retrying,
)

from kimina_api.engine import EngineRunner, EngineUnavailable
from kimina_api.metrics import Metrics
from kimina_api.schemas import (
    Attempt,
    FormatReport,
    FormatViolation,
    IntegrityViolation,
    LeanMessage,
    LeanReport,
    Timings,
)

__all__ = [
    "Emit",
    "ProveJob",
    "Prover",
    "complete_statement",
]

logger = logging.getLogger(__name__)

Emit = Callable[[Attempt], Awaitable[None]]
"""Called with an attempt each time it changes (generated, verifying, verified, fixed)."""

_TRAILING_SORRY = re.compile(r"\s*\bsorry\s*$")


def complete_statement(statement: str, header: str) -> str:
    r"""The statement as the model sees it: the header prepended when it has no imports, a trailing `sorry` dropped.

    >>> complete_statement("theorem t : 1 + 1 = 2 := by sorry", "import Mathlib\\n\\n")
    'import Mathlib\\n\\ntheorem t : 1 + 1 = 2 := by\\n'
    """
    body = _TRAILING_SORRY.sub("", statement.strip())
    if not LeanCode(body).imports:
        body = header + body
    return body + "\n"


@dataclass(frozen=True)
class ProveJob:
    """One request, resolved against the server's defaults.

    Attributes:
        statement: The full statement (header included) the model is given and the proof must keep.
        informal_problem: The problem in words, if given.
        n: Attempts to sample.
        sampling: Sampling settings for every engine call.
        verify: Whether to check attempts with Lean.
        fix_turns: Error-fix turns (0 or 1) for attempts Lean rejected.
    """

    statement: str
    informal_problem: str | None
    n: int
    sampling: SamplingParams
    verify: bool
    fix_turns: int


def _lean_report(verdict: Verdict) -> LeanReport:
    """The HTTP view of a kimina-verify verdict."""
    return LeanReport(
        kind=verdict.kind.value,
        ok=verdict.ok,
        messages=[
            LeanMessage(
                severity=m.severity,
                text=m.data,
                line=m.line,
                column=m.column,
                end_line=m.end_line,
                end_column=m.end_column,
                goals_before=m.goals_before,
            )
            for m in verdict.messages
        ],
        violations=[IntegrityViolation(code=v.code, message=v.message, line=v.line) for v in verdict.violations],
        detail=verdict.detail or None,
        time_s=verdict.time_s,
        cached=verdict.cached,
    )


class Prover:
    """Runs one request end to end; shared by every request of an app.

    Args:
        engine: Where completions come from.
        verifier: The Lean verification client, or None when the server has none configured.
        template: The prompt template (`rl` or `distill`).
        verify_timeout_s: Longest wait for one verdict before the attempt is reported unverified.
        metrics: Where timings and verdicts are counted.
        retry: Re-verification of ``infra`` verdicts (the attempt protocol's one retry layer: build the verifier with
            ``retries=kimina_verify.attempts.CLIENT_RETRIES``).
    """

    def __init__(
        self,
        engine: EngineRunner,
        verifier: Verifier | None,
        *,
        template: TemplateName,
        verify_timeout_s: float,
        metrics: Metrics,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self.engine = engine
        self.verifier = verifier
        self.template = template
        self.verify_timeout_s = verify_timeout_s
        self.metrics = metrics

    async def prove(self, job: ProveJob, emit: Emit | None = None) -> list[Attempt]:
        """Sample, check and verify `job.n` attempts, with a fix turn for each failure when asked.

        Raises:
            EngineUnavailable: When the engine cannot generate (the caller answers 503).
        """
        notify = emit or _ignore
        messages = build_messages(job.statement, job.informal_problem, template=self.template)
        completions, generate_s = await self._generate(messages, job.n, job.sampling)
        attempts = [self._attempt(i, FIRST_TURN, text, job.statement, generate_s) for i, text in enumerate(completions)]
        for attempt in attempts:
            await notify(attempt)
        if job.verify:
            try:
                async with asyncio.TaskGroup() as group:
                    for attempt in attempts:
                        group.create_task(self._verify_and_fix(attempt, messages, job, notify))
            except* EngineUnavailable as failed:  # a fix turn's engine call: the same 503 as the first call's
                raise failed.exceptions[0] from None
        for attempt in attempts:
            self._count(attempt)
        return attempts

    async def _generate(self, messages: Messages, n: int, sampling: SamplingParams) -> tuple[list[str], float]:
        start = time.perf_counter()
        (completions,) = await self.engine.generate([messages], n, sampling)
        elapsed = time.perf_counter() - start
        self.metrics.generate_seconds.observe(elapsed)
        return completions, elapsed

    def _attempt(self, index: int, turn: int, completion: str, statement: str, generate_s: float) -> Attempt:
        verdict = check_format(completion, formal_statement=statement)
        return Attempt(
            index=index,
            turn=turn,
            stage="generated",
            completion=completion,
            thinking=verdict.completion.thinking,
            code=verdict.completion.code,
            format=FormatReport(
                ok=verdict.ok,
                score=verdict.score,
                violations=[FormatViolation(code=str(v.code), message=v.message) for v in verdict.violations],
            ),
            timings=Timings(generate_s=generate_s),
        )

    async def _verify_and_fix(self, attempt: Attempt, messages: Messages, job: ProveJob, notify: Emit) -> None:
        verdict = await self._check(attempt, job.statement, notify)
        # The attempt protocol decides (an outage, a timeout, an integrity rejection or a broken format get none).
        if job.fix_turns < 1 or not self.gets_fix_turn(attempt, verdict):
            return
        assert attempt.code is not None and verdict is not None  # gets_fix_turn checked both
        attempt.feedback = fix_feedback(attempt.code, verdict)
        conversation = fix_messages(messages, attempt.completion, attempt.feedback)
        (completion,), generate_s = await self._generate(conversation, 1, job.sampling)
        attempt.fix = self._attempt(attempt.index, FIX_TURN, completion, job.statement, generate_s)
        await notify(attempt)
        await self._check(attempt.fix, job.statement, notify, parent=attempt)

    @staticmethod
    def gets_fix_turn(attempt: Attempt, verdict: Verdict | None) -> bool:
        """Whether a first attempt gets the fix turn: `kimina_verify.attempts.gets_fix_turn` on its reports."""
        return gets_fix_turn(format_ok=attempt.format.ok, code=attempt.code, verdict=verdict)

    async def _check(
        self, attempt: Attempt, statement: str, notify: Emit, parent: Attempt | None = None
    ) -> Verdict | None:
        """Verify one attempt's code in place; returns Lean's verdict, or None when there was none to be had."""
        shown = parent or attempt
        if attempt.code is None:  # nothing to check: the format report says why
            attempt.stage = "done"
            await notify(shown)
            return None
        attempt.stage = "verifying"
        await notify(shown)
        start = time.perf_counter()
        verdict, attempt.lean = await self._verify(attempt.code, statement)
        attempt.timings.verify_s = time.perf_counter() - start
        self.metrics.verify_seconds.observe(attempt.timings.verify_s)
        attempt.stage = "done"
        await notify(shown)
        return verdict

    async def _verify(self, code: str, statement: str) -> tuple[Verdict | None, LeanReport]:
        """Ask the verifier; any failure to get an answer is an `infra` report, never a disproof."""
        if self.verifier is None:
            return None, LeanReport(kind="infra", ok=False, detail="no verification server is configured")
        try:
            async with asyncio.timeout(self.verify_timeout_s):
                (verdict,), _ = await verify_retrying(
                    self.verifier.verify, [VerifyItem(code, formal_statement=statement)], self.retry
                )
        except TimeoutError:
            detail = f"no verdict within {self.verify_timeout_s:g} s"
        except Exception as exc:  # a client or transport error: the verifier is down, not the proof wrong
            logger.warning("verification failed", extra={"reason": repr(exc)})
            detail = f"verification failed: {type(exc).__name__}: {exc}"
        else:
            return verdict, _lean_report(verdict)
        return None, LeanReport(kind="infra", ok=False, detail=detail)

    def _count(self, attempt: Attempt) -> None:
        for item in (attempt, attempt.fix):
            if item is not None:
                verdict = item.lean.kind if item.lean is not None else "unverified"
                self.metrics.attempts.labels(turn=str(item.turn), verdict=verdict).inc()


async def _ignore(attempt: Attempt) -> None:
    """The default `emit`: nobody is listening."""
