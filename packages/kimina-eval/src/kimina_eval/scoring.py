"""From graded samples to scores: per-problem outcomes, then pass@k (with and without error fixing) and best@k.

"Pass@k with error fixing" follows the Kimina-Prover-RL table: a sample counts as solved when its first attempt or
its fix turn (one revision after Lean's feedback) is valid, and pass@k is then taken over those samples as usual.
It spends up to twice the generations of plain pass@k, so compare it with pass@2k too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kimina_verify.attempts import FIRST_TURN

from kimina_eval.metrics import Estimate, best_at_k, bootstrap_mean, pass_at_k
from kimina_eval.store import guess_first_turn, protocol_turn

__all__ = ["ProblemOutcome", "Scores", "outcomes_from_rows", "score", "score_rows"]


@dataclass(frozen=True)
class ProblemOutcome:
    """What the samples of one problem came to.

    Attributes:
        problem: Problem name.
        samples: First attempts with a verdict (infra failures excluded).
        correct: How many first attempts are valid.
        fix_samples: First attempts whose outcome after the fix turn is known: valid first attempts, failures whose
            fix was graded, and failures that got no fix (nothing to fix counts as a failure).
        fix_correct: How many of those are valid at the first attempt or after the fix.
        infra: Attempts (any turn) that ended as infrastructure failures: unknown, never counted as wrong.
    """

    problem: str
    samples: int
    correct: int
    fix_samples: int
    fix_correct: int
    infra: int = 0


def outcomes_from_rows(rows: Iterable[Mapping[str, Any]]) -> list[ProblemOutcome]:
    """Group graded rows into one outcome per problem, in order of first appearance.

    Each row needs ``problem`` and ``correct`` (true, false, or null for "unknown: infrastructure failure"), and
    may have ``turn`` in the attempt protocol's numbering (`FIRST_TURN`, 1, for a first attempt, the default;
    `FIX_TURN`, 2, for its fix; `score_rows` also reads the pre-0.6 numbering 0/1). A fix row exists only for a failed
    first attempt, so each valid fix turns one failure into a success.

    Args:
        rows: Graded samples, e.g. the lines of ``samples.jsonl``.

    Returns:
        The outcomes.

    Raises:
        ValueError: On a row without ``problem``, with a ``correct`` that is not a bool or null, or with a ``turn``
            that is neither 1 nor 2.
    """
    tallies: dict[str, list[int]] = {}
    for row in rows:
        problem, correct, turn = row.get("problem"), row.get("correct"), protocol_turn(row.get("turn"))
        if not isinstance(problem, str) or not problem:
            raise ValueError(f"row without a problem name: {dict(row)!r:.200}")
        if correct is not None and not isinstance(correct, bool):
            raise ValueError(f"{problem}: correct must be true, false or null, got {correct!r}")
        # first attempts, valid ones, fixes graded, valid fixes, infra at the first turn, infra later
        tally = tallies.setdefault(problem, [0, 0, 0, 0, 0, 0])
        if correct is None:
            tally[4 if turn == FIRST_TURN else 5] += 1
        elif turn == FIRST_TURN:
            tally[0] += 1
            tally[1] += correct
        else:
            tally[2] += 1
            tally[3] += correct
    outcomes = []
    for problem, (n, c, graded, fixed, first_infra, later_infra) in tallies.items():
        if graded + later_infra > n - c:
            raise ValueError(f"{problem}: {graded + later_infra} fix turns for {n - c} failed first attempts")
        outcomes.append(
            ProblemOutcome(
                problem=problem,
                samples=n,
                correct=c,
                # A failed first attempt whose fix is unknown (infra) drops out of the fix-turn denominator.
                fix_samples=n - later_infra,
                fix_correct=c + fixed,
                infra=first_infra + later_infra,
            )
        )
    return outcomes


@dataclass(frozen=True)
class Scores:
    """Pass@k, pass@k with error fixing and best@k, each a mean over problems with a bootstrap interval.

    Attributes:
        pass_at: k -> unbiased pass@k of first attempts.
        pass_at_with_fix: k -> pass@k counting a sample solved if it or its fix turn is valid; empty when the run
            had no fix turn.
        best_at: k -> verl-style best@k of first attempts.
        problems: Problems with at least one graded sample.
        samples: Graded first attempts.
        infra: Attempts left ungraded by infrastructure failures.
        short: k -> problems left out of that k because they have fewer than k graded samples.
    """

    pass_at: dict[int, Estimate]
    pass_at_with_fix: dict[int, Estimate]
    best_at: dict[int, Estimate]
    problems: int
    samples: int
    infra: int
    short: dict[int, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Return the scores as a JSON-ready dict (``pass@k``, ``pass@k_with_fix``, ``best@k`` keys)."""
        out: dict[str, Any] = {"problems": self.problems, "samples": self.samples, "infra": self.infra}
        for name, table in (("pass", self.pass_at), ("best", self.best_at)):
            out.update({f"{name}@{k}": e.as_dict() for k, e in table.items()})
        out.update({f"pass@{k}_with_fix": e.as_dict() for k, e in self.pass_at_with_fix.items()})
        out["short"] = {str(k): v for k, v in self.short.items() if v}
        return out


