"""miniF2F evaluation: sampling engines, unbiased pass@k with intervals, the error-fix turn, reports and plots."""

from importlib.metadata import version as _version

from kimina_eval.engines import Engine, EngineError, Messages, SamplingParams, make_engine

__version__ = _version("kimina-eval")

__all__ = ["Engine", "EngineError", "Messages", "SamplingParams", "__version__", "make_engine"]
