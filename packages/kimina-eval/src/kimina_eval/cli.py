"""``kimina-eval``: run an evaluation or a lemma search, render its report, or score a file of graded samples.

Exit codes (the workspace's, `kimina_format.exit_codes`): 0 success; 1 a failed run (the engine failed); 2 bad usage
or input (unreadable file, invalid setting, a resume with other settings, a missing extra), one line; 3 verification
server unreachable; 130 interrupted (rerun the same command to resume).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self

from kimina_format.exit_codes import ExitCode
from kimina_verify import Endpoint, Retries, Timeouts, VerifierOptions, VerifierUnavailable
from kimina_verify.attempts import CLIENT_RETRIES
from kimina_verify.config import field_default, field_help
from rich.console import Console
from rich.logging import RichHandler
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from kimina_eval.config import ConfigError, RunConfig
from kimina_eval.dataset import DatasetError
from kimina_eval.engines.base import (
    ENGINES,
    Engine,
    EngineError,
    EngineFactory,
    SamplingParams,
    check_model,
    make_engine,
)
from kimina_eval.metrics import default_ks
from kimina_eval.report import render_markdown, write_report
from kimina_eval.runner import RunOptions, RunProgress, run_eval
from kimina_eval.scoring import Scores, score_rows
from kimina_eval.search import SearchConfig, SearchOptions, SearchProgress, run_search
from kimina_eval.search.ttrl import TTRLSetup, load_hook
from kimina_eval.store import guess_first_turn, read_jsonl
from kimina_eval.summary import summarize

__all__ = ["build_parser", "main"]

_console = Console(stderr=True, soft_wrap=True)  # one error, one line, whatever the width
logger = logging.getLogger("kimina_eval")


class _CliError(Exception):
    """A problem to report in one line, with its exit code."""

    def __init__(self, message: str, code: int = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.code = code


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        prog="kimina-eval",
        description="miniF2F evaluation of Lean 4 provers: unbiased pass@k with intervals, the error-fix turn, "
        "reports and plots.",
        epilog=__doc__.split("\n\n", 1)[1],
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser(
        "run",
        help="sample, verify and record an evaluation (resumable)",
        description="Sample n completions per problem, check their format, verify them with Lean, optionally give "
        "each failure one fix turn, and append every graded attempt to OUT/samples.jsonl. Rerunning the same "
        "command resumes; a larger --n or --limit adds samples. Writes OUT/report.md at the end.",
    )
    _add_model_arguments(run, n=field_default(RunConfig, "n"), n_help=field_help(RunConfig, "n"))
    fix_turns = field_default(RunConfig, "fix_turns")
    run.add_argument(
        "--fix-turns", type=int, choices=(0, 1), default=fix_turns, help=field_help(RunConfig, "fix_turns")
    )
    batch = field_default(RunOptions, "batch_problems")
    run.add_argument("--batch-problems", type=int, default=batch, help=field_help(RunOptions, "batch_problems"))

    search = commands.add_parser(
        "search",
        help="prove with test-time lemma search (resumable)",
        description="Per problem, rounds of N attempts on the theorem; between rounds, ask for intermediate lemmas "
        "from the failed attempts, keep those whose statement elaborates, drop those whose negation is proved, try "
        "to prove the rest, and offer the proved ones to the next attempts. Stops at the first verified proof or "
        "when a budget runs out. Every step goes to OUT/search.jsonl; round 1 also to OUT/samples.jsonl (a plain "
        "pass@N run). Rerunning the same command resumes; larger budgets continue unsolved problems.",
    )
    # The search's own default n (8 attempts per round), not the run's.
    _add_model_arguments(
        search, n=8, n_help="attempts on the theorem per round; round 1 is a plain pass@N evaluation (default: 8)"
    )
    # Flag -> SearchConfig field; help and default read from the dataclass.
    for flag, name in [
        ("--rounds", "rounds"),
        ("--sample-budget", "sample_budget"),
        ("--time-budget", "time_budget_s"),
        ("--proposals", "proposals_per_round"),
        ("--max-new-lemmas", "max_new_lemmas"),
        ("--negation-samples", "negation_samples"),
        ("--lemma-samples", "lemma_samples"),
        ("--lemma-rounds", "lemma_rounds"),
    ]:
        default = field_default(SearchConfig, name)
        search.add_argument(flag, type=type(default), default=default, help=field_help(SearchConfig, name))
    concurrency = field_default(SearchOptions, "concurrent_problems")
    search.add_argument(
        "--concurrency", type=int, default=concurrency, help=field_help(SearchOptions, "concurrent_problems")
    )
    search.add_argument(
        "--ttrl",
        metavar="MODULE:FACTORY",
        help="test-time RL between rounds, off by default; needs a GPU. kimina_train.ttrl:trainer (kimina-train) "
        "runs a short GRPO job on the problem's samples and lemmas and samples the next round from its checkpoint",
    )
    search.add_argument(
        "--ttrl-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="setting of the --ttrl factory, repeatable (kimina_train.ttrl:trainer: steps=4, dry_run=true, "
        "trainer.n_gpus_per_node=1...)",
    )
    search.add_argument("--ttrl-on-cpu", action="store_true", help="call the --ttrl hook even without a CUDA GPU")

    report = commands.add_parser(
        "report",
        help="render report.md, summary.json and the pass@k curve",
        description="Score one or more run directories and write report.md, summary.json and pass_at_k.png.",
    )
    report.add_argument("run_dir", type=Path, help="the main run directory")
    report.add_argument("--compare", type=Path, nargs="+", default=[], metavar="DIR", help="runs to compare with")
    report.add_argument("--out", type=Path, help="where to write the report (default: RUN_DIR)")

    score = commands.add_parser(
        "score",
        help="pass@k of a JSONL file of graded samples",
        description="Compute pass@k from rows with a problem name and a boolean outcome (optionally a 'turn': 1 "
        "for a first attempt, 2 for its error fix; files of kimina-eval before 0.6, whose turns are 0 and 1, are "
        "recognised by their 0s). Corrupt lines are skipped with a warning and counted.",
    )
    score.add_argument("samples", type=Path, help="JSONL file, e.g. a run's samples.jsonl")
    score.add_argument("--k", default="", help="comma-separated k values (default: 1, 2, 4, ... up to n)")
    score.add_argument("--json", action="store_true", help="print a JSON object instead of a table")
    score.add_argument("--problem-field", default="problem", help="field naming the problem (default: problem)")
    score.add_argument("--correct-field", default="correct", help="field holding the outcome (default: correct)")
    score.add_argument("--by", metavar="FIELD", help="score each value of FIELD separately, e.g. --by model")
    return parser


def _add_model_arguments(parser: argparse.ArgumentParser, *, n: int, n_help: str) -> None:
    """The arguments `run` and `search` share: model, data, prompt, sampling and verification server."""
    parser.add_argument("--model", required=True, help="model directory or hub name; server URL for --engine openai")
    engine = field_default(RunConfig, "engine")
    parser.add_argument("--engine", choices=sorted(ENGINES), default=engine, help=field_help(RunConfig, "engine"))
    parser.add_argument("--out", required=True, type=Path, help="run directory (created; resumed if it exists)")
    dataset, split = field_default(RunConfig, "dataset"), field_default(RunConfig, "split")
    parser.add_argument("--dataset", default=dataset, help=field_help(RunConfig, "dataset"))
    parser.add_argument("--split", default=split, help=field_help(RunConfig, "split"))
    parser.add_argument("--n", type=int, default=n, help=n_help)
    parser.add_argument("--limit", type=int, help="only the first LIMIT problems")
    template = field_default(RunConfig, "template")
    parser.add_argument("--template", default=template, help=field_help(RunConfig, "template"))
    parser.add_argument(
        "--statements",
        choices=("corrected", "original"),
        default="corrected",
        help="miniF2F statements: corrected (the 15 fixed test statements, the set upstream's numbers used) or "
        "original (default: %(default)s)",
    )
    # Kept so that older command lines still work: corrected statements are the default now.
    parser.add_argument("--rectified", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--name", default="", help=field_help(RunConfig, "name", default="the model's name"))
    for flag, name in [("--temperature", "temperature"), ("--top-p", "top_p"), ("--max-tokens", "max_tokens")]:
        default = field_default(SamplingParams, name)
        parser.add_argument(flag, type=type(default), default=default, help=field_help(SamplingParams, name))
    parser.add_argument("--seed", type=int, help=field_help(SamplingParams, "seed"))
    parser.add_argument(
        "--engine-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="engine setting, repeatable: device=cuda, batch_size=16, tensor_parallel_size=2, served_model=NAME...",
    )
    # The verifier's flags fill one `kimina_verify.VerifierOptions` (see `_verifier_options`).
    parser.add_argument("--lean-url", help=field_help(Endpoint, "url"))
    parser.add_argument("--lean-api-key", help=field_help(Endpoint, "api_key"))
    timeout = field_default(Timeouts, "lean_s")
    parser.add_argument("--lean-timeout", type=float, default=timeout, help=field_help(Timeouts, "lean_s"))
    parser.add_argument("--verdict-cache", type=Path, help=field_help(VerifierOptions, "cache"))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(message)s",
        handlers=[RichHandler(console=_console, show_path=False)],
    )
    try:
        commands = {"run": _run, "search": _search, "report": _report, "score": _score}
        commands[args.command](args)
    except _CliError as error:
        _console.print(f"[red]error:[/red] {escape(str(error))}", highlight=False)
        return error.code
    except KeyboardInterrupt:
        _console.print("interrupted: rerun the same command to resume")
        return ExitCode.INTERRUPTED
    return ExitCode.OK


def _verifier_options(args: argparse.Namespace) -> VerifierOptions:
    """The one `VerifierOptions` the `--lean-*` and `--verdict-cache` flags select."""
    cache = str(args.verdict_cache) if args.verdict_cache is not None else None
    # No client retries: the runner's RetryPolicy rounds are the one retry layer (kimina_verify.attempts).
    return VerifierOptions(
        Endpoint(args.lean_url, args.lean_api_key),
        Timeouts(lean_s=args.lean_timeout),
        Retries(count=CLIENT_RETRIES),
        cache=cache,
    )


def _no_server(error: VerifierUnavailable) -> _CliError:
    hint = "start one (kimina-verify serve ...; see its README), or point --lean-url / $LEAN_SERVER_API_URL at it"
    return _CliError(f"{error}; {hint}", ExitCode.UNAVAILABLE)


def _run_config(args: argparse.Namespace, fix_turns: int) -> RunConfig:
    return RunConfig(
        model=args.model,
        engine=args.engine,
        name=args.name,
        dataset=args.dataset,
        split=args.split,
        n=args.n,
        fix_turns=fix_turns,
        template=args.template,
        rectified=args.statements == "corrected",
        limit=args.limit,
        sampling=SamplingParams(args.temperature, args.top_p, args.max_tokens, args.seed),
    )


def _run(args: argparse.Namespace) -> None:
    try:
        config = _run_config(args, args.fix_turns)
        load, _ = _engines(config, args)
        with _RichProgress() as progress:
            final = run_eval(
                config,
                load,
                args.out,
                verifier=_verifier_options(args),
                options=RunOptions(batch_problems=args.batch_problems),
                progress=progress,
            )
    except VerifierUnavailable as error:
        raise _no_server(error) from None
    except EngineError as error:
        raise _CliError(str(error), ExitCode.FAILED) from None
    except (ConfigError, DatasetError, ValueError, OSError, ImportError) as error:
        raise _CliError(str(error)) from None
    if final.infra:
        _console.print(
            f"[yellow]{final.infra} attempts are ungraded (verification infrastructure failed): rerun to retry"
        )
    _write_and_show_report(args.out)


def _search(args: argparse.Namespace) -> None:
    verifier = _verifier_options(args)  # one object for the search and its test-time RL hook
    try:
        config = _run_config(args, 0)
        search = SearchConfig(
            rounds=args.rounds,
            sample_budget=args.sample_budget,
            time_budget_s=args.time_budget,
            proposals_per_round=args.proposals,
            max_new_lemmas=args.max_new_lemmas,
            negation_samples=args.negation_samples,
            lemma_samples=args.lemma_samples,
            lemma_rounds=args.lemma_rounds,
        )
        if args.concurrency < 1:
            raise ValueError(f"--concurrency must be >= 1, got {args.concurrency}")
        load, reload = _engines(config, args)
        hook = None
        if args.ttrl:
            ttrl_options = dict(_key_value(item, "--ttrl-option") for item in args.ttrl_option)
            setup = TTRLSetup(config.model, config.engine, args.out, verifier, ttrl_options)
            hook = load_hook(args.ttrl, setup)
        elif args.ttrl_option:
            raise ValueError("--ttrl-option needs --ttrl")
        options = SearchOptions(
            concurrent_problems=args.concurrency,
            ttrl=hook,
            ttrl_needs_gpu=not args.ttrl_on_cpu,
            # A server's weights cannot be swapped from here: an openai engine keeps sampling from its server.
            reload=None if config.engine == "openai" else reload,
        )
        with _SearchProgressBar() as progress:
            final = run_search(
                config,
                search,
                load,
                args.out,
                verifier=verifier,
                options=options,
                progress=progress,
            )
    except VerifierUnavailable as error:
        raise _no_server(error) from None
    except EngineError as error:
        raise _CliError(str(error), ExitCode.FAILED) from None
    except (ConfigError, DatasetError, ValueError, OSError, ImportError) as error:
        raise _CliError(str(error)) from None
    if final.infra:
        _console.print(f"[yellow]{final.infra} problems stopped on verification failures: rerun to resume them")
    _write_and_show_report(args.out)


def _engines(config: RunConfig, args: argparse.Namespace) -> tuple[EngineFactory, Callable[[str], Engine]]:
    """The engine factory `run` and `search` hand to their runner, and the builder it uses on any model.

    The model argument is checked here (one line, before anything heavy is imported); the factory is called by the
    runner once the server, the dataset and the run folder have been checked. The builder (``--engine-option``
    settings on a model directory) is also what the search reloads a test-time RL checkpoint with.

    Raises:
        ValueError: A model argument that cannot work (`check_model`).
        _CliError: A malformed ``--engine-option``.
    """
    options = dict(_engine_option(item) for item in args.engine_option)
    check_model(config.engine, config.model)

    def build(model: str) -> Engine:
        return make_engine(config.engine, model, **options)

    def load() -> Engine:
        _console.print(f"loading {config.engine} engine for {config.model}")
        return build(config.model)

    return load, build


def _write_and_show_report(out: Path) -> None:
    """Write the run's report and print its headline table."""
    try:
        files = write_report([summarize(out)], out)
    except ValueError as error:
        raise _CliError(str(error)) from None
    sys.stdout.write(files.markdown.read_text(encoding="utf-8").split("\n## ", 1)[0])
    _console.print(f"report: {files.markdown}  figure: {files.figure}")


