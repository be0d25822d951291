"""Gather concurrent per-item async calls into batches, so one request serves many callers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

__all__ = ["MicroBatcher"]


class MicroBatcher[T, R]:
    """Collects items submitted concurrently and hands them to `process` in batches.

    verl's reward loop calls the reward function once per sample, many at a time. A batch goes out when
    `max_batch_size` items are waiting or `window_s` after the first one arrived, whichever is first; at most
    `max_concurrent` batches are processed at once, and further items wait (bounded concurrency).

    Example:
        >>> async def double(items: Sequence[int]) -> list[int]:
        ...     return [2 * item for item in items]
        >>> batcher = MicroBatcher(double, max_batch_size=64, window_s=0.005)
        >>> # results = await asyncio.gather(*(batcher.submit(i) for i in range(100)))  # 2 calls of `double`
    """

    def __init__(
        self,
        process: Callable[[Sequence[T]], Awaitable[Sequence[R]]],
        *,
        max_batch_size: int,
        window_s: float,
        max_concurrent: int = 1,
    ) -> None:
        """Create a batcher around `process`, which must return one result per item, in order.

        Raises:
            ValueError: A non-positive batch size or concurrency, or a negative window.
        """
        if max_batch_size < 1 or max_concurrent < 1 or window_s < 0:
            raise ValueError("max_batch_size and max_concurrent must be >= 1 and window_s >= 0")
        self._process = process
        self._max_batch_size = max_batch_size
        self._window_s = window_s
        self._slots = asyncio.Semaphore(max_concurrent)
        self._pending: list[tuple[T, asyncio.Future[R]]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.batches_sent = 0

    async def submit(self, item: T) -> R:
        """Queue `item` and wait for its result; an exception from `process` is raised to every caller of the batch."""
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        if len(self._pending) >= self._max_batch_size:
            self._flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self._window_s, self._flush)
        return await future

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._pending:
            batch, self._pending = self._pending[: self._max_batch_size], self._pending[self._max_batch_size :]
            task = asyncio.get_running_loop().create_task(self._run(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, batch: list[tuple[T, asyncio.Future[R]]]) -> None:
        async with self._slots:
            # Callers that gave up (cancelled) need no result; skip them if the whole batch is gone.
            live = [(item, future) for item, future in batch if not future.done()]
            if not live:
                return
            self.batches_sent += 1
            try:
                results = await self._process([item for item, _ in live])
                if len(results) != len(live):
                    raise RuntimeError(f"batch function returned {len(results)} results for {len(live)} items")
            except asyncio.CancelledError:
                for _, future in live:
                    future.cancel()
                raise
            except Exception as exc:  # handed to each waiting caller, who decides what it means
                for _, future in live:
                    if not future.done():
                        future.set_exception(exc)
                return
            for (_, future), result in zip(live, results, strict=True):
                if not future.done():
                    future.set_result(result)
