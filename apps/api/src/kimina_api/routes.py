"""The HTTP endpoints: `POST /v1/prove` (JSON or server-sent events), `GET /health` and `GET /metrics`.

`router` holds the authenticated endpoints, behind kimina-verify's request guard (the key before the body, then the
body under limits and strict JSON); `ops_router` the open ones.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.sse import format_sse_event
from kimina_verify.server.guard import GuardedRoute
from pydantic import BaseModel
from starlette.types import Receive, Scope, Send

from kimina_api import __version__
from kimina_api.auth import require_api_key
from kimina_api.limiter import Reservation
from kimina_api.prover import ProveJob
from kimina_api.schemas import (
    Attempt,
    ComponentHealth,
    ErrorBody,
    HealthResponse,
    ProveRequest,
    ProveResponse,
    StreamError,
    VerifierHealth,
)
from kimina_api.service import ProveService, RequestRejected

__all__ = ["ClientGone", "ReleasingStream", "Service", "health", "metrics", "ops_router", "prove", "router"]

router = APIRouter(route_class=GuardedRoute)
ops_router = APIRouter()

# Comment lines keep proxies from closing a quiet stream, and make a vanished client show up as a failed write.
_KEEPALIVE_S = 10.0
_HEALTH_TIMEOUT_S = 5.0


class ClientGone(Exception):
    """The client closed the connection before the answer was ready."""


async def _get_service(request: Request) -> ProveService:
    """The app's prove service (built by the lifespan)."""
    service: ProveService = request.app.state.service
    return service


Service = Annotated[ProveService, Depends(_get_service)]

_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in (
        (401, "Missing or wrong API key (checked before the body is read)."),
        (408, "The request body stopped arriving."),
        (413, "Request body too large."),
        (422, "Invalid request, or over this server's limits."),
        (429, "Every slot and the whole queue are taken; retry after `Retry-After` seconds."),
        (503, "The engine (or the verifier a request needs) is not available; the reason says why."),
        (504, "The request ran past the server's timeout."),
    )
}
_STREAM_DOC = (
    "With `stream: true` the answer is `text/event-stream`: `attempt` events (an Attempt, sent again each time it"
    " changes), then one `result` (a ProveResponse) or one `error` (status and detail)."
)


@router.post(
    "/v1/prove",
    response_model=ProveResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": _STREAM_DOC}, **_ERRORS},
    dependencies=[Depends(require_api_key)],
    tags=["prove"],
)
async def prove(body: ProveRequest, request: Request, service: Service) -> Response:
    """Prove a Lean 4 statement: sample `n` attempts, check their format, verify them with Lean, fix failures once."""
    request_id: str = request.state.request_id
    try:
        job = service.job(body)
        reservation = service.admit()
    except RequestRejected as rejected:
        raise _http_error(rejected) from None
    if body.stream:
        return ReleasingStream(_events(service, job, reservation, request_id), reservation)
    try:
        result = await _unless_disconnected(request, service.run(job, reservation, request_id))
    except RequestRejected as rejected:
        raise _http_error(rejected) from None
    except ClientGone:
        # Nobody is listening; 499 is what the access log shows (nginx's code for this).
        return Response(status_code=499)
    finally:
        reservation.release()  # already released unless the work never started
    return JSONResponse(result.model_dump(mode="json"))


@ops_router.get("/health", response_model=HealthResponse, responses={503: {"model": HealthResponse}}, tags=["ops"])
async def health(service: Service) -> JSONResponse:
    """Ready (200) when the engine is loaded and the verifier, if configured, answers; otherwise 503 and why."""
    engine = service.prover.engine
    engine_health = ComponentHealth(
        ok=engine.ready, detail=f"{service.settings.engine}: {engine.name}" if engine.ready else str(engine.load_error)
    )
    verifier = service.prover.verifier
    if verifier is None:
        verifier_health = VerifierHealth(ok=False, detail="not configured: only verify=false requests are served")
    else:
        try:
            async with asyncio.timeout(_HEALTH_TIMEOUT_S):
                lean = service.learn_lean(await verifier.health())
            verifier_health = VerifierHealth(
                ok=True,
                detail=f"{service.settings.verifier.endpoint.url}: {lean.describe()}",
                lean_env=lean.lean_env,
                stand_in=lean.stand_in,
            )
        except Exception as exc:  # down, slow or refusing: all mean "not ready"
            verifier_health = VerifierHealth(ok=False, detail=f"{type(exc).__name__}: {exc}".rstrip(": "))
    ready = engine.ready and (verifier is None or verifier_health.ok)
    body = HealthResponse(
        status="ok" if ready else "degraded",
        version=__version__,
        engine=engine_health,
        verifier=verifier_health,
        in_flight=service.limiter.active,
        queued=service.limiter.waiting,
    )
    return JSONResponse(body.model_dump(mode="json"), status_code=200 if ready else 503)


@ops_router.get("/metrics", response_class=Response, tags=["ops"])
async def metrics(service: Service) -> Response:
    """Prometheus metrics in the text exposition format."""
    return Response(service.metrics.render(), media_type=service.metrics.content_type)


class ReleasingStream(StreamingResponse):
    """A server-sent event stream that gives back its limiter reservation however it ends, even before it starts."""

    def __init__(self, events: AsyncIterator[bytes], reservation: Reservation) -> None:
        super().__init__(events, media_type="text/event-stream", headers={"Cache-Control": "no-store"})
        self.reservation = reservation

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Stream the events; release the slot when done, failed or cancelled."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.reservation.release()


def _sse(event: str, payload: BaseModel) -> bytes:
    return format_sse_event(event=event, data_str=payload.model_dump_json())


async def _events(
    service: ProveService, job: ProveJob, reservation: Reservation, request_id: str
) -> AsyncIterator[bytes]:
    """Run the job in a task and relay what it reports; cancelling this generator (client gone) cancels the job."""
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def emit(attempt: Attempt) -> None:
        queue.put_nowait(_sse("attempt", attempt))

    async def work() -> None:
        try:
            result = await service.run(job, reservation, request_id, emit)
            queue.put_nowait(_sse("result", result))
        except RequestRejected as rejected:
            queue.put_nowait(_sse("error", StreamError(status=rejected.status, detail=rejected.detail)))
        finally:
            queue.put_nowait(None)

    task = asyncio.create_task(work())
    try:
        while True:
            try:
                chunk = await asyncio.wait_for(queue.get(), _KEEPALIVE_S)
            except TimeoutError:
                yield format_sse_event(comment="keep-alive")
                continue
            if chunk is None:
                break
            yield chunk
        await task  # surfaces a bug in the work as a server error instead of losing it
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def _unless_disconnected[T](request: Request, work: Awaitable[T]) -> T:
    """Await `work`, cancelling it if the client disconnects first.

    Raises:
        ClientGone: When the client went away before the work was done.
    """
    task = asyncio.ensure_future(work)
    watcher = asyncio.create_task(_disconnected(request))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        raise ClientGone()
    return task.result()


async def _disconnected(request: Request) -> None:
    """Return when the client disconnects (the body was read already, so the next message can only be that)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


def _http_error(rejected: RequestRejected) -> HTTPException:
    headers = {"Retry-After": str(rejected.retry_after_s)} if rejected.retry_after_s is not None else None
    return HTTPException(rejected.status, detail=rejected.detail, headers=headers)
