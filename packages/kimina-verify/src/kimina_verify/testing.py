"""Test helpers: a real verification server on a free loopback port, backed by `lean-repl-sim` REPLs.

Example:
    >>> from kimina_verify.testing import sim_server
    >>> with sim_server(max_repls=2) as url:  # doctest: +SKIP
    ...     httpx.post(f"{url}/api/check", json={"snippets": [{"id": "a", "code": "theorem t : True := trivial"}]})
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from types import TracebackType
from typing import Any

from kimina_verify.server.settings import ServerSettings

__all__ = ["ServerThread", "TEST_DEFAULTS", "sim_command", "sim_server", "sim_settings"]

# Small, fast defaults for tests; any ServerSettings field can be overridden.
TEST_DEFAULTS: dict[str, Any] = {
    "max_repls": 2,
    "timeout": 10.0,
    "import_timeout": 30.0,
    "max_repl_mem": 0,
    "shutdown_grace": 5.0,
}
_SETTINGS_FIELDS = frozenset(f.name for f in fields(ServerSettings))


def sim_command(
    *,
    verdicts: str | Path | None = None,
    latency: float = 0.0,
    import_latency: float = 0.0,
    latency_from: str | Path | None = None,
    time_scale: float = 1.0,
    mem_per_command: float = 0.0,
    backticks: bool = False,
    seed: int | None = None,
    sim_args: Sequence[str] = (),
) -> tuple[str, ...]:
    """The argv that starts one `lean-repl-sim` with these cost-model and verdict options."""
    argv = [sys.executable, "-m", "kimina_verify.sim"]
    if verdicts is not None:
        argv += ["--verdicts", str(verdicts)]
    if latency:
        argv += ["--latency", str(latency)]
    if import_latency:
        argv += ["--import-latency", str(import_latency)]
    if latency_from is not None:
        argv += ["--latency-from", str(latency_from)]
    if time_scale != 1.0:
        argv += ["--time-scale", str(time_scale)]
    if mem_per_command:
        argv += ["--mem-per-command", str(mem_per_command)]
    if backticks:
        argv.append("--backticks")
    if seed is not None:
        argv += ["--seed", str(seed)]
    return (*argv, *sim_args)


class ServerThread:
    """The real server (app, pool, uvicorn) running in a background thread on a free loopback port."""

    def __init__(self, settings: ServerSettings) -> None:
        from kimina_verify.server.runner import build_server

        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((settings.host, settings.port))
        self.settings = settings
        self.url = f"http://{settings.host}:{self._socket.getsockname()[1]}"
        self.server = build_server(settings, log_level="warning", access_log=False)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="kimina-verify-server", daemon=True)

    @property
    def app(self) -> Any:
        """The FastAPI app (its `state.pool` is the live REPL pool)."""
        return self.server.app

    def start(self, timeout: float = 60.0) -> ServerThread:
        """Start serving; returns once the server accepts requests.

        Raises:
            RuntimeError: The server failed to start (for example, the REPL command does not work).
        """
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                reason = getattr(self.app.state, "startup_error", None) or self._error or "timed out"
                raise RuntimeError(f"the test server did not start: {reason}")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 60.0) -> None:
        """Shut down gracefully (draining the pool) and wait for the thread."""
        self.server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._socket.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()

    def _main(self) -> None:
        try:
            self.server.run(sockets=[self._socket])
        except BaseException as exc:  # SystemExit from a failed start-up included: report it to start()
            self._error = exc


def sim_settings(**options: Any) -> ServerSettings:
    """Server settings for a loopback test server with sim REPLs; sim options go to `sim_command`."""
    sim_names = set(sim_command.__kwdefaults__ or {})
    sim_options = {k: options.pop(k) for k in list(options) if k in sim_names}
    unknown = set(options) - _SETTINGS_FIELDS
    if unknown:
        raise TypeError(f"unknown sim_server option(s): {', '.join(sorted(unknown))}")
    values = {**TEST_DEFAULTS, "host": "127.0.0.1", "port": 0, "repl_cmd": sim_command(**sim_options), **options}
    return ServerSettings(**values)


@contextmanager
def sim_server(**options: Any) -> Iterator[str]:
    """Run the real verification server with `lean-repl-sim` REPLs and yield its base URL.

    Options are `ServerSettings` fields (`max_repls`, `timeout`, `api_key`, `max_queue`, ...) or sim options
    (`verdicts`, `latency`, `import_latency`, `latency_from`, `time_scale`, `mem_per_command`, `backticks`, `seed`,
    `sim_args`). The server shuts down cleanly when the block ends.
    """
    with ServerThread(sim_settings(**options)) as server:
        yield server.url
