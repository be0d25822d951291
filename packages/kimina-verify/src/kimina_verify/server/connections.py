"""A uvicorn HTTP protocol that closes connections whose client is too slow to send a request.

uvicorn closes an idle keep-alive connection after a few seconds, but a connection that sends nothing at all, or its
request headers a byte at a time, stays open for ever (slowloris): enough of them exhaust the server's sockets.
Here a connection has `read_timeout` seconds, from when it opens or its last response went out, to deliver the
headers of its next request; a stalled body is the endpoint's to time out (`limits.read_body`, 408).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle

logger = logging.getLogger(__name__)


class SlowClientGuard(H11Protocol):
    """uvicorn's h11 protocol, plus a deadline for each request's headers (`header_timeout` seconds)."""

    header_timeout: ClassVar[float] = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the clock for the first request."""
        super().connection_made(transport)
        self._await_request()

    def data_received(self, data: bytes) -> None:
        """Feed uvicorn; once a request's headers are complete the app owns the connection and the clock stops."""
        before = self.cycle
        super().data_received(data)
        if self.cycle is not before:
            self._stop_clock()

    def on_response_complete(self) -> None:
        """Start the clock for the next request, unless a pipelined one has already started."""
        super().on_response_complete()
        cycle: RequestResponseCycle | None = self.cycle
        if (cycle is None or cycle.response_complete) and not self.transport.is_closing():
            self._await_request()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock, then let uvicorn clean up."""
        self._stop_clock()
        super().connection_lost(exc)

    def _await_request(self) -> None:
        self._stop_clock()
        self._deadline = self.loop.call_later(self.header_timeout, self._too_slow)

    def _stop_clock(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        cycle: RequestResponseCycle | None = self.cycle
        if (cycle is None or cycle.response_complete) and not self.transport.is_closing():
            logger.info(
                "closing a connection from %s: no complete request within %g s", self.client, self.header_timeout
            )
            self.transport.close()


def http_protocol(read_timeout: float) -> type[SlowClientGuard]:
    """The protocol class to give `uvicorn.Config(http=...)`, with `read_timeout` seconds for each request's headers."""
    return type("SlowClientGuard", (SlowClientGuard,), {"header_timeout": read_timeout})
