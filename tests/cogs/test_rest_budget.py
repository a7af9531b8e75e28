"""The REST budget every table message shares: fair to waiters, and quick for a person waiting."""

from __future__ import annotations

import asyncio

from cogs.live.listener import RestBudget
from tests.cogs.fakes import Time


async def test_waiters_are_served_in_the_order_they_came() -> None:
    clock = Time()
    budget = RestBudget(per_second=10, burst=1, now=clock.now, sleep=clock.sleep)
    served: list[int] = []

    async def one(n: int) -> None:
        await budget.take()
        served.append(n)

    # Started one after another, each while the others wait: a retrying waiter never jumps ahead.
    tasks = []
    for n in range(30):
        tasks.append(asyncio.create_task(one(n)))
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    assert served == list(range(30))
    assert clock.t - 100.0 < 3.5  # 29 tokens at 10 a second, not more


async def test_an_urgent_request_does_not_queue_but_the_debt_is_paid_back() -> None:
    clock = Time()
    budget = RestBudget(per_second=10, burst=2, now=clock.now, sleep=clock.sleep)
    for _ in range(2):
        await budget.take()  # the bucket is empty now
    before = clock.t
    await budget.take(urgent=True)
    assert clock.t == before  # went straight through
    await budget.take()  # the next ordinary request waits for the borrowed token too
    assert clock.t - before >= 0.2 - 1e-9


async def test_urgent_requests_borrow_at_most_a_burst() -> None:
    clock = Time()
    budget = RestBudget(per_second=10, burst=3, now=clock.now, sleep=clock.sleep)
    for _ in range(3 + 3):
        await budget.take(urgent=True)  # the burst, then a burst of debt: no waiting
    assert clock.t == 100.0
    await budget.take(urgent=True)
    assert clock.t > 100.0  # past the debt limit even an urgent request waits


async def test_a_newcomer_does_not_take_the_token_a_waiter_was_waiting_for() -> None:
    from tables.clock import FakeClock

    clock = FakeClock()
    budget = RestBudget(per_second=10, burst=1, now=clock.now, sleep=clock.sleep)
    await budget.take()  # empty: the next token comes in 0.1 s
    served: list[str] = []

    async def newcomer() -> None:
        await clock.sleep(0.1)  # arrives just as the token does (and wakes before the waiter)
        await budget.take()
        served.append("newcomer")

    async def waiter() -> None:
        await budget.take()
        served.append("waiter")

    tasks = [asyncio.create_task(newcomer())]
    await clock.settle()
    tasks.append(asyncio.create_task(waiter()))
    await clock.settle()
    await clock.advance(0.5)
    await asyncio.gather(*tasks)
    assert served == ["waiter", "newcomer"]


async def test_a_routine_request_takes_only_a_free_token_and_never_jumps_the_queue() -> None:
    clock = Time()
    budget = RestBudget(per_second=10, burst=2, now=clock.now, sleep=clock.sleep)
    assert budget.try_take() and budget.try_take()
    assert not budget.try_take()  # empty: no waiting, no debt
    clock.t += 0.1
    waiter = asyncio.create_task(budget.take())
    await asyncio.sleep(0)
    assert waiter.done()  # the token that came in was there for it
    clock.t += 0.05
    queued = asyncio.create_task(budget.take())  # half a token: it waits in the queue
    await asyncio.sleep(0)
    assert budget.backlog
    clock.t += 0.1  # a whole token now, but it is the queued request's
    assert not budget.try_take()
    await queued
    assert not budget.backlog


async def test_what_must_go_out_is_measured_and_leaves_the_rest_for_routine_edits() -> None:
    clock = Time()
    budget = RestBudget(per_second=40, burst=8, now=clock.now, sleep=clock.sleep)
    for _ in range(100):
        await budget.take()  # 100 requests that must go out, over 2.3 s of waiting for tokens
    assert budget.needed_rate == 100 / 10
    clock.t += 10.5
    assert budget.needed_rate == 0.0  # forgotten after the window
    assert budget.try_take()
    assert budget.needed_rate == 0.0  # a routine edit is not what must go out


async def test_the_listener_paces_on_what_the_budget_has_to_spare() -> None:
    from cogs.live.listener import DiscordListener

    clock = Time()
    budget = RestBudget(per_second=40, burst=8, now=clock.now, sleep=clock.sleep)
    listener = DiscordListener(object(), budget=budget)
    assert listener._spare_rate() == 40
    for _ in range(250):
        await budget.take()
    assert listener._spare_rate() == 40 - 25
    for _ in range(200):
        await budget.take()
    assert listener._spare_rate() == 10  # never under a quarter: routine edits slow down, never stop
