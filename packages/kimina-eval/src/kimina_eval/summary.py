"""Summarise a run directory: scores with intervals, a per-family breakdown, and the health of the record."""

from __future__ import annotations

import hashlib
import logging
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kimina_data.minif2f_problems import statement_set
from kimina_verify.attempts import FIRST_TURN, FIX_TURN
from kimina_verify.environment import LeanEnvironment

from kimina_eval.config import SAMPLES_FILE, RunConfig, load_config, load_first_turn
from kimina_eval.dataset import FAMILY_NAMES, DatasetError, family_of, load_problems
from kimina_eval.metrics import default_ks
from kimina_eval.scoring import ProblemOutcome, Scores, outcomes_from_rows, score
from kimina_eval.search.trace import SearchSummary, summarize_search
from kimina_eval.store import SampleRecord, latest, load_records

__all__ = ["RunSummary", "summarize"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunSummary:
    """Everything a report shows about one run.

    Attributes:
        name: Label of the run (the model's name unless the run set another).
        directory: The run directory.
        config: The run's settings, or None for a directory without ``run.json``.
        n: Samples per problem the run asked for (or the most any problem has).
        with_fix: Whether the run had an error-fix turn.
        scores: Pass@k, pass@k with error fixing and best@k for k = 1, 2, 4, ..., n.
        families: Family -> scores at k = 1 and k = n, for the families present.
        corrupt_lines: Lines of ``samples.jsonl`` skipped as corrupt.
        format_ok: Share of format-checked first attempts that passed the check; None when none was checked.
        incomplete: Problems with fewer than n graded first attempts.
        search: The lemma search, for a directory written by ``kimina-eval search`` (its round 1 is the pass@n
            run above); None otherwise.
        outcomes: One per problem, to score the run at other k values (`scores_at`).
        lean_envs: Graded attempts per verifier Lean environment (`SampleRecord.lean_env`; None: not recorded).
        statements: Problem -> digest of the statement the run's dataset gives it (as the dataset file reads now),
            to tell whether two runs were shown the same statements; None when the dataset cannot be read.
        confidence: Coverage of the bootstrap intervals.
        seed: Seed of the bootstrap.
    """

    name: str
    directory: Path
    config: RunConfig | None
    n: int
    with_fix: bool
    scores: Scores
    families: dict[str, Scores] = field(default_factory=dict)
    corrupt_lines: list[int] = field(default_factory=list)
    format_ok: float | None = None
    incomplete: int = 0
    search: SearchSummary | None = None
    outcomes: tuple[ProblemOutcome, ...] = ()
    lean_envs: dict[str | None, int] = field(default_factory=dict)
    statements: dict[str, str] | None = None
    confidence: float = 0.95
    seed: int = 0

    @property
    def problem_names(self) -> frozenset[str]:
        """The problems with at least one graded first attempt."""
        return frozenset(o.problem for o in self.outcomes if o.samples)

    @property
    def stand_in(self) -> bool:
        """Whether any attempt was graded by the stand-in verifier (`lean-repl-sim`): those verdicts are not proofs."""
        return any(LeanEnvironment(env).stand_in for env in self.lean_envs)

    def scores_at(self, ks: Sequence[int], *, family: str | None = None) -> Scores:
        """The run's scores at these k, over all its problems or one family's."""
        chosen = [o for o in self.outcomes if family is None or family_of(o.problem) == family]
        return score(chosen, ks, with_fix=self.with_fix, confidence=self.confidence, seed=self.seed)

    def verifier_dict(self) -> dict[str, Any]:
        """Which Lean graded the run: ``stand_in``, and each environment with its graded attempts."""
        return {
            "stand_in": self.stand_in,
            "environments": [
                {"lean_env": env, "attempts": count, "description": LeanEnvironment(env).describe()}
                for env, count in self.lean_envs.items()
            ],
        }

    @property
    def statement_set(self) -> str | None:
        """The miniF2F statements the run was prompted with (`corrected` or `original`); None without a config."""
        return statement_set(self.config.rectified) if self.config is not None else None

    def as_dict(self) -> dict[str, Any]:
        """Return the summary as a JSON-ready dict."""
        return {
            "name": self.name,
            "directory": str(self.directory),
            "config": self.config.to_dict() if self.config else None,
            "statement_set": self.statement_set,
            "n": self.n,
            "with_fix": self.with_fix,
            "scores": self.scores.as_dict(),
            "families": {family: scores.as_dict() for family, scores in self.families.items()},
            "corrupt_lines": len(self.corrupt_lines),
            "format_ok": self.format_ok,
            "incomplete_problems": self.incomplete,
            "search": self.search.as_dict() if self.search else None,
            "verifier": self.verifier_dict(),
        }


def summarize(directory: str | os.PathLike[str], *, confidence: float = 0.95, seed: int = 0) -> RunSummary:
    """Read a run directory (``run.json`` and ``samples.jsonl``) and score it.

    Args:
        directory: A directory written by ``kimina-eval run`` or ``kimina-eval search``.
        confidence: Coverage of the bootstrap intervals.
        seed: Seed of the bootstrap.

    Returns:
        The `RunSummary`.

    Raises:
        FileNotFoundError: If the directory has no ``samples.jsonl``.
        ValueError: If it holds no graded sample.
    """
    folder = Path(directory)
    path = folder / SAMPLES_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: is {folder} a run directory?")
    config = load_config(folder)
    # run.json names the numbering (absent key: a pre-0.6 run, 0/1); without run.json the rows do. Records get 1/2.
    records, corrupt = load_records(path, first_turn=load_first_turn(folder))
    attempts = list(latest(records).values())
    outcomes = outcomes_from_rows({"problem": r.problem, "correct": r.correct, "turn": r.turn} for r in attempts)
    if not any(o.samples for o in outcomes):
        infra = sum(o.infra for o in outcomes)
        why = f" ({infra} attempts failed for infrastructure reasons: resume the run)" if infra else ""
        raise ValueError(f"{path} holds no graded sample{why}")
    n = config.n if config else max(o.samples for o in outcomes)
    with_fix = bool(config.fix_turns) if config else any(r.turn == FIX_TURN for r in attempts)
    ks = default_ks(n)
    by_family: dict[str, list[ProblemOutcome]] = {}
    for outcome in outcomes:
        by_family.setdefault(family_of(outcome.problem), []).append(outcome)
    order = [*FAMILY_NAMES, "other"]
    families = {
        family: score(by_family[family], sorted({1, n}), with_fix=with_fix, confidence=confidence, seed=seed)
        for family in order
        if family in by_family
    }
    return RunSummary(
        name=config.name if config else folder.name,
        directory=folder,
        config=config,
        n=n,
        with_fix=with_fix,
        scores=score(outcomes, ks, with_fix=with_fix, confidence=confidence, seed=seed),
        families=families,
        corrupt_lines=corrupt,
        format_ok=_format_ok_rate(attempts),
        incomplete=sum(o.samples < n for o in outcomes),
        search=summarize_search(folder, seed=seed),
        outcomes=tuple(outcomes),
        lean_envs=dict(Counter(r.lean_env for r in attempts if r.correct is not None)),
        statements=_statement_digests(config, {o.problem for o in outcomes}),
        confidence=confidence,
        seed=seed,
    )


def _statement_digests(config: RunConfig | None, problems: set[str]) -> dict[str, str] | None:
    """Problem -> digest of the statement the run's dataset, split and ``rectified`` setting give it."""
    if config is None:
        return None
    try:
        loaded = load_problems(config.dataset, config.split, rectified=config.rectified)
    except DatasetError as error:
        logger.info("cannot read the statements of %s: %s", config.name, error)
        return None
    return {p.name: hashlib.sha256(p.formal_statement.encode()).hexdigest()[:16] for p in loaded if p.name in problems}


def _format_ok_rate(attempts: list[SampleRecord]) -> float | None:
    checked = [r.format_ok for r in attempts if r.turn == FIRST_TURN and r.format_ok is not None]
    return sum(checked) / len(checked) if checked else None
