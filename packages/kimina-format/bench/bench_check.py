"""Throughput of `check_format` on the 197 real Kimina completions, on one core.

    python packages/kimina-format/bench/bench_check.py [--repeat 20] [--profile]

Each pass checks every completion once, with its formal statement (so the statement rule runs too), in one thread.
The statement cache is cleared before each pass, so a pass does all the work a fresh batch of distinct problems
would. Prints the best and median pass as completions/s and MB/s (UTF-8 bytes of the completions), timed by the
process's CPU time (what one core spends, even when other work shares the machine) and by the wall clock.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

from kimina_format import check_format
from kimina_format.statement import statement_key


def data_file() -> Path:
    override = os.environ.get("KIMINA_SHARED_DATA")
    folder = Path(override) if override else Path(__file__).resolve().parents[3].parent / "shared" / "data"
    path = folder / "kimina_completions.jsonl"
    if not path.is_file():
        sys.exit(f"bench: {path} not found (set KIMINA_SHARED_DATA to the shared data folder)")
    return path


def one_pass(items: list[tuple[str, str]]) -> tuple[float, float]:
    """Check every item once; return (CPU seconds, wall seconds)."""
    statement_key.cache_clear()
    cpu, wall = time.process_time(), time.perf_counter()
    for completion, statement in items:
        check_format(completion, formal_statement=statement)
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20, help="timed passes over the data (default: %(default)s)")
    parser.add_argument("--profile", action="store_true", help="print the top functions of one profiled pass")
    args = parser.parse_args()

    with open(data_file(), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    items = [(r["completion"], r["formal_statement"]) for r in rows]
    megabytes = sum(len(c.encode()) for c, _ in items) / 1e6

    one_pass(items)  # warm-up: imports, regex compilation, allocator
    passes = [one_pass(items) for _ in range(args.repeat)]
    print(f"{len(items)} completions, {megabytes:.2f} MB, {args.repeat} passes, python {sys.version.split()[0]}")
    print("timed: check_format(completion, formal_statement=...) alone, one thread, statement cache cleared per pass")
    for clock, times in (("cpu", [p[0] for p in passes]), ("wall", [p[1] for p in passes])):
        for label, seconds in (("best", min(times)), ("median", statistics.median(times))):
            print(
                f"{clock:>4} {label:<6} {len(items) / seconds:8.0f} completions/s {megabytes / seconds:7.1f} MB/s"
                f"  ({seconds * 1e3:.1f} ms per pass)"
            )

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        one_pass(items)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
