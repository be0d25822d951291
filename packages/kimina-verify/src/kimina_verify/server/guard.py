"""Checks a request passes before an endpoint sees it, and HEAD answered wherever GET is.

The API key comes before a byte of the body is read; then the body's size and pace, strict JSON, and the length of
its top-level lists. FastAPI reads and parses a body before it runs any dependency, so a key checked by a dependency
comes too late: an unauthenticated client could make the server read and parse tens of megabytes. `GuardedRoute` runs
the checks first and hands FastAPI the parsed body. Shared by `kimina-verify serve` and the kimina-api app.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from kimina_format.extras import missing_extra

__all__ = ["GuardedRoute", "HeadAsGet", "RequestGuard"]

try:
    from fastapi import HTTPException, Request, Response
    from fastapi.exceptions import RequestValidationError
    from fastapi.routing import APIRoute
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
except ImportError as _missing:  # `pip install kimina-verify` leaves the web stack out
    raise missing_extra("kimina-verify", "server", "the verification server", _missing) from _missing

from kimina_verify.server.limits import read_body
from kimina_verify.server.strict_json import JSONRejected, parse_json


@dataclass(frozen=True, slots=True)
class RequestGuard:
    """The checks a `GuardedRoute` runs, found on `app.state.request_guard`.

    Attributes:
        authenticate: Raises `HTTPException` (401) unless the request carries the right key; sees the headers only.
        max_body_bytes: A larger body gets 413, whether its length is declared or it arrives in chunks.
        read_timeout: Seconds the client may leave between two pieces of its body; then 408.
        max_items: A top-level JSON list (a batch) longer than this gets 413 before it is validated; None: no limit.
    """

    authenticate: Callable[[Request], None]
    max_body_bytes: int
    read_timeout: float
    max_items: int | None = None


class GuardedRoute(APIRoute):
    """An `APIRoute` that authenticates, then reads and parses the body under the app's `RequestGuard`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's own handler, behind the guard's checks."""
        handler = super().get_route_handler()
        takes_body = self.body_field is not None

        async def guarded(request: Request) -> Response:
            guard: RequestGuard = request.app.state.request_guard
            guard.authenticate(request)
            if takes_body:
                raw = await read_body(request, max_bytes=guard.max_body_bytes, read_timeout=guard.read_timeout)
                if raw:
                    # The parser holds the GIL (a worker thread would block the event loop just the same), so what
                    # a body costs is bounded by `max_body_bytes`: about 1.5 s for 40 MB of tiny snippets.
                    data = _parse(raw)
                    _check_items(data, guard.max_items)
                    request = _ParsedRequest(request.scope, request.receive, raw, data)
            return await handler(request)

        return guarded


class _ParsedRequest(Request):
    """A request whose body was already read and parsed by the guard (FastAPI asks for both)."""

    def __init__(self, scope: Scope, receive: Receive, body: bytes, data: Any) -> None:
        super().__init__(scope, receive)
        self._guarded_body = body
        self._guarded_data = data

    async def body(self) -> bytes:
        """The body as read."""
        return self._guarded_body

    async def json(self) -> Any:
        """The body as parsed, strictly."""
        return self._guarded_data


def _parse(raw: bytes) -> Any:
    """Strict JSON, or the same 422 FastAPI gives for a body it cannot decode (with the reason)."""
    try:
        return parse_json(raw)
    except JSONRejected as exc:
        error = {"type": "json_invalid", "loc": ("body",), "msg": "JSON decode error", "input": {}}
        raise RequestValidationError([{**error, "ctx": {"error": str(exc)}}]) from None


def _check_items(data: Any, limit: int | None) -> None:
    """413 for a top-level list over `limit` items: every item counts, identical ones too."""
    if limit is None or not isinstance(data, dict):
        return
    for key, value in data.items():
        if isinstance(value, list) and len(value) > limit:
            raise HTTPException(
                413, f"{ascii(key[:64])} holds {len(value)} items; this server takes at most {limit} per request"
            )


class HeadAsGet:
    """ASGI middleware: a HEAD request runs as a GET and its response goes out without the body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve HEAD by its GET route, headers only (Content-Length still says what GET would send)."""
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
