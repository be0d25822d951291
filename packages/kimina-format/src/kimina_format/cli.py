"""`kimina-format check FILE.jsonl`: a format verdict per row, then pass rate and violation counts.

Exit codes (the workspace's, `kimina_format.exit_codes`): 0 when every row was read and checked (whatever the
verdicts: `check` reports, it does not gate), 2 for bad input (missing file, invalid JSON, a row without the field, no
rows at all) or a command-line usage error.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from kimina_format import __version__
from kimina_format.check import FormatVerdict, check_format
from kimina_format.exit_codes import ExitCode, fail
from kimina_format.violations import ViolationCode

__all__ = ["main"]


class InputError(Exception):
    """The input file cannot be read in full; the message says where and why, in one line."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (see the module docstring)."""
    args = _parser().parse_args(argv)
    for stream in (sys.stdout, sys.stderr):
        # A lone surrogate in a row (JSON allows `"\\ud800"`) is written as its escape, which in JSON output is the
        # same string, rather than failing the run.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        return _check(args.file, args.field, args.statement_field, as_json=args.json)
    except InputError as error:
        return fail("kimina-format", str(error), ExitCode.USAGE)
    except BrokenPipeError:  # `kimina-format check f.jsonl | head`: the reader left, nothing to report
        sys.stderr.close()
        return ExitCode.OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kimina-format",
        description="Check Kimina-style completions (<think> with ```tactics blocks, then one ```lean4 block) "
        "against the format rules of the RL reward.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="check every row of a JSONL file",
        description="Print a format verdict per row of FILE (JSON Lines), then the pass rate and how often each "
        "rule was broken. Exit code 0 when the whole file was read, 2 when it could not be.",
        epilog="example: kimina-format check completions.jsonl --statement-field formal_statement --json > v.jsonl",
    )
    check.add_argument("file", metavar="FILE", help="JSON Lines file, one object per line ('-' reads stdin)")
    check.add_argument(
        "--field",
        default="completion",
        help="field holding the completion text, or chat messages whose last content is checked (default: %(default)s)",
    )
    check.add_argument(
        "--statement-field",
        metavar="FIELD",
        default=None,
        help="field holding the formal statement; enables the statement rule (default: no statement check)",
    )
    check.add_argument(
        "--json",
        action="store_true",
        help="print one JSON verdict per row on stdout (JSONL); the summary goes to stderr",
    )
    return parser


def _check(file: str, field: str, statement_field: str | None, *, as_json: bool) -> int:
    out = sys.stdout
    summary_out = sys.stderr if as_json else sys.stdout
    verdicts: list[FormatVerdict] = []
    for line_no, row in _rows(file):
        text = _text_field(row, field, line_no)
        statement = _statement_field(row, statement_field, line_no) if statement_field else None
        verdict = check_format(text, formal_statement=statement)
        verdicts.append(verdict)
        label = str(row.get("name", row.get("id", "")))
        if as_json:
            out.write(json.dumps({"line": line_no, "name": label or None, **verdict.to_dict()}, ensure_ascii=False))
            out.write("\n")
        else:
            _print_verdict(out, line_no, label, verdict)
    if not verdicts:
        raise InputError(f"{file}: no rows to check (the file is empty)")
    _print_summary(summary_out, verdicts)
    return ExitCode.OK


def _rows(file: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line, or raise `InputError` naming the bad line."""
    if file != "-" and not Path(file).is_file():
        raise InputError(f"{file}: no such file" if not Path(file).exists() else f"{file}: not a regular file")
    stream: IO[str] = sys.stdin if file == "-" else open(file, encoding="utf-8")
    try:
        line_no = 0
        while True:
            line_no += 1
            try:
                line = stream.readline()
            except UnicodeDecodeError as error:
                raise InputError(f"{file}:{line_no}: not UTF-8 text ({error.reason})") from None
            if not line:
                return
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(f"{file}:{line_no}: invalid JSON: {error.msg} (column {error.colno})") from None
            if not isinstance(row, dict):
                raise InputError(f"{file}:{line_no}: expected a JSON object, got {type(row).__name__}")
            yield line_no, row
    finally:
        if stream is not sys.stdin:
            stream.close()


def _text_field(row: dict[str, Any], field: str, line_no: int) -> str:
    if field not in row:
        raise InputError(f"line {line_no}: no field {field!r} (fields: {', '.join(sorted(row)) or 'none'})")
    value = row[field]
    if isinstance(value, list) and value and isinstance(value[-1], dict) and isinstance(value[-1].get("content"), str):
        return str(value[-1]["content"])
    if not isinstance(value, str):
        raise InputError(f"line {line_no}: field {field!r} is {type(value).__name__}, expected text or chat messages")
    return value


def _statement_field(row: dict[str, Any], field: str, line_no: int) -> str | None:
    if field not in row:
        raise InputError(f"line {line_no}: no field {field!r} (fields: {', '.join(sorted(row)) or 'none'})")
    value = row[field]
    if value is not None and not isinstance(value, str):
        raise InputError(f"line {line_no}: field {field!r} is {type(value).__name__}, expected text")
    return value


def _print_verdict(out: IO[str], line_no: int, label: str, verdict: FormatVerdict) -> None:
    name = f" {label}" if label else ""
    if verdict.ok:
        penalty = f" (length penalty {verdict.length_penalty:.2f})" if verdict.length_penalty else ""
        out.write(f"line {line_no}{name}: ok, score {verdict.score:.2f}{penalty}\n")
        return
    out.write(f"line {line_no}{name}: FAIL\n")
    for violation in verdict.violations:
        out.write(f"    {violation.code.value}: {violation.message}\n")


def _print_summary(out: IO[str], verdicts: list[FormatVerdict]) -> None:
    total = len(verdicts)
    passed = sum(v.ok for v in verdicts)
    rows_by_code = Counter(code for v in verdicts for code in set(v.codes))
    mean_score = sum(v.score for v in verdicts) / total
    out.write(
        f"\n{total} rows: {passed} pass ({passed / total:.1%}), {total - passed} fail; mean score {mean_score:.3f}\n"
    )
    if rows_by_code:
        width = max(len(code.value) for code in ViolationCode)
        out.write(f"\n{'violation':<{width}}  rows\n")
        for code in ViolationCode:  # rule order, so the table reads the same way every time
            if rows_by_code[code]:
                out.write(f"{code.value:<{width}}  {rows_by_code[code]:>4}\n")
