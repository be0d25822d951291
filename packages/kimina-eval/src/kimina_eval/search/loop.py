"""The search for one problem: rounds of attempts, with lemmas proposed, filtered, proved and reused in between.

A round samples attempts on the main theorem, with the lemmas proved so far before it, and stops the search at the
first verified proof. Otherwise, before the next round: lemmas are proposed from the failed attempts, the new ones
whose statements elaborate are kept, those whose negation is proved are dropped, and the open ones are tried. Every
step is checked against the problem's sample and time budgets first, and recorded in ``search.jsonl`` when done; a
resumed search replays recorded steps (see `kimina_eval.search.steps`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, cast

from kimina_data.prover_prompt import prover_messages
from kimina_format import check_format
from kimina_format.prompts import TemplateName
from kimina_verify import LeanCode
from kimina_verify.attempts import FIRST_TURN

from kimina_eval.dataset import Problem
from kimina_eval.search.lemmas import lemmas_in_code, parse_lemmas, split_statement
from kimina_eval.search.log import Graded
from kimina_eval.search.negation import negation_formal_statement, negation_statement
from kimina_eval.search.pool import LemmaPool, LemmaStatus, PoolEntry, proof_block, used_lemmas
from kimina_eval.search.prompts import FailedAttempt, proposal_messages, statement_with_lemmas
from kimina_eval.search.steps import Job, SearchContext, Steps, Stop
from kimina_eval.search.ttrl import TTRLBatch, TTRLLemma, gpu_missing
from kimina_eval.store import SampleRecord

__all__ = ["OUTCOMES", "ProblemSearch", "SearchResult"]

logger = logging.getLogger(__name__)

OUTCOMES = ("solved", "sample_budget", "time_budget", "rounds", "infra")
"""How a problem's search ends: a verified proof, a budget spent, all rounds done, or verification unavailable."""


@dataclass(frozen=True)
class SearchResult:
    """How one problem's search ended.

    Attributes:
        problem: The problem's name.
        outcome: One of `OUTCOMES`.
        rounds: Rounds started.
        samples: Completions spent.
        elapsed_s: Generation and verification time spent.
        proof: The verified code, when solved.
        used: The proved lemmas the proof depends on.
    """

    problem: str
    outcome: str
    rounds: int
    samples: int
    elapsed_s: float
    proof: str | None = None
    used: tuple[str, ...] = ()

    @property
    def solved(self) -> bool:
        """Whether a verified proof was found."""
        return self.outcome == "solved"


