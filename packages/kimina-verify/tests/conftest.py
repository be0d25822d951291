"""Shared fixtures: the real data files, and a stand-in kimina-lean-server on loopback for client tests.

The stand-in answers `/api/check` (and `/verify`) like a Lean server would for code carrying `-- @...` directives:
`-- @error MSG`, `-- @warning MSG`, `-- @sorrywarn` / `-- @sorrywarn-new` (both sorry-warning spellings),
`-- @timeout`, `-- @replmsg TEXT`, `-- @axioms A, B`, `-- @goal TEXT` (goals before the tactic spanning this
line and the next), `-- @sleep S`. It answers every
`#print axioms NAME` line with Lean's message. Server-level faults (HTTP statuses, delays, v1-only) are injected per
test through `StandIn`.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

DEFAULT_AXIOMS = ["propext", "Classical.choice", "Quot.sound"]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def recorded_rows(data_dir: Path) -> list[dict[str, Any]]:
    rows = read_jsonl(data_dir / "recorded_verdicts.jsonl")
    assert len(rows) == 1288
    return rows


@pytest.fixture(scope="session")
def minif2f_rows(data_dir: Path) -> list[dict[str, Any]]:
    return read_jsonl(data_dir / "minif2f.jsonl")


@pytest.fixture(scope="session")
def completions(data_dir: Path) -> list[dict[str, Any]]:
    return read_jsonl(data_dir / "kimina_completions.jsonl")


_DIRECTIVE = re.compile(r"--\s*@([a-z-]+)[ \t]*(.*?)\s*$")


def _server_header_lines(lines: list[str]) -> int:
    count = 0
    for line in lines:
        if line.strip() and not line.strip().startswith("import "):
            break
        count += 1
    return count


def _message(severity: str, line: int, data: str, column: int = 2) -> dict[str, Any]:
    return {
        "severity": severity,
        "pos": {"line": line, "column": column},
        "endPos": {"line": line, "column": column + 6},
        "data": data,
    }


def lean_answer(code: str, *, timeout: float, infotree: str | None, positions: str = "file") -> dict[str, Any]:
    """What the stand-in says for one snippet (one item of `results`, without the id)."""
    lines = code.split("\n")
    shift = _server_header_lines(lines) if positions == "body" else 0
    messages: list[dict[str, Any]] = []
    axioms = DEFAULT_AXIOMS
    goals: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        m = _DIRECTIVE.search(line)
        if m is None:
            continue
        kind, arg = m.groups()
        if kind == "timeout":
            return {"time": timeout, "error": f"Lean REPL command timed out in {timeout} seconds"}
        if kind == "replmsg":
            return {"time": 0.01, "response": {"message": arg}}
        if kind == "sleep":
            time.sleep(float(arg))
        elif kind == "axioms":
            axioms = [a.strip() for a in arg.split(",") if a.strip()]
        elif kind == "goal":
            goals.append((number, arg.replace("\\n", "\n")))
        elif kind in ("error", "warning"):
            messages.append(_message(kind, number - shift, arg))
        elif kind == "sorrywarn":
            messages.append(_message("warning", number - shift, "declaration uses 'sorry'"))
        elif kind == "sorrywarn-new":
            messages.append(_message("warning", number - shift, "declaration uses `sorry`"))
    for number, line in enumerate(lines, start=1):
        if line.startswith("#print axioms "):
            # Lean names the constant itself, without the `_root_.` it was asked with.
            name = line.removeprefix("#print axioms ").strip().removeprefix("_root_.")
            data = (
                f"'{name}' depends on axioms: [{', '.join(axioms)}]"
                if axioms
                else f"'{name}' does not depend on any axioms"
            )
            messages.append(_message("info", number - shift, data, column=0))
    response: dict[str, Any] = {"env": 0}
    if messages:
        response["messages"] = messages
    if infotree and goals:
        # Servers shift message positions at most; infotree ranges stay relative to the body the REPL ran.
        body = _server_header_lines(lines)
        response["infotree"] = [
            {
                "node": {
                    # a tactic spanning the directive's line and the next one
                    "stx": {
                        "range": {
                            "start": {"line": n - body, "column": 0},
                            "finish": {"line": n + 1 - body, "column": 80},
                        }
                    },
                    "goalsBefore": [g],
                    "goalsAfter": [],
                },
                "kind": "TacticInfo",
                "children": [],
            }
            for n, g in goals
        ]
    return {"time": 0.01, "response": response}


@dataclass
class StandIn:
    """A stand-in server's URL and knobs; `reset()` between tests."""

    url: str = ""
    statuses: list[int] = field(default_factory=list)  # HTTP statuses to answer next, one per request
    delay_s: float = 0.0  # sleep before answering each /api/check request
    v1_only: bool = False
    positions: str = "file"
    api_key: str | None = None
    requests: int = 0
    snippets: list[str] = field(default_factory=list)
    extensions: list[str] = field(default_factory=list)  # what /health claims (it never answers kimina_checks)
    checks: list[Any] = field(default_factory=list)  # the kimina_checks fields received, one per snippet
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        self.statuses.clear()
        self.delay_s, self.v1_only, self.positions, self.api_key = 0.0, False, "file", None
        self.requests = 0
        self.snippets.clear()
        self.extensions.clear()
        self.checks.clear()


