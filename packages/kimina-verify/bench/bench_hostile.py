"""What oversized and amplified requests cost the verification server, before and after the hostile-input guard.

Each scenario runs against a fresh server process (lean-repl-sim REPLs, an API key) and reports, from the server's
side: seconds until the client has its answer, the longest `/health` took to answer meanwhile (how long the event
loop was blocked), and the server's peak resident memory above its idle level.

- unauth_47mb: 1.2M tiny snippets (47 MB) sent without the API key.
- identical_300k: 300k identical snippets (16 MB), with the key.
- identical_1.2m: 1.2M identical snippets (47 MB), with the key.
- legit_4096: 4096 distinct snippets with the key (what a big honest batch costs, for scale).

`--before REF` runs the same scenarios on the server code of a git commit (extracted with `git archive`) and prints
before/after ratios from the same run. `--scale 0.25` shrinks every request (a quick look).

Run: uv run --package kimina-verify python packages/kimina-verify/bench/bench_hostile.py --before ed3eb65
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import httpx
import psutil

KEY = "bench-key"
# Sized like the requests of the issue that reported them: 300k snippets in 16 MB, 1.2M in 47 MB.
SHORT, LONG = "def x := 1 --", "theorem t : True := trivial"


@dataclass
class Figures:
    status: int
    seconds: float
    health_stall_s: float
    peak_mb: float


def body(n: int, code: str, *, identical: bool = True) -> bytes:
    """`n` snippets with distinct ids; identical code, or code that differs in a comment."""
    snippets = [{"id": str(i), "code": code if identical else f"{code} -- {i}"} for i in range(n)]
    return json.dumps({"snippets": snippets}, separators=(",", ":")).encode()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def server(src: Path | None) -> Iterator[tuple[str, psutil.Process]]:
    """A server process on a free port; `src` puts another kimina-verify source tree first on the path."""
    port = free_port()
    sim = shlex.join([sys.executable, "-m", "kimina_verify.sim"])
    argv = [sys.executable, "-m", "kimina_verify.server", "--port", str(port), "--max-repls", "1"]
    argv += ["--repl-cmd", sim, "--api-key", KEY, "--log-level", "WARNING"]
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not come up")
            time.sleep(0.1)
        yield url, psutil.Process(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


def send(url: str, payload: bytes, *, key: str | None) -> tuple[int, float]:
    """POST raw bytes; returns the status and the seconds until the whole answer was in (sending runs alongside)."""
    host, port = url.removeprefix("http://").split(":")
    head = (
        f"POST /api/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
    )
    if key:
        head += f"Authorization: Bearer {key}\r\n"
    sock = socket.create_connection((host, int(port)), timeout=600)
    began = time.monotonic()

    def push() -> None:
        try:
            sock.sendall(head.encode() + b"\r\n" + payload)
        except OSError:
            pass  # the server answered and closed before taking it all

    sender = threading.Thread(target=push, daemon=True)
    sender.start()
    answer = b""
    with sock:
        while True:
            head_part, _, rest = answer.partition(b"\r\n\r\n")
            lengths = [line for line in head_part.lower().split(b"\r\n") if line.startswith(b"content-length:")]
            if lengths and len(rest) >= int(lengths[0].split(b":")[1]):
                break
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            answer += chunk
        elapsed = time.monotonic() - began
    sender.join(60)
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0
    return status, elapsed


def measure(url: str, proc: psutil.Process, payload: bytes, *, key: str | None) -> Figures:
    """Send one request while polling /health and sampling the server's memory."""
    baseline = proc.memory_info().rss
    peak = baseline
    stall = 0.0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, proc.memory_info().rss)
            time.sleep(0.01)

    def poll() -> None:
        nonlocal stall
        with httpx.Client(base_url=url, timeout=600) as client:
            while not done.is_set():
                began = time.monotonic()
                client.get("/health")
                stall = max(stall, time.monotonic() - began)
                time.sleep(0.02)

    threads = [threading.Thread(target=sample), threading.Thread(target=poll)]
    for thread in threads:
        thread.start()
    try:
        status, seconds = send(url, payload, key=key)
        time.sleep(0.2)  # memory the answer itself took
    finally:
        done.set()
        for thread in threads:
            thread.join()
    return Figures(status, seconds, stall, (peak - baseline) / (1 << 20))


def extract(ref: str, into: Path) -> Path:
    """The kimina-verify sources of git commit `ref`."""
    repo = Path(__file__).resolve().parents[3]
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", ref, "packages/kimina-verify/src"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "packages/kimina-verify/src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="git commit whose server to compare against (e.g. the merge base)")
    parser.add_argument("--scale", type=float, default=1.0, help="shrink every request by this factor")
    parser.add_argument("--only", nargs="*", help="scenario names to run")
    args = parser.parse_args()

    def n(count: int) -> int:
        return max(1, int(count * args.scale))

    scenarios = {
        "unauth_47mb": (lambda: body(n(1_200_000), SHORT), None),
        "identical_300k": (lambda: body(n(300_000), LONG), KEY),
        "identical_1.2m": (lambda: body(n(1_200_000), SHORT), KEY),
        "legit_4096": (lambda: body(4096, LONG, identical=False), KEY),
    }
    chosen = {k: v for k, v in scenarios.items() if not args.only or k in args.only}
    with tempfile.TemporaryDirectory() as tmp:
        versions: dict[str, Path | None] = {"after": None}
        if args.before:
            versions = {"before": extract(args.before, Path(tmp)), **versions}
        print(
            f"{'scenario':<16}{'MB':>6}  {'version':<7}{'status':>7}{'seconds':>9}{'/health stall s':>16}{'peak MB':>9}"
        )
        for name, (make, key) in chosen.items():
            payload = make()
            figures: dict[str, Figures] = {}
            for version, src in versions.items():
                with server(src) as (url, proc):
                    figures[version] = f = measure(url, proc, payload, key=key)
                size = f"{len(payload) / 1e6:6.1f}"
                print(
                    f"{name:<16}{size}  {version:<7}{f.status:>7}{f.seconds:>9.2f}{f.health_stall_s:>16.2f}"
                    f"{f.peak_mb:>9.0f}",
                    flush=True,
                )
            if "before" in figures:
                b, a = figures["before"], figures["after"]
                times = ratio(b.seconds, a.seconds, 0.01)
                stalls = ratio(b.health_stall_s, a.health_stall_s, 0.01)
                print(
                    f"{name:<16}{'':>6}  {'ratio':<7}{'':>7}{times:>9}{stalls:>16}{ratio(b.peak_mb, a.peak_mb, 1):>9}"
                )


def ratio(before: float, after: float, floor: float) -> str:
    """before / after as `12.3x`, each at least `floor` (below it the figure is measurement noise)."""
    return f"{max(before, floor) / max(after, floor):.1f}x"


if __name__ == "__main__":
    main()
