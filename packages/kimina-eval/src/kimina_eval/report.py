"""The evaluation report: a Markdown table laid out like Kimina-Prover-RL's, pass@k curves, and ``summary.json``."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kimina_eval.caveats import comparison_warnings, stand_in_warning, verifier_lines
from kimina_eval.metrics import Estimate
from kimina_eval.plot import plot_pass_at_k
from kimina_eval.search.report import SEARCH_METHOD as _SEARCH_METHOD
from kimina_eval.search.report import search_section
from kimina_eval.summary import RunSummary

REPORT_FILE = "report.md"
SUMMARY_FILE = "summary.json"
FIGURE_FILE = "pass_at_k.png"

_METHOD = (
    "Pass@k is the unbiased estimator of Chen et al. (2021) over n samples per problem; brackets are 95% bootstrap "
    "intervals over problems. *With error fixing*: a sample counts as solved when its first attempt or its single "
    "revision after Lean's feedback is valid, as in the Kimina-Prover-RL table; it spends up to twice the "
    "generations. Infrastructure failures are left out, never counted as wrong. best@k is verl's validation metric "
    "(k draws with replacement), shown only to compare with training logs: it sits below pass@k."
)


@dataclass(frozen=True)
class ReportFiles:
    """Where a report was written.

    Attributes:
        markdown: The Markdown report.
        summary: ``summary.json``.
        figure: The pass@k curve PNG.
    """

    markdown: Path
    summary: Path
    figure: Path


def _percent(estimate: Estimate | None, *, interval: bool = True) -> str:
    if estimate is None or not estimate.problems:
        return "n/a"
    text = f"{100 * estimate.value:.2f}%"
    return f"{text} [{100 * estimate.low:.1f}, {100 * estimate.high:.1f}]" if interval else text


_STATEMENTS_NOTE = (
    "`corrected`: the 15 fixed test statements in place of the originals, the set upstream's numbers used; "
    "`original`: DeepSeek-Prover-V1.5's statements unchanged"
)


def render_markdown(summaries: Sequence[RunSummary]) -> str:
    """Render the report for one or more runs (the first is the main one, the others compared to it).

    Args:
        summaries: Run summaries, as from `kimina_eval.summary.summarize`.

    Returns:
        The Markdown text.
    """
    k = min(s.n for s in summaries)
    split = sorted({s.config.split for s in summaries if s.config}) or ["test"]
    searched = any(s.search for s in summaries)
    lines = [f"# miniF2F-{'/'.join(split)}: pass@{k}", ""]
    for warning in caveats(summaries):
        lines += [f"> **Warning:** {warning}", ""]
    sets = sorted({s.statement_set for s in summaries if s.statement_set})
    lines += [*(f"- {line}" for line in verifier_lines(summaries))]
    if sets:
        lines.append(f"- miniF2F statements: {', '.join(sets)} ({_STATEMENTS_NOTE})")
    lines.append("")
    # Every run is scored at the same k values here, whatever n each had.
    headline = [s.scores_at([k]) for s in summaries]
    if searched:
        lines += [f"| Model | Pass@{k} | Pass@{k} with error fixing | With lemma search |", "|:--|--:|--:|--:|"]
    else:
        lines += [f"| Model | Pass@{k} | Pass@{k} with error fixing |", "|:--|--:|--:|"]
    for s, scores in zip(summaries, headline, strict=True):
        fixed = _percent(scores.pass_at_with_fix.get(k)) if s.with_fix else "n/a"
        row = f"| {s.name} | {_percent(scores.pass_at.get(k))} | {fixed} |"
        lines.append(row + (f" {_percent(s.search.solved) if s.search else 'n/a'} |" if searched else ""))
    lines += ["", _METHOD + (_SEARCH_METHOD if searched else ""), ""]

    all_ks = sorted({k for s in summaries for k in s.scores.pass_at})
    lines += ["## Pass@k", "", "| Model | " + " | ".join(f"k={k}" for k in all_ks) + " |"]
    lines.append("|:--|" + "--:|" * len(all_ks))
    for s in summaries:
        scores = s.scores_at(all_ks)
        rows = [(s.name, scores.pass_at)]
        if s.with_fix:
            rows.append((f"{s.name} + error fixing", scores.pass_at_with_fix))
        rows.append((f"{s.name} (verl best@k)", scores.best_at))
        for label, table in rows:
            lines.append(f"| {label} | " + " | ".join(_percent(table.get(k)) for k in all_ks) + " |")
    lines.append("")

    lines += _family_table(summaries, k)
    lines += _runs_table(summaries)
    for s in summaries:
        if s.search is not None:
            lines += search_section(s.name, s.search, s.config.n if s.config else None)
    return "\n".join(lines) + "\n"


def caveats(summaries: Sequence[RunSummary]) -> list[str]:
    """What the reader must know before the numbers: the stand-in verifier, and runs that cover other problems."""
    warning = stand_in_warning(summaries)
    return ([warning] if warning else []) + comparison_warnings(summaries)


def _family_table(summaries: Sequence[RunSummary], k: int) -> list[str]:
    families = list(dict.fromkeys(f for s in summaries for f in s.families))
    # One Problems column when every run covers the same problems; otherwise each run shows its own count.
    shared = all(s.problem_names == summaries[0].problem_names for s in summaries)
    header, rule = ["Family"] + (["Problems"] if shared else []), [":--"] + (["--:"] if shared else [])
    for s in summaries:
        names = [f"{s.name} pass@{k}"] + ([f"{s.name} with error fixing"] if s.with_fix else [])
        header += names if shared else [f"{s.name} problems", *names]
        rule += ["--:"] * (len(names) + (0 if shared else 1))
    lines = [f"## By family (pass@{k})", "", "| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    for family in families:
        by_run = [s.scores_at([k], family=family) for s in summaries]
        cells = [family] + ([str(by_run[0].problems)] if shared else [])
        for s, scores in zip(summaries, by_run, strict=True):
            if not shared:
                cells.append(str(scores.problems))
            cells.append(_percent(scores.pass_at.get(k), interval=False))
            if s.with_fix:
                cells.append(_percent(scores.pass_at_with_fix.get(k), interval=False))
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


def _runs_table(summaries: Sequence[RunSummary]) -> list[str]:
    lines = [
        "## Runs",
        "",
        "| Model | Engine | n | Problems | Graded samples | Infra failures | Incomplete problems | Corrupt lines "
        "| Format ok | Statements | Sampling | Directory |",
        "|:--|:--|--:|--:|--:|--:|--:|--:|--:|:--|:--|:--|",
    ]
    for s in summaries:
        c = s.config
        sampling = f"T={c.sampling.temperature}, top_p={c.sampling.top_p}, max={c.sampling.max_tokens}" if c else "?"
        format_ok = f"{100 * s.format_ok:.1f}%" if s.format_ok is not None else "n/a"
        lines.append(
            f"| {s.name} | {c.engine if c else '?'} | {s.n} | {s.scores.problems} | {s.scores.samples} "
            f"| {s.scores.infra} | {s.incomplete} | {len(s.corrupt_lines)} | {format_ok} | {s.statement_set or '?'} | {sampling} "
            f"| `{s.directory}` |"
        )
    return [*lines, ""]


def write_report(summaries: Sequence[RunSummary], out_dir: str | os.PathLike[str]) -> ReportFiles:
    """Write ``report.md``, ``summary.json`` and ``pass_at_k.png`` into ``out_dir``.

    Args:
        summaries: Run summaries; the first is the main run.
        out_dir: Output directory, created if needed.

    Returns:
        The paths written.
    """
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    figure = plot_pass_at_k(summaries, folder / FIGURE_FILE)
    markdown = folder / REPORT_FILE
    markdown.write_text(render_markdown(summaries) + f"\n![pass@k]({FIGURE_FILE})\n", encoding="utf-8")
    summary = folder / SUMMARY_FILE
    payload = {
        "runs": [s.as_dict() for s in summaries],
        "stand_in": any(s.stand_in for s in summaries),
        "warnings": caveats(summaries),
        "figure": FIGURE_FILE,
    }
    summary.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return ReportFiles(markdown=markdown, summary=summary, figure=figure)
