"""Load test: many prove requests at once against a real uvicorn server; prints throughput, latency and memory.

The engine replays real Kimina-Prover completions (so every request is verified, and most are valid) and the
verifier is the stand-in server (kimina_verify.testing.sim_server), so the figures measure the API itself.

    .venv/bin/python apps/api/bench/load.py --requests 200 --concurrency 16
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import socket
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from kimina_api.app import create_app
from kimina_api.settings import Settings
from kimina_format.testing import data_file
from kimina_verify.testing import sim_server


@dataclass
class LoadReport:
    requests: int
    concurrency: int
    statuses: Counter[int] = field(default_factory=Counter)
    proved: int = 0
    attempts: int = 0
    latencies_s: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    rss_before_mb: float = 0.0
    rss_after_mb: float = 0.0
    in_flight_after: int = -1
    queued_after: int = -1

    def lines(self) -> list[str]:
        lat = sorted(self.latencies_s)
        p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]  # noqa: E731
        return [
            f"requests      {self.requests} ({self.concurrency} concurrent)",
            f"statuses      {dict(sorted(self.statuses.items()))}",
            f"answered      {sum(self.statuses.values())} of {self.requests}; attempts {self.attempts}; proved {self.proved}",
            f"throughput    {self.requests / self.wall_s:.1f} requests/s over {self.wall_s:.1f} s",
            f"latency       p50 {p(0.5) * 1000:.0f} ms, p95 {p(0.95) * 1000:.0f} ms, max {lat[-1] * 1000:.0f} ms,"
            f" mean {statistics.mean(lat) * 1000:.0f} ms",
            f"memory (RSS)  {self.rss_before_mb:.1f} MB after warm-up -> {self.rss_after_mb:.1f} MB after the run"
            f" ({self.rss_after_mb - self.rss_before_mb:+.1f} MB)",
            f"after         in flight {self.in_flight_after}, queued {self.queued_after}",
        ]


def rss_mb() -> float:
    """This process's resident memory (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def load_problems() -> tuple[list[str], dict[str, str]]:
    """The statements Kimina-Prover was given (header included), and its accepted completions by theorem name.

    These statements are Numina's corrected miniF2F: for 7 problems they differ from data/minif2f.jsonl, and
    a proof of one statement is (rightly) rejected as an integrity violation for the other.
    """
    statements: dict[str, str] = {}
    completions: dict[str, str] = {}
    for line in data_file("kimina_completions.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        statements.setdefault(row["name"], row["formal_statement"])
        completions.setdefault(row["name"], row["completion"])
    return list(statements.values()), completions


class ReplayEngine:
    """An engine that answers with the real completion of the theorem in the prompt (and, unlike the test helper
    ScriptedEngine, keeps no log of its calls, which would grow with the run)."""

    _name = re.compile(r"theorem\s+(\S+)")

    def __init__(self, completions: dict[str, str]) -> None:
        self.completions = completions

    def generate(self, prompts: list[list[dict[str, str]]], n: int, sampling: Any) -> list[list[str]]:
        return [[self._reply(prompt)] * n for prompt in prompts]

    def _reply(self, messages: list[dict[str, str]]) -> str:
        match = self._name.search(messages[-1]["content"])
        assert match is not None
        return self.completions[match.group(1)]


async def fire(url: str, bodies: list[dict[str, Any]], concurrency: int, report: LoadReport) -> None:
    """Send every body, `concurrency` at a time, recording status and latency of each."""
    gate = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:

        async def one(body: dict[str, Any]) -> None:
            async with gate:
                start = time.perf_counter()
                response = await client.post("/v1/prove", json=body)
                report.latencies_s.append(time.perf_counter() - start)
                report.statuses[response.status_code] += 1
                if response.status_code == 200:
                    result = response.json()
                    report.proved += result["proved"]
                    report.attempts += len(result["attempts"])

        await asyncio.gather(*(one(body) for body in bodies))


def run(requests: int = 200, concurrency: int = 16, warmup: int = 32, n: int = 1) -> LoadReport:
    """Serve the API in this process and load it; returns the figures."""
    problems, completions = load_problems()
    bodies = [{"formal_statement": problems[i % len(problems)], "n": n} for i in range(warmup + requests)]
    report = LoadReport(requests=requests, concurrency=concurrency)
    with sim_server() as verifier_url:
        settings = Settings(
            verifier={"endpoint": {"url": verifier_url}},
            max_concurrency=concurrency,
            max_queue=4 * concurrency,
        )
        app = create_app(settings, engine=ReplayEngine(completions))
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.02)
        url = f"http://127.0.0.1:{port}"
        try:
            asyncio.run(fire(url, bodies[:warmup], concurrency, LoadReport(warmup, concurrency)))
            gc.collect()
            report.rss_before_mb = rss_mb()
            start = time.perf_counter()
            asyncio.run(fire(url, bodies[warmup:], concurrency, report))
            report.wall_s = time.perf_counter() - start
            gc.collect()
            report.rss_after_mb = rss_mb()
            service = app.state.service
            report.in_flight_after, report.queued_after = service.limiter.active, service.limiter.waiting
        finally:
            server.should_exit = True
            thread.join(timeout=30)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--warmup", type=int, default=32)
    parser.add_argument("--n", type=int, default=1, help="attempts per request")
    args = parser.parse_args()
    report = run(args.requests, args.concurrency, args.warmup, args.n)
    print("\n".join(report.lines()))


if __name__ == "__main__":
    main()
