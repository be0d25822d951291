"""A bounded load test: 200 requests, 16 at a time, through a real server; none lost, memory flat."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "load.py"


@pytest.mark.slow
def test_200_requests_16_concurrent_none_lost_memory_flat() -> None:
    spec = importlib.util.spec_from_file_location("kimina_api_bench_load", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # dataclasses look their module up there
    spec.loader.exec_module(bench)

    report = bench.run(requests=200, concurrency=16, warmup=32)
    figures = "\n".join(report.lines())

    assert report.statuses == {200: 200}, figures  # every request answered, none refused or failed
    assert report.attempts == 200, figures
    assert report.proved == 200, figures  # every replayed completion is a real, accepted proof
    assert (report.in_flight_after, report.queued_after) == (0, 0), figures
    assert report.rss_after_mb - report.rss_before_mb < 25, figures
