"""Run the lemma search over a dataset into a run directory, resumably; `run_search` is the one-call version.

The directory holds ``run.json`` and ``search.json`` (settings), ``search.jsonl`` (every step) and ``samples.jsonl``
(round 1's attempts, a plain pass@n evaluation), so ``kimina-eval report`` shows both pass@n and the search.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from kimina_verify import VerifierOptions

from kimina_eval.config import ConfigError, RunConfig
from kimina_eval.dataset import load_problems
from kimina_eval.engines.base import Engine, EngineFactory
from kimina_eval.run_folder import RunFolder
from kimina_eval.runner import connected_verifier
from kimina_eval.search.config import LOG_FILE, SearchConfig
from kimina_eval.search.lean import LeanBackend, ServerBackend
from kimina_eval.search.log import SearchLog
from kimina_eval.search.loop import ProblemSearch, SearchResult
from kimina_eval.search.steps import SearchContext, SearchOptions
from kimina_eval.search.ttrl import gpu_missing
from kimina_eval.store import SampleWriter

__all__ = ["SearchProgress", "SearchProgressSink", "SearchRunner", "run_search"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SearchProgress:
    """Where a search run stands.

    Attributes:
        problems: Problems in the run.
        done: Problems whose search has ended (solved, out of budget or rounds, or left ``infra``).
        solved: Problems with a verified proof.
        samples: Completions spent so far on the ended problems.
        infra: Problems stopped by verification failures (searched again on resume).
    """

    problems: int
    done: int
    solved: int
    samples: int
    infra: int


class SearchProgressSink(Protocol):
    """Receives the search's progress each time a problem's search ends."""

    def update(self, progress: SearchProgress) -> None:
        """Show the new state of the run."""
        ...


class SearchRunner:
    """Runs (or resumes) the lemma search of every problem of a run into a directory.

    Building a runner checks the dataset, the split and the run folder's identity (nothing is written yet); an
    engine given as a factory is built by `run`, after those checks.

    Args:
        config: What to evaluate; ``config.n`` is the number of attempts on the main theorem per round.
        search: How to search.
        engine: The sampling engine, or a function that builds it (called once, after the checks).
        lean: Proof verification and statement checks.
        out_dir: The run directory.
        options: Concurrency, retries and the test-time RL hook.
        progress: Receives progress as problems end.
        lean_env: The verifier's Lean environment, recorded with every attempt written to ``samples.jsonl``.

    Raises:
        DatasetError: If the dataset is missing or malformed, or the split is unknown or empty.
        ConfigError: If ``out_dir`` holds another run or a search with other settings.
    """

    def __init__(
        self,
        config: RunConfig,
        search: SearchConfig,
        engine: Engine | EngineFactory,
        lean: LeanBackend,
        out_dir: str | os.PathLike[str],
        *,
        options: SearchOptions | None = None,
        progress: SearchProgressSink | None = None,
        lean_env: str | None = None,
    ) -> None:
        if config.fix_turns:
            raise ConfigError("the lemma search has no error-fix turn: its rounds use Lean's feedback instead")
        self.config = config
        self.search = search
        self.lean = lean
        self.out_dir = Path(out_dir)
        self.folder = RunFolder(out_dir, config, search=search)
        self.options = options or SearchOptions()
        self.progress = progress
        self.lean_env = lean_env
        self.problems = load_problems(config.dataset, config.split, limit=config.limit, rectified=config.rectified)
        self.folder.check()
        self.engine: Engine | None = engine if isinstance(engine, Engine) else None
        self._engine = engine
        self.results: dict[str, SearchResult] = {}

    async def run(self) -> SearchProgress:
        """Search every problem (resuming from the log) and return the final progress.

        Raises:
            ConfigError: If ``out_dir`` holds another run or a search with other settings.
            EngineError: When generation fails for good.
        """
        # As the evaluation runner starts: the folder checked again, the engine built, run.json and search.json
        # written (a pre-0.6 run keeps its 0/1 numbering on disk).
        self.engine, first_turn = self.folder.start(self.engine or self._engine)
        concurrent = self.options.concurrent_problems
        if self.options.ttrl is not None:
            if self.options.ttrl_needs_gpu and (reason := gpu_missing()):
                logger.warning("test-time RL is skipped: %s", reason)
            elif concurrent > 1:
                # The hook trains the model a problem samples from: two problems cannot share the engine then.
                logger.info("test-time RL is on: problems are searched one at a time")
                concurrent = 1
        with (
            SearchLog.open(self.out_dir / LOG_FILE) as log,
            SampleWriter(self.folder.samples, lean_env=self.lean_env, first_turn=first_turn) as samples,
        ):
            if log.events:
                logger.info("resuming %s: %d recorded steps", self.out_dir, len(log.events))
            ctx = SearchContext(
                run=self.config,
                search=self.search,
                engine=self.engine,
                model=self.config.model,
                lean=self.lean,
                log=log,
                samples=samples,
                options=self.options,
            )
            gate = asyncio.Semaphore(concurrent)
            self._report()

            async def one(search: ProblemSearch) -> None:
                async with gate:
                    self.results[search.problem.name] = await search.run()
                    self._report()

            await asyncio.gather(*(one(ProblemSearch(problem, ctx)) for problem in self.problems))
        return self._report()

    def _report(self) -> SearchProgress:
        results = self.results.values()
        progress = SearchProgress(
            problems=len(self.problems),
            done=len(self.results),
            solved=sum(r.solved for r in results),
            samples=sum(r.samples for r in results),
            infra=sum(r.outcome == "infra" for r in results),
        )
        if self.progress is not None:
            self.progress.update(progress)
        return progress


def run_search(
    config: RunConfig,
    search: SearchConfig,
    engine: Engine | EngineFactory,
    out_dir: str | os.PathLike[str],
    *,
    verifier: VerifierOptions | None = None,
    options: SearchOptions | None = None,
    progress: SearchProgressSink | None = None,
) -> SearchProgress:
    """Run or resume a lemma search, verifying with ``verifier`` (default server ``$LEAN_SERVER_API_URL``).

    As for `kimina_eval.runner.run_eval`, every cheap check runs before an engine given as a factory is built.

    Args:
        config: What to evaluate (``n`` = attempts on the main theorem per round; no fix turn).
        search: Budgets and the shape of each round.
        engine: The sampling engine (see `kimina_eval.make_engine`), or a function that builds it.
        out_dir: Run directory; an existing search with the same settings is resumed.
        verifier: The `kimina_verify.Verifier`'s options (server, Lean timeout, cache, ...), passed whole.
        options: Concurrency, retries and the test-time RL hook.
        progress: Receives progress as problems end.

    Returns:
        The final progress.

    Raises:
        VerifierUnavailable: If the verification server does not answer ``/health``.
    """

    async def main() -> SearchProgress:
        async with connected_verifier(verifier) as connection:
            runner = SearchRunner(
                config,
                search,
                engine,
                ServerBackend(connection.verifier),
                out_dir,
                options=options,
                progress=progress,
                lean_env=connection.environment.lean_env,
            )
            return await runner.run()

    return asyncio.run(main())
