"""Benchmark: 100,000 synthetic NuminaMath-LEAN rows through normalise, decontaminate, filter, de-duplicate, weight, export.

Runs on one core (CPU affinity and Arrow's thread pools pinned to 1). Target: under 60 s for these six steps.
Loading (JSON Lines to the checked canonical table) and reading the miniF2F reference are timed too, but are not part
of the target. The reference is the miniF2F file shipped with kimina-data.

    .venv/bin/python packages/kimina-data/bench/bench_pipeline.py [--rows 100000]
"""

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TARGET_S = 60.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    import datasets
    import pyarrow

    pyarrow.set_cpu_count(1)
    pyarrow.set_io_thread_count(1)
    datasets.disable_progress_bars()

    from kimina_data.references import MINIF2F, load_reference
    from kimina_data.sources import SourceSpec, load_source
    from kimina_data.steps import decontaminate, deduplicate, filter_win_rate, normalise, to_verl, weight, write_parquet
    from kimina_data.testing import synthetic_numina_rows

    cpu: list[float] = []

    def timed(name: str, run: Callable[[], Any]) -> Any:
        started, started_cpu = time.perf_counter(), time.process_time()
        result = run()
        seconds, cpu_s = time.perf_counter() - started, time.process_time() - started_cpu
        cpu.append(cpu_s)
        rows = f"{len(result):>9,} rows" if hasattr(result, "__len__") else ""
        print(f"  {name:<14} {seconds:7.2f} s wall {cpu_s:7.2f} s CPU  {rows}")
        return result, seconds

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "numina_synthetic.jsonl"
        with source.open("w") as f:
            for row in synthetic_numina_rows(args.rows, seed=1):
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{args.rows:,} synthetic NuminaMath-LEAN rows, one core")
        loaded, load_s = timed("load", lambda: load_source(SourceSpec(str(source))).table)
        reference, reference_s = timed("reference", lambda: load_reference([MINIF2F]))
        table, t1 = timed("normalise", lambda: normalise(loaded))
        table, t2 = timed("decontaminate", lambda: decontaminate(table, reference.keys)[0])
        table, t3 = timed("filter", lambda: filter_win_rate(table))
        table, t4 = timed("deduplicate", lambda: deduplicate(table))
        table, t5 = timed("weight", lambda: weight(table))
        _, t6 = timed("export", lambda: write_parquet(to_verl(table, split="train"), Path(tmp) / "train.parquet"))
        size = (Path(tmp) / "train.parquet").stat().st_size
    total = t1 + t2 + t3 + t4 + t5 + t6
    verdict = "PASS" if total < TARGET_S else "FAIL"
    print(f"normalise+decontaminate+filter+dedup+weight+export: {total:.1f} s wall ({sum(cpu[2:]):.1f} s CPU) for "
          f"{args.rows:,} rows ({args.rows / total:,.0f} rows/s; target < {TARGET_S:.0f} s: {verdict}); "
          f"load {load_s:.1f} s; miniF2F reference {reference_s:.1f} s; parquet {size / 1e6:.1f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
