"""The bot's side of shard ownership: which gateway shards this process connects, and when.

The runtime side is :mod:`tables.shards` (which tables a process runs) and :mod:`tables.shards.lease`
(who holds a shard).  :class:`ShardGate` joins them to discord.py:

* with PostgreSQL, every process takes a lease per shard it is configured for; one that holds none
  waits in :meth:`ShardGate.hold` — a hot standby, storage open and migrated, cogs ready, nothing
  connected to Discord — because two gateway sessions on one shard would both receive its
  interactions;
* a shard gained later is recovered (its tables) and then connected (``AutoShardedBot``: one more
  shard launched);
* a shard lost is fenced at once (the runtime lets its tables go) and its gateway session closed;
  a bot that is not sharded has only that one shard, so it stops (a supervisor starts it again,
  as a standby).

Closing a session is not enough: discord.py reconnects a shard by itself (a RESUME at once, an
IDENTIFY 5 s later, a retry after a failed connect), and ``ShardInfo.disconnect()`` does nothing
while the socket is closed — which is exactly when a network blip also ends the lease session.
So the sharded bot's shards are :class:`GatedShard` (:class:`GatedShards`, mixed into
``bot.ShardedDeckhand``): every (re)connect asks first whether the lease is held, the IDENTIFY asks
again after discord.py's 5 s wait (the lease may have gone meanwhile), and a shard whose lease went
is *retired* — its reader stopped, its socket closed, nothing of it ever connects again; a shard
gained later is a new connection.  A process without a shard's lease holds no gateway session for
it, whatever state the old one was in.

With SQLite there are no leases: the database file is the process's alone (an exclusive lock), so
it holds every shard it is configured for, which must be all of them.

The REST budget is the token's, not the process's: Discord's global limit (50 calls a second) counts
every process using the token together.  So each process paces itself to its part of it — the
shards it *holds* out of ``SHARD_COUNT`` (leases are exclusive, so the parts never add up to more
than the whole) — and rescales as it gains or loses a shard (:func:`budget_part`).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import discord
import yarl
from discord.ext import commands
from discord.gateway import DiscordWebSocket, ReconnectWebSocket
from discord.shard import EventItem, Shard

from tables.shards import Shards
from tables.shards.lease import DEFAULT_POLL, Leases
from tables.storage import PostgresStorage, Storage

log = logging.getLogger("deckhand.shards")
T = TypeVar("T")

# The gateway socket being opened in this task (set as discord.py's ``from_client`` makes it), so the
# IDENTIFY hook can close it when the lease went while it waited.
_OPENING: contextvars.ContextVar[DiscordWebSocket | None] = contextvars.ContextVar("deckhand_opening", default=None)
CONNECT_RETRY = 5.0  # seconds between two failed connects of a shard (discord.py's own pause)

TOKEN_BUDGET = 48.0  # REST calls a second the whole token may make: under Discord's 50, with a margin


class Paced(Protocol):
    """What the gate resizes of a process's REST budget (cogs/live/budget.py ``RestBudget``)."""

    rate: float
    burst: float
    tokens: float


def budget_part(total: float, share: float) -> tuple[float, float]:
    """``(rate, burst)`` of a process's REST budget (cogs/live/listener.py ``RestBudget``) when it holds
    ``share`` (0..1) of the shards and the token may make ``total`` calls a second.  Within any one
    second a process can make its burst, a second's rate and an urgent request's debt (at most a
    burst): ``rate + 2 × burst`` is kept to its part of ``total`` (all of it: 36/s with bursts of 6,
    as one process always had).  A burst is at least one call, so the rate gives way first."""
    part = max(0.0, min(1.0, share)) * total
    burst = max(1.0, part / 8)
    return max(0.5, part - 2 * burst), burst


