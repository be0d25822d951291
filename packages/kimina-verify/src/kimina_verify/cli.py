"""The `kimina-verify` command line: `lint` (static integrity rules), `check` (through a server) and `serve`.

Exit codes: 0 every row passed, 1 some rows failed, 2 bad usage or input, 3 the server could not verify some rows.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kimina_format.exit_codes import ExitCode
from rich.console import Console
from rich.markup import escape

from kimina_verify.integrity import DEFAULT_ALLOWED_OPTIONS, IntegrityPolicy, check_integrity

__all__ = ["InputError", "Row", "build_parser", "main"]

# The shared convention (kimina_format.exit_codes); kept as names because tests and scripts import them.
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INFRA = ExitCode.OK, ExitCode.FAILED, ExitCode.USAGE, ExitCode.UNAVAILABLE

stderr = Console(stderr=True, soft_wrap=True)


class InputError(Exception):
    """A problem with the input file, reported as one line."""


@dataclass(frozen=True)
class Row:
    """One input row."""

    id: Any
    code: str
    formal_statement: str | None


def _read_rows(path: Path, *, id_field: str = "id", code_field: str = "code") -> list[Row]:
    """Read a JSONL file of rows with an id, Lean code and an optional `formal_statement`.

    Raises:
        InputError: Missing file, invalid JSON (with its line number), a row without code, or no rows at all.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    rows: list[Row] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: invalid JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise InputError(f"{path}:{number}: expected a JSON object, found {type(data).__name__}")
        code = data.get(code_field)
        if not isinstance(code, str):
            raise InputError(f"{path}:{number}: no string field {code_field!r}")
        statement = data.get("formal_statement")
        rows.append(Row(data.get(id_field, number), code, statement if isinstance(statement, str) else None))
    if not rows:
        raise InputError(f"{path}: no rows")
    return rows


def _policy(args: argparse.Namespace) -> IntegrityPolicy:
    return IntegrityPolicy(
        allow_native_decide=not args.forbid_native_decide,
        allowed_options=DEFAULT_ALLOWED_OPTIONS | frozenset(args.allow_option),
    )


