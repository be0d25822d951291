"""`kimina-verify serve` (and `python -m kimina_verify.server`): flags, environment, start-up checks, run."""

from __future__ import annotations

import argparse
import logging
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from kimina_format.exit_codes import ExitCode

from kimina_verify.server.settings import ServerSettings, parse_memory

__all__ = ["EPILOG", "add_arguments", "check_command", "main", "run", "settings_from_args"]

EPILOG = """\
Every flag also reads the upstream environment variable LEAN_SERVER_<NAME> (LEAN_SERVER_MAX_REPLS,
LEAN_SERVER_MAX_REPL_MEM=8G, LEAN_SERVER_API_KEY, LEAN_SERVER_PROJECT_DIR, LEAN_SERVER_REPL_PATH, ...); a flag wins.
By default each REPL is `lake env <repl-path>` run in --project-dir (the layout infra/lean builds).
For tests without Lean: --repl-cmd lean-repl-sim (a test double, never for real verification).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the server's flags to `parser` (used by `kimina-verify serve`)."""
    add = parser.add_argument
    add("--host", help="interface to listen on (default 127.0.0.1; 0.0.0.0 in containers)")
    add("--port", type=int, help="TCP port (default 8000)")
    add("--api-key", help="require `Authorization: Bearer KEY` on checks")
    add("--repl-cmd", help="command that starts one REPL, e.g. 'lake env /opt/repl/.lake/build/bin/repl'")
    add("--project-dir", help="directory each REPL runs in (the Lake project with Mathlib)")
    add("--repl-path", help="REPL binary for the default command `lake env REPL_PATH`")
    add("--max-repls", type=int, help="REPL processes at most (default: cores - 1)")
    add("--max-repl-uses", type=int, help="checks per REPL before it is replaced; 0 = never (default 500)")
    add("--max-repl-mem", type=parse_memory, help="memory limit per REPL, e.g. 8G or 512M; 0 = none (default 8G)")
    add("--timeout", type=float, help="per-check timeout in seconds when a request gives none (default 60)")
    add("--max-timeout", type=float, help="largest timeout a request may ask for (default 600)")
    add("--import-timeout", type=float, help="timeout for importing a header on a new REPL (default 300)")
    add("--max-queue", type=int, help="checks waiting at most; more get 429 + Retry-After (default 4096)")
    add("--max-wait", type=float, help="seconds a check may wait for a REPL (default 3600)")
    add("--max-snippet-bytes", type=int, help="larger snippets fail on their own (default 1 MiB)")
    add("--max-request-bytes", type=int, help="larger request bodies get 413 (default 64 MiB)")
    add("--max-batch", type=int, help="snippets per request at most, identical ones counted too; more get 413 (4096)")
    add(
        "--read-timeout",
        type=float,
        help="seconds a client has for its request headers, and may pause within its body or its answer (default 30)",
    )
    add("--shutdown-grace", type=float, help="seconds in-flight checks get on shutdown (default 30)")
    add(
        "--jail",
        choices=("off", "auto", "bwrap"),
        help="run REPLs in a bubblewrap jail (read-only files, no network): auto = when bwrap is installed (default off)",
    )
    add("--lean-version", help="Lean version reported by /health")
    add("--log-level", help="DEBUG, INFO, WARNING or ERROR (default INFO)")


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
