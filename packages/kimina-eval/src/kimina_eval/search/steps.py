"""One problem's steps: sample and grade completions, or check statements, replaying what the log already holds.

`Steps` keeps the problem's running totals (round, completions spent, time spent), grants completions within the
budgets, and records each step in ``search.jsonl`` when it is done. A step found in the log is replayed: its
completions are reused, and only what was left ``infra`` is verified again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kimina_format import check_format, parse_completion
from kimina_verify import Verdict, VerifyItem
from kimina_verify.attempts import RetryPolicy, fix_feedback, gets_fix_turn, verify_retrying

from kimina_eval.config import RunConfig
from kimina_eval.engines.base import Engine, EngineError, Messages, SamplingParams, release_memory
from kimina_eval.generation import generate
from kimina_eval.search.config import SearchConfig
from kimina_eval.search.lean import LeanBackend
from kimina_eval.search.log import NOT_VERIFIED, Graded, SearchLog
from kimina_eval.search.pool import PoolEntry, with_lemmas
from kimina_eval.search.ttrl import TestTimeRL, TTRLSample
from kimina_eval.store import NO_PROOF, SampleWriter

__all__ = ["Job", "SearchContext", "SearchOptions", "Steps", "Stop"]

logger = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclass(frozen=True)
class SearchOptions:
    """How the search runs, as opposed to what it does (these may change between resumes).

    Attributes:
        concurrent_problems: Problems searched at once (their generation calls share the engine in turn).
        infra_retries: Rounds of re-verification for snippets still ``infra`` (the only retry layer: the client is
            built with ``retries=0``, see `kimina_verify.attempts`).
        retry_delay_s: Wait before the first such round; doubles each round, up to 30 s.
        ttrl: The test-time RL hook (see `kimina_eval.search.ttrl`), or None (the default) for none.
        ttrl_needs_gpu: The hook trains on the GPU: skip it, with the reason recorded, when no CUDA GPU is visible,
            and free the engine while it runs.
        reload: Builds an engine on a model directory (the hook's trained model, or the run's model again); None
            keeps the engine as it is (an ``openai`` engine samples from its server, which cannot be reloaded here).
    """

    concurrent_problems: int = 4
    infra_retries: int = RetryPolicy.rounds
    retry_delay_s: float = RetryPolicy.first_delay_s
    ttrl: TestTimeRL | None = None
    ttrl_needs_gpu: bool = True
    reload: Callable[[str], Engine] | None = None


@dataclass
class SearchContext:
    """What the searches of all problems share.

    ``model`` is the model the engine holds, and ``wanted`` the one to sample from next; they differ after a test-time
    RL round, until the engine is next needed and `load_engine` rebuilds it.
    """

    run: RunConfig
    search: SearchConfig
    engine: Engine
    model: str
    lean: LeanBackend
    log: SearchLog
    samples: SampleWriter
    options: SearchOptions = SearchOptions()
    engine_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    wanted: str = ""

    def __post_init__(self) -> None:
        self.wanted = self.wanted or self.model

    def use_model(self, model: str) -> None:
        """Sample from ``model`` from now on; without `SearchOptions.reload` the engine stays, and a warning says so."""
        if model != self.wanted and self.options.reload is None:
            logger.warning("the engine cannot be reloaded here: it keeps sampling from %s, not %s", self.wanted, model)
            return
        self.wanted = model

    async def load_engine(self) -> None:
        """Rebuild the engine on the wanted model if it holds another one or was freed; call with the engine lock."""
        if self.model == self.wanted and not isinstance(self.engine, _FreedEngine):
            return
        assert self.options.reload is not None  # only `use_model` and `free_engine` get here, and they check it
        logger.info("loading the engine on %s", self.wanted)
        await self._drop_engine()
        self.engine = await asyncio.to_thread(self.options.reload, self.wanted)
        self.model = self.wanted

    async def free_engine(self) -> None:
        """Let go of the engine and the accelerator memory it holds, until it is next needed.

        Nothing happens without `SearchOptions.reload`, which would be needed to load it again.
        """
        if self.options.reload is None:
            return
        async with self.engine_lock:
            await self._drop_engine()

    async def _drop_engine(self) -> None:
        """Close the engine and release its memory; the caller holds the engine lock."""
        engine, self.engine = self.engine, _FreedEngine()
        if callable(close := getattr(engine, "close", None)):
            await asyncio.to_thread(close)
        del engine, close
        release_memory()


class _FreedEngine:
    """Stands in for an engine that was let go; `SearchContext.load_engine` replaces it before any sampling."""

    def generate(self, prompts: list[Messages], n: int, sampling: SamplingParams) -> list[list[str]]:
        raise EngineError("the engine was freed for test-time RL and not loaded again")


@dataclass(frozen=True)
class Job:
    """``n`` completions for one prompt, to be graded.

    Attributes:
        target: ``""`` for the main theorem or a proposal, else the lemma's normalised statement (its key in the log).
        kind: ``attempt``, ``proposal``, ``negation`` or ``lemma``.
        prompt: The chat messages.
        n: Completions wanted.
        formal_statement: What a completion's code must prove (its integrity is checked against it); None for
            proposals, which are not verified.
        context: Proved lemmas inserted into the code when it refers to them without declaring them.
        note: Extra fields for the log (the negation's statement).
    """

    target: str
    kind: str
    prompt: Messages
    n: int
    formal_statement: str | None
    context: tuple[PoolEntry, ...] = ()
    note: dict[str, str] = field(default_factory=dict)


class Stop(Exception):
    """Ends a problem's search early with an outcome."""

    def __init__(self, outcome: str) -> None:
        super().__init__(outcome)
        self.outcome = outcome


class Steps:
    """Runs the steps of one problem's search and keeps its totals.

    Args:
        ctx: The shared engine, Lean backend, log and settings.
        problem: The problem's name.
    """

    def __init__(self, ctx: SearchContext, problem: str) -> None:
        self.ctx = ctx
        self.problem = problem
        self.round = 0
        self.samples_used = 0
        self.elapsed_s = 0.0
        self.graded: list[TTRLSample] = []
        """The current round's graded proofs (collected only when a test-time RL hook is set)."""

    def check_time(self) -> None:
        """Stop the search when its time budget is spent."""
        if self.elapsed_s >= self.ctx.search.time_budget_s:
            raise Stop("time_budget")

    def allocate(self, wanted: Sequence[int]) -> list[int]:
        """Completions granted to each request, in order, within the budgets; stops the search when none is left."""
        self.check_time()
        left = self.ctx.search.sample_budget - self.samples_used
        if left <= 0:
            raise Stop("sample_budget")
        granted = []
        for n in wanted:
            granted.append(min(n, left))
            left -= granted[-1]
        return granted

    def event(self, step: str, **payload: Any) -> dict[str, Any]:
        """A log line for ``step`` of the current round, with the totals so far."""
        base = {"problem": self.problem, "round": self.round, "step": step}
        return {**base, "samples_used": self.samples_used, "elapsed_s": round(self.elapsed_s, 6), **payload}

    async def sample(
        self, step: str, jobs: list[Job], *, record: Callable[[list[Graded], float], None] | None = None
    ) -> list[list[Graded]]:
        """Generate and grade the jobs' completions, replaying what the log holds.

        Args:
            step: The step's name in the log.
            jobs: What to sample.
            record: Called with the first job's grades and the step's duration when anything new was graded, before
                the step is logged (so a crash in between redoes the step rather than losing the record).

        Returns:
            The grades, per job.
        """
        logged = self.ctx.log.get(self.problem, self.round, step)
        recorded: dict[str, dict[str, Any]] = {j["target"]: j for j in logged["jobs"]} if logged else {}
        live = [job for job in jobs if job.target not in recorded]
        generated, duration = await self._generate(live, step)
        graded: list[list[Graded | None]] = []
        completions: list[list[str]] = []
        for job in jobs:
            if job.target in recorded:
                old = [Graded.from_dict(s) for s in recorded[job.target]["samples"]]
                graded.append([None if g.verdict == "infra" else g for g in old])
                completions.append([g.completion for g in old])
            else:
                texts = generated[job.target]
                graded.append([None] * len(texts))
                completions.append(texts)
        fresh = bool(live) or any(g is None for row in graded for g in row)
        start = time.perf_counter()
        await self._grade(jobs, completions, graded)
        duration += time.perf_counter() - start if fresh else 0.0
        duration += float(logged.get("duration_s", 0.0)) if logged else 0.0
        results = [[g for g in row if g is not None] for row in graded]
        self.samples_used += sum(len(row) for row in results)
        duration = round(duration, 6)  # as recorded, so that a replay adds up to the same time
        self.elapsed_s += duration
        if self.ctx.options.ttrl is not None:
            self.graded += [
                TTRLSample(job.kind, job.prompt, job.formal_statement, g.completion, float(g.ok))
                for job, row in zip(jobs, results, strict=True)
                if job.formal_statement is not None
                for g in row
            ]
        if fresh:
            if record is not None:
                record(results[0], duration)
            for job, row in zip(jobs, results, strict=True):
                prompt = job.prompt[-1]["content"]
                samples = [g.to_dict() for g in row]
                recorded[job.target] = {
                    "target": job.target,
                    "kind": job.kind,
                    **job.note,
                    "prompt": prompt,
                    "samples": samples,
                }
            self.ctx.log.write(self.event(step, duration_s=duration, jobs=list(recorded.values())))
        if any(g.verdict == "infra" for row in results for g in row):
            raise Stop("infra")
        return results

    async def elaborate(self, step: str, targets: Sequence[tuple[str, str, str]]) -> dict[str, dict[str, Any]]:
        """Check code as it is (``sorry`` allowed) for each ``(target, name, code)``, replaying what the log holds.

        Returns:
            Target -> ``{"target", "name", "verdict", "detail"}``; what stays ``infra`` stops the search, after the
            step is logged.
        """
        self.check_time()
        logged = self.ctx.log.get(self.problem, self.round, step)
        checks: dict[str, dict[str, Any]] = {c["target"]: c for c in logged["checks"]} if logged else {}
        todo = [t for t in targets if checks.get(t[0], {}).get("verdict") in (None, "infra")]
        duration = float(logged.get("duration_s", 0.0)) if logged else 0.0
        if todo:
            start = time.perf_counter()
            verdicts = await self._retrying(self.ctx.lean.elaborate, [code for _, _, code in todo])
            duration += time.perf_counter() - start
            for (target, name, _), verdict in zip(todo, verdicts, strict=True):
                checks[target] = {"target": target, "name": name, "verdict": verdict.kind.value}
                checks[target]["detail"] = verdict.detail or None
        duration = round(duration, 6)
        self.elapsed_s += duration
        if todo:
            self.ctx.log.write(self.event(step, duration_s=duration, checks=list(checks.values())))
        if any(checks[target]["verdict"] == "infra" for target, _, _ in targets):
            raise Stop("infra")
        return checks

    async def _generate(self, jobs: list[Job], step: str) -> tuple[dict[str, list[str]], float]:
        """Completions for each job (by target), one engine call per distinct ``n``; returns them and the time taken."""
        out: dict[str, list[str]] = {}
        by_n: dict[int, list[Job]] = {}
        for job in jobs:
            by_n.setdefault(job.n, []).append(job)
        elapsed = 0.0
        for n, group in by_n.items():
            outputs, took = await generate(
                lambda: self.ctx.engine,
                [job.prompt for job in group],
                n,
                self.ctx.run.sampling,
                key=f"{self.problem}:{self.round}:{step}:{n}",
                lock=self.ctx.engine_lock,
                prepare=self.ctx.load_engine,
            )
            elapsed += took
            out.update((job.target, list(texts)) for job, texts in zip(group, outputs, strict=True))
        return out, elapsed

    async def _grade(self, jobs: list[Job], completions: list[list[str]], graded: list[list[Graded | None]]) -> None:
        """Fill the missing grades: proposals are not verified, completions without code are ``no_proof``."""
        items: list[VerifyItem] = []
        where: list[tuple[int, int, str, tuple[str, ...]]] = []
        for j, (job, texts) in enumerate(zip(jobs, completions, strict=True)):
            for s, text in enumerate(texts):
                if graded[j][s] is not None:
                    continue
                code = parse_completion(text).code if job.formal_statement is not None else None
                if job.formal_statement is None or code is None:
                    graded[j][s] = Graded(text, None, NOT_VERIFIED if job.formal_statement is None else NO_PROOF)
                    continue
                checked, inserted = with_lemmas(code, job.context) if job.context else (code, ())
                items.append(VerifyItem(checked, job.formal_statement))
                where.append((j, s, text, inserted))
        verdicts = await self._retrying(self.ctx.lean.verify, items)
        for (j, s, text, inserted), item, verdict in zip(where, items, verdicts, strict=True):
            # What the proposal turn learns from: feedback only where the protocol would give a fix turn.
            format_ok = check_format(text, formal_statement=jobs[j].formal_statement).ok
            fixable = gets_fix_turn(format_ok=format_ok, code=item.code, verdict=verdict)
            feedback = (fix_feedback(item.code, verdict) or None) if fixable else None
            graded[j][s] = Graded(text, item.code, verdict.kind.value, verdict.detail or None, feedback, inserted)

    async def _retrying(self, call: Callable[[list[_T]], Awaitable[list[Verdict]]], items: list[_T]) -> list[Verdict]:
        """Call, then call again for what is still ``infra``: the attempt protocol's one retry layer."""
        policy = RetryPolicy(rounds=self.ctx.options.infra_retries, first_delay_s=self.ctx.options.retry_delay_s)
        verdicts, _ = await verify_retrying(call, items, policy, label=self.problem)
        return verdicts