def build_app(state: StandIn) -> FastAPI:
    app = FastAPI()

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"status": "ok", "lean_version": "standin-v4.15.0", "extensions": state.extensions}

    def gate(request: Request, codes: list[str]) -> JSONResponse | None:
        with state.lock:
            state.requests += 1
            status = state.statuses.pop(0) if state.statuses else 200
        if state.api_key is not None and request.headers.get("authorization") != f"Bearer {state.api_key}":
            return JSONResponse({"detail": "Invalid API key"}, status_code=401)
        if status != 200:
            return JSONResponse({"detail": "injected failure"}, status_code=status)
        with state.lock:
            state.snippets.extend(codes)
        if state.delay_s:
            time.sleep(state.delay_s)
        return None

    @app.post("/api/check")
    def check(request: Request, body: dict[str, Any]) -> Any:
        if state.v1_only:
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        snippets = body["snippets"]
        if (failure := gate(request, [s["code"] for s in snippets])) is not None:
            return failure
        with state.lock:
            state.checks.extend(s.get("kimina_checks") for s in snippets)
        timeout, infotree = body.get("timeout", 30), body.get("infotree")
        return {
            "results": [
                {"id": s["id"], **lean_answer(s["code"], timeout=timeout, infotree=infotree, positions=state.positions)}
                for s in snippets
            ]
        }

    @app.post("/verify")
    def verify(request: Request, body: dict[str, Any]) -> Any:
        codes = body["codes"]
        if (failure := gate(request, [c["proof"] for c in codes])) is not None:
            return failure
        results = []
        for c in codes:
            answer = lean_answer(c["proof"], timeout=body.get("timeout", 300), infotree=None, positions=state.positions)
            response = answer.get("response")
            if response is not None:
                response = {**response, "time": answer["time"]}
            results.append({"custom_id": c["custom_id"], "error": answer.get("error"), "response": response})
        return {"results": results}

    return app


@pytest.fixture(scope="session")
def standin_server() -> Iterator[StandIn]:
    state = StandIn()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app(state), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            pytest.fail("stand-in server did not start")
        time.sleep(0.02)
    state.url = f"http://127.0.0.1:{port}"
    yield state
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


@pytest.fixture
def standin(standin_server: StandIn) -> Iterator[StandIn]:
    standin_server.reset()
    yield standin_server
    standin_server.reset()


@pytest.fixture
def dead_url() -> str:
    """A loopback URL where nothing listens (connection refused)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"
