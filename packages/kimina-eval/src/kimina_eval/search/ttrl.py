"""The test-time RL hook: between rounds, train on a problem's verified lemmas and graded samples, then sample anew.

Kimina-Prover's test-time search also runs reinforcement learning on the problem's own attempts before the next round.
Training is not done here. After each round that did not solve the problem, the search hands a `TTRLBatch` (the
round's prompts, completions and 0/1 rewards, the lemmas proved so far, and the model the round sampled from) to a
hook. The hook trains (kimina-train's ``kimina_train.ttrl:trainer`` runs a short GRPO job with kimina-rl) and returns
the directory of the trained model; the search then samples the problem's next round from it. Each problem starts
from the run's own model, so problems stay independent, and while a hook trains, problems are searched one at a time.

It is off by default. Since it trains a model, it is skipped with a reason when no CUDA GPU is visible, unless the
caller says the hook does not need one. When the hook needs the GPU, the search frees its engine (and so the GPU
memory a local engine holds) while the hook runs, and loads the engine again afterwards.

Enable it with ``SearchOptions(ttrl=hook, reload=...)`` or ``kimina-eval search --ttrl package.module:factory``,
where the factory takes a `TTRLSetup` and returns the hook.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, cast

from kimina_verify import VerifierOptions

from kimina_eval.engines.base import Messages

__all__ = ["TTRLBatch", "TTRLFactory", "TTRLLemma", "TTRLSample", "TTRLSetup", "TestTimeRL", "gpu_missing", "load_hook"]


@dataclass(frozen=True)
class TTRLSample:
    """One graded completion of a round.

    Attributes:
        kind: ``attempt`` (the main theorem), ``negation`` or ``lemma``.
        prompt: The chat messages the completion answered.
        formal_statement: What the completion had to prove (with the header), as the verifier checked it.
        completion: The model's text.
        reward: 1.0 when Lean verified the proof, else 0.0.
    """

    kind: str
    prompt: Messages
    formal_statement: str
    completion: str
    reward: float


@dataclass(frozen=True)
class TTRLLemma:
    """A lemma the search proved.

    Attributes:
        name: Its name.
        formal_statement: ``theorem name binders : type := by``, without the header.
        proof: The verified code of its proof (header excluded).
    """

    name: str
    formal_statement: str
    proof: str


@dataclass(frozen=True)
class TTRLBatch:
    """What a round of the search learned about one problem.

    Attributes:
        problem: The problem's name.
        header: The problem's header (imports, ``open`` lines), shared by its lemmas.
        formal_statement: Its statement, header included.
        informal: The informal problem, or None.
        template: The prompt template the search uses (`kimina_format.prompts.build_messages`).
        round: The round that just ended.
        model: The model the round sampled from: the run's model, or what the hook returned after an earlier round.
        lemmas: Every lemma proved so far.
        samples: The round's graded completions.
    """

    problem: str
    header: str
    formal_statement: str
    informal: str | None
    template: str
    round: int
    model: str
    lemmas: tuple[TTRLLemma, ...]
    samples: tuple[TTRLSample, ...]


class TestTimeRL(Protocol):
    """A callable that trains on a `TTRLBatch`; it runs in a worker thread and may take minutes."""

    def __call__(self, batch: TTRLBatch) -> str | None:
        """Train on the batch before the problem's next round.

        Returns:
            A local model directory to sample the problem's next round from, or None to keep ``batch.model``.
        """
        ...


@dataclass(frozen=True)
class TTRLSetup:
    """What a hook factory named on the command line (``--ttrl package.module:factory``) is told about the search.

    Attributes:
        model: The run's model: a directory or hub name, or a server URL for the ``openai`` engine.
        engine: The engine kind (``transformers``, ``vllm``, ``openai``).
        out_dir: The run directory; a hook keeps its files under ``out_dir / "ttrl"``.
        verifier: The verifier options the search uses (server, key, timeouts, ...), passed whole so that a hook
            rewards with the same server and settings; an unset URL or key means ``$LEAN_SERVER_API_URL`` and
            ``$LEAN_SERVER_API_KEY``.
        options: The ``--ttrl-option KEY=VALUE`` pairs, for the factory to read.
    """

    model: str
    engine: str
    out_dir: Path
    verifier: VerifierOptions = field(default_factory=VerifierOptions)
    options: Mapping[str, str] = field(default_factory=dict)

    @property
    def lean_url(self) -> str:
        """The verification server's URL as resolved (kept for hooks written for kimina-eval 0.5's ``lean_url``)."""
        return self.verifier.endpoint.resolved_url()

    @property
    def lean_api_key(self) -> str | None:
        """Its API key as resolved, or None (kept for hooks written for kimina-eval 0.5's ``lean_api_key``)."""
        return self.verifier.endpoint.resolved_api_key()


class TTRLFactory(Protocol):
    """Builds a hook from the search's setup; raises ValueError on options it does not accept."""

    def __call__(self, setup: TTRLSetup) -> TestTimeRL:
        """Return the hook for this search."""
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


def load_hook(spec: str, setup: TTRLSetup) -> TestTimeRL:
    """Import the factory named ``package.module:factory`` and build the hook with ``setup``.

    Raises:
        ValueError: When ``spec`` is not of that form, does not name a callable, or the factory rejects the setup.
        ImportError: When the module cannot be imported.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"a test-time RL hook factory is named package.module:function, not {spec!r}")
    factory = getattr(importlib.import_module(module_name), attribute, None)
    if not callable(factory):
        raise ValueError(f"{spec} is not a callable")
    hook = cast(TTRLFactory, factory)(setup)
    if not callable(hook):
        raise ValueError(f"{spec} returned {type(hook).__name__}, not a hook (a callable taking a TTRLBatch)")
    return hook