class ProblemSearch:
    """The search for one problem; `run` it once.

    Args:
        problem: The problem.
        ctx: The shared engine, Lean backend, log and settings.
    """

    def __init__(self, problem: Problem, ctx: SearchContext) -> None:
        self.problem = problem
        self.ctx = ctx
        self.config = ctx.search
        self.steps = Steps(ctx, problem.name)
        self.template = cast(TemplateName, ctx.run.template)
        self.header, _ = split_statement(problem.formal_statement)
        target = LeanCode(problem.formal_statement).target()
        self.theorem = target.name if target is not None and target.name else problem.name
        stated = lemmas_in_code(problem.formal_statement)
        self.pool = LemmaPool(reserved=frozenset({self.theorem}), theorem_key=stated[-1].key if stated else "")
        self.failed: list[FailedAttempt] = []

    async def run(self) -> SearchResult:
        """Search until a proof verifies or a budget or the rounds run out; returns how it ended.

        Raises:
            EngineError: When generation fails for good.
        """
        if self.ctx.options.ttrl is not None:
            self.ctx.use_model(self.ctx.run.model)  # each problem's test-time RL starts from the run's model
        try:
            for number in range(1, self.config.rounds + 1):
                self.steps.round, self.steps.graded = number, []
                solution = await self._attempts()
                if solution is not None:
                    return self._end("solved", solution)
                if number < self.config.rounds:
                    await self._lemmas()
                    await self._ttrl()
            return self._end("rounds")
        except Stop as stop:
            return self._end(stop.outcome)

    async def _attempts(self) -> Graded | None:
        """Sample attempts on the theorem with the proved lemmas before it; return a verified one, if any."""
        proved = tuple(self.pool.proved[: self.config.max_context_lemmas])
        statement = statement_with_lemmas(self.problem.formal_statement, [e.proof or "" for e in proved])
        prompt = prover_messages(statement, self.problem.informal, template=self.template)
        [n] = self.steps.allocate([self.ctx.run.n])
        job = Job("", "attempt", prompt, n, self.problem.formal_statement, context=proved)
        # Round 1 is a plain evaluation: its attempts also go to samples.jsonl, for pass@n.
        record = self._write_samples if self.steps.round == 1 else None
        [graded] = await self.steps.sample("attempts", [job], record=record)
        failed = [g for g in graded if not g.ok]
        distinct = list({g.code: g for g in failed if g.code}.values())
        shown = (distinct + [g for g in failed if not g.code])[: self.config.failed_shown]
        self.failed = [FailedAttempt(g.completion, g.code, g.feedback) for g in shown]
        return next((g for g in graded if g.ok), None)

    async def _lemmas(self) -> None:
        """Propose lemmas, keep the new ones that elaborate, drop the refuted ones, try the open ones."""
        prompt = proposal_messages(
            self.problem.formal_statement,
            self.problem.informal,
            self.failed,
            [e.proof or "" for e in self.pool.proved],
            template=self.template,
            limit=self.config.max_new_lemmas,
        )
        [n] = self.steps.allocate([self.config.proposals_per_round])
        [proposals] = await self.steps.sample("propose", [Job("", "proposal", prompt, n, None)])
        lemmas = [lemma for g in proposals for lemma in parse_lemmas(g.completion)]
        fates = self.pool.add(lemmas, self.steps.round, limit=self.config.max_new_lemmas)
        new = [e for e in self.pool.with_status(LemmaStatus.PROPOSED) if e.round == self.steps.round]
        await self._statements(new)
        await self._negations([e for e in new if e.status is LemmaStatus.OPEN])
        await self._proofs()
        proposed = [{"name": lemma.name, "key": lemma.key, "fate": fate} for lemma, fate in fates]
        self.ctx.log.write_if_changed(self.steps.event("pool", proposed=proposed, lemmas=self.pool.snapshot()))

    async def _statements(self, entries: list[PoolEntry]) -> None:
        """Keep the lemmas whose statement elaborates with ``sorry`` as its proof; reject the others."""
        if not entries:
            return
        targets = [(e.lemma.key, e.lemma.name, e.lemma.formal_statement(self.header) + "\n  sorry\n") for e in entries]
        checks = await self.steps.elaborate("statements", targets)
        for entry in entries:
            check = checks[entry.lemma.key]
            if check["verdict"] == "sorry":
                entry.status = LemmaStatus.OPEN
            else:
                entry.status = LemmaStatus.REJECTED
                entry.evidence = f"{check['verdict']}: {check.get('detail') or 'the statement does not elaborate'}"

    async def _negations(self, entries: list[PoolEntry]) -> None:
        """Try to prove each lemma's negation; a lemma whose negation is proved is refuted."""
        if not entries or not self.config.negation_samples:
            return
        counts = self.steps.allocate([self.config.negation_samples] * len(entries))
        jobs = []
        for entry, n in zip(entries, counts, strict=True):
            if n:
                statement = negation_formal_statement(entry.lemma, self.header)
                prompt = prover_messages(statement, None, template=self.template)
                note = {"negation": negation_statement(entry.lemma)}
                jobs.append(Job(entry.lemma.key, "negation", prompt, n, statement, note=note))
        results = await self.steps.sample("negations", jobs)
        for job, graded in zip(jobs, results, strict=True):
            proof = next((g for g in graded if g.ok), None)
            if proof is not None:
                entry = self.pool.entries[job.target]
                entry.status, entry.evidence = LemmaStatus.REFUTED, proof.code

    async def _proofs(self) -> None:
        """Try to prove every open lemma (pass@k per lemma); a lemma unproved after its rounds is abandoned."""
        entries = self.pool.with_status(LemmaStatus.OPEN)
        if not entries:
            return
        counts = self.steps.allocate([self.config.lemma_samples] * len(entries))
        jobs = []
        for entry, n in zip(entries, counts, strict=True):
            if n:
                statement = entry.lemma.formal_statement(self.header)
                prompt = prover_messages(statement, None, template=self.template)
                jobs.append(Job(entry.lemma.key, "lemma", prompt, n, statement))
        results = await self.steps.sample("proofs", jobs)
        for job, graded in zip(jobs, results, strict=True):
            entry = self.pool.entries[job.target]
            proof = next((g.code for g in graded if g.ok and g.code), None)
            if proof is not None:
                entry.status, entry.proof = LemmaStatus.PROVED, proof_block(proof, self.header)
                continue
            entry.tries += 1
            if entry.tries >= self.config.lemma_rounds:
                entry.status = LemmaStatus.ABANDONED

    async def _ttrl(self) -> None:
        """Hand the round to the test-time RL hook, once per round, and sample from the model it returns.

        A replayed round loads the model its hook returned. A hook that fails is recorded and the search goes on
        with the model it had: test-time RL helps a search, it must not end one.
        """
        hook = self.ctx.options.ttrl
        if hook is None:
            return
        logged = self.ctx.log.get(self.problem.name, self.steps.round, "ttrl")
        if logged is not None:
            if logged.get("model"):
                self.ctx.use_model(logged["model"])
            return
        reason = gpu_missing() if self.ctx.options.ttrl_needs_gpu else None
        if reason is not None:
            self.ctx.log.write(self.steps.event("ttrl", skipped=reason))
            return
        batch = self._ttrl_batch()
        outcome: dict[str, Any] = {"called": True, "samples": len(batch.samples), "from_model": batch.model}
        if self.ctx.options.ttrl_needs_gpu:
            await self.ctx.free_engine()
        trained = None
        try:
            trained = await asyncio.to_thread(hook, batch)
        except Exception as error:
            logger.exception("%s round %d: test-time RL failed", self.problem.name, self.steps.round)
            outcome["failed"] = f"{type(error).__name__}: {error}"
        if trained:
            self.ctx.use_model(str(trained))
            outcome["model"] = str(trained)
        self.ctx.log.write(self.steps.event("ttrl", **outcome))

    def _ttrl_batch(self) -> TTRLBatch:
        """The round as the test-time RL hook sees it."""
        lemmas = tuple(TTRLLemma(e.lemma.name, e.lemma.formal_statement(), e.proof or "") for e in self.pool.proved)
        return TTRLBatch(
            problem=self.problem.name,
            header=self.header,
            formal_statement=self.problem.formal_statement,
            informal=self.problem.informal,
            template=self.template,
            round=self.steps.round,
            model=self.ctx.wanted,
            lemmas=lemmas,
            samples=tuple(self.steps.graded),
        )

    def _end(self, outcome: str, solution: Graded | None = None) -> SearchResult:
        proof = solution.code if solution is not None else None
        names = [e.lemma.name for e in self.pool.proved]
        used = used_lemmas(proof, self.theorem, names) if proof is not None else ()
        event = self.steps.event(
            "end", outcome=outcome, solved=proof is not None, proof=proof, used=list(used), lemmas=self.pool.snapshot()
        )
        self.ctx.log.write_if_changed(event)
        steps = self.steps
        return SearchResult(self.problem.name, outcome, steps.round, steps.samples_used, steps.elapsed_s, proof, used)

    def _write_samples(self, graded: list[Graded], duration: float) -> None:
        """Record round 1's attempts in ``samples.jsonl``, as ``kimina-eval run`` would."""
        share = duration / max(1, len(graded))
        records = []
        for i, g in enumerate(graded):
            check = check_format(g.completion, formal_statement=self.problem.formal_statement)
            records.append(
                SampleRecord(
                    problem=self.problem.name,
                    sample=i,
                    turn=FIRST_TURN,
                    correct=None if g.verdict == "infra" else g.ok,
                    verdict=g.verdict,
                    completion=g.completion,
                    code=g.code,
                    format_ok=check.ok,
                    format_violations=tuple(str(c.value) for c in check.codes),
                    feedback=g.feedback,
                    detail=g.detail,
                    generate_s=share,
                )
            )
        self.ctx.samples.write(records)
