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

from kimina_api import __version__, playground
from kimina_api.engine import EngineRunner
from kimina_api.limiter import Limiter
from kimina_api.metrics import Metrics
from kimina_api.middleware import BodyLimitMiddleware, RequestLogMiddleware
from kimina_api.prover import Prover
from kimina_api.routes import router
from kimina_api.service import ProveService
from kimina_api.settings import Settings

logger = logging.getLogger(__name__)

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
    app.include_router(router)
    if settings.playground:
        app.include_router(playground.router)
        app.mount("/playground", playground.static_files(), name="playground")
    app.add_exception_handler(RequestValidationError, _validation_error)
    # Added last, so it runs first: the request log covers the body limit's 413s too.
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
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
    if settings.verifier_url:
        api_key = settings.verifier_api_key.get_secret_value() if settings.verifier_api_key else None
        options = {"timeout": settings.lean_timeout_s, "retries": settings.verifier_retries}
        verifier = Verifier(settings.verifier_url, api_key, **(options | settings.verifier_options))
    metrics: Metrics = app.state.metrics
    limiter = Limiter(settings.max_concurrency, settings.max_queue)
    metrics.in_flight.set_function(lambda: limiter.active)
    metrics.queued.set_function(lambda: limiter.waiting)
    prover = Prover(
        engine, verifier, template=settings.prompt_template, verify_timeout_s=settings.verify_timeout_s, metrics=metrics
    )
    app.state.service = ProveService(settings=settings, prover=prover, limiter=limiter, metrics=metrics)
    logger.info(
        "kimina-api ready",
        extra={
            "engine": settings.engine,
            "model": engine.name,
            "engine_ready": engine.ready,
            "verifier": settings.verifier_url,
        },
    )
    try:
        yield
    finally:
        engine.close()
        if verifier is not None:
            await verifier.aclose()


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    """422 with one readable `detail` line (like every other error) and the itemised `errors` for programs."""
    assert isinstance(exc, RequestValidationError)
    errors: list[dict[str, Any]] = list(exc.errors())
    reasons = []
    for error in errors:
        if error.get("type") == "json_invalid":
            reasons.append(f"the body is not valid JSON ({error.get('ctx', {}).get('error', 'parse error')})")
            continue
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
        reasons.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
    return JSONResponse(
        {"detail": "; ".join(reasons), "errors": [{k: v for k, v in e.items() if k != "ctx"} for e in errors]},
        status_code=422,
    )
