"""The test-time RL hook: between rounds, hand a problem's verified lemmas and graded samples to a trainer.

Kimina-Prover's test-time search also runs reinforcement learning on the problem's own attempts before the next round.
Training is not done here: the hook receives a `TTRLBatch` (the round's prompts, completions and 0/1 rewards, and the
proved lemmas) and may, for example, write it as a small verl dataset and run a short GRPO job with kimina-rl's
config, then reload the weights of the server the search samples from (an ``openai`` engine pointing at a vLLM server
keeps working across the update). It is off by default. Since it trains a model, it is skipped with a reason when no
CUDA GPU is visible, unless the caller says the hook does not need one.

Enable it with ``SearchOptions(ttrl=hook)`` or ``kimina-eval search --ttrl package.module:function``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Protocol, cast

from kimina_eval.engines.base import Messages


@dataclass(frozen=True)
class TTRLSample:
    """One graded completion of a round.

    Attributes:
        kind: ``attempt`` (the main theorem), ``negation`` or ``lemma``.
        prompt: The chat messages the completion answered.
        completion: The model's text.
        reward: 1.0 when Lean verified the proof, else 0.0.
    """

    kind: str
    prompt: Messages
    completion: str
    reward: float


@dataclass(frozen=True)
class TTRLBatch:
    """What a round of the search learned about one problem.

    Attributes:
        problem: The problem's name.
        formal_statement: Its statement (with header).
        round: The round that just ended.
        lemmas: ``(statement, proof code)`` of every lemma proved so far.
        samples: The round's graded completions.
    """

    problem: str
    formal_statement: str
    round: int
    lemmas: tuple[tuple[str, str], ...]
    samples: tuple[TTRLSample, ...]


class TestTimeRL(Protocol):
    """A callable that trains on a `TTRLBatch`; it runs in a worker thread and may take minutes."""

    def __call__(self, batch: TTRLBatch) -> None:
        """Train (or queue training) on the batch before the problem's next round."""
        ...


def gpu_missing() -> str | None:
    """Why test-time RL cannot run here (no torch, no CUDA GPU), or None when a GPU is visible."""
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA GPU is visible, and test-time RL trains the model on one"
    return None


def load_hook(spec: str) -> TestTimeRL:
    """Import a hook named ``package.module:function``.

    Raises:
        ValueError: When ``spec`` is not of that form, or does not name a callable.
        ImportError: When the module cannot be imported.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"a test-time RL hook is named package.module:function, not {spec!r}")
    hook = getattr(importlib.import_module(module_name), attribute, None)
    if not callable(hook):
        raise ValueError(f"{spec} is not a callable")
    return cast(TestTimeRL, hook)
