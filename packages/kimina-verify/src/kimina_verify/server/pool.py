"""The REPL pool: a bounded queue of checks, scheduled onto `max_repls` slots with header affinity.

A slot keeps serving checks for the header its REPL already imported, and switches header only when nothing of its
own is waiting or another check has waited longer than `header_switch_after`. Identical checks in flight run once.
Every submitted check ends with exactly one outcome, including on shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import time
from collections import deque

from kimina_verify.header import check_header
from kimina_verify.server import outcome as texts
from kimina_verify.server.followup import StatementCache
from kimina_verify.server.job import CheckSpec, Job
from kimina_verify.server.metrics import Metrics
from kimina_verify.server.outcome import CheckOutcome
from kimina_verify.server.settings import ServerSettings
from kimina_verify.server.slot import Slot

__all__ = ["BatchTooLarge", "PoolClosed", "QueueFull", "ReplPool"]

logger = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1024)
def _header_refusal(header: str) -> str | None:
    """Why a snippet's import header may not reach a REPL (`kimina_verify.check_header`'s first rule), or None."""
    violations = check_header(header)
    return f"{violations[0].code}: {violations[0].message}" if violations else None


class QueueFull(Exception):
    """The queue cannot take these checks now; retry after `retry_after` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"queue full, retry after {retry_after} s")
        self.retry_after = retry_after


class BatchTooLarge(Exception):
    """A single request holds more new checks than the whole queue."""


class PoolClosed(Exception):
    """The pool is shutting down and takes no more checks."""


