"""The `kimina-api` command and its settings: flags over environment, clear errors, and a real server start."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from kimina_api.main import main, parse_args, settings_from
from kimina_api.prover import complete_statement
from kimina_api.settings import MINIF2F_HEADER, Settings

APP_DIR = Path(__file__).resolve().parents[1]


def test_flags_override_environment(monkeypatch) -> None:
    monkeypatch.setenv("KIMINA_API_MAX_QUEUE", "7")
    monkeypatch.setenv("KIMINA_API_MODEL", "/from/env")
    monkeypatch.setenv("KIMINA_API_API_KEY", "")  # as compose writes an unset variable: no key
    settings = settings_from(parse_args(["--model", "/from/flag", "--engine", "openai", "--no-playground"]))
    assert (settings.model, settings.engine, settings.max_queue) == ("/from/flag", "openai", 7)
    assert settings.api_key is None and settings.playground is False
    assert settings.resolved_engine_workers() == settings.max_concurrency  # a remote server batches by itself
    assert Settings(engine="transformers").resolved_engine_workers() == 1


def test_invalid_settings_are_one_clear_line(monkeypatch, capsys) -> None:
    monkeypatch.setenv("KIMINA_API_MAX_CONCURRENCY", "zero")
    assert main(["--port", "8080"]) == 2
    err = capsys.readouterr().err
    assert "invalid settings: max_concurrency" in err and "Traceback" not in err


def test_help_runs_without_loading_anything() -> None:
    # `uv run apps/api` runs apps/api/__main__.py: the same command.
    done = subprocess.run([sys.executable, str(APP_DIR), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "KIMINA_API_MODEL" in done.stdout and "--verifier-url" in done.stdout


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("theorem t : 1 = 1 := by", MINIF2F_HEADER + "theorem t : 1 = 1 := by\n"),
        ("theorem t : 1 = 1 := by sorry\n\n", MINIF2F_HEADER + "theorem t : 1 = 1 := by\n"),
        ("import Mathlib\ntheorem t : 1 = 1 := by", "import Mathlib\ntheorem t : 1 = 1 := by\n"),
        ("theorem sorry_free : 1 = 1 := by", MINIF2F_HEADER + "theorem sorry_free : 1 = 1 := by\n"),
    ],
)
def test_statement_completion(statement: str, expected: str) -> None:
    assert complete_statement(statement, MINIF2F_HEADER) == expected


@pytest.mark.slow
def test_the_command_serves_the_tiny_model_and_logs_json(tiny_model) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = os.environ | {"KIMINA_API_DEFAULT_MAX_TOKENS": "16", "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "kimina_api.main", "--port", str(port), "--model", str(tiny_model)]
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not become healthy"
            time.sleep(0.3)
        body = {"formal_statement": "theorem t : 1 = 1 := by", "verify": False, "n": 2}
        response = httpx.post(f"{url}/v1/prove", json=body, timeout=60)
        assert response.status_code == 200 and len(response.json()["attempts"]) == 2
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    assert any(line["message"] == "kimina-api ready" and line["engine_ready"] for line in lines)
    (access,) = [line for line in lines if line.get("path") == "/v1/prove"]
    assert access["status"] == 200 and access["request_id"] == response.json()["id"]
