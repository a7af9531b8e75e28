"""How the table runtime reaches Discord: redraw the table message, ping whoever must act, post
summaries.

The runtime calls these from its own tasks, so every Discord error is caught and logged here: a
deleted channel, a missing permission or an outage must never stop a table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord

from cogs import render, renderers
from cogs.budget import RestBudget, _Unlimited
from cogs.components import TableButton, table_view
from cogs.endgame import add_rating_changes, attach_picture_later
from cogs.live import LiveViews, edit_original_message
from cogs.pace import PublicPace, events_after
from cogs.permissions import ChannelPermissions
from cogs.render import NO_PINGS
from cogs.watch import Watchers, with_count
from engine.core import Event
from tables.kept import StoredPing
from tables.table import Table
from tables.turns import MISSES_TO_AWAY

log = logging.getLogger(__name__)

NOTES_KEPT = 8  # clock lines remembered per table (the table message shows the last few events)
# The nudge before a deadline (docs/rules.md, "Deadlines"): this many seconds before it runs out, for
# decisions that gave the person more than NUDGE_MIN_TIME seconds (a short timer is its own reminder).
NUDGE_LEAD = 10.0
NUDGE_MIN_TIME = 15.0
UNKNOWN_CHANNEL = 10003  # Discord's code for a channel or thread that does not exist (any more)



def pings_for(user_ids: Iterable[int]) -> discord.AllowedMentions:
    """Ping exactly these people, whatever else the text holds (a name with mention markup)."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(u) for u in dict.fromkeys(user_ids)])


def _person(table: Table, seat: int) -> int:
    """The user id at ``seat``, which the caller has checked a person holds."""
    user_id = table.seats[seat].user_id
    if user_id is None:
        raise ValueError(f"seat {seat} of table {table.id} holds no person")
    return user_id


def missing_permissions(channel: object, error: discord.Forbidden) -> str:
    """What the bot lacks to post in ``channel``: from its cached permissions there when discord.py
    knows them, else from the kind of channel and Discord's error code."""
    thread = isinstance(channel, discord.Thread) or getattr(channel, "type", None) in (
        discord.ChannelType.public_thread, discord.ChannelType.private_thread)
    send = "Send Messages in Threads" if thread else "Send Messages"
    with contextlib.suppress(Exception):
        if not isinstance(channel, (discord.abc.GuildChannel, discord.Thread)):
            raise LookupError  # a partial channel knows no permissions (it would say "none")
        perms = channel.permissions_for(channel.guild.me)
        lacking = [label for ok, label in ((perms.view_channel, "View Channel"),
                                           (perms.send_messages_in_threads if thread else perms.send_messages, send),
                                           (perms.embed_links, "Embed Links")) if not ok]
        if lacking:
            return ", ".join(lacking)
    return "View Channel" if error.code == 50001 else send


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


