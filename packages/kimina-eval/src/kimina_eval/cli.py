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
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

from kimina_format.exit_codes import ExitCode
from kimina_verify.errors import VerifierUnavailable
from rich.console import Console
from rich.logging import RichHandler
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from kimina_eval.config import ConfigError, RunConfig
from kimina_eval.dataset import SPLITS, DatasetError
from kimina_eval.engines.base import ENGINES, Engine, EngineError, SamplingParams, check_model, make_engine
from kimina_eval.metrics import default_ks
from kimina_eval.report import render_markdown, write_report
from kimina_eval.runner import RunOptions, RunProgress, run_eval
from kimina_eval.scoring import Scores, score_rows
from kimina_eval.search import SearchConfig, SearchOptions, SearchProgress, run_search
from kimina_eval.search.ttrl import TTRLSetup, load_hook
from kimina_eval.store import read_jsonl
from kimina_eval.summary import summarize

EXIT_ERROR, EXIT_USAGE, EXIT_NO_SERVER, EXIT_INTERRUPTED = (
    ExitCode.FAILED,
    ExitCode.USAGE,
    ExitCode.UNAVAILABLE,
    ExitCode.INTERRUPTED,
)

console = Console(stderr=True, soft_wrap=True)  # one error, one line, whatever the width
logger = logging.getLogger("kimina_eval")


class CliError(Exception):
    """A problem to report in one line, with its exit code."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
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
    _add_model_arguments(run, n=32, n_help="samples per problem (default: 32)")
    run.add_argument("--fix-turns", type=int, choices=(0, 1), default=0, help="error-fix turns per failed attempt")
    run.add_argument("--batch-problems", type=int, default=8, help="problems generated together (default: 8)")

    search = commands.add_parser(
        "search",
        help="prove with test-time lemma search (resumable)",
        description="Per problem, rounds of N attempts on the theorem; between rounds, ask for intermediate lemmas "
        "from the failed attempts, keep those whose statement elaborates, drop those whose negation is proved, try "
        "to prove the rest, and offer the proved ones to the next attempts. Stops at the first verified proof or "
        "when a budget runs out. Every step goes to OUT/search.jsonl; round 1 also to OUT/samples.jsonl (a plain "
        "pass@N run). Rerunning the same command resumes; larger budgets continue unsolved problems.",
    )
    _add_model_arguments(
        search, n=8, n_help="attempts on the theorem per round; round 1 is a plain pass@N evaluation (default: 8)"
    )
    given = SearchConfig()
    search.add_argument("--rounds", type=int, default=given.rounds, help="rounds of attempts (default: %(default)s)")
    search.add_argument(
        "--sample-budget", type=int, default=given.sample_budget, help="completions per problem (default: %(default)s)"
    )
    search.add_argument(
        "--time-budget", type=float, default=given.time_budget_s, help="seconds per problem (default: %(default)s)"
    )
    search.add_argument(
        "--proposals", type=int, default=given.proposals_per_round, help="lemma proposals per round (%(default)s)"
    )
    search.add_argument(
        "--max-new-lemmas", type=int, default=given.max_new_lemmas, help="new lemmas kept per round (%(default)s)"
    )
    search.add_argument(
        "--negation-samples",
        type=int,
        default=given.negation_samples,
        help="attempts at each lemma's negation; 0 turns the filter off (%(default)s)",
    )
    search.add_argument(
        "--lemma-samples", type=int, default=given.lemma_samples, help="attempts per open lemma per round (%(default)s)"
    )
    search.add_argument(
        "--lemma-rounds", type=int, default=given.lemma_rounds, help="rounds a lemma is tried (%(default)s)"
    )
    search.add_argument("--concurrency", type=int, default=4, help="problems searched at once (default: 4)")
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
        "marks an error-fix attempt). Corrupt lines are skipped with a warning and counted.",
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
    parser.add_argument("--engine", choices=sorted(ENGINES), default="transformers", help="sampling engine")
    parser.add_argument("--out", required=True, type=Path, help="run directory (created; resumed if it exists)")
    parser.add_argument("--dataset", default="minif2f", help="'minif2f' (the bundled file) or a miniF2F-style JSONL")
    parser.add_argument("--split", default="test", help=f"one of {', '.join(SPLITS)} (default: test)")
    parser.add_argument("--n", type=int, default=n, help=n_help)
    parser.add_argument("--limit", type=int, help="only the first LIMIT problems")
    parser.add_argument(
        "--template", default="rl", help="prompt template: rl (training prompt) or distill (model card)"
    )
    parser.add_argument(
        "--statements",
        choices=("corrected", "original"),
        default="corrected",
        help="miniF2F statements: corrected (the 15 fixed test statements, the set upstream's numbers used) or "
        "original (default: %(default)s)",
    )
    # Kept so that older command lines still work: corrected statements are the default now.
    parser.add_argument("--rectified", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--name", default="", help="label of the run in reports (default: the model's name)")
    defaults = SamplingParams()
    parser.add_argument("--temperature", type=float, default=defaults.temperature, help="default: %(default)s")
    parser.add_argument("--top-p", type=float, default=defaults.top_p, help="default: %(default)s")
    parser.add_argument("--max-tokens", type=int, default=defaults.max_tokens, help="default: %(default)s")
    parser.add_argument("--seed", type=int, help="sampling seed (default: fresh randomness)")
    parser.add_argument(
        "--engine-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="engine setting, repeatable: device=cuda, batch_size=16, tensor_parallel_size=2, served_model=NAME...",
    )
    parser.add_argument(
        "--lean-url", help="verification server (default: $LEAN_SERVER_API_URL, else http://localhost:8000)"
    )
    parser.add_argument("--lean-api-key", help="verification server API key (default: $LEAN_SERVER_API_KEY)")
    parser.add_argument("--lean-timeout", type=float, default=60.0, help="Lean time limit per proof, seconds")
    parser.add_argument("--verdict-cache", type=Path, help="SQLite verdict cache shared across runs")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(message)s",
        handlers=[RichHandler(console=console, show_path=False)],
    )
    try:
        commands = {"run": _run, "search": _search, "report": _report, "score": _score}
        commands[args.command](args)
    except CliError as error:
        console.print(f"[red]error:[/red] {escape(str(error))}", highlight=False)
        return error.code
    except KeyboardInterrupt:
        console.print("interrupted: rerun the same command to resume")
        return EXIT_INTERRUPTED
    return ExitCode.OK


def _lean_url(args: argparse.Namespace) -> str:
    """The verification server: --lean-url, else $LEAN_SERVER_API_URL, else kimina-client's default."""
    from kimina_verify.client import DEFAULT_URL

    return str(args.lean_url or os.environ.get("LEAN_SERVER_API_URL") or DEFAULT_URL)


