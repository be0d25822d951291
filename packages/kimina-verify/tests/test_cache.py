"""The persistent verdict cache: hits across Verifier instances, concurrent writer processes, corruption."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from kimina_verify import VerdictKind
from kimina_verify.cache import VerdictCache, cache_key
from kimina_verify.client import Verifier
from kimina_verify.options import Endpoint, Retries, VerifierOptions
from kimina_verify.result import ServerResult

StandIn = Any  # the `standin` fixture of conftest.py


def proof(name: str, *directives: str) -> str:
    body = "".join(f"\n  -- @{d}" for d in directives)
    return f"import Mathlib\n\ntheorem {name} : 1 + 1 = 2 := by{body}\n  norm_num\n"


def fast(url: str, cache: Path, *, lean_env: str | None = None) -> Verifier:
    retries = Retries(count=1, backoff_s=0.01, max_backoff_s=0.02)
    return Verifier(VerifierOptions(Endpoint(url), retries=retries, cache=str(cache), lean_env=lean_env))


async def test_hits_across_verifier_instances(standin: StandIn, tmp_path: Path) -> None:
    path = tmp_path / "verdicts.sqlite"
    items = [proof("a"), proof("b", "error nope"), proof("c", "sorrywarn")]
    async with fast(standin.url, path) as verifier:
        first = await verifier.verify(items)
    assert not any(v.cached for v in first)
    sent = len(standin.snippets)
    async with fast(standin.url, path) as verifier:
        second = await verifier.verify(items)
    assert len(standin.snippets) == sent  # nothing was sent again
    assert all(v.cached for v in second)
    assert [v.kind for v in second] == [v.kind for v in first]
    assert [v.messages for v in second] == [v.messages for v in first]


async def test_timeouts_and_infra_are_not_cached(standin: StandIn, tmp_path: Path) -> None:
    path = tmp_path / "verdicts.sqlite"
    async with fast(standin.url, path) as verifier:
        assert (await verifier.verify([proof("a", "timeout")]))[0].kind is VerdictKind.TIMEOUT
        standin.statuses.extend([500, 500])
        assert (await verifier.verify([proof("b")]))[0].kind is VerdictKind.INFRA
    standin.snippets.clear()
    async with fast(standin.url, path) as verifier:
        verdicts = await verifier.verify([proof("a", "timeout"), proof("b")])
    assert [v.kind for v in verdicts] == [VerdictKind.TIMEOUT, VerdictKind.VALID]
    assert not any(v.cached for v in verdicts) and len(standin.snippets) == 2


async def test_cache_is_keyed_by_lean_environment(standin: StandIn, tmp_path: Path) -> None:
    path = tmp_path / "verdicts.sqlite"
    async with fast(standin.url, path, lean_env="v4.15.0") as verifier:
        await verifier.verify([proof("a")])
    async with fast(standin.url, path, lean_env="v4.26.0") as verifier:
        (verdict,) = await verifier.verify([proof("a")])
    assert not verdict.cached
    async with fast(standin.url, path, lean_env="v4.15.0") as verifier:
        (verdict,) = await verifier.verify([proof("a")])
    assert verdict.cached


def test_key_depends_on_code_environment_and_infotree() -> None:
    key = cache_key("code", "env")
    assert key != cache_key("code ", "env") and key != cache_key("code", "env2")
    assert key != cache_key("code", "env", infotree="original")
    assert key == cache_key("code", "env")


WRITER = textwrap.dedent(
    """
    import sys
    from kimina_verify.cache import VerdictCache
    from kimina_verify.result import ServerResult

    cache = VerdictCache(sys.argv[1])
    worker = int(sys.argv[2])
    for start in range(0, 300, 10):
        # Overlapping keys on purpose: workers write the same entries concurrently.
        batch = {f"k{i}": ServerResult(time=float(i), response={"env": i}) for i in range(start, start + 10)}
        batch[f"w{worker}-{start}"] = ServerResult(time=0.0, response={"env": -1})
        cache.put_many(batch, lean_env="test")
    assert not cache.rebuilt
    """
)


def test_concurrent_writer_processes(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.sqlite"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w)], stderr=subprocess.PIPE, text=True)
        for w in range(4)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert "disabled" not in err and "rebuilding" not in err
    cache = VerdictCache(path)
    found = cache.get_many([f"k{i}" for i in range(300)])
    assert len(found) == 300 and found["k123"].response == {"env": 123}
    assert len(cache) == 300 + 4 * 30


def test_corrupted_file_is_reported_and_rebuilt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "verdicts.sqlite"
    path.write_bytes(b"this is not a database" * 500)
    with caplog.at_level(logging.WARNING, logger="kimina_verify.cache"):
        cache = VerdictCache(path)
    assert cache.rebuilt
    assert any("unreadable" in r.message and "rebuilding" in r.message for r in caplog.records)
    assert len(list(tmp_path.glob("verdicts.sqlite.corrupt-*"))) == 1  # kept for inspection
    cache.put_many({"k": ServerResult(time=1.0, response={"env": 0})}, lean_env="e")
    assert cache.get_many(["k"])["k"].time == 1.0


def test_foreign_database_is_not_reused(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (name TEXT)")
    cache = VerdictCache(path)
    assert cache.rebuilt and len(cache) == 0


def test_corruption_while_open_never_raises(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.sqlite"
    cache = VerdictCache(path)
    cache.put_many({f"k{i}": ServerResult(time=0.0, response={"env": i}) for i in range(200)}, lean_env="e")
    cache.close()
    cache = VerdictCache(path)
    with path.open("r+b") as f:  # clobber the pages under the open connection
        f.seek(1024)
        f.write(b"\xff" * 20000)
    cache.get_many([f"k{i}" for i in range(200)])  # may miss, must not raise
    cache.put_many({"new": ServerResult(time=0.0, response={"env": 0})}, lean_env="e")
    assert isinstance(len(cache), int)


def test_unreadable_entry_is_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.sqlite"
    cache = VerdictCache(path)
    cache.put_many({"good": ServerResult(time=0.0, response={"env": 0})}, lean_env="e")
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO results VALUES ('bad', 'e', X'00ff', 0)")
    assert set(cache.get_many(["good", "bad"])) == {"good"}


async def test_verifier_survives_a_corrupted_cache(standin: StandIn, tmp_path: Path) -> None:
    path = tmp_path / "verdicts.sqlite"
    path.write_bytes(b"\x00garbage" * 1000)
    async with fast(standin.url, path) as verifier:
        (verdict,) = await verifier.verify([proof("a")])
    assert verdict.ok
    async with fast(standin.url, path) as verifier:
        (verdict,) = await verifier.verify([proof("a")])
    assert verdict.ok and verdict.cached


def test_unwritable_location_disables_the_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = VerdictCache(blocker / "sub" / "verdicts.sqlite")  # parent is a file: cannot be created
    cache.put_many({"k": ServerResult(time=0.0, response={"env": 0})}, lean_env="e")
    assert cache.get_many(["k"]) == {}
