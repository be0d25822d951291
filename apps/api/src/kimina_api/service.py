"""One prove request from admission to answer: limits, the queue, the timeout, and the response it builds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kimina_eval.engines import SamplingParams
from kimina_verify.environment import LeanEnvironment
from kimina_verify.integrity import check_statement

from kimina_api.engine import EngineUnavailable
from kimina_api.limiter import Limiter, QueueFull, Reservation
from kimina_api.metrics import Metrics
from kimina_api.prover import Emit, ProveJob, Prover, complete_statement
from kimina_api.schemas import Attempt, ProveRequest, ProveResponse, RequestTimings
from kimina_api.settings import Settings

__all__ = ["ProveService", "RequestRejected"]


class RequestRejected(Exception):
    """A request the server will not run; `status` is the HTTP status to answer with, the message the reason."""

    def __init__(self, status: int, detail: str, *, retry_after_s: int | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.retry_after_s = retry_after_s


@dataclass
class ProveService:
    """Admits prove requests and runs them within the server's limits; one per app.

    Attributes:
        settings: The server's limits and defaults.
        prover: The pipeline that does the work.
        limiter: Slots and queue shared by every request.
        metrics: Where outcomes are counted.
    """

    settings: Settings
    prover: Prover
    limiter: Limiter
    metrics: Metrics
    _lean: LeanEnvironment | None = field(default=None, init=False)

    def learn_lean(self, health: Mapping[str, Any]) -> LeanEnvironment:
        """Remember which Lean the verifier runs, from its `/health`; responses then name it."""
        self._lean = LeanEnvironment.from_health(health)
        return self._lean

    async def lean_environment(self) -> LeanEnvironment | None:
        """Which Lean the verifier runs (asked from its `/health` until it answers once), or None without one."""
        verifier = self.prover.verifier
        if self._lean is None and verifier is not None:
            try:
                self.learn_lean(await verifier.health())
            except Exception:  # a verifier that does not answer now: the next request asks again
                return None
        return self._lean

    def job(self, request: ProveRequest) -> ProveJob:
        """Check a request against this server's limits and fill in its defaults.

        Raises:
            RequestRejected: 422 for a request over a limit, 503 when it needs something the server lacks.
        """
        settings = self.settings
        sampling = request.sampling
        max_tokens = sampling.max_tokens or settings.default_max_tokens
        problems = [
            f"{name} is {value} characters long; this server's limit is {limit}"
            for name, value, limit in (
                ("formal_statement", len(request.formal_statement), settings.max_statement_chars),
                ("informal_problem", len(request.informal_problem or ""), settings.max_informal_chars),
            )
            if value > limit
        ]
        if request.n > settings.max_n:
            problems.append(f"n={request.n} is over this server's limit of {settings.max_n}")
        if max_tokens > settings.max_tokens_limit:
            problems.append(f"max_tokens={max_tokens} is over this server's limit of {settings.max_tokens_limit}")
        statement = complete_statement(request.formal_statement, settings.default_header)
        if not problems:
            # The statement reaches a REPL (its header is imported, the checks in Lean elaborate it): it passes the
            # verifier's header and code rules first, so `#eval` or `set_option debug.skipKernelTC` never runs.
            problems = [f"formal_statement: {v.message} [{v.code}]" for v in check_statement(statement)]
        if problems:
            self.metrics.requests.labels(outcome="bad_request").inc()
            raise RequestRejected(422, "; ".join(problems))
        if not self.prover.engine.ready:
            self.metrics.requests.labels(outcome="unavailable").inc()
            raise RequestRejected(503, f"the engine is not available: {self.prover.engine.load_error}")
        if request.verify and self.prover.verifier is None:
            self.metrics.requests.labels(outcome="unavailable").inc()
            raise RequestRejected(503, "this server has no verification server configured; send verify=false")
        return ProveJob(
            statement=statement,
            informal_problem=request.informal_problem,
            n=request.n,
            sampling=SamplingParams(
                temperature=settings.default_temperature if sampling.temperature is None else sampling.temperature,
                top_p=sampling.top_p or settings.default_top_p,
                max_tokens=max_tokens,
                seed=sampling.seed,
            ),
            verify=request.verify,
            fix_turns=request.fix_turns,
        )

    def admit(self) -> Reservation:
        """A place in line, or 429 when every slot and the whole queue are taken."""
        try:
            return self.limiter.reserve()
        except QueueFull as exc:
            self.metrics.requests.labels(outcome="rejected").inc()
            raise RequestRejected(429, f"the server is busy ({exc}); retry later", retry_after_s=5) from None

    async def run(
        self, job: ProveJob, reservation: Reservation, request_id: str, emit: Emit | None = None
    ) -> ProveResponse:
        """Wait for a slot, prove, and answer; the timeout covers the wait and the work.

        Raises:
            RequestRejected: 503 when the engine fails, 504 when the request runs out of time.
        """
        start = time.perf_counter()
        outcome = "cancelled"  # unless the work ends otherwise: the client went away
        try:
            async with asyncio.timeout(self.settings.request_timeout_s):
                await reservation.acquire()
                queue_s = time.perf_counter() - start
                self.metrics.queue_seconds.observe(queue_s)
                attempts = await self.prover.prove(job, emit)
            outcome = "ok"
        except TimeoutError:
            outcome = "timeout"
            limit = self.settings.request_timeout_s
            raise RequestRejected(504, f"the request took longer than this server's limit of {limit:g} s") from None
        except EngineUnavailable as exc:
            outcome = "engine_error"
            raise RequestRejected(503, str(exc)) from None
        finally:
            reservation.release()
            self.metrics.requests.labels(outcome=outcome).inc()
        lean = await self.lean_environment() if job.verify else None
        response = _build_response(
            request_id, self.prover.engine.name, attempts, queue_s, time.perf_counter() - start, lean=lean
        )
        if response.proved:
            self.metrics.proved.inc()
        self.metrics.request_seconds.observe(response.timings.total_s)
        return response


def _build_response(
    request_id: str,
    model: str,
    attempts: list[Attempt],
    queue_s: float,
    total_s: float,
    *,
    lean: LeanEnvironment | None = None,
) -> ProveResponse:
    """Summarise attempts: the first valid proof (first attempts before fixes), the unknowns, and `lean`'s name."""
    proof = None
    unverified = 0
    for attempt in attempts:
        for item in (attempt, attempt.fix):
            if item is None or item.lean is None:
                continue
            if item.lean.ok and proof is None:
                proof = item.code
            unverified += item.lean.kind == "infra"
    return ProveResponse(
        id=request_id,
        model=model,
        proved=proof is not None,
        proof=proof,
        attempts=attempts,
        unverified=unverified,
        lean_env=lean.lean_env if lean else None,
        stand_in=bool(lean and lean.stand_in),
        timings=RequestTimings(queue_s=queue_s, total_s=total_s),
    )
