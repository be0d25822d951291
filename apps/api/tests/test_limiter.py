import asyncio

import pytest
from kimina_api.limiter import Limiter, QueueFull


async def test_admits_up_to_slots_plus_queue_then_refuses() -> None:
    limiter = Limiter(max_active=2, max_queue=1)
    held = [limiter.reserve() for _ in range(3)]
    with pytest.raises(QueueFull, match=r"3 waiting \(limits 2 and 1\)"):
        limiter.reserve()
    await held[0].acquire()
    await held[1].acquire()
    assert (limiter.active, limiter.waiting) == (2, 1)
    held[0].release()
    await held[2].acquire()  # the queued one gets the freed slot
    assert (limiter.active, limiter.waiting) == (2, 0)
    limiter.reserve().release()  # a place in line again


async def test_slots_are_given_in_arrival_order() -> None:
    limiter = Limiter(max_active=1, max_queue=5)
    first = limiter.reserve()
    await first.acquire()
    order: list[int] = []

    async def wait(i: int) -> None:
        async with limiter.reserve():
            order.append(i)

    tasks = [asyncio.create_task(wait(i)) for i in range(4)]
    await asyncio.sleep(0)
    first.release()
    await asyncio.gather(*tasks)
    assert order == [0, 1, 2, 3]
    assert (limiter.active, limiter.waiting) == (0, 0)


async def test_cancelled_waiter_and_double_release_leak_nothing() -> None:
    limiter = Limiter(max_active=1, max_queue=1)
    running = limiter.reserve()
    await running.acquire()
    queued = limiter.reserve()
    waiter = asyncio.create_task(queued.acquire())
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    queued.release()
    queued.release()
    running.release()
    running.release()
    assert (limiter.active, limiter.waiting) == (0, 0)
    # Full capacity is available again.
    again = [limiter.reserve(), limiter.reserve()]
    await again[0].acquire()
    for reservation in again:
        reservation.release()


async def test_never_started_reservation_gives_its_place_back() -> None:
    limiter = Limiter(max_active=1, max_queue=0)
    limiter.reserve().release()
    assert limiter.waiting == 0
    limiter.reserve()  # does not raise: the place was returned


def test_rejects_nonsense_limits() -> None:
    with pytest.raises(ValueError):
        Limiter(max_active=0, max_queue=1)