def _key_value(item: str, flag: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise _CliError(f"{flag} wants KEY=VALUE, got {item!r}", ExitCode.USAGE)
    return key, value


def _engine_option(item: str) -> tuple[str, Any]:
    key, raw = _key_value(item, "--engine-option")
    try:
        value: Any = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.replace("-", "_"), value


class _ProgressBar:
    """A progress bar for `run` and `search` alike: a description (problems solved so far), then done of total units."""

    def __init__(self, unit: str, *, remaining: bool) -> None:
        columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn(unit)]
        columns += [TimeElapsedColumn(), *([TimeRemainingColumn()] if remaining else [])]
        self.progress = Progress(*columns, console=_console)
        self.task = self.progress.add_task("starting", total=None)

    def show(self, description: str, total: int, done: int) -> None:
        self.progress.update(self.task, description=description, total=total, completed=done)

    def __enter__(self) -> Self:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()


def _infra(count: int) -> str:
    return f", [yellow]{count} infra[/yellow]" if count else ""


class _RichProgress(_ProgressBar):
    """Over first attempts, with problems solved so far."""

    def __init__(self) -> None:
        super().__init__("samples", remaining=True)

    def update(self, state: RunProgress) -> None:
        fixed = f" ({state.solved_with_fix} with fixes)" if state.solved_with_fix != state.solved else ""
        self.show(f"solved {state.solved}/{state.problems}{fixed}{_infra(state.infra)}", state.total, state.done)


