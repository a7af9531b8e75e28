"""The gate every counted request passes just before it is sent: smooth under Discord's 50/s in any
one-second window, closed for everyone by a global 429, never in the way of interactions."""

from __future__ import annotations

import asyncio

from multidict import CIMultiDict

from cogs.live.listener import RestBudget
from cogs.live.sendgate import SendGate, counted
from tests.cogs.fakes import Time


def most_in_a_second(times: list[float]) -> int:
    """The most of ``times`` in any window of one second, wherever it starts (a fixed window that
    starts at any request, as a counter may)."""
    times = sorted(times)
    return max((sum(1 for u in times[i:] if u < t + 1.0) for i, t in enumerate(times)), default=0)


async def test_many_waiters_never_get_more_than_rate_plus_burst_in_any_second() -> None:
    clock = Time()
    gate = SendGate(rate=38, burst=2, now=clock.now, sleep=clock.sleep)
    sent: list[float] = []

    async def one() -> None:
        await gate.wait()
        sent.append(clock.t)

    await asyncio.gather(*(one() for _ in range(400)))
    assert len(sent) == 400 and gate.sent == 400
    assert most_in_a_second(sent) <= 38 + 2
    # and not slower than its rate either
    assert sent[-1] - sent[0] < 400 / 38 + 0.1


async def test_a_global_429_closes_the_gate_for_its_retry_after() -> None:
    clock = Time()
    gate = SendGate(rate=38, burst=2, now=clock.now, sleep=clock.sleep)
    await gate.wait()
    gate.answered(429, CIMultiDict({"Retry-After": "1", "X-RateLimit-Reset-After": "0.700",
                                    "X-RateLimit-Scope": "global", "X-RateLimit-Global": "true"}))
    assert gate.global_429 == 1 and abs(gate.closed_for() - 0.7) < 1e-9
    before = clock.t
    await gate.wait()
    assert clock.t - before >= 0.7
    assert gate.closed_for() == 0


async def test_a_routes_own_429_or_another_answer_leaves_the_gate_open() -> None:
    clock = Time()
    gate = SendGate(now=clock.now, sleep=clock.sleep)
    gate.answered(429, CIMultiDict({"Retry-After": "2", "X-RateLimit-Scope": "user", "X-RateLimit-Reset-After": "2"}))
    gate.answered(200, CIMultiDict({"X-RateLimit-Global": "true"}))
    assert gate.closed_for() == 0 and gate.global_429 == 0


def test_interaction_calls_are_not_counted() -> None:
    assert not counted("/api/v10/interactions/123/tok/callback")
    assert not counted("/api/v10/webhooks/1/tok/messages/@original")
    assert counted("/api/v10/channels/5/messages")
    assert counted("/api/v10/channels/5/messages/7/threads")


async def test_routine_edits_give_up_while_a_global_429_holds_the_gate() -> None:
    clock = Time()
    gate = SendGate(now=clock.now, sleep=clock.sleep)
    budget = RestBudget(per_second=10, burst=5, now=clock.now, sleep=clock.sleep, gate=gate)
    assert budget.try_take()
    gate.answered(429, CIMultiDict({"Retry-After": "1", "X-RateLimit-Global": "true"}))
    assert not budget.try_take()
    await clock.sleep(1.0)
    assert budget.try_take()


def test_a_process_holding_part_of_the_shards_sends_at_that_part_of_the_rate() -> None:
    budget = RestBudget(per_second=36, burst=6)
    gate = SendGate(rate=38, burst=2)
    gate.follow(budget, 36.0)
    assert (gate.rate, gate.burst) == (38, 2)
    budget.rate = 18.0  # half the shards (cogs/ops/shards.py resizes the budget)
    assert gate.rate == 19 and gate.burst == 1.0
