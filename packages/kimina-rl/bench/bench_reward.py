"""Reward throughput against the stand-in verification server, with and without cross-call micro-batching.

Run: .venv/bin/python packages/kimina-rl/bench/bench_reward.py [--samples 512] [--latency 0.0] [--repls 8]

Scores real Kimina completions concurrently, as verl's reward worker does (one call per sample, all in flight),
through kimina-rl's per-process Scorer. The stand-in REPLs sleep `--latency` seconds per proof to model Lean time.
"""

import argparse
import asyncio
import json
import time
from dataclasses import replace

from kimina_format.testing import data_file
from kimina_rl.scoring import RewardProblem
from kimina_rl.service import Scorer
from kimina_rl.settings import Settings
from kimina_verify import Endpoint, Retries, Verifier, VerifierOptions, verify_sync
from kimina_verify.testing import sim_server


async def run(rows: list[dict], settings: Settings, print_axioms: bool) -> tuple[float, int]:
    verifier = Verifier(replace(settings.verifier, checks=replace(settings.verifier.checks, print_axioms=print_axioms)))
    scorer = Scorer(settings, verifier=verifier)
    problems = [RewardProblem.from_row("minif2f", None, {"formal_statement": r["formal_statement"]}) for r in rows]
    started = time.perf_counter()
    attempts = await asyncio.gather(*(scorer.attempt(r["completion"], p) for r, p in zip(rows, problems, strict=True)))
    elapsed = time.perf_counter() - started
    assert all(a.verdict is not None for a in attempts if a.code is not None)
    calls = scorer.verification_calls
    await scorer.aclose()
    return elapsed, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=512)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per proof in each stand-in REPL")
    parser.add_argument("--repls", type=int, default=8)
    args = parser.parse_args()
    rows = [json.loads(line) for line in data_file("kimina_completions.jsonl").read_text().splitlines()]
    # Distinct texts, so the verifier's in-flight de-duplication does not hide the load.
    rows = [
        {**r, "completion": r["completion"].replace(":= by", f":= by\n  -- variant {i}", 1)}
        for i, r in enumerate(rows * (args.samples // len(rows) + 1))
    ][: args.samples]
    with sim_server(max_repls=args.repls, latency=args.latency, max_queue=100_000) as url:
        (probe,) = verify_sync(
            ["theorem t : True := trivial"], VerifierOptions(Endpoint(url), retries=Retries(count=0))
        )
        print_axioms = probe.ok  # the stand-in may not answer `#print axioms` yet
        print(f"{args.samples} samples, {args.repls} stand-in REPLs x {args.latency * 1000:.0f} ms per proof")
        for label, overrides in [
            ("micro-batched (5 ms window, <= 256)", {}),
            ("one proof per call (no batching)", {"max_batch_size": 1, "batch_window_ms": 0}),
        ]:
            settings = Settings.from_mapping({"verifier": {"endpoint": {"url": url}}, "scorer": overrides})
            elapsed, calls = asyncio.run(run(rows, settings, print_axioms))
            print(
                f"  {label:38s} {elapsed:6.2f} s  {args.samples / elapsed:7.1f} samples/s  "
                f"{calls:4d} verification calls ({args.samples / max(calls, 1):.0f} proofs each)"
            )
    bound = args.samples * args.latency / args.repls
    print(f"  lower bound from REPL time alone:      {bound:6.2f} s")


if __name__ == "__main__":
    main()
