"""Test helpers: a fake `google.genai.Client` and synthetic rows in the NuminaMath-LEAN schema.

Everything here is synthetic and labelled so (`source: "synthetic"`, uuids `synthetic-...`): use it to test and
benchmark the pipeline, never as data.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

__all__ = ["FakeGeminiClient", "FakeResponse", "synthetic_answer", "synthetic_numina_rows"]

_STATEMENT = re.compile(r"# Formal statement\n```lean4\n(.*?)\n```", re.DOTALL)
_COUNT = re.compile(r"Write (\d+) new problem")


@dataclass(frozen=True)
class FakeResponse:
    """What `generate_content` returns, reduced to the fields this package reads."""

    text: str | None
    usage_metadata: Any = field(
        default_factory=lambda: SimpleNamespace(
            prompt_token_count=120, candidates_token_count=80, thoughts_token_count=0
        )
    )


def synthetic_answer(prompt: str) -> str:
    """A well-formed answer to a variant prompt: as many variants as asked, each a new (trivially true) statement."""
    statement = _STATEMENT.search(prompt)
    count = _COUNT.search(prompt)
    seed = int(hashlib.sha256((statement.group(1) if statement else prompt).encode()).hexdigest()[:6], 16)
    variants = [
        {
            "informal_problem": f"(synthetic variant) Show that if n = {seed + k} then n + 1 = {seed + k + 1}.",
            "formal_statement": f"theorem variant_{seed}_{k} (n : ℕ) (h : n = {seed + k}) : n + 1 = {seed + k + 1} := by",
            "change": "synthetic",
        }
        for k in range(int(count.group(1)) if count else 1)
    ]
    return json.dumps({"variants": variants})


class _Models:
    def __init__(self, owner: FakeGeminiClient) -> None:
        self._owner = owner

    def generate_content(self, *, model: str, contents: Any, config: Any = None) -> FakeResponse:
        return self._owner._generate(model, contents, config)


class FakeGeminiClient:
    """Stands in for `google.genai.Client`: `client.models.generate_content(model=, contents=, config=)`.

    Args:
        answer: Returns the answer text for a prompt (default: `synthetic_answer`).
        fail: Called with (call number from 0, prompt) before answering; an exception it returns is raised instead
            of answering (e.g. a `google.genai.errors.APIError` with code 429, or any error to simulate a crash).

    Attributes:
        calls: Every call made, in order: `{"model", "prompt", "config"}`, including those that raised.
    """

    def __init__(
        self,
        answer: Callable[[str], str | None] = synthetic_answer,
        *,
        fail: Callable[[int, str], BaseException | None] | None = None,
    ) -> None:
        self.models = _Models(self)
        self.calls: list[dict[str, Any]] = []
        self._answer, self._fail = answer, fail
        self._lock = threading.Lock()

    @property
    def prompts(self) -> list[str]:
        """The prompts of every call so far."""
        return [call["prompt"] for call in self.calls]

    def _generate(self, model: str, contents: Any, config: Any) -> FakeResponse:
        with self._lock:
            number = len(self.calls)
            self.calls.append({"model": model, "prompt": contents, "config": config})
        error = self._fail(number, contents) if self._fail else None
        if error is not None:
            raise error
        return FakeResponse(self._answer(contents))


def synthetic_numina_rows(
    n: int, *, seed: int = 0, duplicates: float = 0.1, no_rl_data: float = 0.1
) -> list[dict[str, Any]]:
    """`n` synthetic rows in the NuminaMath-LEAN schema, with some duplicated statements and some without RL data.

    Duplicates differ from their original in theorem name and layout only, so de-duplication must catch them.
    Win rates are spread over [0, 1] with many unsolved problems, like real RL histories.
    """
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    for i in range(n):
        if rows and rng.random() < duplicates:
            original = rng.choice(rows)
            statement = original["formal_statement"].replace("theorem ", f"theorem dup_{i}_", 1).replace(" : ", "  :  ")
        else:
            a, b, c = rng.randint(2, 99), rng.randint(1, 999), rng.randint(1000, 9999)
            statement = (
                f"import Mathlib\n\nopen Real\n\n/-- Solve {a} x + {b} = {c}. -/\n"
                f"theorem algebra_{i} (x : ℝ) (h₀ : {a} * x + {b} = {c}) : x = ({c} - {b}) / {a} := by sorry"
            )
        n_proofs = rng.choice([8, 16, 32])
        n_correct = 0 if rng.random() < 0.4 else rng.randint(0, n_proofs)
        rl_data = (
            None
            if rng.random() < no_rl_data
            else {
                "n_correct_proofs": n_correct,
                "n_proofs": n_proofs,
                "win_rate": n_correct / n_proofs,
            }
        )
        rows.append(
            {
                "uuid": f"synthetic-{seed}-{i:07d}",
                "problem": f"(synthetic) Find x such that the equation in the statement of problem {i} holds.",
                "question_type": "math-word-problem",
                "answer": "",
                "author": rng.choice(["autoformalizer", "human"]),
                "formal_statement": statement,
                "formal_ground_truth": "",
                "ground_truth_type": "statement",
                "formal_proof": "",
                "rl_data": rl_data,
                "source": "synthetic",
                "problem_type": "Algebra",
                "exam": "",
            }
        )
    return rows
