"""Shared fixtures: the tiny model (built once per session), the real data files, a fake OpenAI server."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from kimina_eval.testing import ScriptedEngine, reply_by_pattern
from kimina_eval.tiny_model import build_tiny_model
from kimina_verify.testing import sim_server


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.getbasetemp() / "tiny-model")


@pytest.fixture(scope="session")
def lean_url() -> Iterator[str]:
    """The workspace's stand-in verification server (real server, lean-repl-sim REPLs), shared by the session."""
    with sim_server(max_repls=2) as url:
        yield url


class JSONHandler(BaseHTTPRequestHandler):
    """A quiet request handler that answers with JSON; the loopback doubles below build on it."""

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@dataclass
class FakeOpenAI:
    """State of the fake server: what it answers, what it saw, and how many requests should fail first."""

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    fail_first: int = 0
    status: int = 503
    reasoning_split: bool = False


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A loopback OpenAI-compatible server whose completions echo the request, so tests can check the wiring."""
    state = FakeOpenAI(url="")

    class Handler(JSONHandler):
        def do_GET(self) -> None:
            if self.path == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": "tiny-prover", "object": "model"}]})
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            request["authorization"] = self.headers.get("Authorization")
            state.requests.append(request)
            if state.fail_first > 0:
                state.fail_first -= 1
                self._send(state.status, {"error": "try again"})
                return
            last = request["messages"][-1]["content"]
            choices = []
            for i in reversed(range(request["n"])):  # out of order on purpose: the client must sort by index
                thinking, answer = f"thinking {i} about {last}", f"answer {i} t={request['temperature']}"
                message = (
                    {"role": "assistant", "content": answer, "reasoning_content": thinking}
                    if state.reasoning_split
                    else {"role": "assistant", "content": f"<think>{thinking}</think>{answer}"}
                )
                choices.append({"index": i, "message": message, "finish_reason": "stop"})
            self._send(200, {"id": "x", "object": "chat.completion", "choices": choices})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


@dataclass
class FakeLean:
    """State of the overloaded-server double: requests seen, and how many /api/check calls fail with 503."""

    url: str
    checks: list[list[str]] = field(default_factory=list)
    fail_checks: int = 0


def _lean_answer(code: str) -> dict[str, Any]:
    """lean-repl-sim's rules in brief: `sorry` is a sorry, `-- sim: error MSG` an error on its line, else valid."""
    messages: list[dict[str, Any]] = []
    for number, line in enumerate(code.split("\n"), 1):
        position = {"pos": {"line": number, "column": 0}, "endPos": {"line": number, "column": len(line)}}
        if "-- sim: error" in line:
            messages.append({"severity": "error", "data": line.split("-- sim: error", 1)[1].strip(), **position})
        elif line.startswith("#print axioms "):
            name = line.removeprefix("#print axioms ").strip().removeprefix("_root_.")  # Lean names the constant
            data = f"'{name}' depends on axioms: [propext, Classical.choice, Quot.sound]"
            messages.append({"severity": "info", "data": data, **position})
    response: dict[str, Any] = {"env": 0}
    if "sorry" in code:
        messages.append({"severity": "warning", "data": "declaration uses 'sorry'", "pos": {"line": 1, "column": 0}})
        response["sorries"] = [{"pos": {"line": 1, "column": 0}, "goal": "⊢ True", "proofState": 0}]
    if messages:
        response["messages"] = messages
    return response


@pytest.fixture
def lean_server() -> Iterator[FakeLean]:
    """A loopback kimina-lean-server double (v2 `/api/check`, `/health`) that can answer 503 on demand.

    The real stand-in (`lean_url`) cannot be made to fail and then recover, which the infra tests need.
    """
    state = FakeLean(url="")

    class Handler(JSONHandler):
        def do_GET(self) -> None:
            self._send(200, {"status": "ok", "lean_env": "stand-in"})

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            snippets = request["snippets"]
            state.checks.append([s["code"] for s in snippets])
            if state.fail_checks > 0:
                state.fail_checks -= 1
                self._send(503, {"detail": "overloaded"})
                return
            results = [{"id": s["id"], "time": 0.01, "response": _lean_answer(s["code"])} for s in snippets]
            self._send(200, {"results": results})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


