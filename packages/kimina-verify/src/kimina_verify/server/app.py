"""The HTTP API: kimina-lean-server v2 routes (`/api/check`, `/verify`, `/health`) plus `/metrics`.

Request bodies are kimina-client's own pydantic models, so anything kimina-client sends is accepted exactly as the
upstream server accepts it (including its 422s for empty or duplicate-id batches). Checks are guarded routes: the API
key is checked before the body is read, and the body is read under limits and parsed strictly (`guard.py`).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from kimina_format.extras import missing_extra

__all__ = ["Pool", "create_app"]

try:
    from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse, PlainTextResponse
    from fastapi.security import APIKeyHeader
except ImportError as _missing:  # `pip install kimina-verify` leaves the web stack out
    raise missing_extra("kimina-verify", "server", "the verification server", _missing) from _missing
from kimina_client.models import CheckResponse, VerifyRequestBody, VerifyResponse

from kimina_verify import lean_checks
from kimina_verify.server import outcome as texts
from kimina_verify.server.extension import KiminaCheckRequest
from kimina_verify.server.guard import GuardedRoute, HeadAsGet, RequestGuard
from kimina_verify.server.job import CheckSpec
from kimina_verify.server.lean_env import describe_lean_env
from kimina_verify.server.metrics import Metrics
from kimina_verify.server.outcome import CheckOutcome
from kimina_verify.server.pool import BatchTooLarge, PoolClosed, QueueFull, ReplPool
from kimina_verify.server.settings import ServerSettings
from kimina_verify.server.snippet import shift_positions, split_snippet

_api_key_header = APIKeyHeader(name="Authorization", auto_error=False)
# A reason longer than this (it may quote the client's input) is cut.
_MAX_REASON_CHARS = 300


def _check_key(request: Request) -> None:
    """Accept `Authorization: Bearer KEY` (or the bare key) when the server has an API key, as upstream does.

    Raises:
        HTTPException: 401 `Missing API key` or `Invalid API key`.
    """
    expected: str | None = request.app.state.settings.api_key
    if expected is None:
        return
    auth = request.headers.get("authorization")
    if not auth:
        raise HTTPException(401, "Missing API key")
    token = auth.removeprefix("Bearer ").strip()
    if not secrets.compare_digest(token.encode(), expected.encode()):
        raise HTTPException(401, "Invalid API key")


async def _require_key(request: Request, auth: Annotated[str | None, Depends(_api_key_header)]) -> None:
    """The key check as a dependency, so the OpenAPI schema documents it (the guard has run it before the body)."""
    _check_key(request)


def _pool(request: Request) -> ReplPool:
    pool: ReplPool = request.app.state.pool
    return pool


Pool = Annotated[ReplPool, Depends(_pool)]


def create_app(settings: ServerSettings) -> FastAPI:
    """Build the app; its lifespan starts the REPL pool and drains and closes it on shutdown."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        pool = ReplPool(settings, Metrics())
        try:
            await pool.start()
        except RuntimeError as exc:
            app.state.startup_error = str(exc)  # uvicorn only logs it; the CLI and tests report it
            raise
        app.state.pool = pool
        try:
            yield
        finally:
            await pool.drain(settings.shutdown_grace)
            await pool.close()

    from kimina_verify import __version__

    app = FastAPI(
        title="kimina-verify server",
        version=__version__,
        description="Lean 4 verification with a pool of Lean REPLs; the kimina-lean-server v2 API.",
        lifespan=lifespan,
        openapi_url="/api/openapi.json",
    )
    app.state.settings = settings
    app.state.request_guard = RequestGuard(
        authenticate=_check_key,
        max_body_bytes=settings.max_request_bytes,
        read_timeout=settings.read_timeout,
        max_items=settings.max_batch,
    )
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_middleware(HeadAsGet)
    lean_env = describe_lean_env(settings)
    router = APIRouter(route_class=GuardedRoute, dependencies=[Depends(_require_key)])

    @router.post(
        "/api/check",
        responses={
            200: {"model": CheckResponse},
            413: {"description": "body or batch over this server's limits"},
            429: {"description": "queue full, see Retry-After"},
        },
    )
    async def check(body: KiminaCheckRequest, pool: Pool) -> JSONResponse:
        timeout = _timeout(settings, body.timeout if "timeout" in body.model_fields_set else None)
        codes = [snippet.code for snippet in body.snippets]
        checks = [snippet.checks() for snippet in body.snippets]
        outcomes, lines = await _run(pool, settings, codes, timeout, body.infotree, fresh=not body.reuse, checks=checks)
        results = [
            _check_result(s.id, o, n, body.debug) for s, o, n in zip(body.snippets, outcomes, lines, strict=True)
        ]
        return JSONResponse({"results": results})

    @router.post("/api/check/", include_in_schema=False)
    async def check_slash(body: KiminaCheckRequest, pool: Pool) -> JSONResponse:
        return await check(body, pool)

    async def verify(body: VerifyRequestBody, pool: Pool) -> JSONResponse:
        if body.timeout < 0:  # kimina-client's v1 model has no bound; v2's says ge=0
            raise RequestValidationError(
                [{"type": "greater_than_equal", "loc": ("body", "timeout"), "msg": _NEGATIVE_TIMEOUT}]
            )
        try:
            codes = [code.get_proof_content() for code in body.codes]
        except ValueError as exc:
            raise HTTPException(422, str(exc)[:_MAX_REASON_CHARS]) from None
        timeout = _timeout(settings, body.timeout if "timeout" in body.model_fields_set else None)
        infotree = body.infotree_type.value if body.infotree_type else None
        outcomes, lines = await _run(pool, settings, codes, timeout, infotree, fresh=body.disable_cache)
        results = [_verify_result(c.custom_id, o, n) for c, o, n in zip(body.codes, outcomes, lines, strict=True)]
        return JSONResponse({"results": results})

    for path, public in (("/verify", True), ("/one_pass_verify_batch", False)):
        router.post(path, responses={200: {"model": VerifyResponse}}, include_in_schema=public)(verify)
    app.include_router(router)

    async def health(request: Request) -> JSONResponse:
        pool: ReplPool | None = getattr(request.app.state, "pool", None)
        if pool is None or pool.closing:
            return JSONResponse({"status": "shutting down"}, status_code=503)
        return JSONResponse(
            {
                "status": "ok",
                "version": __version__,
                "lean_version": settings.lean_version,
                "lean_env": lean_env,
                "repls": {"max": settings.max_repls, **pool.repl_states()},
                "queue": {"depth": pool.queued, "max": settings.max_queue},
                "extensions": [lean_checks.EXTENSION],
            }
        )

    for path in ("/health", "/health/", "/"):
        app.get(path, include_in_schema=path == "/health")(health)  # HEAD too, by `HeadAsGet`

    @app.get("/metrics", response_class=PlainTextResponse)
    async def metrics(pool: Pool) -> PlainTextResponse:
        gauges = {
            "kimina_queue_depth": pool.queued,
            "kimina_checks_running": pool.running,
            "kimina_repl_slots": settings.max_repls,
        }
        text = pool.metrics.render(gauges, pool.repl_states())
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4; charset=utf-8")

    return app


