"""The micro-batcher gathers concurrent calls, bounds concurrency, and reports failures to every caller."""

import asyncio
from collections.abc import Sequence

import pytest
from kimina_rl.batching import MicroBatcher


async def test_concurrent_calls_share_batches_and_keep_order() -> None:
    seen: list[int] = []

    async def double(items: Sequence[int]) -> list[int]:
        seen.append(len(items))
        return [2 * item for item in items]

    batcher = MicroBatcher(double, max_batch_size=64, window_s=0.01)
    results = await asyncio.gather(*(batcher.submit(i) for i in range(100)))
    assert results == [2 * i for i in range(100)]
    assert sorted(seen) == [36, 64]
    # A lone call goes out after the window instead of waiting for company.
    assert await asyncio.wait_for(batcher.submit(7), timeout=1) == 14


async def test_concurrency_is_bounded() -> None:
    running = peak = 0

    async def slow(items: Sequence[int]) -> list[int]:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.02)
        running -= 1
        return list(items)

    batcher = MicroBatcher(slow, max_batch_size=2, window_s=0.0, max_concurrent=3)
    assert await asyncio.gather(*(batcher.submit(i) for i in range(20))) == list(range(20))
    assert peak == 3
    assert batcher.batches_sent == 10


async def test_failure_reaches_every_caller_of_the_batch() -> None:
    async def broken(items: Sequence[int]) -> list[int]:
        raise ConnectionError("server down")

    batcher = MicroBatcher(broken, max_batch_size=8, window_s=0.001)
    results = await asyncio.gather(*(batcher.submit(i) for i in range(3)), return_exceptions=True)
    assert all(isinstance(result, ConnectionError) for result in results)


async def test_wrong_result_count_is_an_error() -> None:
    async def short(items: Sequence[int]) -> list[int]:
        return list(items)[:-1]

    batcher = MicroBatcher(short, max_batch_size=8, window_s=0.001)
    with pytest.raises(RuntimeError, match="2 results for 3 items"):
        await asyncio.gather(*(batcher.submit(i) for i in range(3)))


async def test_cancelled_caller_does_not_disturb_others() -> None:
    release = asyncio.Event()

    async def gated(items: Sequence[int]) -> list[int]:
        await release.wait()
        return list(items)

    batcher = MicroBatcher(gated, max_batch_size=8, window_s=0.001)
    keep, drop = asyncio.ensure_future(batcher.submit(1)), asyncio.ensure_future(batcher.submit(2))
    await asyncio.sleep(0.01)
    drop.cancel()
    release.set()
    assert await keep == 1


def test_rejects_nonsense_limits() -> None:
    async def identity(items: Sequence[int]) -> list[int]:
        return list(items)

    with pytest.raises(ValueError):
        MicroBatcher(identity, max_batch_size=0, window_s=0.0)
