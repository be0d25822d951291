"""The evaluation loop: sample, check the format, verify with Lean, give failures one fix turn, record everything.

Each problem gets n first attempts, prompted as kimina-data's RL validation rows are (`prover_messages`). Every attempt
is format-checked (kimina-format) and its final ``lean4`` block is verified (kimina-verify). With ``fix_turns=1``, the
attempts the attempt protocol names (`kimina_verify.attempts.gets_fix_turn`: code, format holds, Lean refused it) get
one revision turn showing Lean's feedback. Records are appended to ``samples.jsonl`` as batches complete, so a killed run restarts where
it stopped: attempts already graded are not redone, attempts left ``infra`` are graded again.

Generation and verification overlap: while one batch of problems is verified, the next is generated. Everything cheap
(the verification server's health, the dataset and split, the run folder's identity on resume) is checked before the
engine is built, so a mistake costs a second, not a model load.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

from kimina_data.prover_prompt import prover_messages
from kimina_format import FormatVerdict, check_format
from kimina_format.lazy import lazy_exports
from kimina_format.prompts import TemplateName
from kimina_verify import Retries, Verdict, Verifier, VerifierOptions, VerifierUnavailable, VerifyItem
from kimina_verify.attempts import (
    CLIENT_RETRIES,
    FIRST_TURN,
    FIX_TURN,
    RetryPolicy,
    fix_feedback,
    fix_messages,
    gets_fix_turn,
    verify_retrying,
)
from kimina_verify.environment import LeanEnvironment

from kimina_eval.config import RunConfig
from kimina_eval.dataset import Problem, load_problems
from kimina_eval.engines.base import Engine, EngineFactory, Messages
from kimina_eval.generation import generate
from kimina_eval.run_folder import RunFolder
from kimina_eval.store import NO_PROOF, SampleRecord, SampleWriter, latest, load_records

__all__ = [
    "Connection",
    "EVAL_VERIFIER_DEFAULTS",
    "ProgressSink",
    "RunOptions",
    "RunProgress",
    "Runner",
    "VerifierLike",
    "connected_verifier",
    "run_eval",
]

logger = logging.getLogger(__name__)

EVAL_VERIFIER_DEFAULTS = VerifierOptions(retries=Retries(count=CLIENT_RETRIES))
"""The client's options when none are given: kimina-verify's defaults without client retries (the protocol's)."""


# kimina-eval 0.5's name of `kimina_verify.VerifierUnavailable` (the same class) still works, and warns.
__getattr__, __dir__ = lazy_exports(
    __name__, deprecated={"VerificationUnavailable": ("kimina_verify", "VerifierUnavailable")}
)


@dataclass(frozen=True)
class Connection:
    """A verifier whose server answered, and the Lean environment its ``/health`` named."""

    verifier: Verifier
    environment: LeanEnvironment


@asynccontextmanager
async def connected_verifier(options: VerifierOptions | None = None) -> AsyncIterator[Connection]:
    """Open a `kimina_verify.Verifier` with `options`, check that its server answers, and say which Lean it runs.

    An unset URL and key default to ``$LEAN_SERVER_API_URL`` (else ``http://localhost:8000``) and
    ``$LEAN_SERVER_API_KEY``, as for kimina-client. A stand-in server (``lean-repl-sim``) is logged as a warning: its
    verdicts are not proofs. The client does not retry (``options.retries.count`` is
    `kimina_verify.attempts.CLIENT_RETRIES`; None gives `EVAL_VERIFIER_DEFAULTS`): the runner's `RetryPolicy` rounds
    are the one retry layer.

    Raises:
        VerifierUnavailable: If the verification server does not answer ``/health``.
        ValueError: If ``options.retries.count`` is not ``CLIENT_RETRIES`` (two retry layers).
    """
    options = EVAL_VERIFIER_DEFAULTS if options is None else options
    if options.retries.count != CLIENT_RETRIES:
        # Two layers would multiply (3 client retries x 5 rounds) and make an outage's wait hard to predict.
        raise ValueError(
            f"verifier.retries.count must be {CLIENT_RETRIES} (kimina_verify.attempts.CLIENT_RETRIES): the runner's "
            "RetryPolicy rounds are the one retry layer"
        )
    async with Verifier(options) as verifier:
        try:
            health = await verifier.health()
        except Exception as error:
            raise VerifierUnavailable(f"no verification server at {verifier.url}: {error}") from error
        environment = LeanEnvironment.from_health(health)
        if environment.stand_in:
            logger.warning("verification server %s runs %s", verifier.url, environment.describe())
        else:
            logger.info("verification server %s runs %s", verifier.url, environment.describe())
        yield Connection(verifier, environment)


class VerifierLike(Protocol):
    """What the runner needs from a verifier: `kimina_verify.Verifier` has it."""

    async def verify(self, items: Sequence[str | VerifyItem]) -> list[Verdict]:
        """Return one verdict per item, in order; server trouble comes back as ``infra`` verdicts."""
        ...


class ProgressSink(Protocol):
    """Receives the run's progress after each batch of records is written."""

    def update(self, progress: RunProgress) -> None:
        """Show the new state of the run."""
        ...


@dataclass(frozen=True)
class RunProgress:
    """Where a run stands.

    Attributes:
        total: First attempts the run needs (problems x n).
        done: First attempts graded so far (resumed ones included).
        solved: Problems with a valid first attempt.
        solved_with_fix: Problems with a valid first attempt or fix turn.
        problems: Problems in the run.
        infra: Attempts still ungraded after retries (they are retried on the next resume).
    """

    total: int
    done: int
    solved: int
    solved_with_fix: int
    problems: int
    infra: int


@dataclass(frozen=True)
class RunOptions:
    """How the runner works, as opposed to what it measures (these may change between resumes).

    Attributes:
        batch_problems: Problems generated together; also the unit written to disk.
        infra_retries: Rounds of re-verification for attempts still ``infra`` (the only retry layer: the client is
            built with ``retries=0``).
        retry_delay_s: Wait before the first such round; doubles each round, up to 30 s.
    """

    batch_problems: int = 8
    infra_retries: int = RetryPolicy.rounds
    retry_delay_s: float = RetryPolicy.first_delay_s

    @property
    def retry(self) -> RetryPolicy:
        """These options as the attempt protocol's retry policy."""
        return RetryPolicy(rounds=self.infra_retries, first_delay_s=self.retry_delay_s)


@dataclass
class _Attempt:
    problem: Problem
    sample: int
    turn: int
    completion: str
    generate_s: float


class Runner:
    """Runs one evaluation into a directory; see `run_eval` for the one-call version.

    Building a runner checks the dataset, the split and the run folder's identity (nothing is written yet); an
    engine given as a factory is built by `run`, after those checks.

    Args:
        config: What to evaluate.
        engine: The sampling engine, or a function that builds it (called once, after the checks).
        verifier: The Lean verifier client.
        out_dir: Run directory (``run.json``, ``samples.jsonl``).
        options: Batching and retry behaviour.
        progress: Receives progress after every write.
        lean_env: The verifier's Lean environment, recorded with every attempt.

    Raises:
        DatasetError: If the dataset is missing or malformed, or the split is unknown or empty.
        ConfigError: If ``out_dir`` holds a run with different settings.
    """

    def __init__(
        self,
        config: RunConfig,
        engine: Engine | EngineFactory,
        verifier: VerifierLike,
        out_dir: str | os.PathLike[str],
        *,
        options: RunOptions = RunOptions(),
        progress: ProgressSink | None = None,
        lean_env: str | None = None,
    ) -> None:
        self.config = config
        self.verifier = verifier
        self.out_dir = Path(out_dir)
        self.folder = RunFolder(out_dir, config)
        self.options = options
        self.progress = progress
        self.lean_env = lean_env
        self.problems = load_problems(config.dataset, config.split, limit=config.limit, rectified=config.rectified)
        self.folder.check()
        self.engine: Engine | None = engine if isinstance(engine, Engine) else None
        self._engine = engine
        self._done: dict[tuple[str, int, int], SampleRecord] = {}
        # Attempts whose verification failed for infrastructure reasons: their completions are verified again.
        self._infra: dict[tuple[str, int, int], SampleRecord] = {}
        self._engine_lock = asyncio.Lock()

    async def run(self) -> RunProgress:
        """Run (or resume) the evaluation and return its final progress.

        Raises:
            ConfigError: If ``out_dir`` holds a run with different settings.
        """
        # Checked again (another process may have started a run there), then the engine is built and the folder
        # claimed; a pre-0.6 run keeps its 0/1 numbering on disk, records use 1/2.
        self.engine, first_turn = self.folder.start(self.engine or self._engine)
        records, corrupt = load_records(self.folder.samples, first_turn=first_turn)
        if corrupt:
            logger.warning("%d corrupt lines in %s were skipped", len(corrupt), self.folder.samples)
        for key, record in latest(records).items():
            if record.correct is None:
                self._infra[key] = record
            else:
                self._done[key] = record
        if self._done:
            logger.info("resuming %s with %d graded attempts", self.out_dir, len(self._done))
        self._report()
        size = self.options.batch_problems
        batches = [self.problems[i : i + size] for i in range(0, len(self.problems), size)]
        # Two batches in flight: one generating while the other is verified.
        gate = asyncio.Semaphore(2)
        with SampleWriter(self.folder.samples, lean_env=self.lean_env, first_turn=first_turn) as writer:

            async def process(batch: list[Problem]) -> None:
                async with gate:
                    await self._first_turns(batch, writer)
                    if self.config.fix_turns:
                        await self._fix_turns(batch, writer)

            await asyncio.gather(*(process(batch) for batch in batches))
        return self._report()

    async def _generate(self, prompts: list[Messages], n: int, key: str) -> tuple[list[list[str]], float]:
        engine = self.engine
        assert engine is not None, "run() builds the engine before generating"
        outputs, elapsed = await generate(
            lambda: engine, prompts, n, self.config.sampling, key=key, lock=self._engine_lock
        )
        return outputs, elapsed / max(1, len(prompts) * n)

    def _prompt(self, problem: Problem) -> Messages:
        return prover_messages(
            problem.formal_statement, problem.informal, template=cast(TemplateName, self.config.template)
        )

    def _regrade(self, batch: list[Problem], turn: int) -> list[_Attempt]:
        """Attempts of this batch left ungraded by infrastructure failures: verify their completions again."""
        by_name = {p.name: p for p in batch}
        return [
            _Attempt(by_name[r.problem], r.sample, r.turn, r.completion, r.generate_s)
            for r in self._infra.values()
            if r.problem in by_name and r.turn == turn and r.sample < self.config.n
        ]

    async def _first_turns(self, batch: list[Problem], writer: SampleWriter) -> None:
        attempts = self._regrade(batch, FIRST_TURN)
        missing: dict[int, list[tuple[Problem, list[int]]]] = {}
        for problem in batch:
            todo = [
                i
                for i in range(self.config.n)
                if (problem.name, i, FIRST_TURN) not in self._done and (problem.name, i, FIRST_TURN) not in self._infra
            ]
            if todo:
                missing.setdefault(len(todo), []).append((problem, todo))
        for count, group in missing.items():
            # The seed key keeps the pre-0.6 turn digit (0; 1 for a fix) so that seeds, and completions, are unchanged.
            key = f"{group[0][0].name}:{group[0][1][0]}:0"
            outputs, per_sample = await self._generate([self._prompt(p) for p, _ in group], count, key)
            for (problem, indices), completions in zip(group, outputs, strict=True):
                attempts += [
                    _Attempt(problem, i, FIRST_TURN, c, per_sample) for i, c in zip(indices, completions, strict=True)
                ]
        if attempts:
            writer.write(await self._grade(attempts))
            self._report()

    async def _fix_turns(self, batch: list[Problem], writer: SampleWriter) -> None:
        attempts = self._regrade(batch, FIX_TURN)
        todo = [
            first
            for problem in batch
            for i in range(self.config.n)
            if (first := self._done.get((problem.name, i, FIRST_TURN))) is not None
            and gets_fix_turn(format_ok=first.format_ok, code=first.code, verdict=first.verdict)
            and (problem.name, i, FIX_TURN) not in self._done
            and (problem.name, i, FIX_TURN) not in self._infra
        ]
        if todo:
            by_name = {p.name: p for p in batch}
            prompts = [fix_messages(self._prompt(by_name[r.problem]), r.completion, r.feedback or "") for r in todo]
            outputs, per_sample = await self._generate(prompts, 1, f"{todo[0].problem}:{todo[0].sample}:1")
            attempts += [
                _Attempt(by_name[r.problem], r.sample, FIX_TURN, out[0], per_sample)
                for r, out in zip(todo, outputs, strict=True)
            ]
        if attempts:
            writer.write(await self._grade(attempts))
            self._report()

    async def _grade(self, attempts: list[_Attempt]) -> list[SampleRecord]:
        """Format-check and verify attempts; attempts without code are recorded as ``no_proof`` without Lean."""
        checks = [check_format(a.completion, formal_statement=a.problem.formal_statement) for a in attempts]
        codes = [check.completion.code for check in checks]
        to_verify = [i for i, code in enumerate(codes) if code is not None]
        items = [VerifyItem(codes[i] or "", attempts[i].problem.formal_statement) for i in to_verify]
        verdicts, tries = await self._verify(items)
        graded = dict(zip(to_verify, zip(verdicts, tries, strict=True), strict=True))
        records = [
            self._record(attempt, check, *graded.get(i, (None, 0)))
            for i, (attempt, check) in enumerate(zip(attempts, checks, strict=True))
        ]
        for record in records:
            if record.correct is None:
                self._infra[record.key] = record
            else:
                self._infra.pop(record.key, None)
                self._done[record.key] = record
        return records

    @staticmethod
    def _record(attempt: _Attempt, check: FormatVerdict, verdict: Verdict | None, tries: int) -> SampleRecord:
        code = check.completion.code
        # Stored with the attempt so that its fix turn, now or after a resume, is prompted with exactly this text.
        feedback = (fix_feedback(code, verdict) or None) if verdict is not None and code is not None else None
        return SampleRecord(
            problem=attempt.problem.name,
            sample=attempt.sample,
            turn=attempt.turn,
            correct=False if verdict is None else (None if verdict.is_infra else verdict.ok),
            verdict=NO_PROOF if verdict is None else verdict.kind.value,
            completion=attempt.completion,
            code=code,
            format_ok=check.ok,
            format_violations=tuple(str(c.value) for c in check.codes),
            feedback=feedback,
            detail=(verdict.detail or None) if verdict is not None else None,
            generate_s=attempt.generate_s,
            verify_s=(verdict.time_s or 0.0) if verdict is not None else 0.0,
            verify_attempts=tries,
            cached=verdict.cached if verdict is not None else False,
        )

    async def _verify(self, items: list[VerifyItem]) -> tuple[list[Verdict], list[int]]:
        """Verify, then re-verify what is still ``infra`` in the protocol's spaced rounds."""
        return await verify_retrying(self.verifier.verify, items, self.options.retry)

    def _report(self) -> RunProgress:
        names = {p.name for p in self.problems}
        first = [r for r in self._done.values() if r.turn == FIRST_TURN and r.problem in names]
        solved = {r.problem for r in first if r.correct}
        solved_with_fix = solved | {r.problem for r in self._done.values() if r.turn == FIX_TURN and r.correct}
        progress = RunProgress(
            total=len(self.problems) * self.config.n,
            done=sum(r.sample < self.config.n for r in first),
            solved=len(solved),
            solved_with_fix=len(solved_with_fix & names),
            problems=len(self.problems),
            infra=sum(key[0] in names for key in self._infra),
        )
        if self.progress is not None:
            self.progress.update(progress)
        return progress


def run_eval(
    config: RunConfig,
    engine: Engine | EngineFactory,
    out_dir: str | os.PathLike[str],
    *,
    verifier: VerifierOptions | None = None,
    options: RunOptions = RunOptions(),
    progress: ProgressSink | None = None,
) -> RunProgress:
    """Run or resume an evaluation, verifying with ``verifier`` (default server ``$LEAN_SERVER_API_URL``).

    The server's health, the dataset and split, and the run folder's identity are checked first; an engine given as
    a factory (``lambda: make_engine(...)``) is built only then, so a mistake is reported before a model loads.

    Args:
        config: What to evaluate.
        engine: The sampling engine (see `kimina_eval.make_engine`), or a function that builds it.
        out_dir: Run directory; an existing run with the same settings is resumed.
        verifier: The `kimina_verify.Verifier`'s options (server, Lean timeout, cache, ...), passed whole.
        options: Batching and retry behaviour.
        progress: Receives progress after every write.

    Returns:
        The final progress.

    Raises:
        VerifierUnavailable: If the verification server does not answer ``/health``.
        DatasetError: If the dataset or split cannot be used.
        ConfigError: If ``out_dir`` holds a run with different settings.
    """

    async def main() -> RunProgress:
        async with connected_verifier(verifier) as connection:
            runner = Runner(
                config,
                engine,
                connection.verifier,
                out_dir,
                options=options,
                progress=progress,
                lean_env=connection.environment.lean_env,
            )
            return await runner.run()

    return asyncio.run(main())
