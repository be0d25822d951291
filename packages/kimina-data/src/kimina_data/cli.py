"""`kimina-data`: build the RL promptset (`build`) or the miniF2F evaluation parquet (`minif2f`).

Exit codes: 0 done; 1 the build failed (no rows left, Gemini unusable); 2 bad input (arguments, config, source);
130 interrupted.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kimina_format.exit_codes import ExitCode
from kimina_verify.config import field_help, merge_config
from kimina_verify.errors import VerifierUnavailable
from rich.console import Console
from rich.logging import RichHandler
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from kimina_data.config import BuildConfig, ConfigError, load_data_section
from kimina_data.pipeline import BuildError, build_promptset
from kimina_data.report import BuildReport, DecontaminationStats
from kimina_data.sources import SourceError
from kimina_data.variants import GeminiError, MissingApiKeyError
from kimina_data.variants.gemini import GeminiSettings

__all__ = ["config_from_args", "main"]

# The workspace convention (kimina_format.exit_codes).
_EXIT_FAILED, _EXIT_USAGE, _EXIT_UNAVAILABLE, _EXIT_INTERRUPTED = (
    ExitCode.FAILED,
    ExitCode.USAGE,
    ExitCode.UNAVAILABLE,
    ExitCode.INTERRUPTED,
)

_console = Console(stderr=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(message)s",
        handlers=[RichHandler(console=_console, show_path=False, show_time=False)],
    )
    import datasets

    datasets.disable_progress_bars()  # ours are drawn by rich, one per step
    try:
        if args.command == "build":
            return _build(args)
        return _minif2f(args)
    except (ConfigError, SourceError, MissingApiKeyError) as e:
        _console.print(f"[red]error:[/] {escape(str(e))}")
        return _EXIT_USAGE
    except VerifierUnavailable as e:
        _console.print(f"[red]verification server unavailable:[/] {escape(str(e))}")
        return _EXIT_UNAVAILABLE
    except (BuildError, GeminiError) as e:
        _console.print(f"[red]build failed:[/] {escape(str(e))}")
        return _EXIT_FAILED
    except KeyboardInterrupt:
        _console.print("[yellow]interrupted[/]: Gemini answers received so far are cached; a rerun resumes")
        return _EXIT_INTERRUPTED


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kimina-data",
        description="Build Kimina-Prover-RL training data and evaluation sets as verl parquet.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log every step in detail")
    commands = parser.add_subparsers(dest="command", required=True)

    build = commands.add_parser(
        "build",
        help="build the RL promptset from NuminaMath-LEAN / Kimina-Prover-Promptset / miniF2F",
        description=(
            "Load, check, normalise, remove copies of evaluation problems (miniF2F), filter by win rate, "
            "de-duplicate, add Gemini variants, split by problem, weight hard problems and write train.parquet / "
            "val.parquet, stats.json, win_rates.png and rejected.jsonl to --out. Options given here override the "
            "`data:` section of --config."
        ),
        epilog="Example: kimina-data build --source numina_lean.parquet --out data/promptset (add --variants 1 and "
        "GEMINI_API_KEY for Gemini variants)",
    )
    build.add_argument(
        "--config", type=Path, metavar="PATH", help="YAML recipe whose `data:` section holds these options"
    )
    build.add_argument(
        "--source",
        action="append",
        metavar="PATH_OR_HUB_ID",
        help="a .jsonl/.parquet file or folder, or a hub id such as AI-MO/NuminaMath-LEAN (repeatable)",
    )
    build.add_argument("--out", type=Path, metavar="DIR", help="output folder")
    build.add_argument(
        "--variants",
        type=int,
        metavar="N",
        help=field_help(BuildConfig, "variants"),
    )
    build.add_argument("--no-variants", action="store_true", help="skip the Gemini variants step (the default)")
    build.add_argument("--max-win-rate", type=float, metavar="X", help=field_help(BuildConfig, "max_win_rate"))
    build.add_argument(
        "--drop-missing-win-rate", action="store_true", help="drop problems without a win rate (default: keep)"
    )
    build.add_argument("--no-dedup", action="store_true", help="keep rows with the same statement")
    decontaminate = build.add_mutually_exclusive_group()
    decontaminate.add_argument(
        "--decontaminate",
        action="append",
        metavar="PATH",
        help="drop training rows whose statement is in this evaluation set: a file, hub id, or `minif2f` for the "
        "miniF2F file shipped with kimina-data (repeatable; default: minif2f)",
    )
    decontaminate.add_argument(
        "--no-decontaminate", action="store_true", help="keep rows that copy an evaluation problem"
    )
    build.add_argument("--max-calls", type=int, metavar="N", help=field_help(BuildConfig, "max_calls"))
    build.add_argument("--gemini-model", metavar="NAME", help=field_help(GeminiSettings, "model"))
    build.add_argument(
        "--verify-url",
        metavar="URL",
        help="kimina-verify server for the variants' statement check: verifier.endpoint.url (default "
        "$LEAN_SERVER_API_URL)",
    )
    build.add_argument("--val-fraction", type=float, metavar="F", help=field_help(BuildConfig, "val_fraction"))
    build.add_argument("--seed", type=int, help=field_help(BuildConfig, "seed"))

    minif2f = commands.add_parser(
        "minif2f",
        help="write the miniF2F valid and test sets as verl parquet",
        description="Write minif2f_valid.parquet and minif2f_test.parquet from miniF2F (the file shipped with kimina-data by default).",
    )
    minif2f.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    minif2f.add_argument(
        "--source",
        metavar="PATH_OR_HUB_ID",
        help="miniF2F file or hub id (default: the miniF2F file shipped with kimina-data)",
    )
    minif2f.add_argument(
        "--no-rectified", action="store_true", help="keep the original statements where rectified ones exist"
    )
    return parser


def config_from_args(args: argparse.Namespace) -> BuildConfig:
    """The `BuildConfig` from `--config` (if any) with every option given on the command line on top."""
    data: dict[str, Any] = dict(load_data_section(args.config)) if args.config else {}
    given = {
        "sources": args.source,
        "out": args.out,
        "variants": 0 if args.no_variants else args.variants,
        "max_win_rate": args.max_win_rate,
        "keep_missing_win_rate": False if args.drop_missing_win_rate else None,
        "dedup": False if args.no_dedup else None,
        "decontaminate": [] if args.no_decontaminate else args.decontaminate,
        "max_calls": args.max_calls,
        "val_fraction": args.val_fraction,
        "seed": args.seed,
    }
    data.update({key: value for key, value in given.items() if value is not None})
    if args.gemini_model:
        data["gemini"] = {**data.get("gemini", {}), "model": args.gemini_model}
    if args.verify_url:
        # Over the config file's own verifier section (and its old flat `verify_url`, which it replaces).
        data.pop("verify_url", None)
        data.pop("verify-url", None)
        verifier = data.get("verifier")
        given = verifier if isinstance(verifier, dict) else {}
        data["verifier"] = merge_config(given, {"endpoint": {"url": args.verify_url}})
    return BuildConfig.from_mapping(data)


def _build(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    with _StepProgress() as hook:
        report = build_promptset(config, progress=hook)
    _console.print(_summary_table(report))
    if not config.variants:
        _console.print("no Gemini variants (the default): --variants N asks for N per problem, with GEMINI_API_KEY set")
    files = ", ".join(Path(path).name for path in report.outputs.values())
    _console.print(f"[green]done[/] in {report.seconds:.1f} s: wrote {files} to {config.out}")
    return ExitCode.OK


def _minif2f(args: argparse.Namespace) -> int:
    from kimina_data.minif2f import build_minif2f, default_minif2f_source

    try:
        source = args.source or default_minif2f_source()
    except SourceError as e:
        raise SourceError(f"{e}: pass --source") from None
    result = build_minif2f(source, args.out, rectified=not args.no_rectified)
    for label, path in result.files.items():
        _console.print(f"{label}: {result.rows[label]} rows -> {path}")
    if result.rejections:
        _console.print(f"[yellow]{len(result.rejections)} rows rejected[/]: see {args.out / 'rejected.jsonl'}")
    return ExitCode.OK


class _StepProgress:
    """A rich progress display with one bar per pipeline step, fed by the pipeline's progress hook."""

    def __init__(self) -> None:
        self._progress = Progress(
            TextColumn("{task.description:<18}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=_console,
        )
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> _StepProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def __call__(self, step: str, done: int, total: int) -> None:
        if step not in self._tasks:
            self._tasks[step] = self._progress.add_task(step, total=total)
        self._progress.update(self._tasks[step], completed=done, total=total)


def _summary_table(report: BuildReport) -> Table:
    """Rows in and out of each step, per source and in total, with the time each step took."""
    sources: list[str] = []
    for step in report.steps:
        sources.extend(s for s in step.by_source if s not in sources)
    table = Table(title="kimina-data build", title_justify="left")
    table.add_column("step")
    for source in sources:
        table.add_column(source, justify="right")
    if len(sources) > 1:
        table.add_column("all", justify="right")
    table.add_column("s", justify="right")
    for step in report.steps:
        cells = [_in_out(*step.by_source[s]) if s in step.by_source else "" for s in sources]
        if len(sources) > 1:
            cells.append(_in_out(step.rows_in, step.rows_out))
        table.add_row(step.name, *cells, f"{step.seconds:.1f}")
    notes = []
    if report.rejected:
        notes.append("rejected: " + ", ".join(f"{reason} {n:,}" for reason, n in report.rejected.items()))
    if d := report.decontamination:
        notes.append(f"decontamination: {_decontamination(d)}")
    if v := report.variants:
        cost = f"${v.cost_usd:.4f}" if v.cost_usd is not None else "cost unknown"
        notes.append(
            f"variants: {v.calls:,} calls ({v.cache_hits:,} cached, {v.skipped_by_cap:,} over the cap, "
            f"{v.failed_calls:,} failed, {v.retries:,} retries), {v.input_tokens:,} + {v.output_tokens:,} tokens, "
            f"{cost}; {v.kept:,} of {v.proposed:,} kept"
        )
    if c := report.statement_check:
        notes.append(f"statement check: {c.skipped}" if c.skipped else f"statement check: {c.kept:,}/{c.checked:,} ok")
    table.caption = "\n".join(notes) or None
    table.caption_justify = "left"
    return table


def _decontamination(stats: DecontaminationStats) -> str:
    if stats.skipped:
        return f"skipped, {stats.skipped}"
    against = ", ".join(f"{Path(location).name} ({n:,})" for location, n in stats.references.items())
    text = f"{stats.removed:,} rows removed, copies of {len(stats.copied):,} problems of {against}"
    if stats.own_rows:
        text += f"; {stats.own_rows:,} rows are those problems themselves (kept)"
    return text


def _in_out(rows_in: int, rows_out: int) -> str:
    return f"{rows_in:,} → {rows_out:,}"


if __name__ == "__main__":
    sys.exit(main())
