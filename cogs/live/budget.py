"""The bot's REST budget: one token bucket shared by every table's messages, so a bot with many
busy tables slows its routine edits down instead of running into Discord's global limit (see
docs/interfaces.md, "The public table message and the REST budget")."""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

NEEDED_WINDOW = 10.0  # seconds over which the budget measures what must go out


class Gate(Protocol):
    """What the budget asks of the send gate (cogs/live/sendgate.py): how long it stays closed."""

    def closed_for(self) -> float: ...


class RestBudget:
    """A token bucket shared by every table's messages.

    Discord lets a bot make 50 requests a second across all routes (interaction answers aside, and
    they are not made here).  Past that it answers 429 — for the whole bot.  Table messages take a
    token before each request, so a hundred busy tables slow their redraws down, which the runtime
    coalesces into fewer edits, instead of running into the global limit.

    Waiters are served first come, first served: with a hundred tables redrawing, a waiter that
    merely retried could lose the race again and again and wait for minutes (a table's first
    redraw, or a host's ``/game start``, never came).  An ``urgent`` request — one a person is
    waiting on right now — does not queue: it takes a token at once, borrowing up to a burst ahead,
    and the queue pays the debt back."""

    def __init__(
        self,
        per_second: float = 36.0,
        # A full bucket, a second's refill and an urgent request's debt (at most a burst) stay
        # under Discord's 50 in any one second, with room for a late request from the second before.
        burst: float = 6.0,
        now: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[object]] | None = None,
        gate: Gate | None = None,
    ) -> None:
        self.rate = per_second
        # The bot's SendGate: while a global 429 holds it closed, routine edits give up at once.
        self.gate = gate
        self.burst = burst
        self.tokens = burst
        self._now = now or time.monotonic
        self._sleep = sleep or asyncio.sleep
        self._stamp = self._now()
        self._queue = asyncio.Lock()  # asyncio's lock wakes its waiters in the order they came
        self._taken: collections.deque[float] = collections.deque()  # when take() got its tokens lately

    def _refill(self) -> None:
        now = self._now()
        self.tokens = min(self.burst, self.tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def try_take(self) -> bool:
        """A token now if one is free and nobody is queued for one, else ``False`` at once: for a
        request that can just as well be made later or never (a routine table edit, coalesced into
        the next one), so it never delays a ping, a summary or a person's ``/game start``."""
        if self._queue.locked() or (self.gate is not None and self.gate.closed_for() > 0):
            return False
        self._refill()
        if self.tokens < 1 - 1e-9:
            return False
        self.tokens -= 1
        return True

    @property
    def needed_rate(self) -> float:
        """Tokens a second that ``take`` (requests that must go out) got over the last
        ``NEEDED_WINDOW`` seconds: what is left of the rate is for routine edits."""
        self._forget_taken(self._now())
        return len(self._taken) / NEEDED_WINDOW

    def _forget_taken(self, now: float) -> None:
        while self._taken and self._taken[0] < now - NEEDED_WINDOW:
            self._taken.popleft()

    @property
    def backlog(self) -> bool:
        """Whether requests are queued for a token now."""
        return self._queue.locked()

    async def take(self, urgent: bool = False) -> None:
        await self._take(urgent)
        now = self._now()
        self._taken.append(now)
        self._forget_taken(now)

    async def _take(self, urgent: bool) -> None:
        if urgent:
            self._refill()
            while self.tokens < 1 - self.burst - 1e-9:  # never more than a burst in debt
                await self._sleep(max((1 - self.burst - self.tokens) / self.rate, 1e-3))
                self._refill()
            self.tokens -= 1
            return
        async with self._queue:
            while True:
                self._refill()
                if self.tokens >= 1 - 1e-9:  # float sums of refills land a hair under 1
                    self.tokens = max(0.0, self.tokens - 1)
                    return
                await self._sleep(max((1 - self.tokens) / self.rate, 1e-3))


class _Unlimited:
    rate = 1e9
    needed_rate = 0.0
    backlog = False

    async def take(self, urgent: bool = False) -> None:
        return None

    def try_take(self) -> bool:
        return True
