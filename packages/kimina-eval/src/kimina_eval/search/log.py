"""The search's record: one JSON line per step in ``search.jsonl``, to audit a search and to resume it.

Every line has ``problem``, ``round``, ``step``, ``samples_used`` and ``elapsed_s`` (the problem's totals after the
step). Steps, in the order a round runs them:

- ``attempts``: samples on the main theorem (``jobs``: one job, its prompt and graded samples).
- ``propose``: completions proposing lemmas (not verified).
- ``statements``: each new lemma's statement with ``sorry`` checked by Lean (``checks``: target, verdict, detail).
- ``negations``: attempts at proving each new lemma's negation (``jobs``, one per lemma, with ``negation``).
- ``proofs``: attempts at proving each open lemma (``jobs``, one per lemma).
- ``pool``: the pool after the round (``lemmas``, ``proposed``: each parsed lemma and its fate).
- ``ttrl``: the test-time RL hook was called (``called``) or skipped (``skipped``: why).
- ``end``: the outcome (``solved``, ``sample_budget``, ``time_budget``, ``rounds`` or ``infra``), the proof, the
  lemmas it used and the final pool.

A job's target is ``""`` for the main theorem and the lemma's normalised statement otherwise. A resumed search replays
the steps found here instead of generating again (steps are keyed by problem, round and step; the last line wins),
verifies again what was left ``infra``, and goes on from the first step that is missing.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from kimina_eval.store import JsonlWriter, iter_jsonl

__all__ = ["Graded", "NOT_VERIFIED", "SearchLog", "StepKey", "read_events"]

logger = logging.getLogger(__name__)

NOT_VERIFIED = "not_verified"
"""Verdict of a completion that is not a proof (a lemma proposal)."""

StepKey = tuple[str, int, str]


@dataclass(frozen=True)
class Graded:
    """One completion of a step and its verdict.

    Attributes:
        completion: The model's text.
        code: The code sent to Lean (for the main theorem: the model's block with the proved lemmas it refers to
            inserted), or None when there was nothing to verify.
        verdict: A kimina-verify verdict kind, ``no_proof`` or ``not_verified``.
        detail: The verifier's one-line explanation, if any.
        feedback: Lean's feedback as an error-fix turn shows it, for the failed proofs the attempt protocol gives
            one (`kimina_verify.attempts.gets_fix_turn`); None for the others.
        inserted: Names of the proved lemmas inserted into the code.
    """

    completion: str
    code: str | None
    verdict: str
    detail: str | None = None
    feedback: str | None = None
    inserted: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether Lean accepted the proof."""
        return self.verdict == "valid"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``inserted`` only when not empty)."""
        row: dict[str, Any] = {"completion": self.completion, "code": self.code, "verdict": self.verdict}
        if self.detail:
            row["detail"] = self.detail
        if self.feedback:
            row["feedback"] = self.feedback
        if self.inserted:
            row["inserted"] = list(self.inserted)
        return row

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> Graded:
        """Read back a dict written by `to_dict`."""
        return cls(
            completion=str(row["completion"]),
            code=row.get("code"),
            verdict=str(row["verdict"]),
            detail=row.get("detail"),
            feedback=row.get("feedback"),
            inserted=tuple(row.get("inserted", ())),
        )


def _step_key(event: dict[str, Any]) -> StepKey | None:
    """The key of an event, or None when the line is not a search step."""
    problem, round_, step = event.get("problem"), event.get("round"), event.get("step")
    if isinstance(problem, str) and isinstance(round_, int) and isinstance(step, str):
        return (problem, round_, step)
    return None


def read_events(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Stream ``(line number, event)`` from a search log; unreadable lines yield None, with a warning."""
    for number, row in iter_jsonl(path):
        if row is not None and _step_key(row) is None:
            logger.warning("%s:%d: skipped, not a search step", path, number)
            row = None
        yield number, row


@dataclass
class SearchLog:
    """``search.jsonl``, read on opening (corrupt lines are skipped with a warning) and appended to as steps finish.

    Args:
        path: The file; created when missing.
    """

    path: Path
    events: dict[StepKey, dict[str, Any]] = field(default_factory=dict)
    corrupt: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        if self.path.exists():
            for number, event in read_events(self.path):
                key = _step_key(event) if event is not None else None
                if event is None or key is None:
                    self.corrupt.append(number)
                else:
                    self.events[key] = event
        self._writer = JsonlWriter(self.path)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SearchLog:
        """Open (or create) the log at ``path``."""
        return cls(Path(path))

    def get(self, problem: str, round_: int, step: str) -> dict[str, Any] | None:
        """The last recorded event of a step, or None."""
        return self.events.get((problem, round_, step))

    def write(self, event: dict[str, Any]) -> None:
        """Append an event; it replaces any earlier event of the same step."""
        key = _step_key(event)
        if key is None:
            raise ValueError(f"not a search step: {json.dumps(event)[:200]}")
        self._writer.write_json([event])
        self.events[key] = event

    def write_if_changed(self, event: dict[str, Any]) -> None:
        """Append an event unless the same step is already recorded with the same content (a replayed step)."""
        key = _step_key(event)
        if key is None or self.events.get(key) != event:
            self.write(event)

    def close(self) -> None:
        """Flush to disk and close the file."""
        self._writer.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
