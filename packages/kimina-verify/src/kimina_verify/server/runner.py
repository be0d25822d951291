"""Run the app under uvicorn, draining the REPL pool before uvicorn waits on open connections."""

from __future__ import annotations

import logging
import socket
from types import FrameType

from kimina_format.extras import missing_extra

__all__ = ["DrainingServer", "build_server"]

try:
    import uvicorn
    from fastapi import FastAPI
except ImportError as _missing:  # `pip install kimina-verify` leaves the web stack out
    raise missing_extra("kimina-verify", "server", "the verification server", _missing) from _missing

from kimina_verify.server.app import create_app
from kimina_verify.server.connections import http_protocol
from kimina_verify.server.pool import ReplPool
from kimina_verify.server.settings import ServerSettings

logger = logging.getLogger(__name__)


class DrainingServer(uvicorn.Server):
    """A uvicorn server whose shutdown first lets in-flight checks finish (or fail explicitly).

    Plain uvicorn waits for open requests and then cancels them, losing their results; here the pool refuses new
    checks with 503, gives running ones `shutdown_grace` seconds, and answers the rest with an explicit error.
    """

    def __init__(self, config: uvicorn.Config, app: FastAPI, grace: float) -> None:
        super().__init__(config)
        self.app = app
        self.grace = grace

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """Shut down on SIGINT/SIGTERM; after a drained shutdown the process exits 0 rather than by the signal."""
        super().handle_exit(sig, frame)
        self._captured_signals.clear()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Drain the pool, then shut uvicorn down as usual."""
        pool: ReplPool | None = getattr(self.app.state, "pool", None)
        if pool is not None:
            logger.info("draining: %d queued and %d running checks", pool.queued, pool.running)
            await pool.drain(self.grace)
        await super().shutdown(sockets)


def build_server(settings: ServerSettings, *, log_level: str | None = None, access_log: bool = True) -> DrainingServer:
    """A ready-to-run server for `settings` (call `.run()` or `await .serve()`)."""
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=(log_level or settings.log_level).lower(),
        access_log=access_log,
        backlog=4096,
        http=http_protocol(settings.read_timeout),
        timeout_graceful_shutdown=int(settings.shutdown_grace) + 5,
    )
    return DrainingServer(config, app, settings.shutdown_grace)
