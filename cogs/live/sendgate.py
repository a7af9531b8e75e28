"""The last word before a request leaves for Discord: every call Discord's global limit counts
passes one smooth token bucket, at the moment it is really sent.

Discord allows a bot token 50 requests a second in all, interaction callbacks and interaction-token
webhooks aside.  The listener's :class:`~cogs.live.budget.RestBudget` decides *which* calls go out
(pings and summaries wait their turn, routine table edits give up), but a token taken there is not
a request on the wire: discord.py may hold it behind a route's own limit and send several at once
later, and a call made outside the listener (a thread, an emoji upload) could forget its token.
So the bot's HTTP session awaits this gate just before each request (an aiohttp trace hook, run
after discord.py's own route locks):

* a token bucket of ``rate`` a second holding at most ``burst``: no 50-burst on top of a full
  second, so even a counter whose one-second window starts anywhere — or a Discord that reads a
  few requests late and counts them together — sees well under 50;
* a 429 answer with the global flag (or scope) stops every counted request until its
  ``Retry-After`` has passed, so discord.py's own retry does not meet a closed door again and
  nothing else piles on meanwhile.

Interaction callbacks (``/interactions/…``) and webhooks (``/webhooks/…``: the interactions'
followups and hand-view edits) never wait here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from types import SimpleNamespace

import aiohttp

from cogs.live.budget import RestBudget

log = logging.getLogger(__name__)

RATE = 38.0  # requests a second: under 50 with room for a Discord that counts a few late
BURST = 2.0  # at most this many back to back


def counted(path: str) -> bool:
    """Whether Discord's global limit counts a request to ``path`` (interactions' own calls do not)."""
    return "/interactions/" not in path and "/webhooks/" not in path


class SendGate:
    """One per bot token: paces the counted requests and backs off on a global 429."""

    def __init__(self, rate: float = RATE, burst: float = BURST, now: Callable[[], float] | None = None,
                 sleep: Callable[[float], Awaitable[object]] | None = None) -> None:
        self._rate = rate
        self._burst = burst
        self._budget: RestBudget | None = None  # the RestBudget it scales with (see follow)
        self._full_rate = 0.0
        self._now = now or time.monotonic
        self._sleep = sleep or asyncio.sleep
        self.tokens = burst
        self._stamp = self._now()
        self._closed_until = -1.0  # a global 429 said: nothing counted before then
        # What must hold before any request leaves (cogs/ops/shards.py ShardGate.before_request); may raise.
        self.ahead: Callable[[], None] | None = None
        self._lock: asyncio.Lock | None = None  # first come, first served
        self.sent = 0  # counted requests let through
        self.global_429 = 0  # global 429 answers seen (each closes the gate for its Retry-After)
        self.observe: Callable[[str, int], None] | None = None  # every answer's path and status (metrics)

    def follow(self, budget: RestBudget, full_rate: float) -> None:
        """Scale with ``budget`` (a ``RestBudget``): a process that holds part of the token's shards
        has that part of its budget, and sends at that part of ``rate`` too (``full_rate``: the
        budget's rate when one process holds every shard)."""
        self._budget, self._full_rate = budget, full_rate

    def _scale(self) -> float:
        if self._budget is None or self._full_rate <= 0:
            return 1.0
        return min(1.0, max(0.0, self._budget.rate / self._full_rate))

    @property
    def rate(self) -> float:
        return max(0.5, self._rate * self._scale())

    @property
    def burst(self) -> float:
        return max(1.0, self._burst * self._scale())

    def closed_for(self) -> float:
        """Seconds until a global 429's Retry-After has passed (0 when the gate is open)."""
        return max(0.0, self._closed_until - self._now())

    async def wait(self) -> None:
        """Return when one counted request may be sent now."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            while True:
                now = self._now()
                closed = self._closed_until - now
                if closed > 0:
                    await self._sleep(closed)
                    continue
                self.tokens = min(self.burst, self.tokens + (now - self._stamp) * self.rate)
                self._stamp = now
                if self.tokens >= 1 - 1e-9:
                    self.tokens -= 1
                    self.sent += 1
                    return
                await self._sleep(max((1 - self.tokens) / self.rate, 1e-3))

    def answered(self, status: int, headers: Mapping[str, str], body: object = None) -> None:
        """Learn from an answer: a global 429 closes the gate for its ``retry_after`` (a route's own
        429 is discord.py's business: it waits for that route's reset).  ``body``: the 429's JSON,
        whose ``retry_after`` is exact (the ``Retry-After`` header is rounded up to a second)."""
        if status != 429:
            return
        body = body if isinstance(body, dict) else {}
        scope = (headers.get("X-RateLimit-Scope") or "").lower()
        if not (body.get("global") is True or scope == "global"
                or (headers.get("X-RateLimit-Global") or "").lower() == "true"):
            return
        try:
            after = float(body.get("retry_after") or headers.get("X-RateLimit-Reset-After")
                          or headers.get("Retry-After") or 1.0)
        except (TypeError, ValueError):
            after = 1.0
        self.global_429 += 1
        until = self._now() + min(max(after, 0.0), 60.0)
        if until > self._closed_until:
            self._closed_until = until
            # The whole bucket is spent too: after the pause, requests come back one by one.
            self.tokens = 0.0
            self._stamp = until
        log.warning("Discord's global rate limit answered 429: every counted request waits %.2f s", after)

    def trace(self) -> aiohttp.TraceConfig:
        """The hooks for the bot's HTTP session (discord.py's ``http_trace``)."""
        config = aiohttp.TraceConfig()

        async def start(_session: aiohttp.ClientSession, _ctx: SimpleNamespace,
                        params: aiohttp.TraceRequestStartParams) -> None:
            if self.ahead is not None:
                self.ahead()
            if counted(params.url.path):
                await self.wait()

        async def end(_session: aiohttp.ClientSession, _ctx: SimpleNamespace,
                      params: aiohttp.TraceRequestEndParams) -> None:
            response = params.response
            if self.observe is not None:
                self.observe(params.url.path, response.status)
            if response.status == 429 and counted(params.url.path):
                body = None
                with contextlib.suppress(Exception):  # (read once: discord.py gets the same bytes)
                    body = await response.json(content_type=None)
                self.answered(response.status, response.headers, body)

        config.on_request_start.append(start)
        config.on_request_end.append(end)
        return config
