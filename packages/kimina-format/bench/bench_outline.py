"""What `lean_decls.outline` (lexing included) costs on many declarations: it must stay linear in their number.

The red team of issue 16 measured the outline quadratic (7.5k / 15k / 30k one-line declarations: 1.65 s / 4.3 s /
15 s): each declaration looked its end up with a scan of every command start and counted its line from the start of
the text. Prints, for each size, the seconds and the microseconds per declaration (flat when linear). Measured
(2026-12-02, a shared 2-core machine at load 7): 0.62 s / 1.50 s / 3.00 s, 83-100 us per declaration; 1.8 s for 30k
at a lower load.

Run: uv run --package kimina-format python packages/kimina-format/bench/bench_outline.py
"""

from __future__ import annotations

import argparse
import time

from kimina_format.lean_statement import LeanText


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[7_500, 15_000, 30_000])
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    print(f"{'declarations':>12} {'KB':>6} {'seconds':>8} {'us/decl':>8}")
    for n in args.sizes:
        text = "example:True:=trivial\n" * n + "theorem t : True := trivial\n"
        best = float("inf")
        for _ in range(args.repeat):
            LeanText.of.cache_clear()
            started = time.perf_counter()
            assert len(LeanText.of(text).declarations) == n + 1
            best = min(best, time.perf_counter() - started)
        print(f"{n:>12} {len(text) // 1000:>6} {best:>8.2f} {best / n * 1e6:>8.1f}")


if __name__ == "__main__":
    main()
