"""miniF2F evaluation: sampling engines, unbiased pass@k with intervals, the error-fix turn, reports and plots.

Engines and metrics are importable from here; the runner (`kimina_eval.runner`), the test-time lemma search
(`kimina_eval.search`), reports (`kimina_eval.report`) and test helpers (`kimina_eval.testing`) live in their modules.
"""

from importlib.metadata import version as _version

from kimina_eval.engines import Engine, EngineError, Messages, SamplingParams, make_engine
from kimina_eval.metrics import Estimate, best_at_k, bootstrap_mean, pass_at_k

__version__ = _version("kimina-eval")

__all__ = [
    "Engine",
    "EngineError",
    "Estimate",
    "Messages",
    "SamplingParams",
    "__version__",
    "best_at_k",
    "bootstrap_mean",
    "make_engine",
    "pass_at_k",
]
