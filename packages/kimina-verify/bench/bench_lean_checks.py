"""What the checks run in Lean add per check: REPL commands, and time on lean-repl-sim REPLs.

The same real proofs (the 242 accepted miniFF2 proofs of three open provers, each against its miniF2F statement,
repeated `--samples` times as a GRPO group would send them) go through the `Verifier` twice in alternation on one
server with sim REPLs: with the checks in Lean (`lean_checks=True`: the snippet, then one follow-up command with
the nonce and the target's checks, and the statement elaborated once per statement and header) and with the
fallback (`lean_checks=False`: `#print axioms` appended; the server still confirms each reply with a nonce command).
Every sim command costs `--latency` seconds (the sim sleeps), so time differences are command counts made visible;
the nonce command alone is what replies that cannot be forged cost, and the checks what they add on top of it.

Run: uv run --package kimina-verify python packages/kimina-verify/bench/bench_lean_checks.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

from kimina_format.testing import data_file
from kimina_verify import Checks, Endpoint, Limits, Retries, Timeouts, Verifier, VerifierOptions, VerifyItem
from kimina_verify.server import repl as repl_module
from kimina_verify.testing import ServerThread, sim_settings

PROVERS = ("deepseek-ai/DeepSeek-Prover-V2-7B", "Goedel-LM/Goedel-Prover-SFT", "AI-MO/Kimina-Prover-Preview-Distill-7B")
COMMANDS = {"n": 0}


def items(samples: int) -> list[VerifyItem]:
    with open(data_file("minif2f.jsonl"), encoding="utf-8") as rows:
        statements = {r["name"]: r["header"] + r["formal_statement"] for r in map(json.loads, rows)}
    with open(data_file("recorded_verdicts.jsonl"), encoding="utf-8") as rows:
        proofs = [r for r in map(json.loads, rows) if r["verdict"] and r["model"] in PROVERS]
    # Distinct texts per sample (a trailing comment), so neither the cache nor de-duplication hides the work.
    return [
        VerifyItem(r["full_code"] + f"\n-- sample {k}", statements[r["name"]]) for r in proofs for k in range(samples)
    ]


def count_commands() -> None:
    """Count every `cmd` a REPL runs (the header, snippets, follow-ups, statements)."""
    original = repl_module.ReplProcess.run

    async def run(self: Any, command: dict[str, Any], timeout: float) -> dict[str, Any]:
        COMMANDS["n"] += 1
        return await original(self, command, timeout)

    repl_module.ReplProcess.run = run  # type: ignore[method-assign]


async def one_run(url: str, batch: list[VerifyItem], lean_checks: bool) -> tuple[float, int, int]:
    before = COMMANDS["n"]
    started = time.monotonic()
    options = VerifierOptions(
        Endpoint(url), Timeouts(lean_s=60), Retries(count=0), Limits(batch_size=8), Checks(lean_checks=lean_checks)
    )
    async with Verifier(options) as verifier:
        verdicts = await verifier.verify(batch)
    elapsed = time.monotonic() - started
    valid = sum(v.ok for v in verdicts)
    return elapsed, COMMANDS["n"] - before, valid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=4, help="samples per problem (default 4)")
    parser.add_argument("--latency", type=float, default=0.02, help="sim seconds per command (default 0.02)")
    parser.add_argument("--repls", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs of each mode (default 3)")
    args = parser.parse_args()
    count_commands()
    batch = items(args.samples)
    distinct = len({item.formal_statement for item in batch})
    print(f"{len(batch)} checks, {distinct} distinct statements, {args.repls} REPLs, {args.latency} s per command")
    times: dict[bool, list[float]] = {True: [], False: []}
    commands: dict[bool, list[int]] = {True: [], False: []}
    for round_ in range(args.rounds):
        # A fresh server each round: the statement cache starts empty, as when a run starts.
        settings = sim_settings(max_repls=args.repls, timeout=60, latency=args.latency, max_queue=100_000)
        with ServerThread(settings) as server:
            for lean_checks in (round_ % 2 == 0, round_ % 2 == 1):
                elapsed, count, valid = asyncio.run(one_run(server.url, batch, lean_checks))
                assert valid == len(batch), f"{valid}/{len(batch)} valid with lean_checks={lean_checks}"
                times[lean_checks].append(elapsed)
                commands[lean_checks].append(count)
    for lean_checks in (False, True):
        label = "checks in Lean" if lean_checks else "appended #print axioms"
        per_check = statistics.mean(commands[lean_checks]) / len(batch)
        print(f"{label:24s} {per_check:.3f} REPL commands per check, {statistics.median(times[lean_checks]):.1f} s")
    ratio = statistics.median(times[True]) / statistics.median(times[False])
    extra = (statistics.mean(commands[True]) - statistics.mean(commands[False])) / len(batch)
    print(f"checks in Lean / fallback: {ratio:.2f}x the time, {extra:+.3f} commands per check")


if __name__ == "__main__":
    main()
