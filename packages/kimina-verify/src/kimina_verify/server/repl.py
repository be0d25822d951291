"""One Lean REPL process: start it, send a command, read its reply, and kill it cleanly.

Each REPL runs in its own session (process group), so a timeout kills `lake` and the REPL under it together.
stderr is drained all the time into a short tail kept for error messages, so a chatty REPL never blocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import uuid
from collections import deque
from collections.abc import Sequence
from typing import Any

import psutil

logger = logging.getLogger(__name__)

_STDERR_TAIL_BYTES = 8192
_TREE_REFRESH = 64


class ReplError(Exception):
    """The REPL failed to answer a command; the process has been killed."""


class ReplStartError(ReplError):
    """The REPL command could not be started at all."""


class ReplTimeout(ReplError):
    """No reply within the timeout."""


class ReplCrashed(ReplError):
    """The process exited (or closed its output) before replying."""

    def __init__(self, message: str, returncode: int | None, stderr_tail: str) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr_tail = stderr_tail

    @property
    def out_of_memory(self) -> bool:
        """Whether the REPL said it ran out of memory (Lean panics with "out of memory")."""
        return "out of memory" in self.stderr_tail.lower()


class ReplGarbage(ReplError):
    """The process printed something that is not one JSON object followed by a blank line."""


class ReplOutOfStep(ReplError):
    """A reply that cannot be the answer to the command sent: a forged reply came first (the process is killed)."""


JAIL_MODES = ("off", "auto", "bwrap")
"""`off`: no jail; `auto`: bubblewrap when `bwrap` is on the PATH, else none; `bwrap`: bubblewrap or fail to start."""


def jail_argv(argv: Sequence[str], mode: str, cwd: str | None) -> list[str]:
    """`argv` inside a bubblewrap jail (`mode` in `JAIL_MODES`), or unchanged.

    The jail (defence in depth: elaboration can run code, whatever the static rules refuse) sees the whole file
    system read-only, a private `/tmp`, no network and its own `/dev`; it dies with the server. The REPL's working
    directory (the Lake project) stays readable, as everything else. REPL commands that write files (`pickleTo`) can
    then only write into the jail's own `/tmp`.

    Raises:
        ReplStartError: `mode` is `bwrap` and the host has none, or `mode` is unknown.
    """
    if mode not in JAIL_MODES:
        raise ReplStartError(f"unknown jail mode {mode!r} (expected one of {', '.join(JAIL_MODES)})")
    bwrap = shutil.which("bwrap") if mode != "off" else None
    if mode == "bwrap" and bwrap is None:
        raise ReplStartError("jail 'bwrap' asked for, but bubblewrap (bwrap) is not installed")
    if bwrap is None:
        return list(argv)
    jail = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    jail += ["--unshare-net", "--unshare-ipc", "--die-with-parent"]
    if cwd:
        jail += ["--chdir", cwd]
    return [*jail, "--", *argv]


class ReplProcess:
    """A running REPL with the header it was started for."""

    def __init__(self, proc: asyncio.subprocess.Process, header: str, max_reply_bytes: int) -> None:
        self.proc = proc
        self.header = header
        self.uuid = uuid.uuid4().hex
        self.max_reply_bytes = max_reply_bytes
        # The REPL numbers environments 0, 1, 2, ... per process, one per command that succeeds (REPL/Main.lean,
        # `recordCommandSnapshot`); a reply with another number is not the answer to the command just sent.
        self.next_env = 0
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._tree: list[psutil.Process] | None = None
        self._tree_age = 0
        self._drain = asyncio.create_task(self._drain_stderr())

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        *,
        header: str,
        cwd: str | None = None,
        memory_limit_mb: int = 0,
        max_reply_bytes: int = 64 << 20,
        jail: str = "off",
    ) -> ReplProcess:
        """Start one REPL in a new session, under an address-space limit when `memory_limit_mb` is set.

        `jail` (see `jail_argv`) runs it in a bubblewrap jail when the host has one.
        """
        argv = jail_argv(argv, jail, cwd)
        if memory_limit_mb or jail != "off":
            # `ulimit` in a shell that then execs the REPL: the limits are inherited by everything it starts. With a
            # jail, no core files either (a stack overflow aborts, and each abort would write one).
            limits = ('ulimit -v "$0" && ' if memory_limit_mb else "") + ("ulimit -c 0 && " if jail != "off" else "")
            argv = ["/bin/sh", "-c", limits + 'exec "$@"', str(memory_limit_mb * 1024), *argv]
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                start_new_session=True,
                limit=max_reply_bytes,
            )
        except OSError as exc:
            raise ReplStartError(f"cannot start {' '.join(argv)!r}: {exc}") from exc
        return cls(proc, header, max_reply_bytes)

    @property
    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc.returncode is None

    @property
    def stderr_tail(self) -> str:
        """The last few KiB the REPL wrote to stderr."""
        return b"".join(self._stderr).decode("utf-8", errors="replace")

    async def send(self, command: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one command and return its reply; on any failure the process is killed and an error raised."""
        payload = (json.dumps(command, ensure_ascii=False) + "\n\n").encode("utf-8")
        try:
            async with asyncio.timeout(timeout):
                assert self.proc.stdin is not None and self.proc.stdout is not None
                self.proc.stdin.write(payload)
                await self.proc.stdin.drain()
                raw = await self.proc.stdout.readuntil(b"\n\n")
        except TimeoutError:
            await self.kill()
            raise ReplTimeout(f"no reply within {timeout} s") from None
        except (asyncio.IncompleteReadError, BrokenPipeError, ConnectionResetError) as exc:
            await self.kill()
            returncode = self.proc.returncode
            raise ReplCrashed(f"the REPL exited (code {returncode})", returncode, self.stderr_tail) from exc
        except asyncio.LimitOverrunError:
            await self.kill()
            raise ReplGarbage(f"reply larger than {self.max_reply_bytes} bytes") from None
        try:
            reply = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            reply = None
        if not isinstance(reply, dict):
            await self.kill()
            raise ReplGarbage(f"not a JSON object: {raw[:200].decode('utf-8', errors='replace')!r}")
        return reply

    async def run(self, command: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send a `cmd` command and check that the reply numbers its environment as the next one.

        Raises:
            ReplOutOfStep: The reply names another environment: it answers something else (the process is killed).
            ReplError: As `send`.
        """
        reply = await self.send(command, timeout)
        if "env" in reply:
            if type(reply["env"]) is not int or reply["env"] != self.next_env:
                await self.kill()
                raise ReplOutOfStep(f"reply for environment {reply['env']!r}, expected {self.next_env}")
            self.next_env += 1
        return reply

    def memory_mb(self) -> float:
        """Resident memory of the REPL and everything it started, in MiB (0 once it is gone)."""
        # Listing children scans all of /proc (milliseconds), so the process tree is refreshed only now and then.
        if self._tree is None or self._tree_age >= _TREE_REFRESH:
            try:
                root = psutil.Process(self.proc.pid)
                self._tree, self._tree_age = [root, *root.children(recursive=True)], 0
            except psutil.Error:
                return 0.0
        self._tree_age += 1
        total = 0
        for proc in self._tree:
            with contextlib.suppress(psutil.Error):
                total += proc.memory_info().rss
        return total / (1 << 20)

    async def close(self, grace: float = 2.0) -> None:
        """Ask the REPL to exit by closing its input (end of input ends the real REPL), then kill what is left."""
        if self.alive and self.proc.stdin is not None:
            with contextlib.suppress(OSError, RuntimeError):
                self.proc.stdin.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), grace)
        await self.kill()

    def signal_kill(self) -> None:
        """SIGKILL the whole process group now; a command waiting on it fails as a crash."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    async def kill(self) -> None:
        """SIGKILL the whole process group (the REPL and anything it started) and reap the process."""
        self.signal_kill()
        # The process only counts as finished once its pipes are closed: read stdout to its end, since a reader
        # paused on an oversized reply would otherwise never see it.
        await asyncio.gather(self.proc.wait(), self._discard_stdout())
        with contextlib.suppress(OSError, RuntimeError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(self._drain, 1.0)

    async def _discard_stdout(self) -> None:
        assert self.proc.stdout is not None
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            while await self.proc.stdout.read(1 << 20):
                pass

    async def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(65536):
            chunk = chunk[-_STDERR_TAIL_BYTES:]
            self._stderr.append(chunk)
            self._stderr_size += len(chunk)
            while self._stderr_size > _STDERR_TAIL_BYTES and len(self._stderr) > 1:
                self._stderr_size -= len(self._stderr.popleft())
            logger.debug("REPL %s stderr: %r", self.uuid[:8], chunk[:200])
