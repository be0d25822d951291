"""Throughput of `check_format` on the 197 real Kimina completions, on one core, as a ratio to upstream's checker.

    python packages/kimina-format/bench/bench_check.py [--repeat 20] [--upstream PATH] [--profile]

Each pass checks every completion once, with its formal statement (so the statement rule runs too), in one thread.
The statement cache is cleared before each pass, so a pass does all the work a fresh batch of distinct problems
would. Passes of upstream's checker alternate with ours, so both see the same machine: its speed drifts by up to 2x
from minute to minute here, which makes the ratio taken in one run the figure to compare, not completions/s taken
at different times. Prints the best and median pass as completions/s and MB/s (UTF-8 bytes of the completions),
timed by the process's CPU time (what one core spends, even when other work shares the machine) and by the wall
clock, and the ratio of the best CPU passes (the target: at least 3.5x).

Upstream's checker is `upstream_format.py` beside this script, a re-implementation of upstream's `format_reward.py`
(kimina-prover-rl is on no package registry, so it cannot be installed here). With `--upstream PATH`, a checkout of
kimina-prover-rl, upstream's own `format_reward.py` is run as shipped instead (it needs numpy, which its
`proof_utils.py` imports), and the verdicts of the re-implementation are compared with it.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import importlib.util
import json
import pstats
import statistics
import sys
import time
import types
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from kimina_format import check_format
from kimina_format.lean_statement import LeanText
from kimina_format.lean_statement_fast import plain_statement
from kimina_format.testing import data_file
from upstream_format import upstream_check  # beside this script, so on sys.path when it runs

Items = list[tuple[str, str]]
Checker = Callable[[str, str], str]
TARGET_RATIO = 3.5
_REWARD_DIR = Path("recipe/kimina_prover_rl/kimina_prover_rl/reward")


def ours(items: Items) -> None:
    plain_statement.cache_clear()
    LeanText.of.cache_clear()
    for completion, statement in items:
        check_format(completion, formal_statement=statement)


def upstream_pass(check: Checker) -> Callable[[Items], None]:
    def run(items: Items) -> None:
        for completion, statement in items:
            check(completion, statement)

    return run


def shipped_checker(checkout: Path) -> Checker:
    """Upstream's own `FormatReward().check_format_error`, loaded from a kimina-prover-rl checkout as shipped.

    Only the reward modules are loaded: the two package `__init__` files are replaced by empty packages, so that
    nothing else of the recipe (verl, the Lean client) is imported.
    """
    reward = checkout / _REWARD_DIR
    if not (reward / "format_reward.py").is_file():
        sys.exit(
            f"error: {reward / 'format_reward.py'} not found: --upstream takes the root of a kimina-prover-rl checkout"
        )
    if importlib.util.find_spec("numpy") is None:
        sys.exit("error: upstream's proof_utils.py imports numpy: install it (pip install numpy) to run --upstream")
    for name, folder in (("kimina_prover_rl", reward.parent), ("kimina_prover_rl.reward", reward)):
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        sys.modules[name] = package
    module = importlib.import_module("kimina_prover_rl.reward.format_reward")
    reward_func = module.FormatReward()

    def check(completion: str, statement: str) -> str:
        error, _, _ = reward_func.check_format_error(completion, statement)
        return str(error.name)

    return check


def timed(run: Callable[[Items], None], items: Items) -> tuple[float, float]:
    """Run one pass; return (CPU seconds, wall seconds)."""
    cpu, wall = time.process_time(), time.perf_counter()
    run(items)
    return time.process_time() - cpu, time.perf_counter() - wall


def report(name: str, passes: list[tuple[float, float]], count: int, megabytes: float) -> None:
    for clock, times in (("cpu", [p[0] for p in passes]), ("wall", [p[1] for p in passes])):
        for label, seconds in (("best", min(times)), ("median", statistics.median(times))):
            print(
                f"{name:<9} {clock:>4} {label:<6} {count / seconds:8.0f} completions/s {megabytes / seconds:7.1f} MB/s"
                f"  ({seconds * 1e3:.1f} ms per pass)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20, help="timed passes over the data (default: %(default)s)")
    parser.add_argument(
        "--upstream", type=Path, help="a kimina-prover-rl checkout: time its format_reward.py as shipped"
    )
    parser.add_argument("--profile", action="store_true", help="print the top functions of one profiled pass")
    args = parser.parse_args()

    with open(data_file("kimina_completions.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    items = [(r["completion"], r["formal_statement"]) for r in rows]
    megabytes = sum(len(c.encode()) for c, _ in items) / 1e6

    peer: Checker = upstream_check
    source = "bench/upstream_format.py, upstream's checker re-implemented"
    if args.upstream is not None:
        peer = shipped_checker(args.upstream)
        source = f"format_reward.py as shipped in {args.upstream}"
        agree = sum(peer(c, s) == upstream_check(c, s) for c, s in items)
        print(f"upstream_format.py gives upstream's verdict on {agree} of {len(items)} completions")
    print(f"upstream's verdicts: {dict(Counter(peer(c, s) for c, s in items).most_common())}")

    runs = {"ours": ours, "upstream": upstream_pass(peer)}
    for run in runs.values():
        run(items)  # warm-up: imports, regex compilation, allocator
    passes: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(args.repeat):
        for name, run in runs.items():
            passes[name].append(timed(run, items))

    print(f"{len(items)} completions, {megabytes:.2f} MB, {args.repeat} passes each, python {sys.version.split()[0]}")
    print("timed: check_format(completion, formal_statement=...) alone, one thread, statement cache cleared per pass;")
    print(f"       passes of upstream's checker ({source}) alternate with ours")
    for name, times in passes.items():
        report(name, times, len(items), megabytes)
    best = {name: min(cpu for cpu, _ in times) for name, times in passes.items()}
    ratio = best["upstream"] / best["ours"]
    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
    print(f"ours is {ratio:.2f}x upstream's checker (best CPU passes); this {verdict} the target of {TARGET_RATIO}x")

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        ours(items)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