def score(
    outcomes: Sequence[ProblemOutcome], ks: Sequence[int], *, with_fix: bool, confidence: float = 0.95, seed: int = 0
) -> Scores:
    """Score a run.

    A problem enters pass@k only when it has at least k graded samples (the estimator is undefined below that); the
    number left out per k is in `Scores.short`.

    Args:
        outcomes: One per problem.
        ks: The k values to report.
        with_fix: Whether the run had a fix turn (fill `Scores.pass_at_with_fix`).
        confidence: Coverage of the bootstrap intervals.
        seed: Seed of the bootstrap.

    Returns:
        The `Scores`.
    """
    graded = [o for o in outcomes if o.samples > 0]

    def estimate(values: list[float]) -> Estimate:
        return bootstrap_mean(values, confidence=confidence, seed=seed)

    pass_at, with_fix_at, best_at, short = {}, {}, {}, {}
    for k in ks:
        eligible = [o for o in graded if o.samples >= k]
        short[k] = len(graded) - len(eligible)
        pass_at[k] = estimate([pass_at_k(o.samples, o.correct, k) for o in eligible])
        best_at[k] = estimate([best_at_k(o.samples, o.correct, k) for o in eligible])
        if with_fix:
            fixable = [o for o in graded if o.fix_samples >= k]
            with_fix_at[k] = estimate([pass_at_k(o.fix_samples, o.fix_correct, k) for o in fixable])
    return Scores(
        pass_at=pass_at,
        pass_at_with_fix=with_fix_at,
        best_at=best_at,
        problems=len(graded),
        samples=sum(o.samples for o in graded),
        infra=sum(o.infra for o in outcomes),
        short=short,
    )


def score_rows(
    rows: Sequence[Mapping[str, Any]],
    ks: Sequence[int],
    *,
    problem_field: str = "problem",
    correct_field: str = "correct",
    seed: int = 0,
    first_turn: int | None = None,
) -> Scores:
    """Score graded rows from any JSONL file, e.g. ``samples.jsonl`` or a file of recorded verdicts.

    Rows with a ``sample`` field are attempts of a run: when one appears twice, the last line wins. A ``turn`` is
    optional (absent: a first attempt) and either numbering is read: the attempt protocol's, 1 for a first attempt
    and 2 for its fix, or kimina-eval's before 0.6, 0 and 1. The rows use the old one when some row has ``turn`` 0
    (`kimina_eval.store.guess_first_turn`; a fix row always follows its first attempt's). Pass@k with error fixing is
    filled when some row is a fix turn.

    Args:
        rows: The rows.
        ks: The k values to report.
        problem_field: Field holding the problem name.
        correct_field: Field holding the outcome (true, false, or null for ungraded).
        seed: Seed of the bootstrap.
        first_turn: The rows' numbering (1, or 0 for pre-0.6 rows); None: guessed from the rows.

    Returns:
        The `Scores`.

    Raises:
        ValueError: On a row that lacks a field, holds a non-boolean outcome or a turn of neither numbering.
    """
    first = guess_first_turn(rows) if first_turn is None else first_turn
    latest: dict[Any, dict[str, Any]] = {}
    for index, row in enumerate(rows):
        if problem_field not in row or correct_field not in row:
            raise ValueError(f"row {index + 1} has no {problem_field!r} or {correct_field!r} field")
        try:
            turn = protocol_turn(row.get("turn"), first_turn=first)
        except ValueError as error:
            raise ValueError(f"row {index + 1}: {error}") from None
        graded = {"problem": row[problem_field], "correct": row[correct_field], "turn": turn}
        key = (graded["problem"], row["sample"], turn) if "sample" in row else index
        latest[key] = graded
    with_fix = any(r["turn"] != FIRST_TURN for r in latest.values())
    return score(outcomes_from_rows(latest.values()), ks, with_fix=with_fix, seed=seed)