# --- the lemma search's scripted scenario -----------------------------------------------------------------------

SEARCH_PROBLEM = "amc12a_2015_p10"

SEARCH_PROPOSAL = """<think>Since x + y + xy = 80, (x + 1)(y + 1) = 81, and y < x with y > 0 leaves y + 1 = 3.</think>

```lean4
lemma key_factor (x y : ℤ) (h₂ : x + y + x * y = 80) : (x + 1) * (y + 1) = 81 := by sorry

lemma y_negative (y : ℤ) (h₀ : 0 < y) : y < 0 := by sorry

lemma ill_typed (x : ℤ)
    -- sim: error unknown identifier 'foo'
    : foo x := by sorry

lemma key_again (x y : ℤ) (h₂ : x + y + x*y = 80) : (x + 1) * (y + 1) = 81 := by sorry
```
"""


def last_statement(messages: list[dict[str, str]]) -> str:
    """The statement a prompt asks to prove: its last theorem, up to `:= by`."""
    return re.findall(r"(theorem [^\n]*?:= by)", messages[-1]["content"])[-1]


@dataclass
class SearchScenario:
    """One real miniF2F problem (in a one-row dataset file) and a scripted prover for it.

    The stand-in verification server accepts code unless it holds `sorry` or a `-- sim: error MSG` comment, so the
    scripted completions decide what elaborates and what is proved: the prover fails the theorem until the lemma
    `key_factor` is offered to it, proves `key_factor`, refutes `y_negative` (its negation has a proof), and states
    `ill_typed`, which does not elaborate, and `key_again`, a duplicate of `key_factor`.
    """

    row: dict[str, Any]
    dataset: Path

    def prover(self) -> ScriptedEngine:
        header, theorem = self.row["header"], self.row["formal_statement"].rstrip()

        def attempt(messages: list[dict[str, str]], i: int) -> str:
            if "theorem key_factor" in messages[-1]["content"]:
                body = "  have h := key_factor x y h₂\n  nlinarith [h, h₀, h₁]"
                return f"<think>Use the proved factorisation.</think>\n```lean4\n{header}{theorem}\n{body}\n```"
            body = f"  nlinarith [h₀, h₁, h₂]  -- sim: error linarith failed (sample {i})"
            return f"<think>Try nlinarith.</think>\n```lean4\n{header}{theorem}\n{body}\n```"

        def negation(messages: list[dict[str, str]], i: int) -> str:
            statement = last_statement(messages)
            if "y_negative_neg" in statement:
                proof = "  intro h\n  have := h 1 (by norm_num)\n  omega"
            else:
                proof = "  push_neg  -- sim: error unsolved goals"
            return f"<think>Look for a counterexample.</think>\n```lean4\n{header}{statement}\n{proof}\n```"

        def lemma(messages: list[dict[str, str]], i: int) -> str:
            return f"<think>Expand.</think>\n```lean4\n{header}{last_statement(messages)}\n  nlinarith [h₂]\n```"

        rules: list[tuple[str, Any]] = [
            (r"_neg : ¬", negation),
            (r"intermediate lemmas", SEARCH_PROPOSAL),
            (SEARCH_PROBLEM, attempt),
            (r"theorem key_factor", lemma),
        ]
        return ScriptedEngine(reply_by_pattern(rules, default="<think>?</think>"))


@pytest.fixture
def scenario(data_dir: Path, tmp_path: Path) -> SearchScenario:
    row = next(json.loads(line) for line in (data_dir / "minif2f.jsonl").open() if SEARCH_PROBLEM in line)
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return SearchScenario(row, path)
