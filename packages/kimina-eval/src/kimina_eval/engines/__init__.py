"""Sampling engines behind one interface: transformers (CPU/GPU), an OpenAI-compatible server, offline vLLM."""

from kimina_eval.engines.base import ENGINES, Engine, EngineError, Messages, SamplingParams, make_engine

__all__ = ["ENGINES", "Engine", "EngineError", "Messages", "SamplingParams", "make_engine"]
