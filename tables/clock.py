"""Where the runtime gets the time from.

The runtime never calls ``time`` or ``asyncio.sleep`` directly: deadlines, AI pauses and redraw
pacing all go through a :class:`Clock`, so tests can drive a whole timed game with a
:class:`FakeClock` in milliseconds and without a single timed assertion.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch (so the Discord layer can render ``<t:...:R>`` countdowns)."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class FakeClock:
    """A clock that moves only when a test says so.

    :meth:`sleep` suspends until :meth:`advance` moves time to or past its wake-up time.
    :meth:`advance` wakes sleepers one at a time in due order, setting :meth:`now` to each one's
    wake-up time and letting the event loop run after each, so whatever a wake-up triggers (a
    deadline, an AI move, a redraw, and the sleeps *those* start) has happened before it returns.
    """

    def __init__(self, start: float = 1_700_000_000.0, settle_rounds: int = 40) -> None:
        self._now = float(start)
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()  # ties wake in the order they went to sleep
        self.settle_rounds = settle_rounds

    def now(self) -> float:
        return self._now

    @property
    def sleepers(self) -> int:
        """How many sleeps are still waiting (handy when a test wants to know nothing is armed)."""
        return sum(1 for _, _, f in self._sleepers if not f.done())

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._order), fut))
        await fut  # a cancelled sleeper leaves a done future behind; advance() skips it

    async def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("A clock cannot go backwards.")
        target = self._now + seconds
        await self.settle()
        while self._sleepers and self._sleepers[0][0] <= target:
            when, _, fut = heapq.heappop(self._sleepers)
            if fut.done():
                continue
            self._now = max(self._now, when)
            fut.set_result(None)
            await self.settle()
        self._now = target
        await self.settle()

    async def settle(self, rounds: int | None = None) -> None:
        """Let ready tasks run for a few rounds of the event loop without moving time."""
        for _ in range(self.settle_rounds if rounds is None else rounds):
            await asyncio.sleep(0)