def _no_server(error: VerifierUnavailable) -> CliError:
    hint = "start one (kimina-verify serve ...; see its README), or point --lean-url / $LEAN_SERVER_API_URL at it"
    return CliError(f"{error}; {hint}", EXIT_NO_SERVER)


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
    url = _lean_url(args)
    try:
        config = _run_config(args, args.fix_turns)
        options = dict(_engine_option(item) for item in args.engine_option)
        check_model(config.engine, config.model)
        with _RichProgress() as progress:

            def load() -> Engine:  # called once the server, the dataset and the run folder have been checked
                progress.console.print(f"loading {config.engine} engine for {config.model}")
                return make_engine(config.engine, config.model, **options)

            final = run_eval(
                config,
                load,
                args.out,
                url=url,
                api_key=args.lean_api_key,
                options=RunOptions(batch_problems=args.batch_problems),
                progress=progress,
                timeout=args.lean_timeout,
                cache=args.verdict_cache,
            )
    except VerifierUnavailable as error:
        raise _no_server(error) from None
    except EngineError as error:
        raise CliError(str(error), EXIT_ERROR) from None
    except (ConfigError, DatasetError, ValueError, OSError, ImportError) as error:
        raise CliError(str(error)) from None
    if final.infra:
        console.print(
            f"[yellow]{final.infra} attempts are ungraded (verification infrastructure failed): rerun to retry"
        )
    _write_and_show_report(args.out)