class ShardGate:
    def __init__(self, bot: Any, count: int | None, ids: tuple[int, ...] | None, storage: Storage | None,
                 poll: float = DEFAULT_POLL, rest_budget: float = TOKEN_BUDGET) -> None:
        """``bot``: the Deckhand (an ``AutoShardedBot`` when ``count`` is given); ``storage``: the
        opened storage (PostgreSQL: leases are taken), or None; ``rest_budget``: the token's REST
        calls a second for every process together (``DECKHAND_REST_BUDGET``)."""
        self.bot = bot
        self.rest_budget = rest_budget
        self.budget: Paced | None = None  # the process's RestBudget, sized to the shards held (pace())
        self.sharded = count is not None and isinstance(bot, discord.AutoShardedClient)
        self.shards = Shards.of(count or 1, ids, leased=isinstance(storage, PostgresStorage))
        self.leases: Leases | None = None
        if isinstance(storage, PostgresStorage):
            self.leases = Leases(storage.url.dsn, self.shards, gained=self._gained, lost=self._lost, poll=poll)
        self.started = False
        self.lost_all = False  # a bot without shards lost its lease and stopped
        self._tasks: set[asyncio.Task[object]] = set()
        self._launching: dict[int, asyncio.Task[None]] = {}  # shard -> its connection being made

    def pace(self, budget: Paced) -> None:
        """Size ``budget`` (a ``RestBudget``) to this process's part of the token's, now and
        whenever the shards held change."""
        self.budget = budget
        self._rescale()

    def _rescale(self) -> None:
        if self.budget is None:
            return
        rate, burst = budget_part(self.rest_budget, len(self.shards.held) / self.shards.count)
        if (rate, burst) != (self.budget.rate, self.budget.burst):
            self.budget.rate, self.budget.burst = rate, burst
            self.budget.tokens = min(self.budget.tokens, burst)
            log.info("REST budget: %.1f calls/s (bursts of %.0f) for %d of %d shard(s)", rate, burst,
                     len(self.shards.held), self.shards.count)

    async def hold(self) -> set[int]:
        """Until this process holds a shard (at once without leases); the bot then connects those."""
        if self.leases is not None:
            await self.leases.join()  # a SHARD_COUNT unlike the running processes' stops the start here
            self.leases.start()
            await self.leases.wait_for_any()
        held = sorted(self.shards.held)
        if self.sharded:
            self.bot.shard_ids = held  # what AutoShardedClient.launch_shards connects
        self.started = True  # shards gained from now on are recovered and connected as they come
        log.info("Running shard(s) %s of %d", ",".join(map(str, held)), self.shards.count)
        return set(held)

    def before_request(self) -> None:
        """Run just before any request leaves for Discord (the bot's HTTP trace hook): a process
        that wakes after its leases' term ran out lets its shards go first, and the request that
        found it out — made for a shard that is another process's by now — is not sent."""
        if self.shards.check_term():
            raise asyncio.CancelledError

    async def _gained(self, shard: int) -> None:
        self._rescale()
        if not self.started:
            return  # hold() takes it in: recovered, then connected with the others
        runtime = self.bot.runtime
        if runtime is not None:
            await runtime.recover()
        if self.sharded and shard in self.shards.held:
            ids = list(self.bot.shard_ids or [])
            if shard not in ids:
                self.bot.shard_ids = sorted([*ids, shard])
                self.bot._connection.shard_ids = self.bot.shard_ids
            # In the background: discord.py spaces IDENTIFYs 5 s apart and retries a failed connect
            # for ever, and the lease loop must go on checking meanwhile.
            self._launching[shard] = self._spawn(self.bot.launch_shard(DiscordWebSocket.DEFAULT_GATEWAY, shard))

    def _lost(self, shard: int) -> None:
        self._rescale()
        runtime = self.bot.runtime
        gone = runtime.fence(shard) if runtime is not None else []
        log.error("Shard %d: lease lost, %d table(s) let go to the process that takes it over", shard, len(gone))
        if not self.started:
            return
        if self.sharded:
            if isinstance(self.bot, GatedShards):
                self.bot.stop_shard(shard)
            self._spawn(self._disconnect(shard))
        else:
            self.lost_all = True
            # It stops: were it to take the lease back while closing, it would restore the tables.
            if self.leases is not None:
                self.leases.retire()
            self._spawn(self.bot.close())

    async def _disconnect(self, shard: int) -> None:
        launching = self._launching.pop(shard, None)
        if launching is not None:
            launching.cancel()  # not connected yet: it never will be
        self.bot.shard_ids = [s for s in self.bot.shard_ids or [] if s != shard]
        self.bot._connection.shard_ids = self.bot.shard_ids
        if isinstance(self.bot, GatedShards):
            await self.bot.retire_shard(shard)
        else:
            # A plain AutoShardedClient: closes an open session, but cannot stop a reconnect.
            info = self.bot.get_shard(shard)
            if info is not None:
                await info.disconnect()

    def _spawn(self, coro: Coroutine[object, None, T]) -> asyncio.Task[T]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def close(self) -> None:
        """Give the leases back (after the runtime closed: its last writes are in)."""
        for task in list(self._tasks):
            if task is not asyncio.current_task():  # an unsharded bot's own close runs in one
                task.cancel()
        if self.leases is not None:
            await self.leases.close()