class _SearchProgressBar(_ProgressBar):
    """Over problems, with problems solved so far."""

    def __init__(self) -> None:
        super().__init__("problems", remaining=False)

    def update(self, state: SearchProgress) -> None:
        description = f"solved {state.solved}/{state.problems}, {state.samples} samples{_infra(state.infra)}"
        self.show(description, state.problems, state.done)


def _report(args: argparse.Namespace) -> None:
    try:
        summaries = [summarize(folder) for folder in [args.run_dir, *args.compare]]
    except (OSError, ValueError) as error:
        raise _CliError(str(error)) from None
    for summary in summaries:
        if summary.corrupt_lines:
            _console.print(f"[yellow]{summary.directory}: {len(summary.corrupt_lines)} corrupt lines skipped")
    files = write_report(summaries, args.out or args.run_dir)
    sys.stdout.write(render_markdown(summaries))
    _console.print(f"report: {files.markdown}  summary: {files.summary}  figure: {files.figure}")


def _score(args: argparse.Namespace) -> None:
    try:
        read = read_jsonl(args.samples)
    except OSError as error:
        raise _CliError(f"cannot read {args.samples}: {error.strerror or error}") from None
    if not read.rows:
        raise _CliError(f"{args.samples} holds no rows")
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in read.rows:
        groups.setdefault(str(row.get(args.by)) if args.by else "", []).append(row)
    try:
        ks = [int(k) for k in args.k.split(",") if k.strip()] if args.k else None
        if ks is not None and (not ks or min(ks) < 1):
            raise ValueError("k values must be positive integers")
        first_turn = guess_first_turn(read.rows)  # one numbering for the whole file, whatever the groups
        results = {
            name: _score_group(rows, ks, args.problem_field, args.correct_field, first_turn)
            for name, rows in groups.items()
        }
    except ValueError as error:
        raise _CliError(f"{args.samples}: {error}") from None
    if read.skipped:
        shown = ", ".join(map(str, read.skipped[:10])) + (", ..." if len(read.skipped) > 10 else "")
        _console.print(f"[yellow]skipped {len(read.skipped)} corrupt line(s) of {args.samples}: line {shown}")
    out = {name: {**_fractions(scores), "skipped_lines": len(read.skipped)} for name, scores in results.items()}
    if args.json:
        sys.stdout.write(json.dumps(out if args.by else out[""], indent=2) + "\n")
    else:
        _print_scores(results)


