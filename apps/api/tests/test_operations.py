"""Operating the API: auth, the queue and its 429, timeouts, client disconnects, health, metrics and logs."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
from typing import Any

import httpx
import pytest
from kimina_api.app import create_app
from kimina_api.logs import JsonFormatter
from kimina_api.settings import Settings
from kimina_eval.testing import ScriptedEngine

BODY = {"formal_statement": "theorem t (n : ℕ) : n + 0 = n := by", "verify": False}
COMPLETION = "<think>\nsimp closes it\n</think>\n```lean4\ntheorem t (n : ℕ) : n + 0 = n := by\n  simp\n```"


class GatedEngine(ScriptedEngine):
    """Blocks every generate call until `gate` is set; counts calls that started."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started = 0
        super().__init__(self._reply)

    def _reply(self, messages: Any, index: int) -> str:
        if index == 0:
            self.started += 1
        self.gate.wait(30)
        return COMPLETION


async def test_api_key_is_required_when_configured(make_client) -> None:
    engine = ScriptedEngine(lambda messages, index: COMPLETION)
    async with make_client(Settings(api_key="s3cret"), engine=engine) as client:
        missing = await client.post("/v1/prove", json=BODY)
        wrong = await client.post("/v1/prove", json=BODY, headers={"Authorization": "Bearer nope"})
        bearer = await client.post("/v1/prove", json=BODY, headers={"Authorization": "Bearer s3cret"})
        header = await client.post("/v1/prove", json=BODY, headers={"X-API-Key": "s3cret"})
        health = await client.get("/health")
        page = await client.get("/")
    assert missing.status_code == 401 and "needs an API key" in missing.json()["detail"]
    assert missing.headers["www-authenticate"] == "Bearer"
    assert wrong.status_code == 401 and wrong.json()["detail"] == "the API key is not valid"
    assert bearer.status_code == header.status_code == 200
    assert len(engine.calls) == 2  # refused requests never reached the engine
    assert health.status_code == 200 and page.status_code == 200  # open: for probes and the page itself


async def test_full_queue_is_refused_with_429_and_nothing_is_lost(make_client, wait_until) -> None:
    engine = GatedEngine()
    settings = Settings(max_concurrency=1, max_queue=1)
    async with make_client(settings, engine=engine) as client:
        running = asyncio.create_task(client.post("/v1/prove", json=BODY))
        await wait_until(lambda: engine.started == 1)
        queued = asyncio.create_task(client.post("/v1/prove", json=BODY))
        await wait_until(lambda: client._transport.app.state.service.limiter.waiting == 1)  # type: ignore[attr-defined]
        refused = await client.post("/v1/prove", json=BODY)
        refused_stream = await client.post("/v1/prove", json=BODY | {"stream": True})
        health = (await client.get("/health")).json()
        engine.gate.set()
        done = await asyncio.gather(running, queued)
        metrics = (await client.get("/metrics")).text
    assert refused.status_code == refused_stream.status_code == 429
    assert "busy" in refused.json()["detail"] and refused.headers["retry-after"] == "5"
    assert (health["in_flight"], health["queued"]) == (1, 1)
    assert [r.status_code for r in done] == [200, 200]
    assert 'kimina_api_requests_total{outcome="rejected"} 2.0' in metrics
    assert 'kimina_api_requests_total{outcome="ok"} 2.0' in metrics
    assert "kimina_api_in_flight 0.0" in metrics and "kimina_api_queued 0.0" in metrics


async def test_request_timeout_is_504(make_client) -> None:
    engine = GatedEngine()
    async with make_client(Settings(request_timeout_s=0.3), engine=engine) as client:
        response = await client.post("/v1/prove", json=BODY)
        streamed = await client.post("/v1/prove", json=BODY | {"stream": True})
        engine.gate.set()
        health = (await client.get("/health")).json()
    assert response.status_code == 504 and "0.3 s" in response.json()["detail"]
    assert '"status":504' in streamed.text
    assert health["in_flight"] == 0


