"""A uvicorn HTTP protocol that disconnects clients too slow to send their request, or to read their answer.

uvicorn closes an idle keep-alive connection after a few seconds, but a connection that sends nothing at all, or its
request headers a byte at a time, stays open for ever (slowloris), and so does one that stops reading a large answer
(the server's write waits for ever): enough of them exhaust the server's sockets and memory. Here a connection has
`client_timeout` seconds, from when it opens or its last response went out, to deliver the headers of its next
request, and may leave its answer unread for at most as long. A stalled body is the endpoint's to time out
(`limits.read_body`, 408).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, ClassVar

from kimina_format.extras import missing_extra

__all__ = ["SlowClientGuard", "http_protocol"]

try:
    from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle
except ImportError as _missing:  # `pip install kimina-verify` leaves the web stack out
    raise missing_extra("kimina-verify", "server", "the verification server", _missing) from _missing

logger = logging.getLogger(__name__)


class SlowClientGuard(H11Protocol):
    """uvicorn's h11 protocol, plus a deadline for each request's headers and for a stalled reader."""

    client_timeout: ClassVar[float] = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._request_deadline = _Deadline(self.loop)
        self._reader_deadline = _Deadline(self.loop)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the clock for the first request."""
        super().connection_made(transport)
        self._await_request()

    def data_received(self, data: bytes) -> None:
        """Feed uvicorn; once a request's headers are complete the app owns the connection and the clock stops."""
        before = self.cycle
        super().data_received(data)
        if self.cycle is not before:
            self._request_deadline.stop()

    def on_response_complete(self) -> None:
        """Start the clock for the next request, unless a pipelined one has already started."""
        super().on_response_complete()
        if self._between_requests() and not self.transport.is_closing():
            self._await_request()

    def pause_writing(self) -> None:
        """The client is not taking what we send: it has `client_timeout` seconds to start again."""
        super().pause_writing()
        self._reader_deadline.start(self.client_timeout, lambda: self._drop("its answer went unread"))

    def resume_writing(self) -> None:
        """The client reads again."""
        self._reader_deadline.stop()
        super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clocks, then let uvicorn clean up."""
        self._request_deadline.stop()
        self._reader_deadline.stop()
        super().connection_lost(exc)

    def _between_requests(self) -> bool:
        cycle: RequestResponseCycle | None = self.cycle
        return cycle is None or cycle.response_complete

    def _await_request(self) -> None:
        self._request_deadline.start(self.client_timeout, self._request_overdue)

    def _request_overdue(self) -> None:
        if self._between_requests():
            self._drop("no complete request arrived")

    def _drop(self, why: str) -> None:
        if not self.transport.is_closing():
            logger.info("closing the connection from %s: %s within %g s", self.client, why, self.client_timeout)
        # abort, not close: close would wait to flush a write buffer the client is not reading.
        self.transport.abort()


class _Deadline:
    """One pending callback on the loop, restarted or stopped as the connection moves on."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._timer: asyncio.TimerHandle | None = None

    def start(self, seconds: float, callback: Callable[[], None]) -> None:
        self.stop()
        self._timer = self._loop.call_later(seconds, callback)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def http_protocol(client_timeout: float) -> type[SlowClientGuard]:
    """The protocol class to give `uvicorn.Config(http=...)`, with `client_timeout` seconds for slow clients."""
    return type("SlowClientGuard", (SlowClientGuard,), {"client_timeout": client_timeout})