class DiscordListener:
    """The runtime's ``Listener``, backed by a discord.py client."""

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
        self._tasks: set[asyncio.Task[Any]] = set()
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

    def _clock(self) -> Any:
        return getattr(self.live.runtime, "clock", None) or getattr(getattr(self.bot, "runtime", None), "clock", None)

    # ---- Listener ---------------------------------------------------------------------------
    async def redraw(self, table: Table) -> float | None:
        """Live hand views follow at once; the public message when a watcher needs it.  Returns in
        how many seconds to be called again when part of the change is not shown yet."""
        news: list[tuple[str, int]] = []
        again: float | None = None
        try:
            news = self._watch(table)
            # Token edits do not wait for the bot's REST budget: Discord does not count them.
            self.live.changed(table)
            self.watchers.use_clock(getattr(self.live.runtime, "clock", None))
            self.watchers.changed(table, self.notes(table))
        except Exception:
            log.exception("Could not follow the changes of table %s", table.id)
        try:
            await self._restore_pings(table)
            self._sweep_pings(table)
            self._plan_nudges(table)
        except Exception:
            log.exception("Could not plan the reminders of table %s", table.id)
        try:
            again = await self._redraw(table)
        except discord.Forbidden as e:
            self._forbidden(table, e)
        except Exception:
            log.exception("Could not redraw table %s", table.id)
        for kind, seat in news:
            try:
                await self._wait_gate(table.id)
                await self._seat_notice(table, kind, seat)
            except discord.NotFound as e:
                self._not_found(table, e, f"Could not tell seat {seat} of table %s about its missed turns")
            except Exception:
                log.exception("Could not tell seat %d of table %s about its missed turns", seat, table.id)
        return again

    async def seat_changed(self, table: Table, seats: Sequence[int]) -> None:
        # The runtime's signal: only these seats' own hand views are edited (through their tokens).
        self.live.seat_changed(table, seats)

    def released(self, table: Table) -> None:
        """The runtime let go of this table (another process runs it now): nothing more of it is
        posted from here.  Its nudge is disarmed, its hand views are no longer edited, and its
        standing pings are forgotten here (they are stored: the process that runs the table now
        deletes them once their people moved)."""
        n = self._nudges.pop(table.id, None)
        if n is not None and n.task is not None:
            n.task.cancel()
        self._pings.pop(table.id, None)
        self._restored.pop(table.id, None)
        self._first.pop(table.id, None)
        self._watches.pop(table.id, None)
        self.pace.forget(table.id)
        self.live.let_go(table.id)

    def showing(self, table: Table) -> bool:
        """The runtime's question before a finished table leaves memory: is a hand view of it still
        being edited (those read the table by its id)?"""
        return self.live.editing(table.id) or self.watchers.editing(table.id)

    def notes(self, table: Table) -> tuple[Any, ...]:
        """The clock lines the table message shows now (``render.clock_notes``)."""
        watch = self._watches.get(table.id)
        return tuple(watch.notes) if watch is not None else ()

    async def started(self, table: Table) -> None:
        """The game's first message in its new thread (the cog calls it while it holds the table's
        pings): **My hand** and **I'm back** for the whole game, so a hand opened there answers in
        the thread; it also pings the people who must act already and have no live hand view (their
        first turn ping: one post for both)."""
        if table.thread_id is None:
            return
        try:
            where = self.where(table)
            await self.budget.take(urgent=True)  # the game's My hand: people wait for it
            # (while the table deals, nobody is due: the seats' moves are optional, never pinged)
            acting = () if table.state is None or len(table.to_act()) != len(table.state.to_act()) else table.to_act()
            # Only people due now whose hand view is not live are pinged (as by ``turn``).
            people = [s for s in acting if 0 <= s < len(table.seats) and not table.seats[s].auto
                      and (user_id := table.seats[s].user_id) is not None
                      and not self.live.alive(table.id, user_id)]
            ids = [_person(table, s) for s in people]
            text = (f"**{render.game_title(table)}** is on! Press **My hand** for your cards: they show up here "
                    "and stay up to date while you play. **I'm back** gives you your seat back after the AI "
                    "took over.")
            if people:
                text += "\n" + renderers.turn_notice(table, people)
                self._first[table.id] = frozenset(people)
            # Not again in the channel: there the table message gets My hand back instead.
            await self._send(table, where, text, view=_buttons(table.id, "hand", "back"),
                             allowed_mentions=pings_for(ids), again=False)
        except discord.Forbidden as e:
            self._first.pop(table.id, None)
            self._forbidden(table, e)
        except discord.NotFound as e:
            self._first.pop(table.id, None)
            self._not_found(table, e, "Could not post the start notice of table %s")
        except Exception:
            self._first.pop(table.id, None)
            log.exception("Could not post the start notice of table %s", table.id)

    async def turn(self, table: Table, seats: Sequence[int]) -> None:
        try:
            await self._wait_gate(table.id)
            first = self._first.pop(table.id, None)
            if first is not None and set(seats) <= first:
                return  # the start notice pinged them for this very turn
            await self._turn(table, seats)
        except discord.Forbidden as e:
            self._forbidden(table, e)
        except discord.NotFound as e:
            self._not_found(table, e, "Could not post the turn notice of table %s")
        except Exception:
            log.exception("Could not post the turn notice of table %s", table.id)

    async def summary(self, table: Table, events: Sequence[Event]) -> None:
        try:
            await self._wait_gate(table.id)
            await self._summary(table, events)
        except discord.Forbidden as e:
            self._forbidden(table, e)
        except discord.NotFound as e:
            self._not_found(table, e, "Could not post the summary of table %s")
        except Exception:
            log.exception("Could not post the summary of table %s", table.id)

    async def unposted(self, table: Table) -> None:
        """The runtime's call for a table restored with no message (the bot stopped after storing a
        new lobby, before its message reached Discord): post it in its channel, as a table message
        that was deleted is posted again, so people can see and join it.  No pings."""
        if table.message_id is not None or table.anchored:
            return  # (a table where the bot is not a member is posted again by the next interaction)
        try:
            channel = self.channel(table.channel_id)
            # The message may have reached Discord with its id not yet stored: found, it is kept
            # (the redraws edit it); else it is posted.
            msg = await self._find_posted(table, channel)
            if msg is None:
                await self.budget.take()
                rendered = renderers.table_message(table)
                msg = await channel.send(content=rendered.content, embed=rendered.embed, view=table_view(table),
                                         allowed_mentions=NO_PINGS)
            if table.message_id is None:
                table.message_id = msg.id  # (the runtime stores it: its ids changed)
        except discord.Forbidden as e:
            self._forbidden(table, e)
        except discord.NotFound as e:
            self._not_found(table, e, "Could not post the message of table %s")
        except Exception:
            log.exception("Could not post the message of table %s", table.id)

    async def _find_posted(self, table: Table, channel: Any, look_back: int = 25) -> Any:
        """The bot's own message of ``table`` among the channel's latest (Read Message History), or
        ``None`` (none there, or the bot may not read the history)."""
        me = getattr(getattr(self.bot, "user", None), "id", None)  # (the bot's own account, once logged in)
        mark = f"table `{table.id}`"
        try:
            await self.budget.take()
            async for m in channel.history(limit=look_back):
                texts = [m.content or "", *(f"{e.title or ''} {e.description or ''}" for e in m.embeds)]
                if m.author.id == me and any(mark in t for t in texts):
                    return m
        except discord.HTTPException as e:
            log.info("Table %s: could not read the channel's history (%s); its message is posted", table.id, e)
        return None

    # ---- a thread deleted before Discord said so ------------------------------------------------
    async def _send(self, table: Table, where: Any, *args: Any, again: bool = True, **kwargs: Any) -> Any:
        """``where.send(...)``.  Should the table's thread turn out deleted (Discord's 404 10003),
        the table talks in its channel from now on and, with ``again``, this post is made there
        (once: a channel that is gone too raises)."""
        try:
            return await where.send(*args, **kwargs)
        except discord.NotFound as e:
            if e.code != UNKNOWN_CHANNEL or not self._thread_gone(table, where):
                raise
        return await self.where(table).send(*args, **kwargs) if again else None

    def _thread_gone(self, table: Table, where: Any) -> bool:
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
        name = getattr(where, "mention", None) or "the table's channel"
        self._blocked[table.id] = (table.host_id, getattr(table, "guild_id", None), (
            f"⚠️ I cannot post in {name} for table `{table.id}`: I am missing the **{missing}** "
            f"permission there, so turn pings and summaries are not shown. The game goes on; ask a server "
            f"admin to give Deckhand {missing} in that channel."))
        log.warning("Table %s: Discord refused a post in channel %s (%s: missing %s); the host will be told, "
                    "further refusals are not logged", table.id, getattr(where, "id", "?"), error.text or error.code,
                    missing)

    def _thread_locked(self, table: Table) -> None:
        """A moderator locked the table's thread (Discord: 50083 "Thread is archived"): no permission
        of the bot's would help, so the host hears what happened and what a moderator can do."""
        where = self.where(table)
        name = getattr(where, "mention", None) or "the table's thread"
        self._blocked[table.id] = (table.host_id, getattr(table, "guild_id", None), (
            f"⚠️ The thread {name} of table `{table.id}` has been locked by a moderator, so I cannot post "
            "turn pings and summaries there. The game goes on: **My hand** and your cards keep working. "
            "A moderator can unlock the thread to bring the pings back."))
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

    # ---- the work ---------------------------------------------------------------------------
    async def _redraw(self, table: Table) -> float | None:
        if table.message_id is None:
            return None  # /game new posts the first message and records its id
        if table.anchored:
            await self._redraw_anchored(table)
            return None
        channel = self.channel(table.channel_id)
        if channel is None:
            return None
        # While the /game new answer's token lives, the table message is edited through it: Discord's
        # global limit does not count that, so no budget is taken (the pace still decides when).
        token = self.live.table_token(table.id)
        self.pace.free(table.id, token is not None)
        watch = self._watches.get(table.id)
        wait = self.pace.due(table, self.now(), watch.noted if watch is not None else 0)
        if wait is None:
            return None
        if wait > 0:
            return wait
        if token is not None:
            # Nothing waits for the budget here: while the cog opens the game's thread, the table
            # shows the running game only once the thread's first message (My hand) is there.
            await self._wait_gate(table.id)
        else:
            if self.pace.urgent(table.id):
                await self.budget.take()  # in the queue, first come first served
            elif not self.budget.try_take():
                # A routine edit never queues before a ping or a summary: the table tries again
                # soon, with whatever it shows by then.
                return self.pace.retry()
        # After the token: the table may have moved on while waiting, and that is what is drawn.
        watch = self._watches.get(table.id)
        self.pace.shown(table, self.now(), watch.noted if watch is not None else 0)
        with render.clock_notes(watch.notes if watch is not None else ()):
            rendered = renderers.table_message(table)
        # How many watch rides on this paced edit: a watcher coming or going never costs one.
        if render.phase_of(table) == "running":  # (a finished message is never redrawn to take it back)
            with_count(rendered, self.watchers.count(table.id))
        view = table_view(table)
        if token is not None:
            try:
                await edit_original_message(token, content=rendered.content, embed=rendered.embed, view=view,
                                            allowed_mentions=NO_PINGS)
                if render.phase_of(table) == "finished":
                    self.live.table_token_gone(table.id)
                return None
            except discord.HTTPException as e:
                # The token ran out early, or the message is gone: the bot's own REST edit (which
                # posts the message again if it was deleted) takes over for good.
                log.info("Table %s: its message can no longer be edited through a token (%s)", table.id, e)
                self.live.table_token_gone(table.id)
                self.pace.free(table.id, False)
                await self.budget.take()
        try:
            await channel.get_partial_message(table.message_id).edit(
                content=rendered.content, embed=rendered.embed, view=view, allowed_mentions=NO_PINGS
            )
        except discord.NotFound:
            # Someone deleted the table message: post it again so the game stays playable.
            await self.budget.take()
            msg = await channel.send(
                content=rendered.content, embed=rendered.embed, view=view, allowed_mentions=NO_PINGS
            )
            table.message_id = msg.id
        return None

    async def _redraw_anchored(self, table: Table) -> None:
        """A table where the bot is not a member: its message is edited only through a token that
        may edit it (cogs/live.py: the answer that posted it, or the interaction that posted it
        again), never paced against the REST budget (Discord does not count those edits).  With no
        such token left the table waits: the next interaction about it posts it again."""
        token = self.live.table_token(table.id)
        if token is None:
            self.live.table_stale(table.id)
            return None
        watch = self._watches.get(table.id)
        with render.clock_notes(watch.notes if watch is not None else ()):
            rendered = renderers.table_message(table)
        if render.phase_of(table) == "running":
            with_count(rendered, self.watchers.count(table.id))
        try:
            await self.live.edit_table(token, table.id, content=rendered.content, embed=rendered.embed,
                                       view=table_view(table), allowed_mentions=NO_PINGS)
        except discord.HTTPException as e:
            log.info("Table %s: its message can no longer be edited through a token (%s)", table.id, e)
            self.live.table_token_gone(table.id)
            self.live.table_stale(table.id)
        return None

    async def _turn(self, table: Table, seats: Sequence[int]) -> None:
        # Notices are delivered in order, and may wait behind Discord's rate limit (5 messages per
        # 5 s in a thread) and the REST budget: one whose turn has been taken meanwhile would ping
        # for nothing, so who is still due is asked again after every wait.
        def due() -> list[int]:
            acting = set(table.to_act())
            return [s for s in seats if 0 <= s < len(table.seats) and not table.seats[s].auto
                    and table.seats[s].user_id is not None and s in acting]

        if not due():
            return
        # A person whose hand view is live sees their turn there (edited now, through its token):
        # no ping.  The others are pinged with a My hand button, which opens a fresh live view.
        # Whether someone is pinged depends only on whose turn it is (public) and on their own view.
        pinged = due()
        shown = await asyncio.gather(*(self.live.push(table, _person(table, s)) for s in pinged))
        closed = {s for s, live in zip(pinged, shown, strict=True) if not live}
        if not closed:
            return
        async with self._lock(table.id):
            where = self.where(table)
            if where is None:
                return
            await self.budget.take()
            people = [s for s in due() if s in closed]
            if not people:
                return
            ids = [_person(table, s) for s in people]
            await self._retire(table, people)
            sent = await self._send(table, where, renderers.turn_notice(table, people),
                                    view=_buttons(table.id, "hand"), allowed_mentions=pings_for(ids))
            self._stand(table, sent, people)

    # ---- standing pings: one per person, removed once they moved ------------------------------------
    async def _retire(self, table: Table, seats: Sequence[int]) -> None:
        """Before a new ping to ``seats``: delete the older ones naming any of them (a thread holds
        at most one standing ping per person, so the old goes before the new is posted)."""
        await self._restore_pings(table)
        pings = self._pings.get(table.id, [])
        old = [p for p in pings if set(p.due) & set(seats)]
        for p in old:
            pings.remove(p)
        for p in old:
            await self._remove(table.id, p)

    def _stand(self, table: Table, sent: Any, seats: Sequence[int]) -> None:
        """Remember a ping just posted for ``seats`` (deleted once they all moved)."""
        channel_id = getattr(getattr(sent, "channel", None), "id", None) or table.thread_id or table.channel_id
        if sent is not None and channel_id is not None:
            ping = _Ping(channel_id, sent.id, {s: table.deadlines.get(s) for s in seats})
            kept = self._kept()
            if kept is not None:
                ping.saved = self._spawn(kept.save_ping(table.id, StoredPing(ping.message_id, channel_id, ping.due)))
            self._pings.setdefault(table.id, []).append(ping)
        self._sweep_pings(table)

    def _kept(self) -> Any:
        """The runtime's store of what a restart must not forget (tables/kept.py), if it has one."""
        runtime = self.live.runtime or getattr(self.bot, "runtime", None)
        return getattr(runtime, "kept", None)

    async def _restore_pings(self, table: Table) -> None:
        """The pings a previous process left standing for this table, read once per process (every
        caller waits for the same read), so they are deleted like the ones posted here."""
        task = self._restored.get(table.id)
        if task is None:
            task = self._restored[table.id] = self._spawn(self._read_pings(table.id))
        with contextlib.suppress(Exception):
            await asyncio.shield(task)

    async def _read_pings(self, table_id: str) -> None:
        kept = self._kept()
        if kept is None:
            return
        stored = await kept.pings(table_id)
        pings = self._pings.setdefault(table_id, [])
        here = {p.message_id for p in pings}
        pings.extend(_Ping(p.channel_id, p.message_id, dict(p.due)) for p in stored if p.message_id not in here)
        if not pings:
            del self._pings[table_id]

    def _sweep_pings(self, table: Table) -> None:
        """Delete the pings whose people have all moved (or the game ended): who is due and the
        deadlines are public, so when a ping goes tells nothing hidden."""
        pings = self._pings.get(table.id)
        if not pings:
            if table.phase == "finished":
                self._restored.pop(table.id, None)  # (nothing more to read for it)
            return
        acting = set(table.to_act())
        for p in [p for p in pings if not any(s in acting and table.deadlines.get(s) == d for s, d in p.due.items())]:
            pings.remove(p)
            self._delete_ping(table.id, p)
        if not pings:
            del self._pings[table.id]

    def _delete_ping(self, table_id: str, ping: _Ping) -> None:
        # In its own task: the table never waits for it.
        self._spawn(self._remove(table_id, ping))

    async def _remove(self, table_id: str, ping: _Ping) -> None:
        """One counted call, paced by the budget; a failure is logged once, never retried (and the
        stored ping forgotten either way: a successor would only try again)."""
        try:
            await self.budget.take()
            await self.channel(ping.channel_id).get_partial_message(ping.message_id).delete()
        except discord.NotFound:
            pass  # someone deleted it already
        except Exception as e:
            log.warning("Table %s: could not remove the ping %s (%s)", table_id, ping.message_id, e)
        kept = self._kept()
        if kept is not None:
            if ping.saved is not None:
                with contextlib.suppress(Exception):
                    await asyncio.shield(ping.saved)  # stored before it is forgotten, never after
            await kept.drop_ping(table_id, ping.message_id)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def close(self) -> None:
        """Stop the nudges and ping removals under way (the standing pings are stored as posted)."""
        tasks = list(self._tasks)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ---- the nudge before a deadline ------------------------------------------------------------------
    def _plan_nudges(self, table: Table) -> None:
        """Arm one sleep per table until the next decision's nudge is due.  Only decisions with a
        deadline are nudged: those a person must make (a seat that may act without having to, like
        a declaration during a live deal, has none)."""
        if table.id not in self._nudges and not table.deadlines:
            return  # a lobby, an untimed table, a finished one: nothing to plan
        n = self._nudges.setdefault(table.id, _Nudges())
        now = self.now()
        acting = set(table.to_act())
        seen: dict[tuple[int, float], float] = {}
        for s, d in table.deadlines.items():
            if s in acting and 0 <= s < len(table.seats) and not table.seats[s].auto \
                    and table.seats[s].user_id is not None:
                seen[(s, d)] = n.seen.get((s, d), now)
        n.seen = seen
        n.done &= set(seen)
        at = min((d - NUDGE_LEAD for (s, d), first in seen.items()
                  if (s, d) not in n.done and d - first > NUDGE_MIN_TIME), default=None)
        if at == n.at and n.task is not None and not n.task.done():
            return
        if n.task is not None and n.task is not asyncio.current_task():
            n.task.cancel()
        n.at, n.task = at, None
        if at is not None:
            n.task = self._spawn(self._nudge_later(table, n, at))
        elif table.phase == "finished":
            self._nudges.pop(table.id, None)

    async def _nudge_later(self, table: Table, n: _Nudges, at: float) -> None:
        clock = self._clock()
        wait = at - self.now()
        if wait > 0:
            await (clock.sleep(wait) if clock is not None else asyncio.sleep(wait))
        if n.task is not asyncio.current_task():
            return
        n.task, n.at = None, None
        try:
            await self._nudge(table, n)
        except discord.Forbidden as e:
            self._forbidden(table, e)
        except discord.NotFound as e:
            self._not_found(table, e, "Could not remind the players of table %s")
        except Exception:
            log.exception("Could not remind the players of table %s", table.id)
        if self._nudges.get(table.id) is n:
            self._plan_nudges(table)

    async def _nudge(self, table: Table, n: _Nudges) -> None:
        """About NUDGE_LEAD seconds are left: one short ping with **My hand** for each person due
        who has not moved yet, their hand view open or not — Discord never tells the bot that
        someone dismissed theirs, so a view that seems open may be gone; each decision is nudged
        once, and the nudge is deleted once they moved (a standing ping)."""
        now = self.now()
        acting = set(table.to_act())

        def still(s: int, d: float) -> bool:
            return s in acting and table.deadlines.get(s) == d and not table.seats[s].auto

        people: list[tuple[int, float]] = []
        for (s, d), first in n.seen.items():
            if (s, d) in n.done or d - first <= NUDGE_MIN_TIME or d - NUDGE_LEAD > now + 1e-6 or not still(s, d):
                continue
            n.done.add((s, d))
            if table.seats[s].user_id is not None:
                people.append((s, d))
        if not people:
            return
        await self._wait_gate(table.id)
        async with self._lock(table.id):
            where = self.where(table)
            if where is None:
                return
            for s, d in people:
                await self.budget.take()
                acting = set(table.to_act())
                if not still(s, d):
                    continue
                uid = _person(table, s)
                await self._retire(table, [s])
                left = render.plural(round(NUDGE_LEAD), "second")
                sent = await self._send(
                    table, where, f"<@{uid}>, about {left} left for your move — press **My hand**.",
                    view=_buttons(table.id, "hand"), allowed_mentions=pings_for([uid]))
                where = self.where(table)  # (the channel, should the thread have turned out deleted)
                self._stand(table, sent, [s])

    # ---- missed turns and moves made by the clock ------------------------------------------------
    def _watch(self, table: Table) -> list[tuple[str, int]]:
        """Compare the table with what the last redraw saw: a line on the table for every move the
        clock made for a person, and the seats to warn (second missed turn in a row) or to tell that
        the AI plays for them now (third).  Only public facts are used: who moved, that the clock
        ran out, and the public events of the move."""
        seats = table.seats
        w = self._watches.get(table.id)
        if w is None or len(table.log) < w.log_len:
            self._watches[table.id] = _Watch(len(table.log), table.recent[-1] if table.recent else None,
                                             {i: s.away for i, s in enumerate(seats)},
                                             {i: s.missed for i, s in enumerate(seats)})
            return []
        new_log = table.log[w.log_len:]
        events = events_after(table.recent, w.last_event)
        w.log_len = len(table.log)
        w.last_event = table.recent[-1] if table.recent else None
        used: set[int] = set()
        news: list[tuple[str, int]] = []
        for i, s in enumerate(seats):
            if s.is_ai or s.user_id is None:
                continue
            was_away, missed_before = w.away.get(i, False), w.missed.get(i, 0)
            w.away[i], w.missed[i] = s.away, s.missed
            if was_away:
                continue  # the AI plays for them: its moves are nothing special
            for e in (e for e in new_log if e.seat == i and e.timeout):  # the clock's, not the AI's
                w.notes.append(self._clock_note(table, i, e.code, events, used))
                w.noted += 1
            if s.away and not s.left and s.missed >= MISSES_TO_AWAY:
                news.append(("away", i))
            elif not s.away and s.missed == MISSES_TO_AWAY - 1 and missed_before < s.missed:
                if not self.live.alive(table.id, s.user_id):
                    news.append(("warn", i))  # a live view shows the warning itself
        del w.notes[:-NOTES_KEPT]
        return news

    def _clock_note(self, table: Table, seat: int, code: str, events: Sequence[Event],
                    used: set[int]) -> tuple[Event | None, str, bool]:
        """The table's line for a move the clock made: the public event of that move, reworded
        ("Ali's time ran out — played 4♣."), or a plain line after the newest event when the move
        showed nothing (a pass chosen in secret)."""
        name = render.seat_name(table, seat)
        codes = set(code.split()[1:])
        pick = None
        for n, e in enumerate(events):
            if n in used or e.seat != seat or e.to is not None:
                continue
            shown = {getattr(x, "code", str(x)) for x in e.data}
            if codes and codes <= shown:
                pick = n
                break
        if pick is None:
            pick = next((n for n, e in enumerate(events) if n not in used and e.seat == seat and e.to is None
                         and not any(hasattr(x, "code") for x in e.data)), None)
        if pick is not None:
            used.add(pick)
            text = renderers.event_text(table, events[pick])
            if text:
                rest = text[len(name) + 1:] if text.startswith(name + " ") else text
                return events[pick], f"⏰ {name}'s time ran out — {rest}", True
        return (events[-1] if events else None), f"⏰ {name}'s time ran out — a safe move was made for them.", False

    async def _seat_notice(self, table: Table, kind: str, seat: int) -> None:
        """The second missed turn in a row: a warning; the third: the AI plays the seat now, and
        how to come back.  One short ping each, in the table's thread."""
        s = table.seats[seat]
        if s.user_id is None or table.phase != "running":
            return
        where = self.where(table)
        if where is None:
            return
        await self.budget.take()
        if kind == "away":
            if not (s.away and not s.left):
                return
            text = (f"<@{s.user_id}>, you missed {render.plural(MISSES_TO_AWAY, 'turn')} in a row, so the AI is "
                    "playing your seat now. Press **I'm back** or use `/hand` to play again.")
            await self._send(table, where, text, view=_buttons(table.id, "back"),
                             allowed_mentions=pings_for([s.user_id]))
        else:
            if s.away or s.missed != MISSES_TO_AWAY - 1:
                return
            text = (f"<@{s.user_id}>, your time ran out {render.plural(s.missed, 'turn')} in a row — if it runs out "
                    "once more, the AI plays your seat until you press **I'm back**.")
            await self._send(table, where, text, view=_buttons(table.id, "hand"),
                             allowed_mentions=pings_for([s.user_id]))

    async def _summary(self, table: Table, events: Sequence[Event]) -> None:
        rendered = renderers.summary(table, [e for e in events if e.to is None])
        over = render.phase_of(table) == "finished"
        try:
            self.watchers.summary(table, rendered)  # (through their tokens: no budget)
        except Exception:
            log.exception("Could not show the summary of table %s to its watchers", table.id)
        if over:
            self._locks.pop(table.id, None)
            self._watches.pop(table.id, None)
        if rendered is None:
            return
        where = self.where(table)
        if where is not None:
            if over:
                await add_rating_changes(self.bot, table, rendered)
            await self.budget.take()
            sent = await self._send(table, where, content=rendered.content, embed=rendered.embed,
                                    allowed_mentions=NO_PINGS)
            if over:
                # Without Attach Files the chart comes as a text table (cogs/permissions.py).
                attach_picture_later(self.budget, table, sent, rendered,
                                     as_text=not self.permissions.allows(table, "attach_files"))


def _buttons(table_id: str, *acts: str) -> discord.ui.View:
    """Table buttons for a ping (My hand, I'm back): they carry only the table id, and answer
    whoever presses them about their own seat."""
    view = discord.ui.View(timeout=None)
    for act in acts:
        view.add_item(TableButton(act, table_id))
    view.stop()  # dispatched by their ids (DynamicItem): nothing to keep per message
    return view
