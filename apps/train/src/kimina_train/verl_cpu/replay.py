"""Reference replay: a labelled stand-in for a model that can prove things, in the CPU rollout of the smoke recipe.

A random model never writes an answer that passes the format check, so neither Lean, the fix turn nor a non-zero
reward would ever run. For a configured share of first-turn requests the rollout answers instead with the real
Kimina-Prover completion of the prompt's problem, or with that completion carrying an injected Lean error; the fix
turn that follows an injected error is answered with the real completion. Every answer is logged with what it was
(`sampled`, `reference`, `injected_error`, `fix_reference`), and its log-probs are the model's own.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from kimina_train.references import INJECTED_ERROR, REFERENCE_FILE, inject_lean_error, load_references

__all__ = ["ASSISTANT_TURN", "Answer", "AnswerLog", "CUSTOM_KEY", "KINDS", "ReferenceReplay", "ReplaySettings"]

CUSTOM_KEY = "reference_replay"
"""Its settings: `actor_rollout_ref.rollout.custom.reference_replay` (verl's extension dict of the rollout config)."""

ASSISTANT_TURN = "<|im_start|>assistant"
"""Where an assistant turn starts in a ChatML prompt (Qwen3 and Kimina-Prover use ChatML)."""

SAMPLED, REFERENCE, INJECTED, FIX = "sampled", "reference", "injected_error", "fix_reference"
KINDS = (SAMPLED, REFERENCE, INJECTED, FIX)


@dataclass(frozen=True)
class ReplaySettings:
    """`actor_rollout_ref.rollout.custom.reference_replay`.

    Attributes:
        share: Share of first-turn requests answered with a reference (when the prompt's problem has one).
        injected_error_share: Share of those answered with an injected Lean error instead, so the fix turn runs.
        completions: JSONL of `{name, completion}`; None means the file kimina-train ships.
        log: JSONL file that gets one line per answer (None: no log).
    """

    share: float = 0.0
    injected_error_share: float = 0.5
    completions: str | None = None
    log: str | None = None

    def __post_init__(self) -> None:
        for name in ("share", "injected_error_share"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{CUSTOM_KEY}.{name} must be a number in [0, 1], got {value!r}")

    @classmethod
    def from_custom(cls, custom: Mapping[str, Any] | None) -> ReplaySettings | None:
        """The settings in verl's `rollout.custom` dict, or None when it has none (no replay).

        Raises:
            ValueError: An unknown key or a share outside [0, 1].
        """
        raw = (custom or {}).get(CUSTOM_KEY)
        if raw is None:
            return None
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise ValueError(
                f"unknown key(s) in {CUSTOM_KEY}: {', '.join(unknown)} (known: {', '.join(sorted(known))})"
            )
        return cls(**dict(raw))


@dataclass(frozen=True)
class Answer:
    """What to answer one request with.

    Attributes:
        kind: One of `KINDS`.
        problem: The problem's name, when the prompt names one that has a reference.
        text: The replayed completion, or None to sample from the model.
    """

    kind: str
    problem: str | None
    text: str | None = None


def _every(index: int, share: float) -> bool:
    """Whether item `index` (0-based) of a stream is among the `share` picked, spread evenly and exactly."""
    return int((index + 1) * share + 1e-9) > int(index * share + 1e-9)


class ReferenceReplay:
    """Chooses each request's answer; thread-safe, counts what it did.

    Args:
        settings: The share to replay and the share of those with an injected error.
        references: Completion by problem name.
    """

    def __init__(self, settings: ReplaySettings, references: dict[str, str]) -> None:
        self.settings = settings
        self._references = references
        names = sorted(references, key=len, reverse=True)
        self._theorem = re.compile(r"\btheorem\s+(" + "|".join(map(re.escape, names)) + r")\b") if names else None
        self._lock = threading.Lock()
        # Counted per problem, so each rollout group (one prompt, n answers) gets the shares whatever order verl's
        # concurrent requests arrive in: a global count could hand one group only samples and another only
        # references, and then no group has a reward spread for GRPO to learn from.
        self._first_turns: Counter[str] = Counter()
        self._replayed: Counter[str] = Counter()
        self.counts: Counter[str] = Counter()

    @classmethod
    def from_settings(cls, settings: ReplaySettings) -> ReferenceReplay:
        """Load the completions the settings name."""
        return cls(settings, load_references(Path(settings.completions) if settings.completions else REFERENCE_FILE))

    def _problem(self, prompt: str) -> str | None:
        match = self._theorem.search(prompt) if self._theorem else None
        return match.group(1) if match else None

    def choose(self, prompt: str) -> Answer:
        """The answer to a request whose prompt (decoded with its special tokens) is `prompt`."""
        problem = self._problem(prompt)
        follow_up = prompt.count(ASSISTANT_TURN) > 1
        with self._lock:
            answer = self._choose(problem, follow_up, prompt)
            self.counts[answer.kind] += 1
        return answer

    def _choose(self, problem: str | None, follow_up: bool, prompt: str) -> Answer:
        if problem is None:
            return Answer(SAMPLED, None)
        reference = self._references[problem]
        if follow_up:
            # The fix turn of an injected error gets the real proof; any other fix turn is the model's own.
            return Answer(FIX, problem, reference) if INJECTED_ERROR in prompt else Answer(SAMPLED, problem)
        index = self._first_turns[problem]
        self._first_turns[problem] += 1
        if not _every(index, self.settings.share):
            return Answer(SAMPLED, problem)
        replayed = self._replayed[problem]
        self._replayed[problem] += 1
        injected = inject_lean_error(reference) if _every(replayed, self.settings.injected_error_share) else None
        return Answer(INJECTED, problem, injected) if injected is not None else Answer(REFERENCE, problem, reference)


class AnswerLog:
    """One JSON line per answer, appended to a file (several processes may share it: one write per line)."""

    def __init__(self, path: str | None) -> None:
        self._path = Path(path) if path else None
        if self._path is not None:
            self._path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, **entry: Any) -> None:
        """Append `entry` with the time."""
        if self._path is None:
            return
        line = json.dumps({"time": round(time.time(), 3), **entry}, ensure_ascii=False) + "\n"
        with self._path.open("a", encoding="utf-8") as f:
            f.write(line)
