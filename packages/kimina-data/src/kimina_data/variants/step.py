"""Variants step: ask Gemini for new problems related to existing ones, hardest problems first, resumable from cache."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kimina_data.schema import Rejection, canonical_table, column
from kimina_data.statement import StatementError, statement_key
from kimina_data.variants.cache import AnswerCache, CachedAnswer, cache_key
from kimina_data.variants.gemini import GeminiCaller, GeminiCallFailed, GeminiError
from kimina_data.variants.prompt import MalformedOutput, build_prompt, check_candidate, parse_variants

__all__ = ["ProgressHook", "VariantResult", "VariantStats", "generate_variants"]

if TYPE_CHECKING:
    import datasets

log = logging.getLogger(__name__)

ProgressHook = Callable[[str, int, int], None]
"""`hook(step, done, total)`, called as a long step advances."""


@dataclass(slots=True)
class VariantStats:
    """What the variants step did and what it cost this run (answers read from the cache cost nothing)."""

    problems: int = 0
    cache_hits: int = 0
    calls: int = 0
    failed_calls: int = 0
    skipped_by_cap: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    proposed: int = 0
    kept: int = 0
    rejected: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class VariantResult:
    """New variant rows (canonical, normalised), the candidates turned away, and the run's figures."""

    table: datasets.Dataset
    rejections: list[Rejection]
    stats: VariantStats


@dataclass(frozen=True, slots=True)
class _Job:
    row: dict[str, Any]
    prompt: str
    key: str


def generate_variants(
    table: datasets.Dataset,
    caller: GeminiCaller,
    cache: AnswerCache,
    *,
    per_problem: int = 1,
    max_calls: int = 1000,
    concurrency: int = 4,
    max_consecutive_failures: int = 3,
    progress: ProgressHook | None = None,
) -> VariantResult:
    """Ask for `per_problem` variants of each problem in a normalised table; return only the new rows.

    Problems are taken hardest first (lowest win rate, unknown last). Answers already in `cache` are reused; at most
    `max_calls` new calls are made, so a capped run followed by another run continues where the first stopped.
    Every answer is stored as soon as it arrives, so after a crash a rerun repeats no call that had completed.
    A variant must parse as a statement, differ from its origin, and differ from every other row and variant.

    Raises:
        GeminiError: A call failed in a way no retry fixes (bad key, unknown model), or `max_consecutive_failures`
            calls in a row failed. Answers received so far are in the cache.
    """
    stats = VariantStats(problems=len(table))
    model = caller.settings.model
    jobs = [_job(row, per_problem, model) for row in _hardest_first(table)]
    answers: dict[str, CachedAnswer] = {}
    missing: list[_Job] = []
    for job in jobs:
        cached = cache.get(job.key)
        if cached is not None:
            answers[job.key] = cached
        else:
            missing.append(job)
    stats.cache_hits = len(answers)
    to_call, stats.skipped_by_cap = missing[: max(max_calls, 0)], max(len(missing) - max(max_calls, 0), 0)
    if stats.skipped_by_cap:
        log.warning("call cap %d reached: %d problems get no variant this run", max_calls, stats.skipped_by_cap)
    retries_before = caller.retries
    try:
        _call_all(to_call, caller, cache, answers, stats, concurrency, max_consecutive_failures, progress)
    finally:
        stats.retries = caller.retries - retries_before
        stats.cost_usd = caller.settings.cost_usd(stats.input_tokens, stats.output_tokens)
    rows, rejections = _collect(jobs, answers, table, model)
    stats.proposed = len(rows) + sum(1 for r in rejections if r.reason != "malformed_output")
    stats.kept = len(rows)
    stats.rejected = dict(Counter(r.reason for r in rejections).most_common())
    return VariantResult(canonical_table(rows), rejections, stats)


def _hardest_first(table: datasets.Dataset) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = table.to_list()
    return sorted(rows, key=lambda r: (r["win_rate"] is None, r["win_rate"] or 0.0))


