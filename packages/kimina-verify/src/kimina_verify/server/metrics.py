"""Counters, gauges and a histogram rendered in the Prometheus text format for `GET /metrics`."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

__all__ = ["Histogram", "LATENCY_BUCKETS", "Metrics"]

LATENCY_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)


class Histogram:
    """Cumulative buckets, a sum and a count, as Prometheus expects."""

    def __init__(self, buckets: Iterable[float] = LATENCY_BUCKETS) -> None:
        self.bounds = tuple(sorted(buckets))
        self.counts = [0] * (len(self.bounds) + 1)
        self.total = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        """Record one value."""
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.total += value
        self.count += 1

    def lines(self, name: str) -> list[str]:
        """The exposition lines for this histogram."""
        out, running = [], 0
        for bound, count in zip(self.bounds, self.counts, strict=False):
            running += count
            out.append(f'{name}_bucket{{le="{bound:g}"}} {running}')
        out.append(f'{name}_bucket{{le="+Inf"}} {self.count}')
        out.append(f"{name}_sum {self.total:.6f}")
        out.append(f"{name}_count {self.count}")
        return out


class Metrics:
    """Everything the server counts; gauges are read live from the pool when rendered."""

    def __init__(self) -> None:
        self.checks: defaultdict[str, int] = defaultdict(int)
        self.restarts: defaultdict[str, int] = defaultdict(int)
        self.rejected: defaultdict[str, int] = defaultdict(int)
        self.dedup_hits = 0
        self.repl_starts = 0
        self.check_seconds = Histogram()
        self.queue_seconds = Histogram()
        self.import_seconds = Histogram()

    def render(self, gauges: Mapping[str, float], repls: Mapping[str, int]) -> str:
        """The whole /metrics page."""
        lines: list[str] = []

        def family(name: str, kind: str, help_text: str, body: Callable[[], Iterable[str]]) -> None:
            lines.append(f"# HELP {name} {help_text}")
            lines.append(f"# TYPE {name} {kind}")
            lines.extend(body())

        family("kimina_queue_depth", "gauge", "Checks waiting for a REPL.", lambda: [_g("kimina_queue_depth", gauges)])
        family(
            "kimina_checks_running", "gauge", "Checks running on a REPL.", lambda: [_g("kimina_checks_running", gauges)]
        )
        family(
            "kimina_repl_slots",
            "gauge",
            "REPL processes allowed (max_repls).",
            lambda: [_g("kimina_repl_slots", gauges)],
        )
        family(
            "kimina_repls",
            "gauge",
            "REPL slots by state: busy, idle (a warm REPL waiting), empty (no process).",
            lambda: [f'kimina_repls{{state="{k}"}} {v}' for k, v in sorted(repls.items())],
        )
        family(
            "kimina_checks_total",
            "counter",
            "Checks finished, by outcome.",
            lambda: [f'kimina_checks_total{{outcome="{k}"}} {v}' for k, v in sorted(self.checks.items())],
        )
        family(
            "kimina_check_duration_seconds",
            "histogram",
            "Time of the body command on a REPL.",
            lambda: self.check_seconds.lines("kimina_check_duration_seconds"),
        )
        family(
            "kimina_queue_wait_seconds",
            "histogram",
            "Time a check waited for a REPL.",
            lambda: self.queue_seconds.lines("kimina_queue_wait_seconds"),
        )
        family(
            "kimina_header_import_seconds",
            "histogram",
            "Time to run a header (imports) on a new REPL.",
            lambda: self.import_seconds.lines("kimina_header_import_seconds"),
        )
        family(
            "kimina_dedup_hits_total",
            "counter",
            "Snippets answered by an identical check already in flight (cache hits).",
            lambda: [f"kimina_dedup_hits_total {self.dedup_hits}"],
        )
        family(
            "kimina_repl_starts_total",
            "counter",
            "REPL processes started.",
            lambda: [f"kimina_repl_starts_total {self.repl_starts}"],
        )
        family(
            "kimina_repl_restarts_total",
            "counter",
            "REPL processes replaced, by reason.",
            lambda: [f'kimina_repl_restarts_total{{reason="{k}"}} {v}' for k, v in sorted(self.restarts.items())],
        )
        family(
            "kimina_rejected_requests_total",
            "counter",
            "Requests refused, by reason.",
            lambda: [f'kimina_rejected_requests_total{{reason="{k}"}} {v}' for k, v in sorted(self.rejected.items())],
        )
        return "\n".join(lines) + "\n"


def _g(name: str, gauges: Mapping[str, float]) -> str:
    return f"{name} {gauges.get(name, 0):g}"