def _search(args: argparse.Namespace) -> None:
    url = _lean_url(args)
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
        check_model(config.engine, config.model)
        engine_options = dict(_engine_option(item) for item in args.engine_option)
        hook = None
        if args.ttrl:
            ttrl_options = dict(_key_value(item, "--ttrl-option") for item in args.ttrl_option)
            setup = TTRLSetup(config.model, config.engine, args.out, url, args.lean_api_key, ttrl_options)
            hook = load_hook(args.ttrl, setup)
        elif args.ttrl_option:
            raise ValueError("--ttrl-option needs --ttrl")

        def reload(model: str) -> Engine:
            return make_engine(config.engine, model, **engine_options)

        def load() -> Engine:  # called once the server, the dataset and the run folder have been checked
            console.print(f"loading {config.engine} engine for {config.model}")
            return reload(config.model)

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
                url=url,
                api_key=args.lean_api_key,
                options=options,
                progress=progress,
                timeout=args.lean_timeout,
                cache=args.verdict_cache,
            )
    except VerifierUnavailable as error:
        raise _no_server(error) from None
    except EngineError as error:
        raise CliError(str(error), EXIT_ERROR) from None
    except (ConfigError, DatasetError, ValueError, OSError, ImportError) as error:
        raise CliError(str(error)) from None
    if final.infra:
        console.print(f"[yellow]{final.infra} problems stopped on verification failures: rerun to resume them")
    _write_and_show_report(args.out)


def _write_and_show_report(out: Path) -> None:
    """Write the run's report and print its headline table."""
    try:
        files = write_report([summarize(out)], out)
    except ValueError as error:
        raise CliError(str(error)) from None
    sys.stdout.write(files.markdown.read_text(encoding="utf-8").split("\n## ", 1)[0])
    console.print(f"report: {files.markdown}  figure: {files.figure}")


def _key_value(item: str, flag: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise CliError(f"{flag} wants KEY=VALUE, got {item!r}", EXIT_USAGE)
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
        self.progress = Progress(*columns, console=console)
        self.console = console
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
        raise CliError(str(error)) from None
    for summary in summaries:
        if summary.corrupt_lines:
            console.print(f"[yellow]{summary.directory}: {len(summary.corrupt_lines)} corrupt lines skipped")
    files = write_report(summaries, args.out or args.run_dir)
    sys.stdout.write(render_markdown(summaries))
    console.print(f"report: {files.markdown}  summary: {files.summary}  figure: {files.figure}")


def _score(args: argparse.Namespace) -> None:
    try:
        read = read_jsonl(args.samples)
    except OSError as error:
        raise CliError(f"cannot read {args.samples}: {error.strerror or error}") from None
    if not read.rows:
        raise CliError(f"{args.samples} holds no rows")
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in read.rows:
        groups.setdefault(str(row.get(args.by)) if args.by else "", []).append(row)
    try:
        ks = [int(k) for k in args.k.split(",") if k.strip()] if args.k else None
        if ks is not None and (not ks or min(ks) < 1):
            raise ValueError("k values must be positive integers")
        results = {
            name: _score_group(rows, ks, args.problem_field, args.correct_field) for name, rows in groups.items()
        }
    except ValueError as error:
        raise CliError(f"{args.samples}: {error}") from None
    if read.skipped:
        shown = ", ".join(map(str, read.skipped[:10])) + (", ..." if len(read.skipped) > 10 else "")
        console.print(f"[yellow]skipped {len(read.skipped)} corrupt line(s) of {args.samples}: line {shown}")
    out = {name: {**_fractions(scores), "skipped_lines": len(read.skipped)} for name, scores in results.items()}
    if args.json:
        sys.stdout.write(json.dumps(out if args.by else out[""], indent=2) + "\n")
    else:
        _print_scores(results)


def _score_group(rows: list[dict[str, Any]], ks: list[int] | None, problem: str, correct: str) -> Scores:
    if ks is None:
        counts: dict[Any, int] = {}
        for row in rows:
            if not row.get("turn") and row.get(correct) is not None:
                counts[row.get(problem)] = counts.get(row.get(problem), 0) + 1
        ks = default_ks(max(counts.values(), default=1))
    scores = score_rows(rows, ks, problem_field=problem, correct_field=correct)
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
