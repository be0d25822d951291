"""`build_promptset`: sources to verl parquet, step by step, with a report of what each step did."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kimina_data.config import BuildConfig
from kimina_data.references import MINIF2F, Reference, load_reference, resolve_location
from kimina_data.report import (
    BuildReport,
    CheckStats,
    DecontaminationStats,
    Histogram,
    StepStats,
    count_by_source,
    plot_win_rates,
)
from kimina_data.schema import Rejection, column, count_reasons, problem_label, write_rejections
from kimina_data.sources import SourceError, load_source
from kimina_data.statement import statement_key
from kimina_data.statement_check import StatementCheck, check_statements, statement_check_from_options
from kimina_data.steps import (
    Split,
    decontaminate,
    deduplicate,
    filter_win_rate,
    normalise,
    split_by_problem,
    to_verl,
    weight,
    write_parquet,
)
from kimina_data.variants import (
    AnswerCache,
    GeminiCaller,
    GenAIClient,
    ProgressHook,
    generate_variants,
    make_gemini_client,
)

__all__ = ["BuildError", "build_promptset"]

if TYPE_CHECKING:
    import datasets

log = logging.getLogger(__name__)


class BuildError(RuntimeError):
    """The build cannot produce a promptset (every row rejected or filtered out); the message says which step."""


def build_promptset(
    config: BuildConfig,
    *,
    client: GenAIClient | None = None,
    statement_check: StatementCheck | None = None,
    progress: ProgressHook | None = None,
) -> BuildReport:
    """Build the RL promptset described by `config` and write it to `config.out`.

    Steps: load and check every source, normalise, decontaminate (drop copies of evaluation problems), filter by win
    rate, de-duplicate, Gemini variants (with their statements checked by kimina-verify, then decontaminated), split
    by problem, weight hard problems (train only), export. Writes `train.parquet`, `val.parquet` (when the split
    holds any problem), `stats.json`, `win_rates.png` and `rejected.jsonl`.

    Args:
        config: What to build.
        client: The `google.genai.Client` (or a fake) for variants; made from the environment when None.
        statement_check: Checks variant statements; made from `config.verifier` when None, and skipped with a
            warning when that is unset too.
        progress: Called as `progress(step, done, total)` while steps run.

    Raises:
        SourceError: A source, or a decontamination reference given in `config.decontaminate`, cannot be read.
        BuildError: No row survives a step.
        GeminiError: The variants step cannot go on (no key, bad key, repeated failures); answers so far are cached.
        VerifierUnavailable: The configured verification server does not answer.
    """
    started = time.perf_counter()
    # Made before any work, so that a missing API key or reference file fails at once, not after loading 100K rows.
    caller = GeminiCaller(client or make_gemini_client(), config.gemini) if config.variants else None
    reference, decontamination = _reference(config)
    config.out.mkdir(parents=True, exist_ok=True)
    report = BuildReport(decontamination=decontamination)
    rejections: list[Rejection] = []
    hook = progress or (lambda step, done, total: None)
    try:
        train, val = _run_steps(config, report, rejections, hook, caller, statement_check, reference)
        _export(report, hook, "train", train, config.out)
        if len(val):
            _export(report, hook, "val", val, config.out)
        else:
            (config.out / "val.parquet").unlink(missing_ok=True)  # a stale one from an earlier build would mislead
    except BaseException as e:
        report.error = f"{type(e).__name__}: {e}"
        raise
    finally:
        # Written whatever happened: the rejected rows and the figures so far are what a user needs to see why.
        report.rejected = count_reasons(rejections)
        write_rejections(rejections, config.out / "rejected.jsonl")
        report.outputs["rejected"] = str(config.out / "rejected.jsonl")
        if report.win_rates is not None:
            path = plot_win_rates(report.win_rates, config.out / "win_rates.png", threshold=config.max_win_rate)
            report.outputs["histogram"] = str(path)
        report.outputs["stats"] = str(config.out / "stats.json")
        report.seconds = round(time.perf_counter() - started, 3)
        report.write_json(config.out / "stats.json")
    return report


def _run_steps(
    config: BuildConfig,
    report: BuildReport,
    rejections: list[Rejection],
    hook: ProgressHook,
    caller: GeminiCaller | None,
    check: StatementCheck | None,
    reference: Reference | None,
) -> tuple[datasets.Dataset, datasets.Dataset]:
    import datasets

    tables = []
    started = time.perf_counter()
    for done, spec in enumerate(config.sources):
        hook("load", done, len(config.sources))
        cache_dir = str(config.cache_dir) if config.cache_dir else None
        loaded = load_source(spec, cache_dir=cache_dir, rectified=config.rectified)
        label = spec.name or loaded.kind.value
        report.sources[label] = report.sources.get(label, 0) + loaded.rows_read
        rejections.extend(loaded.rejections)
        tables.append(loaded.table)
    hook("load", len(config.sources), len(config.sources))
    table = datasets.concatenate_datasets(tables)
    after = count_by_source(table)
    read = Counter(after) + Counter(r.data_source for r in rejections)
    report.steps.append(StepStats.measure("load", dict(read), after, time.perf_counter() - started))
    _require(table, "load", rejections)

    table = _apply(report, hook, "normalise", table, lambda t: normalise(t, default_header=config.default_header))
    report.win_rates = Histogram.of(column(table, "win_rate"))
    if reference is not None:
        _note_own_rows(report, table, reference)
        table = _decontaminate(report, rejections, hook, "decontaminate", table, reference)
        _require(table, "decontaminate", rejections)
    table = _apply(
        report,
        hook,
        "filter win rate",
        table,
        lambda t: filter_win_rate(t, max_win_rate=config.max_win_rate, keep_missing=config.keep_missing_win_rate),
    )
    _require(table, "filter win rate", rejections)
    if config.dedup:
        table = _apply(report, hook, "deduplicate", table, deduplicate)
    if caller is not None:
        table = _add_variants(config, report, rejections, hook, table, caller, check)
        if reference is not None:
            table = _decontaminate(report, rejections, hook, "decontaminate variants", table, reference)
    started, before = time.perf_counter(), count_by_source(table)
    hook("split (train)", 0, 1)
    train, val = split_by_problem(table, val_fraction=config.val_fraction, seed=config.seed)
    hook("split (train)", 1, 1)
    report.steps.append(
        StepStats.measure("split (train)", before, count_by_source(train), time.perf_counter() - started)
    )
    train = _apply(report, hook, "weight", train, lambda t: weight(t, config.weighting))
    return _require(train, "weight", rejections), val


def _reference(config: BuildConfig) -> tuple[Reference | None, DecontaminationStats]:
    """The decontamination reference (read before any other work, so a bad path fails at once) and its stats."""
    locations = config.decontaminate
    if locations is None:
        try:
            locations = (resolve_location(MINIF2F),)
        except SourceError as e:
            log.warning(
                "decontamination skipped, the promptset is NOT checked against miniF2F: %s. Reinstall kimina-data, "
                "pass --decontaminate PATH (`decontaminate:` in a config), or --no-decontaminate to silence this",
                e,
            )
            return None, DecontaminationStats(skipped=f"no miniF2F file found ({e})")
    if not locations:
        return None, DecontaminationStats(skipped="turned off")
    reference = load_reference(locations, cache_dir=str(config.cache_dir) if config.cache_dir else None)
    return reference, DecontaminationStats(references=dict(reference.files))


def _note_own_rows(report: BuildReport, table: datasets.Dataset, reference: Reference) -> None:
    """Count (and warn about) rows that are reference problems themselves: decontamination keeps them."""
    labels = reference.labels
    own = [label for label in map(problem_label, column(table, "data_source"), column(table, "uid")) if label in labels]
    if own and report.decontamination is not None:
        report.decontamination.own_rows = len(own)
        log.warning(
            "%d rows are evaluation problems themselves (e.g. %s): decontamination keeps them, and the split puts "
            "them in train and validation like any other row",
            len(own),
            own[0],
        )


def _decontaminate(
    report: BuildReport,
    rejections: list[Rejection],
    hook: ProgressHook,
    name: str,
    table: datasets.Dataset,
    reference: Reference,
) -> datasets.Dataset:
    """Run one decontamination pass as a step of the report, adding what it removed to the rejections and stats."""
    removed: list[Rejection] = []

    def step(t: datasets.Dataset) -> datasets.Dataset:
        kept, dropped = decontaminate(t, reference.keys, step=name)
        removed.extend(dropped)
        return kept

    table = _apply(report, hook, name, table, step)
    rejections.extend(removed)
    stats = report.decontamination
    if stats is not None and removed:
        copied = Counter(stats.copied)
        for rejection in removed:
            copied.update(reference.keys[statement_key(rejection.record["formal_statement"])])
        stats.removed += len(removed)
        stats.copied = dict(copied.most_common())
    return table


def _add_variants(
    config: BuildConfig,
    report: BuildReport,
    rejections: list[Rejection],
    hook: ProgressHook,
    table: datasets.Dataset,
    caller: GeminiCaller,
    check: StatementCheck | None,
) -> datasets.Dataset:
    import datasets

    started = time.perf_counter()
    before = count_by_source(table)
    with AnswerCache(config.cache_path) as cache:
        result = generate_variants(
            table,
            caller,
            cache,
            per_problem=config.variants,
            max_calls=config.max_calls,
            concurrency=config.concurrency,
            progress=hook,
        )
    report.variants = result.stats
    rejections.extend(result.rejections)
    variants = result.table
    check = check or statement_check_from_options(config.verifier)
    if check is None:
        log.warning(
            "no verification server (verifier.endpoint.url or LEAN_SERVER_API_URL): variant statements are NOT checked"
        )
        report.statement_check = CheckStats(skipped="no verification server configured")
    elif len(variants):
        variants, dropped, report.statement_check = check_statements(variants, check, progress=hook)
        rejections.extend(dropped)
    combined = datasets.concatenate_datasets([table, variants])
    report.steps.append(StepStats.measure("variants", before, count_by_source(combined), time.perf_counter() - started))
    return combined


def _apply(
    report: BuildReport,
    hook: ProgressHook,
    name: str,
    table: datasets.Dataset,
    step: Callable[[datasets.Dataset], datasets.Dataset],
) -> datasets.Dataset:
    """Run one step, timing it and recording its rows in and out per source."""
    before = count_by_source(table)
    started = time.perf_counter()
    hook(name, 0, 1)
    result = step(table)
    report.steps.append(StepStats.measure(name, before, count_by_source(result), time.perf_counter() - started))
    hook(name, 1, 1)
    return result


def _export(report: BuildReport, hook: ProgressHook, role: Split, table: datasets.Dataset, out: Path) -> None:
    path = out / f"{role}.parquet"

    def write(t: datasets.Dataset) -> datasets.Dataset:
        write_parquet(to_verl(t, split=role), path)
        return t

    _apply(report, hook, f"write {role}", table, write)
    report.outputs[role] = str(path)


def _require(table: datasets.Dataset, step: str, rejections: list[Rejection]) -> datasets.Dataset:
    if len(table):
        return table
    reasons = ", ".join(f"{k} {v}" for k, v in list(count_reasons(rejections).items())[:5])
    raise BuildError(f"no rows left after {step}" + (f" (rejected: {reasons}; see rejected.jsonl)" if reasons else ""))
