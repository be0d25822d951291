"""Read a search back from ``search.jsonl``: one trace per problem (its outcome and its lemmas), and the solve rate."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kimina_eval.metrics import Estimate, bootstrap_mean
from kimina_eval.search.config import LOG_FILE, SearchConfig, load_search_config
from kimina_eval.search.log import read_events

__all__ = ["INCOMPLETE", "LemmaTrace", "ProblemTrace", "SearchSummary", "summarize_search"]

INCOMPLETE = "incomplete"
"""Outcome of a problem whose search has not ended (the run was stopped): resume it."""


@dataclass(frozen=True)
class LemmaTrace:
    """A lemma of a problem's pool as the search left it.

    Attributes:
        name: Its name.
        statement: Its statement (``theorem name binders : type``).
        status: ``rejected``, ``refuted``, ``open``, ``proved`` or ``abandoned`` (see `LemmaStatus`).
        round: The round that proposed it.
        evidence: Why it was rejected, or the proof of its negation.
    """

    name: str
    statement: str
    status: str
    round: int
    evidence: str | None = None


@dataclass(frozen=True)
class ProblemTrace:
    """What the search did on one problem.

    Attributes:
        problem: The problem's name.
        outcome: ``solved``, ``sample_budget``, ``time_budget``, ``rounds``, ``infra`` or ``incomplete``.
        rounds: Rounds started.
        samples: Completions spent.
        elapsed_s: Generation and verification time spent.
        lemmas: Every lemma proposed (after de-duplication).
        used: The proved lemmas the final proof depends on.
    """

    problem: str
    outcome: str
    rounds: int
    samples: int
    elapsed_s: float
    lemmas: tuple[LemmaTrace, ...] = ()
    used: tuple[str, ...] = ()

    @property
    def solved(self) -> bool:
        """Whether a verified proof was found."""
        return self.outcome == "solved"

    @property
    def finished(self) -> bool:
        """Whether the search ended with a known result (not interrupted, not stopped by infrastructure)."""
        return self.outcome not in (INCOMPLETE, "infra")

    def named(self, status: str) -> list[str]:
        """Names of the lemmas with this status."""
        return [lemma.name for lemma in self.lemmas if lemma.status == status]

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the lemma names by status."""
        return {
            "problem": self.problem,
            "outcome": self.outcome,
            "rounds": self.rounds,
            "samples": self.samples,
            "elapsed_s": round(self.elapsed_s, 3),
            "proposed": [lemma.name for lemma in self.lemmas],
            "rejected": self.named("rejected"),
            "refuted": self.named("refuted"),
            "proved": self.named("proved"),
            "used": list(self.used),
        }


@dataclass(frozen=True)
class SearchSummary:
    """The search of a run directory.

    Attributes:
        config: The search settings, if ``search.json`` is there.
        traces: One per problem, in order of first appearance in the log.
        solved: Share of finished problems solved, with a bootstrap interval over problems.
        corrupt_lines: Lines of ``search.jsonl`` skipped as unreadable.
    """

    config: SearchConfig | None
    traces: tuple[ProblemTrace, ...]
    solved: Estimate
    corrupt_lines: int = 0

    def count(self, status: str) -> int:
        """Lemmas with this status, over all problems."""
        return sum(len(t.named(status)) for t in self.traces)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "config": self.config.to_dict() if self.config else None,
            "solved": self.solved.as_dict(),
            "problems": len(self.traces),
            "finished": sum(t.finished for t in self.traces),
            "corrupt_lines": self.corrupt_lines,
            "traces": [t.as_dict() for t in self.traces],
        }


def _traces_from_events(events: Iterable[dict[str, Any]]) -> list[ProblemTrace]:
    """One trace per problem, from its events in file order.

    A problem whose last event is ``end`` has that outcome; otherwise its search was interrupted (``incomplete``).
    Its lemmas are those of its last pool snapshot (``pool`` or ``end`` event).
    """
    last: dict[str, dict[str, Any]] = {}
    snapshots: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        last[event["problem"]] = event
        if event["step"] in ("pool", "end"):
            snapshots[event["problem"]] = list(event.get("lemmas") or [])
    traces = []
    for problem, event in last.items():
        ended = event["step"] == "end"
        lemmas = tuple(
            LemmaTrace(row["name"], row["statement"], row["status"], int(row["round"]), row.get("evidence"))
            for row in snapshots.get(problem, [])
        )
        traces.append(
            ProblemTrace(
                problem=problem,
                outcome=str(event["outcome"]) if ended else INCOMPLETE,
                rounds=int(event["round"]),
                samples=int(event.get("samples_used", 0)),
                elapsed_s=float(event.get("elapsed_s", 0.0)),
                lemmas=lemmas,
                used=tuple(event.get("used", ())) if ended else (),
            )
        )
    return traces


def summarize_search(directory: str | os.PathLike[str], *, seed: int = 0) -> SearchSummary | None:
    """Read the search of a run directory (streaming its log); None when it has no ``search.jsonl``."""
    folder = Path(directory)
    path = folder / LOG_FILE
    if not path.is_file():
        return None
    corrupt = 0
    events = []
    for _, event in read_events(path):
        if event is None:
            corrupt += 1
        else:
            # The samples are what makes a log large; a trace needs only the outcome and the pool.
            events.append({k: v for k, v in event.items() if k not in ("jobs", "checks", "proof")})
    traces = _traces_from_events(events)
    finished = [float(t.solved) for t in traces if t.finished]
    return SearchSummary(
        config=load_search_config(folder),
        traces=tuple(traces),
        solved=bootstrap_mean(finished, seed=seed),
        corrupt_lines=corrupt,
    )
