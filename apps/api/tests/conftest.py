"""Shared fixtures: the real data files, a tiny model, the stand-in verification server, and ways to run the app."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from kimina_api.app import create_app
from kimina_api.settings import Settings
from kimina_eval.engines import Messages
from kimina_eval.testing import ScriptedEngine
from kimina_eval.tiny_model import build_tiny_model
from kimina_format import parse_completion
from kimina_format.testing import data_file
from kimina_verify.testing import sim_server

_THEOREM_NAME = re.compile(r"theorem\s+(\S+)")


def _read_jsonl(name: str) -> list[dict[str, Any]]:
    try:
        path = data_file(name)
    except FileNotFoundError as exc:
        pytest.fail(str(exc))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def minif2f() -> dict[str, dict[str, Any]]:
    """miniF2F rows by name."""
    return {row["name"]: row for row in _read_jsonl("minif2f.jsonl")}


@pytest.fixture(scope="session")
def completions() -> dict[str, str]:
    """One real, Lean-accepted Kimina-Prover completion per miniF2F problem name."""
    by_name: dict[str, str] = {}
    for row in _read_jsonl("kimina_completions.jsonl"):
        by_name.setdefault(row["name"], row["completion"])
    return by_name


def theorem_name(messages: Messages) -> str:
    """The name of the theorem a conversation's first user message asks to prove."""
    user = next(m["content"] for m in messages if m["role"] == "user")
    match = _THEOREM_NAME.search(user)
    assert match, "the prompt holds no theorem"
    return match.group(1)


def break_proof(completion: str) -> str:
    """The completion with a Lean error in its final proof, its format intact (a fix turn needs the format to hold).

    The `-- sim:` comment tells the stand-in REPL what the real one would answer (it does not resolve names).
    """
    code = parse_completion(completion).code
    assert code is not None
    marker = "  -- sim: error unknown identifier 'this_lemma_does_not_exist'"
    return completion.replace(code, f"{code.rstrip()}\n{marker}\n")


class Replayer(ScriptedEngine):
    """Answers with the real completion for the theorem in the prompt; `broken_first` makes the first turn fail."""

    def __init__(self, completions: dict[str, str], *, broken_first: bool = False) -> None:
        def reply(messages: Messages, index: int) -> str:
            completion = completions[theorem_name(messages)]
            first_turn = sum(m["role"] == "assistant" for m in messages) == 0
            return break_proof(completion) if broken_first and first_turn else completion

        super().__init__(reply)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen3 model with a chat template, built once per session."""
    return build_tiny_model(tmp_path_factory.getbasetemp() / "tiny-qwen3")


@pytest.fixture(autouse=True)
def _no_verifier_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings fall back to LEAN_SERVER_API_URL/KEY: a developer's own values must not change what tests do."""
    monkeypatch.delenv("LEAN_SERVER_API_URL", raising=False)
    monkeypatch.delenv("LEAN_SERVER_API_KEY", raising=False)


@pytest.fixture(scope="session")
def verifier() -> Iterator[dict[str, Any]]:
    """Settings fields for the stand-in verification server (kimina-verify serve with lean-repl-sim REPLs)."""
    with sim_server() as url:
        yield {"verifier": {"endpoint": {"url": url}}}


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL where nothing listens: a verifier that is down."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """The app with its lifespan started, and a client that talks to it in process."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://api", timeout=60) as client:
            yield client


@pytest.fixture
def make_client() -> Callable[..., Any]:
    """`async with make_client(settings, engine=...) as client:` runs an app for one test."""

    def make(settings: Settings, engine: Any = None) -> Any:
        return running(create_app(settings, engine=engine))

    return make


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    """Serve the app with uvicorn on a free loopback port in a thread; yields its base URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(500):
        if server.started:
            break
        threading.Event().wait(0.02)
    else:
        raise RuntimeError("uvicorn did not start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def sse_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Parse a text/event-stream body into (event, data) pairs, skipping comments."""
    events = []
    for block in text.split("\n\n"):
        name, data = "message", []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            events.append((name, json.loads("\n".join(data))))
    return events


async def wait_until(condition: Callable[[], bool], timeout_s: float = 10) -> None:
    """Poll `condition` until it holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


# Test modules cannot import this file (pytest runs with --import-mode=importlib), so helpers come as fixtures.
@pytest.fixture
def replayer(completions: dict[str, str]) -> Callable[..., Replayer]:
    """`replayer(broken_first=False)`: an engine that answers with real Kimina completions."""
    return lambda broken_first=False: Replayer(completions, broken_first=broken_first)


@pytest.fixture(name="sse_events")
def sse_events_fixture() -> Callable[[str], list[tuple[str, dict[str, Any]]]]:
    """The event-stream parser."""
    return sse_events


@pytest.fixture(name="serve")
def serve_fixture() -> Callable[[FastAPI], Any]:
    """`with serve(app) as url:` runs the app in a real uvicorn server."""
    return serve


@pytest.fixture(name="wait_until")
def wait_until_fixture() -> Callable[..., Any]:
    """`await wait_until(condition)`."""
    return wait_until
