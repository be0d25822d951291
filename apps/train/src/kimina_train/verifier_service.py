"""Start a `kimina-verify serve` for one run: on a real Lean workspace when configured, else on `lean-repl-sim`."""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

__all__ = [
    "SIMULATED_MARKER",
    "SIMULATED_WARNING",
    "VerifierProcess",
    "VerifierStartError",
    "WORKSPACE_ENV",
    "checks_served",
    "running_verifier",
]

WORKSPACE_ENV = "KIMINA_LEAN_WORKSPACE"
"""A Lean workspace as infra/lean/setup-workspace.sh builds it (`mathlib4/`, `repl/`); unset means `lean-repl-sim`."""

SIMULATED_MARKER = "SIMULATED_VERIFIER.txt"
"""Written into the run folder when rewards came from `lean-repl-sim`, so nobody mistakes them for real proofs."""

SIMULATED_WARNING = (
    "The verification server of this run uses lean-repl-sim, a TEST DOUBLE of the Lean REPL: it runs no Lean and "
    "accepts any proof without `sorry`. Rewards, accuracies and 'valid' verdicts of this run prove NOTHING. "
    f"Set {WORKSPACE_ENV} to a Lean workspace (see infra/lean/) for real verification."
)


class VerifierStartError(RuntimeError):
    """The server did not come up; the message holds the end of its log."""


@dataclass(frozen=True)
class VerifierProcess:
    """A running server.

    Attributes:
        url: Its base URL.
        simulated: True when it runs `lean-repl-sim` instead of Lean.
        log: File holding its output.
    """

    url: str
    simulated: bool
    log: Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve_command(port: int, workspace: str | None, *, max_repls: int) -> list[str]:
    """The `kimina-verify serve` command line (as `python -m`, so it works without the venv on PATH)."""
    command = [sys.executable, "-m", "kimina_verify.server", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--max-repls", str(max_repls)]
    if workspace:
        root = Path(workspace)
        # A cold REPL imports Mathlib before its first check: minutes, counted apart from the check's own timeout.
        return [
            *command,
            *("--project-dir", str(root / "mathlib4"), "--repl-path", str(root / "repl/.lake/build/bin/repl")),
            *("--import-timeout", "900"),
        ]
    return [*command, "--repl-cmd", shlex.join([sys.executable, "-m", "kimina_verify.sim"])]


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            if httpx.get(f"{url}/health", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:]) if log.is_file() else ""
    state = f"exited with code {proc.returncode}" if proc.poll() is not None else f"not healthy after {timeout_s:g} s"
    raise VerifierStartError(f"kimina-verify serve {state}; end of {log}:\n{tail}")


@contextmanager
def running_verifier(
    run_dir: Path, *, max_repls: int = 2, startup_timeout_s: float = 90.0
) -> Iterator[VerifierProcess]:
    """Run a `kimina-verify serve` on a free loopback port for the duration of the block.

    Uses the Lean workspace in `$KIMINA_LEAN_WORKSPACE` when set; otherwise `lean-repl-sim`, in which case the run
    folder gets `SIMULATED_VERIFIER.txt` saying so. The server's output goes to `run_dir/verifier.log`.

    Raises:
        VerifierStartError: The server exited or did not answer `/health` in time.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    workspace = os.environ.get(WORKSPACE_ENV) or None
    port = _free_port()
    log = run_dir / "verifier.log"
    marker = run_dir / SIMULATED_MARKER
    if workspace:
        marker.unlink(missing_ok=True)
    else:
        marker.write_text(SIMULATED_WARNING + "\n")
    with log.open("ab") as out:
        proc = subprocess.Popen(
            _serve_command(port, workspace, max_repls=max_repls),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=dict(os.environ, COLUMNS="200"),  # rich wraps its messages at 80 columns in a log file
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log, startup_timeout_s)
        yield VerifierProcess(url=url, simulated=workspace is None, log=log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def checks_served(url: str, *, timeout_s: float = 10.0) -> dict[str, int]:
    """Checks the server has finished, by outcome (`valid`, `lean_error`, ...), from its `/metrics` counters.

    Raises:
        httpx.HTTPError: The server did not answer.
    """
    response = httpx.get(f"{url.rstrip('/')}/metrics", timeout=timeout_s)
    response.raise_for_status()
    counts: dict[str, int] = {}
    for line in response.text.splitlines():
        match = _CHECKS.match(line)
        if match:
            counts[match.group(1)] = counts.get(match.group(1), 0) + int(float(match.group(2)))
    return counts


_CHECKS = re.compile(r'^kimina_checks_total\{outcome="([^"]+)"\}\s+([0-9.eE+]+)$')
