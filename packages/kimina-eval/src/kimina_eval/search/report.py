"""The report's lemma-search section: the budget, the solve rate, and each problem's trace of lemmas."""

from __future__ import annotations

from kimina_eval.search.trace import INCOMPLETE, ProblemTrace, SearchSummary

__all__ = ["SEARCH_METHOD", "search_section"]

SEARCH_METHOD = (
    " *With lemma search*: share of the searched problems whose search found a verified proof within its budget "
    "(rounds of attempts; between rounds, lemmas proposed from the failed attempts, dropped when their statement does "
    "not elaborate or their negation is proved, then proved and offered to the next attempts). It spends up to its "
    "sample budget per problem: compare it with pass@k at that budget. A search run's pass@k is its first round."
)
"""Appended to the report's method paragraph when a run has a search."""


def _names(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _trace_line(trace: ProblemTrace) -> str:
    """One problem's search in a sentence: its outcome, then its lemmas by fate."""
    ended = f"solved in round {trace.rounds}" if trace.solved else f"{trace.outcome} after {trace.rounds} round(s)"
    parts = [f"proposed {_names([lemma.name for lemma in trace.lemmas])}"]
    for status, label in (("rejected", "rejected"), ("refuted", "refuted"), ("proved", "proved")):
        if names := trace.named(status):
            parts.append(f"{label} {_names(names)}")
    if trace.used:
        parts.append(f"used {_names(trace.used)}")
    return f"- `{trace.problem}` ({ended}, {trace.samples} samples): " + "; ".join(parts)


def search_section(name: str, summary: SearchSummary, attempts: int | None = None) -> list[str]:
    """Markdown lines for one run's search: a summary paragraph, a table per problem, and the lemma traces.

    Args:
        name: The run's label.
        summary: Its search, from `kimina_eval.search.summarize_search`.
        attempts: Attempts on the main theorem per round (the run's ``n``), when known.
    """
    traces = summary.traces
    finished = [t for t in traces if t.finished]
    solved = sum(t.solved for t in finished)
    config = summary.config
    budget = ""
    if config is not None:
        per_round = f" of {attempts} attempts" if attempts else ""
        budget = (
            f"Budget per problem: {config.sample_budget} samples, {config.time_budget_s:g} s, "
            f"{config.rounds} rounds{per_round}. "
        )
    rate = f"{100 * summary.solved.value:.2f}% [{100 * summary.solved.low:.1f}, {100 * summary.solved.high:.1f}]"
    unfinished = len(traces) - len(finished)
    pending = (
        f" {unfinished} not finished (interrupted or infrastructure failures: resume the run)." if unfinished else ""
    )
    counts = ", ".join(f"{summary.count(status)} {status}" for status in ("rejected", "refuted", "proved"))
    used = sum(len(t.used) for t in traces)
    lines = [
        f"## Lemma search: {name}",
        "",
        f"{budget}Solved {solved} of {len(finished)} finished problems ({rate if finished else 'n/a'}).{pending} "
        f"Lemmas: {sum(len(t.lemmas) for t in traces)} proposed (after de-duplication), {counts}, {used} used in a "
        "final proof. *Rejected*: the statement does not elaborate; *refuted*: its negation was proved.",
        "",
        "| Problem | Outcome | Rounds | Samples | Time (s) | Proposed | Rejected | Refuted | Proved | Used |",
        "|:--|:--|--:|--:|--:|--:|--:|--:|--:|:--|",
    ]
    for t in traces:
        outcome = "**incomplete**" if t.outcome == INCOMPLETE else t.outcome
        lines.append(
            f"| {t.problem} | {outcome} | {t.rounds} | {t.samples} | {t.elapsed_s:.1f} | {len(t.lemmas)} "
            f"| {len(t.named('rejected'))} | {len(t.named('refuted'))} | {len(t.named('proved'))} "
            f"| {_names(t.used) or '-'} |"
        )
    with_lemmas = [t for t in traces if t.lemmas]
    if with_lemmas:
        lines += ["", "### Lemma traces", "", *(_trace_line(t) for t in with_lemmas)]
    return [*lines, ""]
