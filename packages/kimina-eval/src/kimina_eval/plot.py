"""The pass@k curve: pass@k against k on a log scale, one line per run, with its bootstrap band."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kimina_eval.summary import RunSummary

__all__ = ["pass_at_k_figure", "plot_pass_at_k"]

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def plot_pass_at_k(summaries: Sequence[RunSummary], path: str | os.PathLike[str]) -> Path:
    """Draw pass@k curves to a PNG file (see `pass_at_k_figure`).

    Args:
        summaries: The runs to draw.
        path: Where to write the PNG.

    Returns:
        The path written.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    pass_at_k_figure(summaries).savefig(target)
    return target


def pass_at_k_figure(summaries: Sequence[RunSummary]) -> Figure:
    """The pass@k curves of some runs, on a y-axis from 0 % (never below, even when every value is 0).

    Each run gets a solid line for pass@k and, when it had a fix turn, a dashed line of the same colour for pass@k
    with error fixing; shaded bands (error bars for a lone k) are the bootstrap intervals.
    """
    import matplotlib.ticker
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.5), dpi=150)  # not pyplot: no global state, no display needed
    axes = figure.subplots()
    all_ks: set[int] = set()
    top = 0.0
    for index, summary in enumerate(summaries):
        colour = f"C{index % 10}"
        curves = [(summary.scores.pass_at, "-", summary.name)]
        if summary.with_fix:
            curves.append((summary.scores.pass_at_with_fix, "--", f"{summary.name} + error fixing"))
        for table, style, label in curves:
            points = [(k, e) for k, e in sorted(table.items()) if e.problems]
            if not points:
                continue
            ks = [k for k, _ in points]
            all_ks.update(ks)
            values = [100 * e.value for _, e in points]
            low, high = [100 * e.low for _, e in points], [100 * e.high for _, e in points]
            top = max(top, *values, *high)
            if len(points) > 1:
                axes.plot(ks, values, style, color=colour, marker="o", label=label)
                axes.fill_between(ks, low, high, color=colour, alpha=0.12, linewidth=0)
            else:  # a band needs two points: a lone k gets an error bar, nudged sideways per run
                x = ks[0] * 2 ** (0.05 * (index - (len(summaries) - 1) / 2))
                bar = [[values[0] - low[0]], [high[0] - values[0]]]
                axes.errorbar([x], values, yerr=bar, color=colour, marker="o", capsize=4, label=label)
    if len(all_ks) == 1:
        (k,) = all_ks
        axes.set_xlim(k / 1.5, k * 1.5)
    axes.set_xscale("log", base=2)
    axes.set_xticks(sorted(all_ks), [str(k) for k in sorted(all_ks)])
    axes.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    axes.set_xlabel("k (samples per problem)")
    axes.set_ylabel("pass@k (%)")
    # Autoscaling centres all-zero data on 0 and draws a negative axis: pass@k is never below 0 %.
    axes.set_ylim(0.0, min(100.0, top * 1.08) if top > 0 else 1.0)
    split = {s.config.split for s in summaries if s.config} or {"test"}
    axes.set_title(f"miniF2F-{'/'.join(sorted(split))}: pass@k with 95% bootstrap intervals")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    return figure
