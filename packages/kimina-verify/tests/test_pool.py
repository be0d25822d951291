"""The REPL pool on its own: header affinity, fairness, de-duplication, backpressure and shutdown."""

import asyncio
import time

import pytest
from kimina_verify.server.job import CheckSpec
from kimina_verify.server.pool import BatchTooLarge, PoolClosed, QueueFull, ReplPool
from kimina_verify.testing import sim_settings

A, B = "import Mathlib", "import Aesop"


def spec(header: str, body: str, timeout: float = 10.0) -> CheckSpec:
    return CheckSpec(header=header, body=body, timeout=timeout)


async def started(**options: object) -> ReplPool:
    pool = ReplPool(sim_settings(**options))
    await pool.start()
    return pool


async def test_interleaved_headers_do_not_thrash_imports() -> None:
    pool = await started(max_repls=2, latency=0.02)
    try:
        specs = [spec(A if i % 2 else B, f"def x{i} := {i}") for i in range(40)]
        outcomes = await asyncio.gather(*pool.submit(specs))
        assert [o.outcome for o in outcomes] == ["valid"] * 40
        # One import per header (plus the start-up probe), not one per switch.
        assert pool.metrics.repl_starts <= 4
    finally:
        await pool.close()


async def test_other_headers_are_not_starved() -> None:
    pool = await started(max_repls=1, latency=0.05, header_switch_after=0.3, init_repls={A: 1})
    try:
        first = pool.submit([spec(A, f"def a{i} := 1") for i in range(5)])
        lonely = pool.submit([spec(B, "def b := 1")])[0]
        more = pool.submit([spec(A, f"def c{i} := 1") for i in range(100)])
        began = time.monotonic()
        assert (await lonely).outcome == "valid"
        waited = time.monotonic() - began
        assert not all(f.done() for f in more), "a check of another header waited for the whole queue"
        assert waited < 3.0
        await asyncio.gather(*first, *more)
    finally:
        await pool.close()


async def test_identical_specs_share_one_run() -> None:
    pool = await started(max_repls=2, latency=0.2)
    try:
        futures = pool.submit([spec(A, "def same := 1")] * 5 + [spec(A, "def other := 1")])
        assert len({id(f) for f in futures}) == 2
        await asyncio.gather(*futures)
        assert pool.metrics.dedup_hits == 4
        assert pool.metrics.checks["valid"] == 6  # every waiter is counted
        again = pool.submit([spec(A, "def same := 1")])  # finished checks are not cached: run again
        await again[0]
        assert pool.metrics.check_seconds.count == 3
    finally:
        await pool.close()


async def test_queue_bounds() -> None:
    pool = await started(max_repls=1, max_queue=3, latency=0.3)
    try:
        with pytest.raises(BatchTooLarge):
            pool.submit([spec(A, f"def a{i} := 1") for i in range(5)])
        running = pool.submit([spec(A, f"def a{i} := 1") for i in range(4)])  # 1 runs at once, 3 wait
        with pytest.raises(QueueFull) as full:
            pool.submit([spec(A, "def late := 1")])
        assert full.value.retry_after >= 1
        assert pool.submit([spec(A, "def a0 := 1")])[0] is running[0], "an identical check in flight still fits"
        await asyncio.gather(*running)
    finally:
        await pool.close()


async def test_drain_fails_what_is_left_and_close_stops_every_repl() -> None:
    pool = await started(max_repls=2, init_repls={A: 2})
    futures = pool.submit([spec(A, f"def a{i} := 1 -- sim: sleep 0.5") for i in range(6)])
    await asyncio.sleep(0.1)
    await pool.drain(grace=0.9)
    with pytest.raises(PoolClosed):
        pool.submit([spec(A, "def b := 1")])
    outcomes = [f.result() for f in futures]  # every future is settled once drain returns
    await pool.close()
    assert outcomes[0].outcome == "valid"
    assert {o.outcome for o in outcomes} <= {"valid", "shutdown"} and "shutdown" in {o.outcome for o in outcomes}
    assert all(slot.repl is None for slot in pool.slots)


async def test_fresh_checks_get_a_new_repl() -> None:
    pool = await started(max_repls=1)
    try:
        await asyncio.gather(*pool.submit([spec(A, "def a := 1")]))
        starts = pool.metrics.repl_starts
        fresh = CheckSpec(header=A, body="def b := 1", timeout=10, fresh=True)
        (outcome,) = await asyncio.gather(*pool.submit([fresh]))
        assert outcome.reply == {"env": 1}
        assert pool.metrics.repl_starts == starts + 1
    finally:
        await pool.close()


async def test_start_fails_fast_on_a_broken_command() -> None:
    pool = ReplPool(sim_settings(repl_cmd=("sh", "-c", "echo not-a-repl; sleep 5")))
    with pytest.raises(RuntimeError, match="does not work"):
        await pool.start()


async def test_init_repls_import_headers_at_start() -> None:
    pool = await started(max_repls=3, init_repls={A: 2, B: 1})
    try:
        assert sorted(slot.header or "" for slot in pool.slots) == sorted([A, A, B])
        starts = pool.metrics.repl_starts
        await asyncio.gather(*pool.submit([spec(A, "def a := 1"), spec(B, "def b := 1")]))
        assert pool.metrics.repl_starts == starts
    finally:
        await pool.close()