class ReplPool:
    """Runs checks on up to `max_repls` REPLs. Create, `await start()`, `submit(...)`, then `drain()`/`close()`."""

    def __init__(self, settings: ServerSettings, metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.metrics = metrics or Metrics()
        self.statements = StatementCache()
        self.slots = [Slot(i, settings, self.metrics, self.statements) for i in range(settings.max_repls)]
        self._fifo: deque[Job] = deque()
        self._by_header: dict[str, deque[Job]] = {}
        self._inflight: dict[tuple[object, ...], Job] = {}
        self._idle: dict[Slot, asyncio.Future[Job | None]] = {}
        self._queued = 0
        self._running = 0
        self._closing = False
        self._tasks: list[asyncio.Task[None]] = []
        self._changed = asyncio.Event()
        self._recent: deque[float] = deque(maxlen=256)

    @property
    def queued(self) -> int:
        """Checks waiting for a REPL."""
        return self._queued

    @property
    def running(self) -> int:
        """Checks running on a REPL."""
        return self._running

    @property
    def closing(self) -> bool:
        """Whether the pool has stopped taking checks."""
        return self._closing

    async def start(self) -> None:
        """Start the slots, import the configured headers, and check that a REPL can start at all.

        Raises:
            RuntimeError: The REPL command does not work (so a misconfigured server fails at once).
        """
        warm: list[tuple[Slot, str]] = []
        slots = iter(self.slots)
        for header, count in self.settings.init_repls.items():
            warm.extend((next(slots), header) for _ in range(count))
        if not warm:
            warm = [(self.slots[0], "")]  # a probe: the REPL starts and answers an empty command
        failures = await asyncio.gather(*(slot.warm(header) for slot, header in warm))
        for failure in failures:
            if failure is not None:  # a Lean error in a header is not a failure here: only a REPL that broke
                await self.close()
                raise RuntimeError(
                    f"the REPL command {' '.join(self.settings.command)!r} does not work: {failure.error}"
                )
        self._tasks = [asyncio.create_task(self._serve(slot), name=f"repl-slot-{slot.index}") for slot in self.slots]
        self._tasks.append(asyncio.create_task(self._expire(), name="repl-queue-expiry"))
        while len(self._idle) < len(self.slots):  # every slot parks at once; then checks go straight to them
            await asyncio.sleep(0)

    def submit(self, specs: list[CheckSpec]) -> list[asyncio.Future[CheckOutcome]]:
        """Queue checks and return one future per spec, in order; all are accepted or none.

        Raises:
            PoolClosed: The pool is shutting down.
            BatchTooLarge: The request alone has more new checks than the slots and the queue hold.
            QueueFull: Not enough room now.
        """
        if self._closing:
            raise PoolClosed
        refused = {s.header: _header_refusal(s.header) for s in specs}
        new = len({s.key for s in specs if s.key not in self._inflight and refused[s.header] is None})
        if new > self.settings.max_queue + len(self.slots):
            raise BatchTooLarge
        idle = len(self._idle)
        if self._queued + max(new - idle, 0) > self.settings.max_queue:
            raise QueueFull(self.retry_after())
        futures = []
        now = time.monotonic()
        loop = asyncio.get_running_loop()
        for spec in specs:
            refusal = refused[spec.header]
            if refusal is not None:
                futures.append(self._refuse(spec, now, refusal))
                continue
            job = self._inflight.get(spec.key)
            if job is None:
                job = Job(spec, now, loop.create_future())
                self._inflight[spec.key] = job
                self._dispatch(job)
            else:
                job.waiters += 1
                self.metrics.dedup_hits += 1
            futures.append(job.future)
        return futures

    def _refuse(self, spec: CheckSpec, now: float, refusal: str) -> asyncio.Future[CheckOutcome]:
        """A finished check for a snippet whose header may not reach a REPL."""
        job = Job(spec, now, asyncio.get_running_loop().create_future())
        job.finish(CheckOutcome.failed("header_refused", texts.HEADER_REFUSED.format(detail=refusal)))
        self.metrics.checks["header_refused"] += 1
        return job.future

    def retry_after(self) -> int:
        """A fair guess of when the queue will have room: the queued work spread over the slots."""
        mean = sum(self._recent) / len(self._recent) if self._recent else 1.0
        return max(1, min(300, math.ceil(self._queued * mean / len(self.slots))))

    def repl_states(self) -> dict[str, int]:
        """How many slots are busy, idle with a warm REPL, or empty (a REPL that died while idle counts as none)."""
        busy = sum(1 for s in self.slots if s.busy)
        # The slot replaces a dead REPL only at its next check: until then, asking the process is the truth.
        warm = sum(1 for s in self.slots if not s.busy and s.repl is not None and s.repl.alive)
        return {"busy": busy, "idle": warm, "empty": len(self.slots) - busy - warm}

    async def drain(self, grace: float) -> None:
        """Stop taking checks, give the ones in flight `grace` seconds, then fail what is left explicitly."""
        self._closing = True
        deadline = time.monotonic() + grace
        while self._queued + self._running and time.monotonic() < deadline:
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), max(deadline - time.monotonic(), 0.01))
        shutdown = CheckOutcome.failed("shutdown", texts.SHUTDOWN)
        while self._fifo:
            job = self._fifo.popleft()
            if not job.taken:
                self._take(job)
                self._complete(job, shutdown)
        for slot in self.slots:
            if slot.busy:
                slot.abort()
        # The aborted checks settle as soon as their slots see the REPLs die.
        deadline = time.monotonic() + 10.0
        while self._running and time.monotonic() < deadline:
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), 0.1)

    async def close(self) -> None:
        """Fail anything left, stop every slot and every REPL process."""
        self._closing = True
        if self._queued or self._running:
            await self.drain(0)
        for waiter in self._idle.values():
            if not waiter.done():
                waiter.set_result(None)
        self._idle.clear()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.gather(*(slot.close() for slot in self.slots), return_exceptions=True)

    def _dispatch(self, job: Job) -> None:
        slot = self._best_idle(job.spec)
        if slot is not None:
            self._idle.pop(slot).set_result(job)
            job.taken = True
            return
        self._fifo.append(job)
        self._by_header.setdefault(job.spec.header, deque()).append(job)
        self._queued += 1

    def _best_idle(self, spec: CheckSpec) -> Slot | None:
        """An idle slot already holding this header, else an empty one, else the one idle the longest."""
        if not self._idle:
            return None
        if not spec.fresh:
            for slot in self._idle:
                if slot.header == spec.header:
                    return slot
        for slot in self._idle:
            if slot.repl is None:
                return slot
        return min(self._idle, key=lambda s: s.last_used)

    def _next_for(self, slot: Slot) -> Job | None:
        """The job this slot should run next: its own header's oldest, unless another job has waited too long."""
        if not self._queued:
            return None
        oldest = self._peek(self._fifo)
        own = None
        if slot.header is not None:
            own_queue = self._by_header.get(slot.header)
            own = self._peek(own_queue) if own_queue else None
            if own is not None and own.spec.fresh:
                own = None
        job = oldest
        if own is not None and oldest is not None:
            waited = time.monotonic() - oldest.enqueued_at
            if waited < self.settings.header_switch_after:
                job = own
        if job is not None:
            self._take(job)
        return job

    @staticmethod
    def _peek(queue: deque[Job]) -> Job | None:
        while queue and queue[0].taken:
            queue.popleft()
        return queue[0] if queue else None

    def _take(self, job: Job) -> None:
        job.taken = True
        self._queued -= 1
        queue = self._by_header.get(job.spec.header)
        if queue is not None:
            self._peek(queue)
            if not queue:
                del self._by_header[job.spec.header]

    async def _serve(self, slot: Slot) -> None:
        loop = asyncio.get_running_loop()
        while True:
            job = self._next_for(slot)
            if job is None:
                if self._closing:
                    return
                waiter: asyncio.Future[Job | None] = loop.create_future()
                self._idle[slot] = waiter
                job = await waiter
                if job is None:
                    return
            self.metrics.queue_seconds.observe(time.monotonic() - job.enqueued_at)
            self._running += 1
            try:
                result = await slot.run(job.spec)
            except asyncio.CancelledError:
                self._complete(job, CheckOutcome.failed("shutdown", texts.SHUTDOWN))
                raise
            except Exception:  # a bug must not lose the check: fail it and keep the slot alive
                logger.exception("slot %d failed on a check", slot.index)
                result = CheckOutcome.failed("crash", texts.CRASHED.format(code=None, stderr="internal server error"))
            finally:
                self._running -= 1
            self._recent.append(result.time)
            self._complete(job, result)

    def _complete(self, job: Job, result: CheckOutcome) -> None:
        if self._inflight.get(job.spec.key) is job:
            del self._inflight[job.spec.key]
        self.metrics.checks[result.outcome] += job.waiters
        job.finish(result)
        self._changed.set()

    async def _expire(self) -> None:
        """Fail checks that have waited longer than `max_wait` for a REPL."""
        while True:
            await asyncio.sleep(min(1.0, self.settings.max_wait / 4))
            limit = time.monotonic() - self.settings.max_wait
            while self._fifo and (self._fifo[0].taken or self._fifo[0].enqueued_at < limit):
                job = self._fifo.popleft()
                if not job.taken:
                    self._take(job)
                    self._complete(
                        job, CheckOutcome.failed("no_repl", texts.NO_REPL.format(wait=self.settings.max_wait))
                    )
