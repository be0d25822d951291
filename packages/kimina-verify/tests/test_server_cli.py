"""`python -m kimina_verify.server` / `kimina-verify serve`: flags, LEAN_SERVER_* variables, errors, a real run."""

import argparse
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest
from kimina_verify.server.cli import add_arguments, check_command, run, settings_from_args
from kimina_verify.server.settings import ServerSettings, parse_memory


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


@pytest.mark.parametrize(("text", "mib"), [("8G", 8192), ("512M", 512), ("12", 12288), ("1.5G", 1536), ("0", 0)])
def test_memory_sizes_follow_the_upstream_convention(text: str, mib: int) -> None:
    assert parse_memory(text) == mib


def test_bad_memory_size_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="not a memory size"):
        parse_memory("lots")


def test_upstream_environment_variables_are_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAN_SERVER_MAX_REPLS", "3")
    monkeypatch.setenv("LEAN_SERVER_MAX_REPL_MEM", "2G")
    monkeypatch.setenv("LEAN_SERVER_MAX_REPL_USES", "-1")
    monkeypatch.setenv("LEAN_SERVER_API_KEY", "key")
    monkeypatch.setenv("LEAN_SERVER_MAX_WAIT", "120")
    monkeypatch.setenv("LEAN_SERVER_INIT_REPLS", '{"import Mathlib": 2}')
    monkeypatch.setenv("LEAN_SERVER_PROJECT_DIR", "/opt/lean/mathlib4")
    settings = settings_from_args(parse())
    assert (settings.max_repls, settings.max_repl_mem, settings.max_repl_uses) == (3, 2048, 0)
    assert (settings.api_key, settings.max_wait, dict(settings.init_repls)) == ("key", 120.0, {"import Mathlib": 2})
    assert settings.command == ("lake", "env", "../repl/.lake/build/bin/repl")
    assert settings.cwd == "/opt/lean/mathlib4"
    flagged = settings_from_args(parse("--max-repls", "2", "--max-repl-mem", "512M", "--repl-cmd", "lean-repl-sim -x"))
    assert (flagged.max_repls, flagged.max_repl_mem, flagged.command) == (2, 512, ("lean-repl-sim", "-x"))


def test_bad_environment_variable_names_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAN_SERVER_PORT", "eighty")
    with pytest.raises(ValueError, match="LEAN_SERVER_PORT='eighty'"):
        ServerSettings.from_env()


def test_invalid_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="max_repls"):
        ServerSettings(max_repls=0)
    with pytest.raises(ValueError, match="init_repls"):
        ServerSettings(max_repls=1, init_repls={"import Mathlib": 2})


def test_missing_workspace_pieces_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "not a directory" in (check_command(ServerSettings(project_dir=str(tmp_path / "nope"))) or "")
    assert "no REPL binary" in (check_command(ServerSettings(project_dir=str(tmp_path), repl_path="repl")) or "")
    assert "cannot find 'no-such-repl'" in (check_command(ServerSettings(repl_cmd=("no-such-repl",))) or "")
    assert run(parse("--repl-cmd", "no-such-repl")) == 2
    assert "cannot find 'no-such-repl'" in capsys.readouterr().err


def test_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "kimina_verify.server", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    for flag in ("--max-repls", "--max-repl-uses", "--max-repl-mem", "--timeout", "--repl-cmd", "--api-key"):
        assert flag in result.stdout
    assert "LEAN_SERVER_" in result.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_serves_and_shuts_down_cleanly_on_sigterm() -> None:
    port = free_port()
    sim = shlex.join([sys.executable, "-m", "kimina_verify.sim"])
    argv = [sys.executable, "-m", "kimina_verify.server", "--port", str(port), "--max-repls", "2", "--repl-cmd", sim]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.communicate()[1]
            assert time.monotonic() < deadline, "the server did not come up"
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        body = {"snippets": [{"id": "a", "code": "theorem t : True := trivial"}]}
        assert httpx.post(f"{url}/api/check", json=body).json()["results"][0]["response"] == {"env": 1}
        repls = psutil.Process(server.pid).children(recursive=True)
        assert repls, "the server runs its REPLs as child processes"
    finally:
        server.send_signal(signal.SIGTERM)
        _, stderr = server.communicate(timeout=60)
    assert server.returncode == 0, stderr
    assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in repls), "REPLs outlived the server"


def test_refuses_to_start_when_the_repl_does_not_answer(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(parse("--repl-cmd", "false", "--port", str(free_port()), "--log-level", "CRITICAL")) == 3
    assert "does not work" in capsys.readouterr().err
