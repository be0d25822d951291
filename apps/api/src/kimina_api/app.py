"""The app factory: `create_app(settings)` wires the engine, the verifier, the limits and the routes together."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from kimina_eval.engines import Engine
from kimina_verify import Verifier
from kimina_verify.server.guard import HeadAsGet, RequestGuard

from kimina_api import __version__, playground
from kimina_api.auth import check_api_key
from kimina_api.engine import EngineRunner
from kimina_api.limiter import Limiter
from kimina_api.metrics import Metrics
from kimina_api.middleware import RequestLogMiddleware
from kimina_api.prover import Prover
from kimina_api.routes import ops_router, router
from kimina_api.service import ProveService
from kimina_api.settings import Settings

__all__ = ["create_app"]

logger = logging.getLogger(__name__)

# A reason longer than this (it may quote the client's input) is cut.
_MAX_REASON_CHARS = 300

_DESCRIPTION = """Prove Lean 4 theorems with a Kimina-style prover: sample attempts, check their format,
verify them with Lean (kimina-verify), and give each failure one error-fix turn.
Attempts Lean could not check (the verifier was down) come back as `infra`: unknown, never disproved."""


def create_app(settings: Settings | None = None, *, engine: Engine | None = None) -> FastAPI:
    """Build the API.

    Args:
        settings: The server's settings; read from `KIMINA_API_*` environment variables when None.
        engine: An engine to use instead of building the one the settings name (for embedding and tests).

    Returns:
        The FastAPI app; the engine loads and the verification client opens when it starts (its lifespan).
    """
    settings = settings or Settings()
    app = FastAPI(
        title="kimina-api",
        version=__version__,
        description=_DESCRIPTION,
        lifespan=_lifespan,
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.engine_override = engine
    app.state.metrics = metrics = Metrics()
    # Checked on /v1/* before FastAPI reads the body: the key first, then the body's size and pace, then strict JSON.
    app.state.request_guard = RequestGuard(
        authenticate=check_api_key, max_body_bytes=settings.max_body_bytes, read_timeout=settings.read_timeout_s
    )
    app.include_router(router)
    app.include_router(ops_router)
    if settings.playground:
        app.include_router(playground.router)
        app.mount("/playground", playground.static_files(), name="playground")
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_middleware(HeadAsGet)  # HEAD wherever GET is served
    # Added last, so it runs first: the request log shows HEAD as HEAD.
    app.add_middleware(RequestLogMiddleware, metrics=metrics)
    return app


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Load the engine and open the verification client for the app's lifetime; close both after."""
    settings: Settings = app.state.settings
    override: Engine | None = app.state.engine_override
    if override is not None:
        engine = EngineRunner(engine=override, name=settings.model or type(override).__name__)
    else:
        engine = EngineRunner.load(settings)
    verifier = None
    if settings.verifier.endpoint.url:
        # Passed whole; its retries.count is CLIENT_RETRIES (0): the prover's RetryPolicy is the one retry layer.
        verifier = Verifier(settings.verifier)
    metrics: Metrics = app.state.metrics
    limiter = Limiter(settings.max_concurrency, settings.max_queue)
    metrics.in_flight.set_function(lambda: limiter.active)
    metrics.queued.set_function(lambda: limiter.waiting)
    prover = Prover(
        engine,
        verifier,
        template=settings.prompt_template,
        verify_timeout_s=settings.verify_timeout_s,
        metrics=metrics,
        retry=settings.retry,
    )
    app.state.service = ProveService(settings=settings, prover=prover, limiter=limiter, metrics=metrics)
    logger.info(
        "kimina-api ready",
        extra={
            "engine": settings.engine,
            "model": engine.name,
            "engine_ready": engine.ready,
            "verifier": settings.verifier.endpoint.url,
        },
    )
    try:
        yield
    finally:
        engine.close()
        if verifier is not None:
            await verifier.aclose()


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    """422 with one readable `detail` line (like every other error) and the itemised `errors` for programs.

    The input is not echoed: it may be large, or a number JSON cannot carry (`1e400` parses as infinity).
    """
    assert isinstance(exc, RequestValidationError)
    errors: list[dict[str, Any]] = []
    reasons = []
    for error in exc.errors():
        # A location may hold a key the client made up: anything but a plain name is shown escaped, on one line.
        loc = [
            part if isinstance(part, int) or str(part).isidentifier() else ascii(str(part)[:64])
            for part in error.get("loc", ())
        ]
        msg = " ".join(str(error.get("msg")).split())[:_MAX_REASON_CHARS]
        errors.append({"type": str(error.get("type")), "loc": loc, "msg": msg})
        if error.get("type") == "json_invalid":
            reasons.append(f"the body is not valid JSON: {error.get('ctx', {}).get('error', 'parse error')}")
            continue
        where = ".".join(str(part) for part in loc if part != "body")
        reasons.append(f"{where}: {msg}" if where else msg)
    return JSONResponse({"detail": "; ".join(reasons), "errors": errors}, status_code=422)
