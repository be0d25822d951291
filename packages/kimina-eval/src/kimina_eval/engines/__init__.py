"""Sampling engines behind one interface: transformers (CPU/GPU), an OpenAI-compatible server, offline vLLM."""

from kimina_eval.engines.base import (
    ENGINES,
    Engine,
    EngineError,
    EngineFactory,
    Messages,
    SamplingParams,
    check_model,
    make_engine,
)

__all__ = [
    "ENGINES",
    "Engine",
    "EngineError",
    "EngineFactory",
    "Messages",
    "SamplingParams",
    "check_model",
    "make_engine",
]
