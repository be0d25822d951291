"""The engine interface: sampling settings, the `Engine` protocol and `make_engine`, which builds one by name."""

from __future__ import annotations

import gc
import importlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "ENGINES",
    "Engine",
    "EngineError",
    "EngineFactory",
    "Messages",
    "SamplingParams",
    "as_engine",
    "check_model",
    "make_engine",
    "release_memory",
]

Messages = list[dict[str, str]]
"""One chat conversation: ``[{"role": "system", "content": ...}, {"role": "user", "content": ...}, ...]``."""


class EngineError(RuntimeError):
    """Generation failed for good (a server that keeps refusing, a bad request); the message says why."""


@dataclass(frozen=True)
class SamplingParams:
    """How completions are sampled.

    The defaults are the Kimina-Prover-RL recipe's validation settings (temperature 1.0, top_p 0.95) and its response
    budget (24,576 tokens); the Distill model card suggests temperature 0.6.

    Attributes:
        temperature: Softmax temperature; 0 means greedy decoding.
        top_p: Nucleus sampling mass.
        max_tokens: Most new tokens per completion.
        seed: Seed for reproducible sampling, or None for fresh randomness on every call.
    """

    temperature: float = 1.0
    top_p: float = 0.95
    max_tokens: int = 24576
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")


@runtime_checkable
class Engine(Protocol):
    """Anything that samples chat completions: chat conversations in, ``n`` completions per conversation out."""

    def generate(self, prompts: list[Messages], n: int, sampling: SamplingParams) -> list[list[str]]:
        """Sample ``n`` completions for each conversation.

        Args:
            prompts: Chat conversations, each ending with the message the model answers.
            n: Completions per conversation.
            sampling: Temperature, top_p, token budget and seed.

        Returns:
            One list of ``n`` completion texts per prompt, in prompt order. A completion keeps the model's
            ``<think>`` block: it is the assistant text as the model wrote it.
        """
        ...


EngineFactory = Callable[[], Engine]
"""Builds an engine when called: what a runner takes to load a model only after its cheap checks pass."""


def as_engine(engine: Engine | EngineFactory) -> Engine:
    """The engine itself, or the one a factory builds (see `EngineFactory`)."""
    return engine if isinstance(engine, Engine) else engine()


def release_memory() -> None:
    """Return the memory of objects just let go (an engine's model) to the system, accelerator memory included."""
    gc.collect()
    torch = sys.modules.get("torch")  # never import torch just to find that nothing is on a GPU
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()


# kind -> "module:class". Modules are imported only when their kind is chosen, so torch and vllm stay unloaded.
ENGINES: dict[str, str] = {
    "transformers": "kimina_eval.engines.hf:TransformersEngine",
    "openai": "kimina_eval.engines.openai_compat:OpenAIEngine",
    "vllm": "kimina_eval.engines.vllm_offline:VLLMEngine",
}


# A hub repository id: NAME or ORG/NAME (letters, digits, `-`, `_`, `.`), nothing that only a path can be.
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")


def check_model(kind: str, model: str) -> None:
    """Refuse a model argument that cannot work, in one line, before anything heavy is imported.

    ``openai`` wants a server URL. The other engines take a local directory or a hub id (``NAME`` or
    ``ORG/NAME``): a path that does not exist (``./nope``, ``/models/x``, ``~/m``, ``a/b/c``) is refused here rather
    than sent to the hub as a repository id.

    Raises:
        ValueError: Naming the argument and what it should be.
    """
    if kind == "openai":
        if not model.startswith(("http://", "https://")):
            raise ValueError(
                f"--engine openai takes the server's URL as --model (e.g. http://localhost:8001), not {model!r}"
            )
        return
    path = Path(model).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"model {model!r} is a file; give the model's directory (config.json, weights, tokenizer)")
        return
    if not _HUB_ID.fullmatch(model):
        raise ValueError(f"no model directory at {model} (a hub model is named like AI-MO/Kimina-Prover-Distill-1.7B)")


def make_engine(kind: str, model: str, **options: Any) -> Engine:
    """Build an engine by name.

    Args:
        kind: ``"transformers"`` (local model, CPU or GPU), ``"openai"`` (an OpenAI-compatible server such as
            ``vllm serve``; ``model`` is its base URL) or ``"vllm"`` (offline vLLM on a GPU; the ``vllm`` extra).
        model: A local model directory or hub name, or a server URL for ``"openai"``.
        **options: Engine-specific options, passed to the engine's constructor (see each engine's docstring).

    Returns:
        The engine, ready to ``generate``.

    Raises:
        ValueError: On an unknown kind, or a model argument that cannot work (see `check_model`).
        ImportError: When the engine's optional dependency is missing; the message names the extra to install.

    Example:
        >>> engine = make_engine("transformers", "path/to/model", device="cpu")  # doctest: +SKIP
        >>> engine.generate([[{"role": "user", "content": "Prove 1 + 1 = 2."}]], 4, SamplingParams(max_tokens=64))
    """
    try:
        target = ENGINES[kind]
    except KeyError:
        raise ValueError(f"unknown engine {kind!r}; choose one of {', '.join(sorted(ENGINES))}") from None
    check_model(kind, model)
    module_name, class_name = target.split(":")
    engine_class = getattr(importlib.import_module(module_name), class_name)
    engine: Engine = engine_class(model, **options)
    return engine