def _job(row: dict[str, Any], per_problem: int, model: str) -> _Job:
    prompt = build_prompt(row["header"], row["formal_statement"], row["informal_problem"], per_problem)
    return _Job(row, prompt, cache_key(model, prompt))


def _call_all(
    jobs: list[_Job],
    caller: GeminiCaller,
    cache: AnswerCache,
    answers: dict[str, CachedAnswer],
    stats: VariantStats,
    concurrency: int,
    max_consecutive_failures: int,
    progress: ProgressHook | None,
) -> None:
    """Run the calls with at most `concurrency` in flight, storing each answer in `cache` as it arrives."""
    pending: dict[Future[CachedAnswer], _Job] = {}
    queue = iter(jobs)
    consecutive_failures = 0

    def store(job: _Job, answer: CachedAnswer) -> None:
        cache.put(job.key, caller.settings.model, job.prompt, answer)
        answers[job.key] = answer
        stats.calls += 1
        stats.input_tokens += answer.input_tokens
        stats.output_tokens += answer.output_tokens

    with ThreadPoolExecutor(max_workers=max(concurrency, 1), thread_name_prefix="gemini") as pool:

        def submit_next() -> None:
            job = next(queue, None)
            if job is not None:
                pending[pool.submit(caller, job.prompt)] = job

        for _ in range(max(concurrency, 1)):
            submit_next()
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    job = pending.pop(future)
                    try:
                        store(job, future.result())
                        consecutive_failures = 0
                    except GeminiCallFailed as e:
                        stats.failed_calls += 1
                        consecutive_failures += 1
                        log.error("variants of %s: %s", job.row["uid"], e)
                        if e.fatal or consecutive_failures >= max_consecutive_failures:
                            raise GeminiError(
                                f"stopping the variants step: {e}. Answers so far are saved in {cache.path}; "
                                "a rerun resumes from there"
                            ) from e
                    submit_next()
                if progress:
                    progress("variants", stats.calls + stats.failed_calls, len(jobs))
        except BaseException:
            # Keep what the calls still in flight bring back before giving up: each is a call already paid for.
            for future, job in pending.items():
                if future.exception() is None:
                    store(job, future.result())
            raise


def _collect(
    jobs: Iterable[_Job], answers: dict[str, CachedAnswer], table: datasets.Dataset, model: str
) -> tuple[list[dict[str, Any]], list[Rejection]]:
    """Check every answered candidate and turn the good ones into canonical rows."""
    seen = {statement_key(s) for s in column(table, "formal_statement")}
    rows: list[dict[str, Any]] = []
    rejections: list[Rejection] = []
    for job in jobs:
        answer = answers.get(job.key)
        if answer is None:
            continue
        origin = job.row
        try:
            candidates = parse_variants(answer.text)
        except MalformedOutput as e:
            rejections.append(_reject(origin, -1, "malformed_output", str(e), answer.text))
            continue
        for number, candidate in enumerate(candidates):
            try:
                header, statement = check_candidate(candidate, header=origin["header"])
            except StatementError as e:
                rejections.append(_reject(origin, number, e.reason, str(e), candidate))
                continue
            key = statement_key(statement)
            if key in seen:
                same = key == statement_key(origin["formal_statement"])
                reason = "same_as_origin" if same else "duplicate"
                rejections.append(_reject(origin, number, reason, "the statement already exists", candidate))
                continue
            seen.add(key)
            rows.append(
                {
                    "uid": f"{origin['uid']}/variant-{number}",
                    "data_source": origin["data_source"],
                    "source": origin["source"],
                    "header": header,
                    "formal_statement": statement,
                    "informal_problem": candidate.informal_problem,
                    "win_rate": None,
                    "n_proofs": None,
                    "n_correct_proofs": None,
                    "author": model,
                    "variant_of": origin["uid"],
                }
            )
    return rows, rejections


def _reject(origin: dict[str, Any], number: int, reason: str, detail: str, record: Any) -> Rejection:
    uid = f"{origin['uid']}/variant-{number}" if number >= 0 else origin["uid"]
    return Rejection("variants", origin["data_source"], -1, uid, reason, detail, record)
