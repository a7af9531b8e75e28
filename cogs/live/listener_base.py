"""The core of the runtime's Discord listener (cogs/live/listener.py): its state, where a table
talks, and what happens when Discord refuses a post — a thread or channel deleted under the table,
or a permission missing (the host is told once, at their next interaction).

Every Discord error is caught where the listener calls; none stops a table."""


import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import discord

import words
from cogs.i18n.reading import of_person
from cogs.live.budget import RestBudget, _Unlimited
from cogs.live.hand import LiveViews
from cogs.live.pace import PublicPace
from cogs.ops.permissions import ChannelPermissions
from cogs.table.custom_ids import let_go
from cogs.table.render import NO_PINGS
from cogs.watch.view import Watchers
from engine.core import Event
from tables.clock import Clock
from tables.table import Table
from words import N_

log = logging.getLogger("cogs.live.listener")
T = TypeVar("T")

UNKNOWN_CHANNEL = 10003  # Discord's code for a channel or thread that does not exist (any more)


def missing_permissions(channel: object, error: discord.Forbidden) -> str:
    """What the bot lacks to post in ``channel``: from its cached permissions there when discord.py
    knows them, else from the kind of channel and Discord's error code."""
    thread = isinstance(channel, discord.Thread) or getattr(channel, "type", None) in (
        discord.ChannelType.public_thread, discord.ChannelType.private_thread)
    send = N_("Send Messages in Threads") if thread else N_("Send Messages")
    with contextlib.suppress(Exception):
        if not isinstance(channel, (discord.abc.GuildChannel, discord.Thread)):
            raise LookupError  # a partial channel knows no permissions (it would say "none")
        perms = channel.permissions_for(channel.guild.me)
        lacking = [label for ok, label in ((perms.view_channel, N_("View Channel")),
                                           (perms.send_messages_in_threads if thread else perms.send_messages, send),
                                           (perms.embed_links, N_("Embed Links"))) if not ok]
        if lacking:
            return ", ".join(lacking)
    return N_("View Channel") if error.code == 50001 else send



@dataclass
class _Watch:
    """What the listener saw of a table at its last redraw, to tell what happened since: moves the
    clock made, missed turns, a seat the AI took over.  Lost on a restart (nothing is announced
    twice: a fresh watch starts from the table as it is)."""

    log_len: int
    last_event: Event | None
    away: dict[int, bool] = field(default_factory=dict)
    missed: dict[int, int] = field(default_factory=dict)
    # (event the line belongs to, its text, whether it replaces the event's own line)
    notes: list[tuple[Event | None, str, bool]] = field(default_factory=list)
    noted: int = 0  # clock lines made so far (the list keeps the last few)


class Bot(Protocol):
    """What the listener needs of its bot (bot.py's, a test's fake): a cached channel by id.  It
    also uses ``get_partial_messageable`` and ``runtime`` when the bot has them."""

    def get_channel(self, id: int, /) -> object: ...


@dataclass
class _Ping:
    """A turn ping or nudge standing in a thread: deleted once every person it named has moved."""

    channel_id: int
    message_id: int
    due: dict[int, float | None]  # seat -> the deadline of the decision it pinged for
    # Its storing (Runtime.kept), so a restarted bot still deletes it; its removal waits for it.
    saved: asyncio.Task[None] | None = None


@dataclass
class _Nudges:
    """One table's nudges: when each decision (seat, deadline) was first seen, which were nudged,
    and the task sleeping until the next one."""

    seen: dict[tuple[int, float], float] = field(default_factory=dict)
    done: set[tuple[int, float]] = field(default_factory=set)
    at: float | None = None
    task: asyncio.Task[None] | None = None


