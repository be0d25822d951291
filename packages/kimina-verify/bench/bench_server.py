"""Benchmark the verification server with lean-repl-sim REPLs and a cost model taken from real Lean runs.

Cost model: each REPL imports its header in 3 s; each proof takes a time drawn from the `repl_time_s` recorded by
kimina-lean-server on real Lean (data/recorded_verdicts.jsonl: median 1.2 s, mean 3.8 s, max 42 s).
Every time is multiplied by --scale (default 0.02) so the whole run takes minutes; efficiency is a ratio of times,
so it is what it would be unscaled, except that fixed per-check overheads (HTTP, JSON, pipes) weigh --scale-fold
more here than against real Lean. The sim sleeps instead of computing, so REPLs do not compete for the 2 cores.

Reports, per REPL count: throughput, p50/p99 request latency, and efficiency = ideal / measured, where
ideal = sum of proof times / REPLs. Then the gain from import reuse (reuse=True vs a fresh REPL per check) and
from in-flight de-duplication on a GRPO-shaped batch (256 prompts x 8 samples, duplicate rate --dup-rate, assumed).

Run: uv run --package kimina-verify python packages/kimina-verify/bench/bench_server.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

import httpx
from kimina_format.testing import data_file

HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\n"
IMPORT_S = 3.0


def recorded_times() -> list[float]:
    with open(data_file("recorded_verdicts.jsonl"), encoding="utf-8") as rows:
        times = [json.loads(line).get("repl_time_s") for line in rows]
    return [float(t) for t in times if isinstance(t, int | float)]


@dataclass
class Proof:
    code: str
    seconds: float  # scaled cost of this proof on a REPL


def proof(name: str, seconds: float, tag: str = "") -> Proof:
    code = f"{HEADER}theorem {name} : True := by\n  trivial -- sim: sleep {seconds:.5f}{tag}"
    return Proof(code, seconds)


@dataclass
class RunResult:
    elapsed: float
    latencies: list[float]
    checks: int
    errors: int


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """`python -m kimina_verify.server` in its own process, with lean-repl-sim REPLs."""

    def __init__(self, repls: int, scale: float) -> None:
        sim = [sys.executable, "-m", "kimina_verify.sim", "--import-latency", str(IMPORT_S), "--time-scale", str(scale)]
        self.url = f"http://127.0.0.1:{free_port()}"
        argv = [
            sys.executable, "-m", "kimina_verify.server", "--port", self.url.rsplit(":", 1)[1],
            "--max-repls", str(repls), "--max-queue", "100000", "--timeout", "300", "--log-level", "WARNING",
            "--repl-cmd", shlex.join(sim),
        ]  # fmt: skip
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def __enter__(self) -> Server:
        deadline = time.monotonic() + 120
        while True:
            if self.proc.poll() is not None:
                sys.exit(f"server failed to start: {self.proc.stderr.read().decode() if self.proc.stderr else ''}")
            try:
                if httpx.get(f"{self.url}/health").status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                sys.exit("server did not start within 120 s")
            time.sleep(0.1)

    def __exit__(self, *exc: object) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)


async def run(url: str, proofs: list[Proof], clients: int, batch: int, reuse: bool = True) -> RunResult:
    """Closed loop: `clients` concurrent clients, each sending `batch` proofs per request until none are left."""
    queue = [proofs[i : i + batch] for i in range(0, len(proofs), batch)]
    queue.reverse()
    latencies: list[float] = []
    errors = 0
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=3600) as http:

        async def client() -> None:
            nonlocal errors
            while queue:
                group = queue.pop()
                body = {"snippets": [{"id": str(i), "code": p.code} for i, p in enumerate(group)], "reuse": reuse}
                sent = time.monotonic()
                response = await http.post("/api/check", json=body)
                latencies.append(time.monotonic() - sent)
                response.raise_for_status()
                errors += sum(not ok(r) for r in response.json()["results"])

        started = time.monotonic()
        await asyncio.gather(*(client() for _ in range(clients)))
    return RunResult(time.monotonic() - started, latencies, len(proofs), errors)


def ok(result: dict[str, object]) -> bool:
    """Every benchmark proof is valid: anything else is a failure of the run, not a verdict."""
    response = result.get("response")
    return isinstance(response, dict) and not response.get("messages") and not response.get("sorries")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def scaling(times: list[float], args: argparse.Namespace, rng: random.Random) -> None:
    print(f"\n## Throughput and latency (scale {args.scale}: 3 s import -> {IMPORT_S * args.scale:.3f} s)\n")
    print(f"{args.per_repl} proofs per REPL; {args.batch} proofs per request; clients = 2 x REPLs (closed loop).\n")
    print("| REPLs | proofs | ideal s | measured s | efficiency | proofs/s | p50 request s | p99 request s | errors |")
    print("|---|---|---|---|---|---|---|---|---|")
    for repls in args.repls:
        proofs = [proof(f"p{repls}_{i}", rng.choice(times) * args.scale) for i in range(args.per_repl * repls)]
        ideal = sum(p.seconds for p in proofs) / repls
        with Server(repls, args.scale) as server:
            result = asyncio.run(run(server.url, proofs, clients=2 * repls, batch=args.batch))
        print(
            f"| {repls} | {len(proofs)} | {ideal:.1f} | {result.elapsed:.1f} | {ideal / result.elapsed:.2f} | "
            f"{result.checks / result.elapsed:.1f} | {percentile(result.latencies, 0.5):.3f} | "
            f"{percentile(result.latencies, 0.99):.3f} | {result.errors} |",
            flush=True,
        )


def reuse_gain(times: list[float], args: argparse.Namespace, rng: random.Random) -> None:
    """reuse=True against reuse=False (a fresh REPL, hence a fresh import, for every proof).

    Runs at --reuse-scale: starting a sim process costs ~0.1-0.3 s that no scale shrinks, so at a small scale it
    would dwarf the scaled import and overstate the gain.
    """
    repls, scale = 8, args.reuse_scale
    proofs = [proof(f"r{i}", rng.choice(times) * scale) for i in range(args.reuse_proofs)]
    with Server(repls, scale) as server:
        warm = asyncio.run(run(server.url, proofs, clients=2 * repls, batch=args.batch))
        cold = asyncio.run(run(server.url, proofs, clients=2 * repls, batch=args.batch, reuse=False))
    mean = sum(p.seconds for p in proofs) / len(proofs)
    print(f"\n## Import reuse ({repls} REPLs, {len(proofs)} proofs, scale {scale}: import {IMPORT_S * scale:.2f} s)\n")
    print("| mode | seconds | proofs/s | errors |\n|---|---|---|---|")
    print(
        f"| reuse=True (header imported once per REPL) | {warm.elapsed:.1f} | {warm.checks / warm.elapsed:.1f} | {warm.errors} |"
    )
    print(
        f"| reuse=False (new REPL + import per proof) | {cold.elapsed:.1f} | {cold.checks / cold.elapsed:.1f} | {cold.errors} |"
    )
    modelled = (mean + IMPORT_S * scale) / mean
    print(f"\nGain from import reuse: {cold.elapsed / warm.elapsed:.2f}x measured; the cost model alone predicts")
    print(f"{modelled:.2f}x ((mean proof + import) / mean proof); REPL start-up and the heavy tail of proof times")
    print("move the measured figure around it.")


def grpo_batch(times: list[float], args: argparse.Namespace, rng: random.Random) -> tuple[list[Proof], list[Proof]]:
    """256 prompts x 8 samples; a sample repeats an earlier sample of its group with probability --dup-rate."""
    shared, distinct = [], []
    for prompt in range(256):
        group: list[Proof] = []
        for sample in range(8):
            if group and rng.random() < args.dup_rate:
                chosen = rng.choice(group)
            else:
                chosen = proof(f"g{prompt}_{sample}", rng.choice(times) * args.scale)
            group.append(chosen)
            shared.append(chosen)
            # The same work with the text made unique: what a server without de-duplication would run.
            distinct.append(Proof(f"{chosen.code}\n-- sample {prompt}.{sample}", chosen.seconds))
    return shared, distinct


def dedup_gain(times: list[float], args: argparse.Namespace, rng: random.Random) -> None:
    repls = 8
    shared, distinct = grpo_batch(times, args, rng)
    unique = len({p.code for p in shared})
    with Server(repls, args.scale) as server:
        # One request per prompt group, as a reward loop scoring a group at a time sends them.
        with_dedup = asyncio.run(run(server.url, shared, clients=16, batch=8))
        without = asyncio.run(run(server.url, distinct, clients=16, batch=8))
    print(f"\n## De-duplication (GRPO batch: 256 prompts x 8 samples, {repls} REPLs)\n")
    print(f"Assumed duplicate rate {args.dup_rate:.0%}: {len(shared) - unique} of {len(shared)} samples repeat")
    print("another sample of their group (the repository data holds one completion per problem, so no rate can be")
    print("measured from it).\n")
    print("| server | seconds | samples/s | errors |\n|---|---|---|---|")
    print(
        f"| without de-duplication | {without.elapsed:.1f} | {len(distinct) / without.elapsed:.1f} | {without.errors} |"
    )
    print(
        f"| with in-flight de-duplication | {with_dedup.elapsed:.1f} | {len(shared) / with_dedup.elapsed:.1f} | {with_dedup.errors} |"
    )
    print(
        f"\nGain from de-duplication: {without.elapsed / with_dedup.elapsed:.2f}x (ideal {len(shared) / unique:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.02, help="multiply every modelled time by this")
    parser.add_argument("--repls", type=int, nargs="+", default=[1, 4, 8, 16])
    parser.add_argument("--per-repl", type=int, default=300, help="proofs per REPL in the scaling runs")
    parser.add_argument("--batch", type=int, default=4, help="proofs per request")
    parser.add_argument("--reuse-proofs", type=int, default=200)
    parser.add_argument("--reuse-scale", type=float, default=0.2, help="time scale of the import-reuse runs")
    parser.add_argument("--dup-rate", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--only", choices=["scaling", "reuse", "dedup"], nargs="+", default=["scaling", "reuse", "dedup"]
    )
    args = parser.parse_args()
    times = recorded_times()
    rng = random.Random(args.seed)
    print(f"# kimina-verify server benchmark ({os.cpu_count()} cores, {len(times)} recorded proof times,")
    print(f"# median {statistics.median(times):.2f} s, mean {statistics.mean(times):.2f} s unscaled)")
    if "scaling" in args.only:
        scaling(times, args, rng)
    if "reuse" in args.only:
        reuse_gain(times, args, rng)
    if "dedup" in args.only:
        dedup_gain(times, args, rng)


if __name__ == "__main__":
    main()
