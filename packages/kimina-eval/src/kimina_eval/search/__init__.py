"""Test-time lemma search: propose intermediate lemmas from failed attempts, drop the false ones, prove and reuse the rest.

`run_search` runs it over a dataset into a run directory (``kimina-eval search``); `ProblemSearch` is one problem's
search; the parts (lemma parsing, negation, pool, prompts, log, test-time RL hook) live in their modules.
"""

from kimina_eval.search.config import SearchConfig
from kimina_eval.search.lemmas import Binder, Lemma, lemmas_in_code, parse_lemmas
from kimina_eval.search.loop import ProblemSearch, SearchResult
from kimina_eval.search.negation import negation_statement
from kimina_eval.search.pool import LemmaPool, LemmaStatus
from kimina_eval.search.runner import SearchProgress, SearchRunner, run_search
from kimina_eval.search.steps import SearchOptions
from kimina_eval.search.trace import ProblemTrace, SearchSummary, summarize_search
from kimina_eval.search.ttrl import TestTimeRL, TTRLBatch, TTRLLemma, TTRLSample, TTRLSetup

__all__ = [
    "Binder",
    "Lemma",
    "LemmaPool",
    "LemmaStatus",
    "ProblemSearch",
    "ProblemTrace",
    "SearchConfig",
    "SearchOptions",
    "SearchProgress",
    "SearchResult",
    "SearchRunner",
    "SearchSummary",
    "TTRLBatch",
    "TTRLLemma",
    "TTRLSample",
    "TTRLSetup",
    "TestTimeRL",
    "lemmas_in_code",
    "negation_statement",
    "parse_lemmas",
    "run_search",
    "summarize_search",
]