class ListenerBase:
    """The listener's state and plumbing, and its answers to Discord's refusals."""

    def __init__(self, bot: Bot, budget: RestBudget | None = None, live: LiveViews | None = None) -> None:
        self.bot = bot
        # The hand views people opened, kept current through their interactions' tokens.
        self.live = live if live is not None else LiveViews(getattr(bot, "runtime", None))
        # The people watching tables (Watch), kept current through their interactions' tokens too.
        self.watchers = Watchers()
        self._watches: dict[str, _Watch] = {}
        # The bot passes the real budget; without one (tests with light fakes) nothing waits.
        self.budget = budget if budget is not None else _Unlimited()
        # When each public table message is edited (players follow every move in their live views).
        self.pace = PublicPace(self._spare_rate)
        # The seats the start notice pinged: the game's first turn call (queued at the start, held
        # until the notice is posted) pings nobody again.
        self._first: dict[str, frozenset[int]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._gates: dict[str, asyncio.Event] = {}
        # Tables whose channel refused a post: table id -> (host id, guild id, what to tell the host),
        # until the host has been told; then the id moves to _told (once per table and process).
        self._blocked: dict[str, tuple[int | None, int | None, str]] = {}
        self._told: set[str] = set()
        # Threads a post found deleted (10003) before THREAD_DELETE came: their tables talk in their
        # channel from then on; and the tables whose channel itself is gone (warned once each).
        self._gone: set[int] = set()
        self._no_channel: set[str] = set()
        # Turn pings and nudges still standing, per table (removed once their people moved).
        self._pings: dict[str, list[_Ping]] = {}
        # Per table, the reading of the pings a previous process left standing (once per process).
        self._restored: dict[str, asyncio.Task[None]] = {}
        self._nudges: dict[str, _Nudges] = {}
        self._tasks: set[asyncio.Task[object]] = set()
        # What the bot may do in each channel, as the interactions there say (the cog reads them).
        self.permissions = ChannelPermissions()

    @contextlib.asynccontextmanager
    async def hold(self, table_id: str) -> AsyncIterator[None]:
        """Keep a table's turn notices and summaries waiting while the cog opens its thread, so the
        first ping of a game lands in the thread like every later one."""
        gate = asyncio.Event()
        self._gates[table_id] = gate
        try:
            yield
        finally:
            gate.set()
            if self._gates.get(table_id) is gate:
                del self._gates[table_id]

    async def _wait_gate(self, table_id: str) -> None:
        gate = self._gates.get(table_id)
        if gate is not None:
            await gate.wait()

    def _lock(self, table_id: str) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    def channel(self, channel_id: int | None) -> Any:
        """A channel to send to, from the cache, else a partial one (no API call needed)."""
        if channel_id is None:
            return None
        ch = self.bot.get_channel(channel_id)
        if ch is None and hasattr(self.bot, "get_partial_messageable"):
            ch = self.bot.get_partial_messageable(channel_id)
        return ch

    def where(self, table: Table) -> Any:
        """Where a table talks: its thread once it has one, else the channel it was opened in; None
        where the bot is not a member (a DM, a group DM, a server that never added it: it only answers
        interactions there, so nothing is posted — no turn ping, no summary, no nudge: the table
        message names whose turn it is, each person's own view says it is theirs)."""
        if table.anchored:
            return None
        thread = table.thread_id if table.thread_id not in self._gone else None
        return self.channel(thread or table.channel_id)

    def _spare_rate(self) -> float:
        """What the budget has left a second after the requests that must go out (at least a
        quarter of it: routine edits slow down, they never stop)."""
        rate = self.budget.rate
        return max(rate - self.budget.needed_rate, rate / 4)

    def now(self) -> float:
        """The table runtime's clock (a test's fake clock paces the table message too)."""
        clock = self._clock()
        return clock.now() if clock is not None else time.monotonic()

    def _clock(self) -> Clock | None:
        return getattr(self.live.runtime, "clock", None) or getattr(getattr(self.bot, "runtime", None), "clock", None)

    def _spawn(self, coro: Coroutine[object, None, T]) -> asyncio.Task[T]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ---- a post Discord refused ---------------------------------------------------------------
    async def _send(self, table: Table, where: Any, *args: Any, again: bool = True, **kwargs: Any) -> Any:
        """``where.send(...)``.  Should the table's thread turn out deleted (Discord's 404 10003),
        the table talks in its channel from now on and, with ``again``, this post is made there
        (once: a channel that is gone too raises).  Its view is let go once sent (let_go)."""
        try:
            try:
                return await where.send(*args, **kwargs)
            except discord.NotFound as e:
                if e.code != UNKNOWN_CHANNEL or not self._thread_gone(table, where):
                    raise
            return await self.where(table).send(*args, **kwargs) if again else None
        finally:
            let_go(kwargs.get("view"))

    def _thread_gone(self, table: Table, where: object) -> bool:
        """A post to ``where`` found it gone: if it is the table's thread, do what THREAD_DELETE
        does (:meth:`Runtime.detach_thread`: the game goes on in the channel, whose table message
        gets its controls back), once, whichever comes first; the event, when it comes, finds
        nothing left to do."""
        thread_id = table.thread_id
        if thread_id is None or getattr(where, "id", None) != thread_id:
            return False
        if thread_id not in self._gone:
            self._gone.add(thread_id)
            log.warning("Table %s: its thread %s was deleted (Discord: Unknown Channel); the game goes on in "
                        "its channel", table.id, thread_id)
            self._spawn(self._detach(table.id, thread_id))
        return True

    async def _detach(self, table_id: str, thread_id: int) -> None:
        runtime = getattr(self.bot, "runtime", None) or self.live.runtime
        try:
            if runtime is not None:
                await runtime.detach_thread(thread_id)
        except Exception:
            log.exception("Table %s: could not move the game out of its deleted thread", table_id)

    @contextlib.contextmanager
    def _posting(self, table: Table, failed: str) -> Iterator[None]:
        """Around a post of ``table``'s: Discord's refusals as :meth:`_forbidden` and :meth:`_not_found`
        take them, anything else logged (``failed``: the log's words, ``%s`` the table's id)."""
        try:
            yield
        except discord.Forbidden as e:
            self._forbidden(table, e)
        except discord.NotFound as e:
            self._not_found(table, e, failed)
        except Exception:
            log.exception(failed, table.id)

    def _not_found(self, table: Table, error: discord.NotFound, message: str) -> None:
        """In an ``except``: a post Discord answered 404.  Unknown Channel once the thread was left
        (the table's channel itself is gone): one warning per table, no traceback, nothing retried."""
        if error.code != UNKNOWN_CHANNEL:
            log.exception(message, table.id)
        elif table.id not in self._no_channel:
            self._no_channel.add(table.id)
            log.warning("Table %s: Discord says its channel is gone (Unknown Channel); its posts are dropped",
                        table.id)

    # ---- a channel the bot may not post in ----------------------------------------------------
    def _forbidden(self, table: Table, error: discord.Forbidden) -> None:
        """Discord refused a post for want of a permission.  The game goes on (every answer to a
        click still arrives: interaction answers need no permission); the host is told once, at
        their next interaction (:meth:`tell_host`), and the log gets one warning per table."""
        if table.id in self._blocked or table.id in self._told:
            return
        if error.code == 50083:  # "Thread is archived": a locked thread refuses the bot's posts
            self._thread_locked(table)
            return
        where = self.where(table)
        missing = missing_permissions(where, error)
        lang = of_person(table.host_id, table.locale)  # said to the host alone: their language
        named = ", ".join(words.translate(lang, m) for m in missing.split(", "))
        name = getattr(where, "mention", None) or words.translate(lang, "the table's channel")
        self._blocked[table.id] = (table.host_id, getattr(table, "guild_id", None), "⚠️ " + words.translate(
            lang, "I cannot post in {channel} for table `{id}`: I am missing the **{missing}** permission there, so "
            "turn pings and summaries are not shown. The game goes on; ask a server admin to give Deckhand "
            "{missing} in that channel.", channel=name, id=table.id, missing=named))
        log.warning("Table %s: Discord refused a post in channel %s (%s: missing %s); the host will be told, "
                    "further refusals are not logged", table.id, getattr(where, "id", "?"), error.text or error.code,
                    missing)

    def _thread_locked(self, table: Table) -> None:
        """A moderator locked the table's thread (Discord: 50083 "Thread is archived"): no permission
        of the bot's would help, so the host hears what happened and what a moderator can do."""
        where = self.where(table)
        lang = of_person(table.host_id, table.locale)  # said to the host alone: their language
        name = getattr(where, "mention", None) or words.translate(lang, "the table's thread")
        self._blocked[table.id] = (table.host_id, getattr(table, "guild_id", None), "⚠️ " + words.translate(
            lang, "The thread {thread} of table `{id}` has been locked by a moderator, so I cannot post turn pings "
            "and summaries there. The game goes on: **My hand** and your cards keep working. A moderator can "
            "unlock the thread to bring the pings back.", thread=name, id=table.id))
        log.warning("Table %s: its thread %s is locked; the host will be told, further refusals are not logged",
                    table.id, getattr(where, "id", "?"))

    @property
    def has_notices(self) -> bool:
        return bool(self._blocked)

    def notices_for(self, user_id: int, guild_id: int | None) -> list[str]:
        """The permission problems to tell this user now (each only once): those of the tables they
        host in this server."""
        out = []
        for tid, (host, guild, text) in list(self._blocked.items()):
            if host == user_id and (guild is None or guild == guild_id):
                del self._blocked[tid]
                self._told.add(tid)
                out.append(text)
        return out

    async def tell_host(self, interaction: discord.Interaction, wait: float = 3.0) -> None:
        """Once the bot has answered ``interaction``, add an ephemeral followup with what the user
        (a host) needs to know about a channel the bot may not post in.  Followups ride on the
        interaction's token: no channel permission, no REST budget."""
        user_id = getattr(getattr(interaction, "user", None), "id", 0)
        guild_id = getattr(interaction, "guild_id", None)
        if not any(host == user_id and guild in (None, guild_id) for host, guild, _ in self._blocked.values()):
            return
        loop = asyncio.get_running_loop()
        end = loop.time() + wait
        while not interaction.response.is_done():
            if loop.time() > end:
                return  # nobody answered it: no followup is possible; the next interaction tells
            await asyncio.sleep(0.05)
        texts = self.notices_for(user_id, guild_id)  # taken only now: each is told once
        if not texts:
            return
        try:
            await interaction.followup.send("\n".join(texts), ephemeral=True, allowed_mentions=NO_PINGS)
        except discord.HTTPException as e:
            log.warning("Could not tell %s about a missing permission: %s", user_id, e)
