"""The search's settings, saved as ``search.json`` beside ``run.json`` so a resume runs the same search."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kimina_verify.config import parse_config

from kimina_eval.config import ConfigError, load_settings, refuse_changes, save_settings

__all__ = [
    "LOG_FILE",
    "SEARCH_FILE",
    "SearchConfig",
    "check_search_resumable",
    "load_search_config",
    "save_search_config",
]

SEARCH_FILE = "search.json"
LOG_FILE = "search.jsonl"

# Budgets may change between resumes (a larger one continues unsolved problems); the rest shapes every step.
_BUDGETS = ("rounds", "sample_budget", "time_budget_s")


@dataclass(frozen=True)
class SearchConfig:
    """How the lemma search spends its budget on each problem.

    Attempts on the main theorem per round are the run's ``n`` (`kimina_eval.config.RunConfig`), so round 1 is a
    plain pass@n evaluation.

    Attributes:
        rounds: Rounds of attempts; lemmas are proposed, filtered and proved between two rounds.
        sample_budget: Completions per problem, all kinds together (attempts, proposals, negations, lemma proofs).
        time_budget_s: Seconds of generation and verification per problem; a step in flight is finished.
        proposals_per_round: Completions asking for lemmas, per round.
        max_new_lemmas: New lemmas kept per round (after de-duplication), in order of proposal.
        negation_samples: Attempts at proving each new lemma's negation (a small budget: most lemmas are true).
        lemma_samples: Attempts at proving each open lemma per round (pass@k per lemma).
        lemma_rounds: Rounds an open lemma is tried before it is abandoned.
        failed_shown: Failed attempts shown to the proposal turn.
        max_context_lemmas: Proved lemmas put before the theorem in later attempts (the first ones proved).
    """

    rounds: int = 4
    sample_budget: int = 128
    time_budget_s: float = 3600.0
    proposals_per_round: int = 2
    max_new_lemmas: int = 6
    negation_samples: int = 2
    lemma_samples: int = 4
    lemma_rounds: int = 2
    failed_shown: int = 3
    max_context_lemmas: int = 8

    def __post_init__(self) -> None:
        if self.time_budget_s <= 0:
            raise ConfigError(f"time_budget_s must be > 0, got {self.time_budget_s}")
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            minimum = 0 if f.name in ("negation_samples", "failed_shown", "max_context_lemmas") else 1
            if isinstance(value, int) and value < minimum:
                raise ConfigError(f"{f.name} must be >= {minimum}, got {value}")

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as a JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchConfig:
        """Rebuild settings saved by `to_dict`, with the workspace's one config loader.

        Raises:
            ConfigError: An unknown key (with the closest known one) or a value of the wrong type.
        """
        return parse_config(cls, data, where="search", error=ConfigError)


def load_search_config(directory: str | os.PathLike[str]) -> SearchConfig | None:
    """Read ``search.json`` from a run directory; None when there is none.

    Raises:
        ConfigError: If the file exists but is not a search configuration.
    """
    return load_settings(Path(directory) / SEARCH_FILE, SearchConfig.from_dict, "search")


def save_search_config(directory: str | os.PathLike[str], config: SearchConfig) -> None:
    """Write ``search.json`` into a run directory, creating it if needed."""
    save_settings(Path(directory) / SEARCH_FILE, config.to_dict())


def check_search_resumable(saved: SearchConfig, wanted: SearchConfig) -> None:
    """Refuse to resume a search with different step settings (budgets may change).

    Raises:
        ConfigError: Naming the first setting that differs.
    """
    steps = [f.name for f in dataclasses.fields(SearchConfig) if f.name not in _BUDGETS]
    refuse_changes(saved, wanted, steps, what="search", may_change=" (budgets may change)")