_NEGATIVE_TIMEOUT = "Input should be greater than or equal to 0"


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    """422 in FastAPI's (and upstream's) shape, without echoing the input: it may be huge or not encodable."""
    assert isinstance(exc, RequestValidationError)
    detail = []
    for error in exc.errors():
        message = str(error.get("msg", "invalid"))
        reason = error.get("ctx", {}).get("error") if error.get("type") == "json_invalid" else None
        if reason:
            message = f"{message}: {reason}"
        loc = [part if isinstance(part, int) else str(part)[:64] for part in error.get("loc", ())]
        detail.append(
            {"type": str(error.get("type")), "loc": loc, "msg": " ".join(message.split())[:_MAX_REASON_CHARS]}
        )
    return JSONResponse({"detail": detail}, status_code=422)


def _timeout(settings: ServerSettings, requested: float | None) -> float:
    """The request's timeout (0 or absent means the server default), capped at `max_timeout`."""
    return float(min(requested or settings.timeout, settings.max_timeout))


async def _run(
    pool: ReplPool,
    settings: ServerSettings,
    codes: list[str],
    timeout: float,
    infotree: str | None,
    *,
    fresh: bool,
    checks: list[lean_checks.ChecksRequest | None] | None = None,
) -> tuple[list[CheckOutcome], list[int]]:
    """Check every code, in order; returns the outcomes and each snippet's header line count."""
    outcomes: list[CheckOutcome | None] = [None] * len(codes)
    lines = [0] * len(codes)
    specs, where = [], []
    for i, code in enumerate(codes):
        size = len(code.encode("utf-8"))
        if size > settings.max_snippet_bytes:
            outcomes[i] = CheckOutcome.failed(
                "too_large", texts.TOO_LARGE.format(size=size, limit=settings.max_snippet_bytes)
            )
            pool.metrics.checks["too_large"] += 1
            continue
        split = split_snippet(code)
        lines[i] = split.header_lines
        specs.append(CheckSpec(split.header, split.body, timeout, infotree, fresh, checks[i] if checks else None))
        where.append(i)
    try:
        futures = pool.submit(specs)
    except PoolClosed:
        pool.metrics.rejected["shutting_down"] += 1
        raise HTTPException(503, "server shutting down", headers={"Retry-After": "5"}) from None
    except BatchTooLarge:
        pool.metrics.rejected["batch_too_large"] += 1
        raise HTTPException(
            413,
            f"{len(specs)} snippets in one request is more than the server can hold "
            f"({settings.max_queue} queued + {settings.max_repls} running); split it",
        ) from None
    except QueueFull as full:
        pool.metrics.rejected["queue_full"] += 1
        raise HTTPException(
            429, "No available REPLs: the queue is full", headers={"Retry-After": str(full.retry_after)}
        ) from None
    # Shielded: a client that goes away must not cancel a check other requests may share.
    done = await asyncio.gather(*(asyncio.shield(f) for f in futures))
    for i, result in zip(where, done, strict=True):
        outcomes[i] = result
    return [o for o in outcomes if o is not None], lines


