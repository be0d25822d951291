"""Hostile input against `/v1/prove`: a 4xx with one line for every malformed value, the key before the body, slow
clients disconnected, HEAD wherever GET is served. Each attack sits next to its harmless twin."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI
from kimina_api.app import create_app
from kimina_api.main import uvicorn_config
from kimina_api.settings import Settings
from kimina_eval.testing import ScriptedEngine

STATEMENT = "theorem t (n : ℕ) : n + 0 = n := by"
COMPLETION = "<think>\nsimp closes it\n</think>\n```lean4\ntheorem t (n : ℕ) : n + 0 = n := by\n  simp\n```"
GOOD = b'{"formal_statement": "theorem t (n : \\u2115) : n + 0 = n := by", "verify": false'
KEY = {"Authorization": "Bearer k", "content-type": "application/json"}


def engine() -> ScriptedEngine:
    return ScriptedEngine(lambda messages, index: COMPLETION)


def one_line(detail: Any) -> str:
    assert isinstance(detail, str) and detail and "\n" not in detail, detail
    return detail


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (GOOD + b', "sampling": {"temperature": NaN}}', "NaN and Infinity are not JSON numbers"),
        (GOOD + b', "sampling": {"top_p": Infinity}}', "NaN and Infinity are not JSON numbers"),
        (GOOD + b', "sampling": {"temperature": 1e400}}', "sampling.temperature: Input should be a finite number"),
        (GOOD + b', "sampling": {"seed": -1e400}}', "sampling.seed: Input should be a finite number"),
        (GOOD + b', "n": ' + b"9" * 5000 + b"}", "a number too long to read"),
        (b'{"formal_statement": "theorem t : True := by \\ud800", "verify": false}', "lone surrogate"),
        (GOOD + b', "informal_problem": "\\udfff"}', "lone surrogate"),
        (b'{"formal_statement": "theorem t : True := by \xed\xa0\x80", "verify": false}', "not valid UTF-8"),
        (GOOD + b', "sampling": ' + b"[" * 1000 + b"]" * 1000 + b"}", "nested deeper than 200 levels"),
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper than 200 levels"),
    ],
)
async def test_malformed_values_get_422_with_one_line_reason(make_client, body: bytes, reason: str) -> None:
    async with make_client(Settings(max_body_bytes=1 << 20), engine=engine()) as client:
        refused = await client.post("/v1/prove", content=body, headers=KEY)
        after = await client.post("/v1/prove", content=GOOD + b"}", headers=KEY)
    assert refused.status_code == 422, refused.text
    assert reason in one_line(refused.json()["detail"])
    assert after.status_code == 200  # only that request was refused


@pytest.mark.parametrize(
    "fields",
    [
        {"sampling": {"temperature": 0.0, "top_p": 1.0, "seed": 0}},
        {"informal_problem": "Show that n + 0 = n. \U0001f600 (not NaN, not Infinity)"},
        {"formal_statement": "theorem t (n : ℕ) : n + 0 = n := by -- \\ud800 written out"},
    ],
)
async def test_harmless_look_alikes_are_served(make_client, fields: dict[str, Any]) -> None:
    body = {"formal_statement": STATEMENT, "verify": False} | fields
    async with make_client(Settings(), engine=engine()) as client:
        for ascii_only in (True, False):
            raw = json.dumps(body, ensure_ascii=ascii_only).encode()
            response = await client.post("/v1/prove", content=raw, headers=KEY)
            assert response.status_code == 200, response.text


async def test_the_key_is_checked_before_the_body_is_read(make_client) -> None:
    pulled = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal pulled
        for _ in range(100):
            pulled += 1
            yield b"[" * 10_000

    async with make_client(Settings(api_key="k", max_body_bytes=4096), engine=engine()) as client:
        unread = await client.post("/v1/prove", content=body(), headers={"content-type": "application/json"})
        malformed = await client.post("/v1/prove", content=b"{bad", headers={"content-type": "application/json"})
        judged = await client.post("/v1/prove", content=b"{bad", headers=KEY)
    assert unread.status_code == malformed.status_code == 401
    assert "needs an API key" in one_line(unread.json()["detail"])
    assert pulled == 0, "the body of an unauthenticated request was read"
    assert judged.status_code == 422  # with the key, the same body is read and judged


@contextmanager
def served(app: FastAPI, settings: Settings) -> Iterator[tuple[str, int]]:
    """The app under uvicorn configured as `kimina-api` runs it, on a free loopback port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(app, settings.model_copy(update={"port": port})))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield "127.0.0.1", port
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass
        return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_slow_clients_are_disconnected() -> None:
    settings = Settings(read_timeout_s=1.0, api_key="k")
    with served(create_app(settings, engine=engine()), settings) as address:
        idle = [socket.create_connection(address, timeout=10) for _ in range(50)]
        began = time.monotonic()
        assert all(closed_by_server(sock, within=5) for sock in idle)
        assert time.monotonic() - began < 5
        for sock in idle:
            sock.close()
        with socket.create_connection(address, timeout=10) as stalled:
            stalled.sendall(
                b"POST /v1/prove HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n" + GOOD[:10]
            )
            stalled.settimeout(5)
            answer = stalled.recv(65536)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        with socket.create_connection(address, timeout=10) as patient:  # the twin: a prompt request is served
            patient.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert patient.recv(65536).startswith(b"HTTP/1.1 ")


async def test_head_is_served_wherever_get_is(make_client) -> None:
    app = create_app(Settings(), engine=engine())
    paths = [r.path for r in app.routes if "GET" in (getattr(r, "methods", None) or ()) and "{" not in r.path] + [
        "/playground/playground.css"
    ]
    assert {"/health", "/metrics", "/", "/openapi.json", "/docs"} <= set(paths)
    async with make_client(Settings(), engine=engine()) as client:
        for path in paths:
            got, head = await client.get(path), await client.head(path)
            assert (head.status_code, head.content) == (got.status_code, b""), path
            assert head.headers["content-type"] == got.headers["content-type"], path
        assert (await client.head("/v1/prove")).status_code == 405
