"""miniF2F evaluation: sampling engines, unbiased pass@k with intervals, the error-fix turn, reports and plots.

The main entry points are importable from here: `run_eval` with a `RunConfig` (and `RunOptions`), `summarize` and
`write_report` for the report, `run_search` with a `SearchConfig` for the test-time lemma search, `score_rows` for a
file of graded samples, `make_engine` and the metrics. The runner, the search and the reports load on first use, so
`import kimina_eval` (and `kimina_eval.metrics`) stays light: no torch, no transformers. The transformers engine and
`kimina_eval.tiny_model` need the ``transformers`` extra; test helpers live in `kimina_eval.testing`.
"""

from __future__ import annotations

from importlib.metadata import version as _version
from typing import TYPE_CHECKING

from kimina_format.lazy import lazy_exports

from kimina_eval.engines import Engine, EngineError, Messages, SamplingParams, make_engine
from kimina_eval.metrics import Estimate, best_at_k, bootstrap_mean, pass_at_k

if TYPE_CHECKING:
    from kimina_eval.config import ConfigError, RunConfig
    from kimina_eval.dataset import DatasetError, Problem, load_problems
    from kimina_eval.report import ReportFiles, render_markdown, write_report
    from kimina_eval.runner import RunOptions, RunProgress, run_eval
    from kimina_eval.scoring import Scores, score_rows
    from kimina_eval.search import SearchConfig, SearchOptions, SearchResult, run_search
    from kimina_eval.summary import RunSummary, summarize

__version__ = _version("kimina-eval")

_LAZY = {
    "ConfigError": "kimina_eval.config",
    "RunConfig": "kimina_eval.config",
    "DatasetError": "kimina_eval.dataset",
    "Problem": "kimina_eval.dataset",
    "load_problems": "kimina_eval.dataset",
    "ReportFiles": "kimina_eval.report",
    "render_markdown": "kimina_eval.report",
    "write_report": "kimina_eval.report",
    "RunOptions": "kimina_eval.runner",
    "RunProgress": "kimina_eval.runner",
    "run_eval": "kimina_eval.runner",
    "Scores": "kimina_eval.scoring",
    "score_rows": "kimina_eval.scoring",
    "SearchConfig": "kimina_eval.search",
    "SearchOptions": "kimina_eval.search",
    "SearchResult": "kimina_eval.search",
    "run_search": "kimina_eval.search",
    "RunSummary": "kimina_eval.summary",
    "summarize": "kimina_eval.summary",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "ConfigError",
    "DatasetError",
    "Engine",
    "EngineError",
    "Estimate",
    "Messages",
    "Problem",
    "ReportFiles",
    "RunConfig",
    "RunOptions",
    "RunProgress",
    "RunSummary",
    "SamplingParams",
    "Scores",
    "SearchConfig",
    "SearchOptions",
    "SearchResult",
    "__version__",
    "best_at_k",
    "bootstrap_mean",
    "load_problems",
    "make_engine",
    "pass_at_k",
    "render_markdown",
    "run_eval",
    "run_search",
    "score_rows",
    "summarize",
    "write_report",
]