def _reply(outcome: CheckOutcome, header_lines: int) -> dict[str, Any] | None:
    if outcome.reply is None:
        return None
    return outcome.reply if outcome.in_header else shift_positions(outcome.reply, header_lines)


def _check_result(snippet_id: str, outcome: CheckOutcome, header_lines: int, debug: bool) -> dict[str, Any]:
    result: dict[str, Any] = {"id": snippet_id, "time": outcome.time}
    reply = _reply(outcome, header_lines)
    if reply is not None:
        result["response"] = reply
    else:
        result["error"] = outcome.error
    if outcome.checks is not None:
        result[lean_checks.FIELD] = outcome.checks
    if debug or outcome.outcome == "timeout":
        diagnostics: dict[str, Any] = {}
        if outcome.repl_uuid:
            diagnostics["repl_uuid"] = outcome.repl_uuid
        if debug and outcome.memory_mb is not None:
            diagnostics["memory_max"] = round(outcome.memory_mb, 1)
        if diagnostics:
            result["diagnostics"] = diagnostics
    return result


def _verify_result(custom_id: str | int, outcome: CheckOutcome, header_lines: int) -> dict[str, Any]:
    result: dict[str, Any] = {"custom_id": str(custom_id)}
    reply = _reply(outcome, header_lines)
    if reply is not None:
        result["response"] = {**reply, "time": outcome.time}
    else:
        result["error"] = outcome.error
    return result
