"""What a build did: rows in and out of each step per source, rejections, variant costs; as JSON and a histogram."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kimina_data.schema import column

__all__ = [
    "BuildReport",
    "CheckStats",
    "DecontaminationStats",
    "Histogram",
    "StepStats",
    "count_by_source",
    "plot_win_rates",
    "win_rates_figure",
]

if TYPE_CHECKING:
    import datasets
    from matplotlib.figure import Figure

    from kimina_data.variants import VariantStats


def count_by_source(table: datasets.Dataset) -> dict[str, int]:
    """Rows per `data_source`, in order of first appearance."""
    return dict(Counter(column(table, "data_source")))


@dataclass(frozen=True, slots=True)
class StepStats:
    """Rows into and out of one step, in total and per source, and the time it took."""

    name: str
    rows_in: int
    rows_out: int
    by_source: dict[str, tuple[int, int]]
    seconds: float

    @classmethod
    def measure(cls, name: str, before: dict[str, int], after: dict[str, int], seconds: float) -> StepStats:
        """Stats from per-source counts before and after the step."""
        sources = list(before) + [s for s in after if s not in before]
        by_source = {s: (before.get(s, 0), after.get(s, 0)) for s in sources}
        return cls(name, sum(before.values()), sum(after.values()), by_source, round(seconds, 3))


@dataclass(slots=True)
class CheckStats:
    """The statement check of new variants: how many were checked, kept, and why others were dropped."""

    skipped: str | None = None
    checked: int = 0
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class DecontaminationStats:
    """What decontamination checked against and removed.

    Attributes:
        skipped: Why nothing was checked, when nothing was (no reference configured or found).
        references: Reference problems read per file (or hub id).
        removed: Training rows removed (both passes: after normalise and after variants).
        copied: Rows removed per reference problem they copy (`minif2f-test:mathd_algebra_10`), most first.
        own_rows: Rows that are reference problems themselves (the build reads the evaluation set as a source):
            kept, never checked.
    """

    skipped: str | None = None
    references: dict[str, int] = field(default_factory=dict)
    removed: int = 0
    copied: dict[str, int] = field(default_factory=dict)
    own_rows: int = 0


@dataclass(frozen=True, slots=True)
class Histogram:
    """Counts of win rates in equal bins over [0, 1], plus the rows without one."""

    edges: list[float]
    counts: list[int]
    missing: int

    @classmethod
    def of(cls, values: Iterable[float | None], bins: int = 20) -> Histogram:
        """Bin `values`; a win rate of exactly 1 falls in the last bin."""
        counts, missing = [0] * bins, 0
        for value in values:
            if value is None:
                missing += 1
            else:
                counts[min(int(value * bins), bins - 1)] += 1
        return cls([round(i / bins, 6) for i in range(bins + 1)], counts, missing)


@dataclass(slots=True)
class BuildReport:
    """Everything `build_promptset` measured; `stats.json` is this object as JSON.

    Attributes:
        sources: Rows read per source (`data_source` label), before any check.
        steps: One entry per step, in order.
        rejected: Rows turned away, per `step:reason`; the rows themselves are in `rejected.jsonl`.
        decontamination: What the training rows were checked against and how many copied an evaluation problem.
        variants: The variants step's figures, when it ran.
        statement_check: The statement check's figures, when variants were made.
        win_rates: Histogram of the win rates of the loaded rows (before the filter).
        outputs: Files written, by role (`train`, `val`, `stats`, `histogram`, `rejected`).
        seconds: Wall time of the whole build.
        error: Why the build failed, when it did (the parquet files of an earlier build are then left as they were).
    """

    sources: dict[str, int] = field(default_factory=dict)
    steps: list[StepStats] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)
    decontamination: DecontaminationStats | None = None
    variants: VariantStats | None = None
    statement_check: CheckStats | None = None
    win_rates: Histogram | None = None
    outputs: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None

    @property
    def rows_out(self) -> dict[str, int]:
        """Rows written per output file role."""
        return {step.name.removeprefix("write "): step.rows_out for step in self.steps if step.name.startswith("write")}

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return asdict(self)

    def write_json(self, path: Path) -> Path:
        """Write the report to `path` as indented JSON."""
        path.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return path


def plot_win_rates(histogram: Histogram, path: Path, *, threshold: float | None = None) -> Path:
    """Draw the win-rate histogram as a PNG (see `win_rates_figure`)."""
    win_rates_figure(histogram, threshold=threshold).savefig(path)
    return path


def win_rates_figure(histogram: Histogram, *, threshold: float | None = None) -> Figure:
    """The win-rate histogram, with the filter threshold as a dashed line and a count axis that starts at 0."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(7, 4), dpi=110)  # not pyplot: no global state, no display needed
    ax = fig.subplots()
    widths = [b - a for a, b in zip(histogram.edges, histogram.edges[1:], strict=False)]
    ax.bar(histogram.edges[:-1], histogram.counts, width=widths, align="edge", color="#4c72b0", edgecolor="white")
    if threshold is not None:
        ax.axvline(threshold, color="#c44e52", linestyle="--", label=f"max win rate {threshold:g}")
        ax.legend()
    ax.set_xlim(0, 1)
    # Autoscaling centres all-zero counts on 0 and draws a negative axis; counts are whole and never below 0.
    ax.set_ylim(0, max(max(histogram.counts, default=0) * 1.05, 1))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("historical win rate")
    ax.set_ylabel("problems")
    total = sum(histogram.counts)
    ax.set_title(f"Win rates of {total:,} problems ({histogram.missing:,} without one, not shown)")
    fig.tight_layout()
    return fig