def _emit(obj: dict[str, Any]) -> None:
    line = json.dumps(obj, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (in an id): JSON's own escapes, never a crash
        line = json.dumps(obj)
    sys.stdout.write(line + "\n")


def _run_lint(args: argparse.Namespace) -> int:
    """Apply the static integrity rules to every row; one JSON object per row on stdout, a summary on stderr."""
    rows = _read_rows(args.file, id_field=args.id_field, code_field=args.code_field)
    policy = _policy(args)
    counts: Counter[str] = Counter()
    failed = 0
    for row in rows:
        violations = check_integrity(row.code, row.formal_statement, policy)
        codes = list(dict.fromkeys(v.code for v in violations))
        counts.update(codes)
        failed += bool(codes)
        _emit({"id": row.id, "ok": not codes, "violations": codes})
    stderr.print(f"{len(rows) - failed}/{len(rows)} rows pass the integrity rules")
    for code, count in counts.most_common():
        stderr.print(f"  {code}: {count}")
    return EXIT_FAILED if failed else EXIT_OK


def _verifier_options(args: argparse.Namespace) -> Any:
    """The `VerifierOptions` the `check` flags select."""
    from kimina_verify.options import Checks, Endpoint, Limits, Retries, Timeouts, VerifierOptions

    return VerifierOptions(
        endpoint=Endpoint(args.url, args.api_key),
        timeouts=Timeouts(lean_s=args.timeout),
        retries=Retries(count=args.retries),
        limits=Limits(batch_size=args.batch_size, max_concurrency=args.concurrency),
        checks=Checks(policy=_policy(args)),
        cache=str(args.cache) if args.cache is not None else None,
    )


def _run_check(args: argparse.Namespace) -> int:
    """Verify every row through a server; one verdict per row on stdout, a summary on stderr."""
    from rich.progress import Progress

    from kimina_verify.client import Verifier, VerifyItem
    from kimina_verify.environment import LeanEnvironment

    rows = _read_rows(args.file, id_field=args.id_field, code_field=args.code_field)
    items = [VerifyItem(row.code, row.formal_statement) for row in rows]
    environment: LeanEnvironment | None = None

    async def verify() -> list[Any]:
        nonlocal environment
        async with Verifier(_verifier_options(args)) as verifier:
            try:
                environment = LeanEnvironment.from_health(await verifier.health())
            except Exception as exc:  # a down server shows up as `infra` verdicts below, with the reason
                stderr.print(f"[yellow]{verifier.url}/health does not answer ({type(exc).__name__})[/yellow]")
            with Progress(console=stderr, transient=True) as bar:
                task = bar.add_task("verifying", total=len(items))
                return await verifier.verify(items, progress=lambda done, _total: bar.update(task, completed=done))

    verdicts = asyncio.run(verify())
    counts: Counter[str] = Counter()
    for row, verdict in zip(rows, verdicts, strict=True):
        counts[verdict.kind.value] += 1
        _emit(
            {
                "id": row.id,
                "kind": verdict.kind.value,
                "ok": verdict.ok,
                "detail": verdict.detail,
                "violations": [v.code for v in verdict.violations],
                "time_s": verdict.time_s,
                "cached": verdict.cached,
            }
        )
    stderr.print(f"{counts['valid']}/{len(rows)} valid; " + ", ".join(f"{k}: {n}" for k, n in sorted(counts.items())))
    if environment is not None:
        style = "bold red" if environment.stand_in else "green"
        stderr.print(f"verified by [{style}]{escape(environment.describe())}[/{style}]", highlight=False)
    if counts["infra"]:
        stderr.print(f"[red]{counts['infra']} rows could not be verified (server problem), see `detail`[/red]")
        return EXIT_INFRA
    return EXIT_OK if counts["valid"] == len(rows) else EXIT_FAILED


def _add_input_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="JSONL rows with an id, Lean code and an optional formal_statement")
    parser.add_argument("--id-field", default="id", help="field holding the row id (default: id)")
    parser.add_argument("--code-field", default="code", help="field holding the Lean code (default: code)")
    parser.add_argument("--forbid-native-decide", action="store_true", help="reject proofs using native_decide")
    parser.add_argument(
        "--allow-option",
        action="append",
        default=[],
        metavar="NAME",
        help=f"also allow `set_option NAME` (allowed: {', '.join(sorted(DEFAULT_ALLOWED_OPTIONS))}, linter.*)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (the `serve` subcommand's arguments come from the server package, loaded on demand)."""
    parser = argparse.ArgumentParser(
        prog="kimina-verify",
        description="Verify Lean 4 proofs: static integrity rules, a client for Lean servers, and a server.",
        epilog="Exit codes: 0 all rows pass, 1 some fail, 2 bad usage or input, 3 server could not verify some rows.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    lint = sub.add_parser(
        "lint",
        help="check rows against the static integrity rules (no Lean needed)",
        description='Print {"id", "ok", "violations"} per row on stdout and a summary on stderr.',
    )
    _add_input_arguments(lint)
    check = sub.add_parser(
        "check",
        help="verify rows with a Lean server",
        description="Print one verdict per row on stdout and a summary on stderr.",
    )
    _add_input_arguments(check)
    # Flags keep their short names; their defaults and help come from `VerifierOptions`.
    from kimina_verify.config import field_default, field_help
    from kimina_verify.options import Endpoint, Limits, Retries, Timeouts, VerifierOptions

    check.add_argument("--url", default=None, help=field_help(Endpoint, "url", default=None))
    check.add_argument("--api-key", default=None, help=field_help(Endpoint, "api_key", default=None))
    timeout = field_default(Timeouts, "lean_s")
    check.add_argument("--timeout", type=float, default=timeout, help=field_help(Timeouts, "lean_s"))
    batch = field_default(Limits, "batch_size")
    check.add_argument("--batch-size", type=int, default=batch, help=field_help(Limits, "batch_size"))
    concurrency = field_default(Limits, "max_concurrency")
    check.add_argument("--concurrency", type=int, default=concurrency, help=field_help(Limits, "max_concurrency"))
    retries = field_default(Retries, "count")
    check.add_argument("--retries", type=int, default=retries, help=field_help(Retries, "count"))
    check.add_argument("--cache", type=Path, default=None, help=field_help(VerifierOptions, "cache"))
    sub.add_parser("serve", help="run the verification server (kimina-lean-server v2 API)", add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `kimina-verify`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        return _serve(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return _run_lint(args) if args.command == "lint" else _run_check(args)
    except InputError as exc:
        stderr.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        return EXIT_USAGE
    except KeyboardInterrupt:
        stderr.print("interrupted")
        return ExitCode.INTERRUPTED


def _serve(argv: list[str]) -> int:
    """Run `serve`, whose arguments and behaviour belong to `kimina_verify.server.cli`."""
    from kimina_verify.server import cli as server_cli

    parser = argparse.ArgumentParser(prog="kimina-verify serve", description="Run the verification server.")
    server_cli.add_arguments(parser)
    return int(server_cli.run(parser.parse_args(argv)))
