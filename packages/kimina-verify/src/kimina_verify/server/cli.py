"""`kimina-verify serve` (and `python -m kimina_verify.server`): flags, environment, start-up checks, run."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kimina_format.exit_codes import ExitCode

from kimina_verify.config import field_default, field_help
from kimina_verify.server.settings import ServerSettings, parse_memory

__all__ = ["EPILOG", "add_arguments", "check_command", "main", "run", "settings_from_args"]

EPILOG = """\
Every flag also reads the upstream environment variable LEAN_SERVER_<NAME> (LEAN_SERVER_MAX_REPLS,
LEAN_SERVER_MAX_REPL_MEM=8G, LEAN_SERVER_API_KEY, LEAN_SERVER_PROJECT_DIR, LEAN_SERVER_REPL_PATH, ...); a flag wins.
By default each REPL is `lake env <repl-path>` run in --project-dir (the layout infra/lean builds).
For tests without Lean: --repl-cmd lean-repl-sim (a test double, never for real verification).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the server's flags to `parser` (used by `kimina-verify serve`); help and defaults come from `ServerSettings`."""

    def add(flag: str, *, default: object = dataclasses.MISSING, text: str | None = None, **kwargs: Any) -> None:
        name = flag.removeprefix("--").replace("-", "_")
        parser.add_argument(flag, help=field_help(ServerSettings, name, text, default=default), **kwargs)

    mem = field_default(ServerSettings, "max_repl_mem")
    add("--host", text="Interface to listen on (0.0.0.0 in containers)")
    add("--port", type=int)
    add("--api-key")
    add(
        "--repl-cmd",
        text="Command that starts one REPL, e.g. 'lake env /opt/repl/.lake/build/bin/repl'",
        default="lake env REPL_PATH",
    )
    add("--project-dir")
    add("--repl-path")
    add("--max-repls", type=int, default="cores - 1")
    add("--max-repl-uses", type=int)
    add("--max-repl-mem", type=parse_memory, default=f"{mem} MiB; accepts 8G or 512M")
    add("--jail", choices=("off", "auto", "bwrap"))
    for name in ("timeout", "max-timeout", "import-timeout", "max-wait", "read-timeout", "shutdown-grace"):
        add(f"--{name}", type=float)
    for name in ("max-queue", "max-snippet-bytes", "max-request-bytes", "max-batch"):
        add(f"--{name}", type=int)
    add("--lean-version")
    add("--log-level", text="DEBUG, INFO, WARNING or ERROR")


def settings_from_args(args: argparse.Namespace) -> ServerSettings:
    """Defaults, then `LEAN_SERVER_*` variables, then flags."""
    base = ServerSettings.from_env()
    return base.with_overrides(
        host=args.host,
        port=args.port,
        api_key=args.api_key,
        repl_cmd=tuple(shlex.split(args.repl_cmd)) if args.repl_cmd else None,
        project_dir=args.project_dir,
        repl_path=args.repl_path,
        max_repls=args.max_repls,
        max_repl_uses=args.max_repl_uses,
        max_repl_mem=args.max_repl_mem,
        jail=args.jail,
        timeout=args.timeout,
        max_timeout=args.max_timeout,
        import_timeout=args.import_timeout,
        max_queue=args.max_queue,
        max_wait=args.max_wait,
        max_snippet_bytes=args.max_snippet_bytes,
        max_request_bytes=args.max_request_bytes,
        max_batch=args.max_batch,
        read_timeout=args.read_timeout,
        shutdown_grace=args.shutdown_grace,
        lean_version=args.lean_version,
        log_level=args.log_level,
    )


def check_command(settings: ServerSettings) -> str | None:
    """A one-line reason the REPL command cannot work, or None."""
    if settings.cwd is not None and not Path(settings.cwd).is_dir():
        return f"--project-dir {settings.cwd} is not a directory"
    if not settings.repl_cmd:
        repl = Path(settings.cwd or ".") / settings.repl_path
        if not repl.exists():
            return (
                f"no REPL binary at {repl}: point --project-dir (and --repl-path) at a Lean workspace "
                "(infra/lean/setup-workspace.sh builds one), or serve the stand-in, which runs no Lean: "
                "--repl-cmd lean-repl-sim"
            )
    program = settings.command[0]
    if shutil.which(program) is None and not (Path(settings.cwd or ".") / program).exists():
        return f"cannot find {program!r} to start the REPL"
    return None


def run(args: argparse.Namespace) -> int:
    """Start the server with parsed arguments; returns the exit code (0 after a clean shutdown)."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True, soft_wrap=True)
    try:
        from kimina_verify.server.runner import build_server
    except ImportError as exc:  # `pip install kimina-verify` without the server extra: one line, not a traceback
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        return int(ExitCode.USAGE)
    try:
        settings = settings_from_args(args)
    except ValueError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return int(ExitCode.USAGE)
    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    problem = check_command(settings)
    if problem:
        console.print(f"[red]error:[/red] {problem}")
        return int(ExitCode.USAGE)
    console.print(
        f"kimina-verify server on http://{settings.host}:{settings.port} with up to {settings.max_repls} REPLs: "
        f"{shlex.join(settings.command)}"
    )
    server = build_server(settings)
    try:
        server.run()
    except SystemExit:  # uvicorn exits this way when start-up (the REPL probe) fails
        reason = getattr(server.app.state, "startup_error", "start-up failed")
        console.print(f"[red]error:[/red] {reason}")
        return int(ExitCode.UNAVAILABLE)
    return int(ExitCode.OK)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m kimina_verify.server`."""
    parser = argparse.ArgumentParser(
        prog="python -m kimina_verify.server",
        description="Serve Lean verification over HTTP (the kimina-lean-server v2 API) with a pool of Lean REPLs.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
