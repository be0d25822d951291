"""Admission control: at most `max_active` requests run, at most `max_queue` wait, the rest are refused at once."""

from __future__ import annotations

import asyncio
import enum
from types import TracebackType

__all__ = ["Limiter", "QueueFull", "Reservation"]


class QueueFull(Exception):
    """Raised by `Limiter.reserve` when every slot is taken and the queue is full (HTTP 429)."""


class _State(enum.Enum):
    WAITING = "waiting"
    ACTIVE = "active"
    RELEASED = "released"


class Reservation:
    """A place in line: `await acquire()` waits for a slot; `release()` gives it (or the place in line) back.

    `release` is idempotent, so a stream's response can release unconditionally, whether or not the work ever started.
    """

    def __init__(self, limiter: Limiter) -> None:
        self._limiter = limiter
        self._state = _State.WAITING

    async def acquire(self) -> None:
        """Wait for a running slot (FIFO); cancelling the wait keeps the reservation releasable."""
        if self._state is not _State.WAITING:
            raise RuntimeError(f"cannot acquire a reservation that is {self._state.value}")
        await self._limiter._semaphore.acquire()
        self._state = _State.ACTIVE
        self._limiter._waiting -= 1
        self._limiter._active += 1

    def release(self) -> None:
        """Give back the slot, or the place in line if the slot was never acquired."""
        if self._state is _State.ACTIVE:
            self._limiter._semaphore.release()
            self._limiter._active -= 1
        elif self._state is _State.WAITING:
            self._limiter._waiting -= 1
        self._state = _State.RELEASED

    async def __aenter__(self) -> Reservation:
        await self.acquire()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


class Limiter:
    """A bounded queue in front of a semaphore, for one event loop.

    >>> limiter = Limiter(max_active=2, max_queue=0)
    >>> first, second = limiter.reserve(), limiter.reserve()
    >>> limiter.reserve()
    Traceback (most recent call last):
    ...
    kimina_api.limiter.QueueFull: 0 requests running and 2 waiting (limits 2 and 0)
    """

    def __init__(self, max_active: int, max_queue: int) -> None:
        if max_active < 1 or max_queue < 0:
            raise ValueError("max_active must be >= 1 and max_queue >= 0")
        self.max_active = max_active
        self.max_queue = max_queue
        self._semaphore = asyncio.Semaphore(max_active)
        self._active = 0
        self._waiting = 0

    @property
    def active(self) -> int:
        """Requests holding a slot."""
        return self._active

    @property
    def waiting(self) -> int:
        """Requests admitted but still waiting for a slot."""
        return self._waiting

    def reserve(self) -> Reservation:
        """Take a place in line now, or raise `QueueFull` if there is none; never waits."""
        if self._active + self._waiting >= self.max_active + self.max_queue:
            raise QueueFull(
                f"{self._active} requests running and {self._waiting} waiting"
                f" (limits {self.max_active} and {self.max_queue})"
            )
        self._waiting += 1
        return Reservation(self)
