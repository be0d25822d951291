"""ASGI middleware: a request id and one structured log line per request."""

from __future__ import annotations

import logging
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kimina_api.metrics import Metrics

__all__ = ["RequestLogMiddleware"]

logger = logging.getLogger("kimina_api.access")

_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class RequestLogMiddleware:
    """Gives each request an id (the client's `X-Request-ID` when sane), echoes it, and logs and counts the response.

    The id is the client's `X-Request-ID` when it is short and plain; anything else is replaced, never logged.
    """

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the request, then log method, path, status, duration and id."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _SAFE_ID.fullmatch(given) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        status = 500  # what the client sees if the app dies before answering
        start = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            self.metrics.responses.labels(status=str(status)).inc()
            logger.info(
                "%s %s %s",
                scope["method"],
                scope["path"],
                status,
                extra={
                    "request_id": request_id,
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round((time.perf_counter() - start) * 1000, 1),
                    "client": scope["client"][0] if scope.get("client") else None,
                },
            )