def _score_group(
    rows: list[dict[str, Any]], ks: list[int] | None, problem: str, correct: str, first_turn: int
) -> Scores:
    if ks is None:
        counts: dict[Any, int] = {}
        for row in rows:
            if row.get("turn") in (None, first_turn) and row.get(correct) is not None:
                counts[row.get(problem)] = counts.get(row.get(problem), 0) + 1
        ks = default_ks(max(counts.values(), default=1))
    scores = score_rows(rows, ks, problem_field=problem, correct_field=correct, first_turn=first_turn)
    for k, left_out in scores.short.items():
        if left_out:
            logger.warning("pass@%d: %d problems have fewer than %d graded samples and are left out", k, left_out, k)
    return scores


def _fractions(scores: Scores) -> dict[str, Any]:
    """pass@k values as plain fractions (null where no problem has k samples), plus counts."""

    def value(estimate: Any) -> float | None:
        return None if math.isnan(estimate.value) else round(estimate.value, 6)

    out: dict[str, Any] = {f"pass@{k}": value(e) for k, e in scores.pass_at.items()}
    out.update({f"pass@{k}_with_fix": value(e) for k, e in scores.pass_at_with_fix.items()})
    out.update(problems=scores.problems, samples=scores.samples, infra=scores.infra)
    return out


def _print_scores(results: dict[str, Scores]) -> None:
    table = Table(title="pass@k (95% bootstrap interval over problems)")
    table.add_column("group")
    ks = sorted({k for scores in results.values() for k in scores.pass_at})
    for k in ks:
        table.add_column(f"pass@{k}", justify="right")
    table.add_column("problems", justify="right")
    for name, scores in results.items():
        rows = [(name or "all", scores.pass_at)]
        if scores.pass_at_with_fix:
            rows.append((f"{name or 'all'} + fix", scores.pass_at_with_fix))
        for label, values in rows:
            cells = [
                f"{100 * e.value:.2f}% [{100 * e.low:.1f}, {100 * e.high:.1f}]"
                if (e := values.get(k)) and e.problems
                else "n/a"
                for k in ks
            ]
            table.add_row(label, *cells, str(scores.problems))
    Console().print(table)


if __name__ == "__main__":
    sys.exit(main())