class GatedShard(Shard):
    """One gateway shard of a :class:`GatedShards` bot: it (re)connects only while its process holds
    the shard's lease, and once :meth:`retire`\\ d it never connects again."""

    def __init__(self, ws: DiscordWebSocket, client: discord.AutoShardedClient,
                 queue_put: Callable[[EventItem], None]) -> None:
        super().__init__(ws, client, queue_put)
        self.retired = False
        self._retiring: asyncio.Task[None] | None = None

    def allowed(self) -> bool:
        # (its client is the GatedShards bot that made it: discord.py types it as a plain Client)
        return not self.retired and cast("GatedShards", self._client).holds_shard(self.id)

    def stop(self) -> None:
        """Stop reading its events now (the socket closes in :meth:`retire`); never reconnect."""
        self.retired = True
        if self._task is not asyncio.current_task():
            self._cancel_task()

    async def retire(self) -> None:
        """No lease, no connection: stop reading, close the socket, never reconnect."""
        self.stop()
        if self.ws.open:
            try:
                await self.ws.close(code=1000)  # a clean close ends the session (no RESUME of it)
            except Exception:
                log.exception("Closing shard %s's gateway session failed", self.id)

    def launch(self) -> None:
        if self.allowed():
            super().launch()
        else:
            # Connected while the lease went: that session must not live.
            self._retiring = self._client.loop.create_task(self.retire())

    async def reconnect(self) -> None:
        if not self.allowed():
            await self.retire()
            return
        await super().reconnect()
        if not self.allowed():
            await self.retire()

    async def reidentify(self, exc: ReconnectWebSocket) -> None:
        if not self.allowed():
            await self.retire()
            return
        await super().reidentify(exc)
        if not self.allowed():
            await self.retire()

    async def _handle_disconnect(self, e: Exception) -> None:
        if not self.allowed():
            self._dispatch("shard_disconnect", self.id)
            await self.retire()
            return
        await super()._handle_disconnect(e)


# What :class:`GatedShards` is mixed into (for the type checker; at run time it is a plain mixin).
if TYPE_CHECKING:
    _Sharded = commands.AutoShardedBot
else:
    _Sharded = object


def _shards_of(client: discord.AutoShardedClient) -> dict[int, Shard]:
    """discord.py's own table of ``client``'s shards (its private ``__shards``: no public way to
    replace a shard)."""
    return vars(client)["_AutoShardedClient__shards"]


def _events_of(client: discord.AutoShardedClient) -> asyncio.PriorityQueue[EventItem]:
    """The queue a shard of ``client`` puts its events in (discord.py's private ``__queue``)."""
    return vars(client)["_AutoShardedClient__queue"]


class GatedShards(_Sharded):
    """Mixed into a Deckhand ``AutoShardedBot`` (before it): its shards are :class:`GatedShard`\\ s,
    and no IDENTIFY goes out for a shard whose lease this process does not hold (``self.gate``)."""

    gate: ShardGate | None
    shard_connect_timeout: float | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        state = self._connection
        update = state._update_references

        def noting(ws: DiscordWebSocket) -> None:
            # from_client calls this with the socket it just opened, in the task that connects.
            _OPENING.set(ws)
            update(ws)

        # discord.py has no hook for the socket a shard just opened: this instance's method is wrapped.
        state._update_references = noting  # type: ignore[method-assign]

    def holds_shard(self, shard: int) -> bool:
        gate = getattr(self, "gate", None)
        return gate is None or gate.shards.holds(shard)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        await super().before_identify_hook(shard_id, initial=initial)
        if shard_id is not None and not self.holds_shard(shard_id):
            # The lease went during discord.py's wait: no IDENTIFY.  Its own connect code ends
            # quietly on a cancellation (and the socket opened for it is closed here).
            opening = _OPENING.get()
            if opening is not None and opening.shard_id == shard_id:
                await opening.close(code=1000)
            log.warning("Shard %d: not connected, its lease is no longer this process's", shard_id)
            raise asyncio.CancelledError

    async def launch_shard(self, gateway: yarl.URL, shard_id: int, *, initial: bool = False) -> None:
        """Connect shard ``shard_id`` while its lease is held, retrying a failed connect (as
        discord.py does), as a :class:`GatedShard` that replaces (and retires) any earlier one."""
        while self.holds_shard(shard_id):
            try:
                coro = DiscordWebSocket.from_client(self, initial=initial, gateway=gateway,
                                                    shard_id=shard_id)
                ws = await asyncio.wait_for(coro, timeout=self.shard_connect_timeout)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise
                return  # the IDENTIFY hook found the lease gone
            except Exception:
                log.warning("Failed to connect shard %d; trying again in %.0f s", shard_id, CONNECT_RETRY,
                            exc_info=True)
                initial = False
                await asyncio.sleep(CONNECT_RETRY)
                continue
            shards = _shards_of(self)
            old = shards.get(shard_id)
            shard = GatedShard(ws, self, _events_of(self).put_nowait)
            shards[shard_id] = shard
            if isinstance(old, GatedShard):
                await old.retire()
            shard.launch()  # closes it at once if the lease went while it connected
            return

    def stop_shard(self, shard_id: int) -> None:
        """This process lost the shard's lease: not one more of its events is read (at once, before
        anything else runs; :meth:`retire_shard` closes the socket)."""
        shard = _shards_of(self).get(shard_id)
        if isinstance(shard, GatedShard):
            shard.stop()

    async def retire_shard(self, shard_id: int) -> None:
        """This process lost the shard's lease: its connection, whatever state it is in, ends."""
        shard = _shards_of(self).get(shard_id)
        if isinstance(shard, GatedShard):
            await shard.retire()
