import asyncio

from tables.clock import FakeClock


async def test_sleepers_wake_in_due_order_at_their_time():
    clock = FakeClock(start=100.0)
    woke: list[tuple[str, float]] = []

    async def sleeper(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append((name, clock.now()))

    tasks = [asyncio.create_task(sleeper(n, s)) for n, s in (("c", 3), ("a", 1), ("b", 2))]
    await clock.advance(1.5)
    assert woke == [("a", 101.0)]
    await clock.advance(10)
    assert woke == [("a", 101.0), ("b", 102.0), ("c", 103.0)]
    assert clock.now() == 111.5
    await asyncio.gather(*tasks)


async def test_sleeps_started_by_a_wake_up_also_run_within_the_same_advance():
    clock = FakeClock(start=0.0)
    times: list[float] = []

    async def chain() -> None:
        for _ in range(3):
            await clock.sleep(1)
            times.append(clock.now())

    task = asyncio.create_task(chain())
    await clock.advance(2.5)
    assert times == [1.0, 2.0]
    await clock.advance(1)
    assert times == [1.0, 2.0, 3.0]
    await task


async def test_cancelled_sleeper_is_skipped_and_zero_sleep_does_not_wait():
    clock = FakeClock(start=0.0)
    task = asyncio.create_task(clock.sleep(5))
    await clock.settle()
    assert clock.sleepers == 1
    task.cancel()
    await clock.settle()
    assert clock.sleepers == 0
    await clock.advance(10)  # must not trip over the cancelled future
    await clock.sleep(0)
    assert clock.now() == 10.0