@pytest.mark.parametrize("stream", [False, True])
async def test_client_disconnect_cancels_the_request(serve, wait_until, stream) -> None:
    """A client that goes away frees its slot at once, and the request's remaining steps never run."""
    engine = GatedEngine()
    with socket.socket() as verifier:  # a "verifier" that only records whether anyone connected
        verifier.bind(("127.0.0.1", 0))
        verifier.listen()
        verifier.setblocking(False)
        verifier_url = f"http://127.0.0.1:{verifier.getsockname()[1]}"
        settings = Settings(max_concurrency=1, max_queue=0, verifier={"endpoint": {"url": verifier_url}})
        app = create_app(settings, engine=engine)
        with serve(app) as url:
            async with httpx.AsyncClient(base_url=url, timeout=30) as client:
                body = BODY | {"verify": True, "stream": stream}
                request = asyncio.create_task(client.post("/v1/prove", json=body))
                await wait_until(lambda: engine.started == 1)
                request.cancel()  # closes the connection mid-generation
                await wait_until(lambda: app.state.service.limiter.active == 0)  # freed before generation ends
                engine.gate.set()
                # The slot is free again, and the next request is served.
                follow_up = await client.post("/v1/prove", json=BODY)
                metrics = (await client.get("/metrics")).text
        with pytest.raises(BlockingIOError):
            verifier.accept()  # the cancelled request never went on to verification
    assert follow_up.status_code == 200
    assert 'kimina_api_requests_total{outcome="cancelled"} 1.0' in metrics


async def test_metrics_and_request_ids(make_client) -> None:
    engine = ScriptedEngine(lambda messages, index: COMPLETION)
    async with make_client(Settings(), engine=engine) as client:
        response = await client.post("/v1/prove", json=BODY | {"n": 3}, headers={"X-Request-ID": "trace-42"})
        hostile = await client.post("/v1/prove", json=BODY, headers={"X-Request-ID": "bad id; " + "x" * 100})
        await client.post("/v1/prove", json={"formal_statement": "def x := 1"})
        metrics = await client.get("/metrics")
    assert response.headers["x-request-id"] == "trace-42" == response.json()["id"]
    assert len(hostile.headers["x-request-id"]) == 32  # replaced by one of ours
    assert metrics.headers["content-type"].startswith("text/plain")
    assert 'kimina_api_attempts_total{turn="1",verdict="unverified"} 4.0' in metrics.text
    assert "kimina_api_generate_seconds_count 2.0" in metrics.text
    assert 'kimina_api_http_responses_total{status="200"} 2.0' in metrics.text
    assert 'kimina_api_http_responses_total{status="422"} 1.0' in metrics.text


async def test_one_structured_log_line_per_request(make_client, caplog) -> None:
    engine = ScriptedEngine(lambda messages, index: COMPLETION)
    with caplog.at_level(logging.INFO, logger="kimina_api.access"):
        async with make_client(Settings(), engine=engine) as client:
            await client.post("/v1/prove", json=BODY, headers={"X-Request-ID": "abc"})
    (record,) = [r for r in caplog.records if r.name == "kimina_api.access"]
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == "abc" and line["status"] == 200 and line["path"] == "/v1/prove"
    assert line["method"] == "POST" and line["duration_ms"] >= 0 and line["level"] == "info"


async def test_openapi_documents_the_endpoint(make_client) -> None:
    async with make_client(Settings(), engine=ScriptedEngine(lambda m, i: COMPLETION)) as client:
        spec = (await client.get("/openapi.json")).json()
        docs = await client.get("/docs")
    operation = spec["paths"]["/v1/prove"]["post"]
    assert {"200", "401", "413", "422", "429", "503", "504"} <= set(operation["responses"])
    assert "text/event-stream" in operation["responses"]["200"]["content"]
    assert docs.status_code == 200
