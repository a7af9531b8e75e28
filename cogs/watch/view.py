"""Watching a table: **Watch** on a running table message answers anyone with an ephemeral view of
the public table, kept current through that interaction's token like a live hand view.

A watcher's view shows exactly what the public table message shows (drawn by the same renderer,
with the same clock lines) and, under it, the latest end-of-hand summary the table posted (a
round's hands, scores, as everyone in the channel saw them) — never a seat's view, so it reveals
nothing the channel does not.  Edits ride on the watcher's interaction token: Discord's global
limit does not count them, so watching costs no counted REST call.

Per table the watchers form one group: the public view is drawn once per change and the same
payload is sent to each watcher's token, at most once per ``interval`` (later changes are
coalesced into the next edit), and only when what the table shows moved (:func:`watch_key`).  A
table takes at most ``MAX_WATCHERS``; the next person is told so in plain words.  The place is
taken (:meth:`Watchers.reserve`) before the answer is sent, so people pressing **Watch** together
cannot pass the limit; it is given back if the answer fails.  One person follows at most
``MAX_PER_PERSON`` tables at once: watching another ends their oldest view, whose last edit says so
(pressing **Watch** on it follows that table again, ending the next oldest).  A token lives
15 minutes: just before it runs out, the view gets one last edit saying it stopped following the
table and that **Watch** (on the view itself, or the table message) follows it again; after that
it is never edited.  A view whose message is gone (dismissed) is dropped at its next edit.

How many watch is folded into the table message's next paced edit (:func:`count_line`): a
watcher joining or leaving never costs an edit of its own.

Only presentation state lives here (tokens, when each runs out, what was last shown, the last
summary drawn): no game state.  It is lost on a restart; a watcher presses **Watch** again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

import discord
from discord.webhook.async_ import async_context

import words
from cogs.i18n.reading import lang, of_person, reading
from cogs.table import render, renderers
from cogs.table.components import _table_button
from cogs.table.render import Rendered
from engine.core import Event
from tables.clock import Clock
from tables.finished import AnyTable
from tables.table import Table

if TYPE_CHECKING:  # (discord.types is for the type checker, as in cogs/table/components.py)
    import aiohttp
    from discord.state import ConnectionState
    from discord.types.components import ActionRow as ActionRowPayload
    from discord.types.embed import Embed as EmbedPayload

#: One clock line of the table message (``render.clock_notes``): the event it rewords, its text, and
#: whether it replaces the event's own line.
ClockNote = tuple[Event | None, str, bool]

log = logging.getLogger(__name__)

LIFETIME = 15 * 60.0  # how long Discord keeps an interaction token valid
MARGIN = 30.0  # the last edit goes out this long before the token runs out (never with a dead one)
INTERVAL = 1.0  # at most one edit of a table's watcher views per this many seconds, like a hand view
MAX_WATCHERS = 25  # per table: the work per change stays bounded however popular a table is
MAX_PER_PERSON = 2  # live watcher's views one person has at once (all tables, every server)
MAX_EMBEDS_TOTAL = 6000  # Discord's limit on the characters of all of a message's embeds together


def head_line(table: Table) -> str:
    """The line above a watcher's copy of the table message.  A watcher reads the table as the table
    does, in its language: the copy is drawn once for every watcher of the table (issue 31)."""
    with reading(table.locale):
        title = render.game_title(table)
    if render.phase_of(table) == "finished":
        return "👀 " + words.translate(table.locale, "The game at table `{id}` ({game}) is over: this is how it ended.",
                                       id=table.id, game=title)
    return "👀 " + words.translate(table.locale, "You are watching table `{id}` ({game}): what everyone at the table "
                                   "sees, kept up to date here for 15 minutes.", id=table.id, game=title)


def expired_line(table_id: str, lang: str = words.ENGLISH) -> str:
    """Said to one watcher (``lang``: theirs)."""
    return "⌛ " + words.translate(lang, "This view of table `{id}` stopped following the game. Press **Watch** to "
                                   "follow it again.", id=table_id)


def replaced_line(table_id: str, new_id: str, most: int = MAX_PER_PERSON, lang: str = words.ENGLISH) -> str:
    """The last edit of a person's oldest view when they start watching one table too many."""
    return "⌛ " + words.ngettext(
        lang, "This view of table `{id}` stopped following the game: you started watching table `{new}`, and one "
        "person can follow {n} table at once. Press **Watch** to follow this one again.",
        "This view of table `{id}` stopped following the game: you started watching table `{new}`, and one "
        "person can follow {n} tables at once. Press **Watch** to follow this one again.", most, id=table_id,
        new=new_id)


def full_line(table_id: str) -> str:
    """A refusal to the person who pressed Watch (their language: cogs/i18n/reading.py)."""
    return words.translate(lang(), "Table `{id}` already has {n} people watching, the most it takes. Try again "
                           "when someone stops watching.", id=table_id, n=MAX_WATCHERS)


def over_line(table: AnyTable, *, command: bool = True) -> str:
    """Watching a finished table — in memory or the stub of one that left it (tables/finished.py),
    the same answer either way: nothing to follow; ``/game watch`` (``command``) points to the
    replay, the **Watch** button (on the table message itself, which shows the end) to that message.
    In the asker's language."""
    if table.seed is None and getattr(table, "state", None) is None:
        return words.translate(lang(), "Table `{id}` was closed before its game started: there is nothing to watch.",
                               id=table.id)
    if not command:
        return words.translate(lang(), "The game at table `{id}` is over: its message shows how it ended.",
                               id=table.id)
    return words.translate(lang(), "The game at table `{id}` is over, so there is nothing to watch. Press "
                           "**Replay** on its table message, or use `/game replay id:{id}`, to go through it "
                           "step by step.", id=table.id)


def count_line(n: int, locale: str = words.ENGLISH) -> str:
    return "👀 " + words.ngettext(locale, "{n} watching", "{n} watching", n)


def with_count(rendered: Rendered, n: int, locale: str = words.ENGLISH) -> Rendered:
    """The table message with how many are watching at the end of its footer (nothing when none)."""
    if n <= 0 or rendered.embed is None:
        return rendered
    footer = rendered.embed.footer.text or ""
    rendered.embed.set_footer(text=(f"{footer} · " if footer else "") + count_line(n, locale))
    return rendered


def watch_key(table: Table, notes: int = 0) -> tuple[object, ...]:
    """What moves the public table: a move (the version), the phase, a pause, a seat leaving or the
    AI taking it over, a clock line.  Cheap: no drawing."""
    seats = tuple((s.user_id, s.away, s.left) for s in table.seats)
    return (table.version, render.phase_of(table), table.paused, seats, notes)


class WatchPayload(TypedDict):
    """The watcher's view as Discord's JSON: the body of an edit of its message (the mentions aside)."""

    content: str
    embeds: list[EmbedPayload]
    components: list[ActionRowPayload]


def watch_payload(table: Table, drawn: Rendered, summary: Rendered | None, head: str) -> WatchPayload:
    """The watcher's view as Discord's JSON: the head line, the public table, the latest summary,
    and **Watch** (pressing it on the view keeps it following with a fresh token)."""
    embeds = [e for e in (drawn.embed, summary.embed if summary is not None else None) if e is not None]
    if sum(len(e) for e in embeds) > MAX_EMBEDS_TOTAL:
        embeds = embeds[:1]  # the table first: the summary was posted in the channel too
    content = "\n".join(p for p in (head, drawn.content) if p)
    components: list[ActionRowPayload] = []
    if render.phase_of(table) == "running":
        components = [{"type": 1, "components": [_table_button("watch", table.id)]}]
    return {"content": content, "embeds": [e.to_dict() for e in embeds], "components": components}


@dataclass(frozen=True, slots=True)
class Token:
    """What is kept of an interaction whose token edits a message later (a watcher's view, a
    live hand view, the table message): the ids and token its webhook needs, and discord.py's
    connection and session, which the bot holds anyway.  Not the interaction itself: it holds the
    message it came from (a hand view: its action rows, buttons and their emoji, some sixty
    objects) and a reference cycle with its ``response`` that only the garbage collector frees,
    for the token's fifteen minutes (issue 35: a third of what every full collection walked)."""

    application_id: int
    token: str
    _state: ConnectionState
    _session: aiohttp.ClientSession


def token_of(interaction: discord.Interaction | Token) -> Token:
    if isinstance(interaction, Token):
        return interaction
    return Token(interaction.application_id, interaction.token, interaction._state, interaction._session)


async def edit_token(interaction: discord.Interaction | Token, payload: WatchPayload,
                     message_id: int | None = None) -> None:
    """Edit the interaction's ``@original`` with ``payload`` through discord.py's webhook adapter,
    without reading the message back (as cogs/live/hand.py does for hand views); ``message_id``: the
    view is that followup of the interaction instead (a Watch click on an anchored table's message
    answered by updating that message: cogs/live/anchors.py)."""
    if not isinstance(interaction, discord.Interaction | Token):
        await interaction.edit_original_response(**payload)  # a test's stand-in
        return
    state = interaction._state
    body = {"tts": False, **payload}
    body["allowed_mentions"] = discord.AllowedMentions.none().to_dict()
    if message_id is not None:
        await async_context.get().edit_webhook_message(
            interaction.application_id, interaction.token, message_id, session=interaction._session,
            proxy=state.http.proxy, proxy_auth=state.http.proxy_auth, payload=body)
        return
    await async_context.get().edit_original_interaction_response(
        interaction.application_id, interaction.token, session=interaction._session,
        proxy=state.http.proxy, proxy_auth=state.http.proxy_auth, payload=body)


@dataclass(eq=False)
class Watcher:
    user_id: int
    interaction: discord.Interaction | Token  # its @original is the watcher's view
    expires: float  # on Watchers' clock: the last edit (the "press Watch again" line) is due then
    dead: bool = False
    timer: asyncio.Task[None] | None = None
    since: int = 0  # the order people started watching in (the oldest view goes first)
    message_id: int | None = None  # the view is this followup of ``interaction`` (None: its @original)


@dataclass(eq=False)
class Place:
    """A place among a table's watchers, held from before the answer is sent until it is
    registered (:meth:`Watchers.watch`) or given back (:meth:`Watchers.release`)."""

    table_id: str
    user_id: int
    done: bool = False


@dataclass(eq=False)
class _Group:
    """One table's watchers."""

    table: Table  # the runtime's own Table object (read when drawing, never changed)
    watchers: dict[int, Watcher] = field(default_factory=dict)
    summary: Rendered | None = None  # the latest end-of-hand summary the table posted
    summaries: int = 0
    notes: Sequence[ClockNote] = ()  # the listener's clock lines, as the table message shows them
    shown: tuple[object, ...] | None = None  # watch_key of what the views show
    last_edit: float = -math.inf
    wanted: bool = False
    closing: bool = False  # the game is over: one more edit, then the group goes
    task: asyncio.Task[None] | None = None


class Watchers:
    """Every table's watchers, by table id."""

    def __init__(
        self,
        *,
        lifetime: float = LIFETIME,
        interval: float = INTERVAL,
        most: int = MAX_WATCHERS,
        per_person: int = MAX_PER_PERSON,
        now: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[object]] | None = None,
    ) -> None:
        self.lifetime = lifetime
        self.interval = interval
        self.most = most
        self.per_person = per_person
        self._now = now or time.monotonic
        self._sleep = sleep or asyncio.sleep
        self._own_clock = now is None and sleep is None
        self._groups: dict[str, _Group] = {}
        # Each running table's latest summary, for whoever starts watching after it was posted.
        self._last: dict[str, Rendered] = {}
        # Places taken by answers on their way (table id -> user id -> how many): they count
        # against the limit as watchers do.
        self._pending: dict[str, dict[int, int]] = {}
        self._order = itertools.count()
        self._tasks: set[asyncio.Task[None]] = set()
        self.edits = 0  # token edits made (for the bench and tests)
        self.draws = 0  # public views drawn for watchers
        self.failures = 0

    def use_clock(self, clock: Clock | None) -> None:
        """The table's clock paces the edits (a test's fake clock drives both)."""
        if clock is not None and self._own_clock:
            self._now, self._sleep = clock.now, clock.sleep

    # ---- the cog: someone pressed Watch -----------------------------------------------------------
    def full(self, table_id: str, user_id: int) -> bool:
        taken = self._taken(table_id)
        return user_id not in taken and len(taken) >= self.most

    def _taken(self, table_id: str) -> set[int]:
        """Who holds a place among the table's watchers: a live view, or an answer on its way."""
        group = self._groups.get(table_id)
        live = {u for u, w in group.watchers.items() if not w.dead} if group is not None else set()
        return live | set(self._pending.get(table_id, ()))

    def reserve(self, table_id: str, user_id: int) -> Place | None:
        """Take a place among the table's watchers before answering (``None``: the table is full).
        Synchronous, so two presses at once cannot both take the last place."""
        if self.full(table_id, user_id):
            return None
        pending = self._pending.setdefault(table_id, {})
        pending[user_id] = pending.get(user_id, 0) + 1
        return Place(table_id, user_id)

    def release(self, place: Place | None) -> None:
        """Give a place back (the answer failed), or hand it over to the registered watcher."""
        if place is None or place.done:
            return
        place.done = True
        pending = self._pending.get(place.table_id, {})
        left = pending.get(place.user_id, 0) - 1
        if left > 0:
            pending[place.user_id] = left
        else:
            pending.pop(place.user_id, None)
        if not pending:
            self._pending.pop(place.table_id, None)

    def view(self, table: Table, notes: Sequence[ClockNote] = ()) -> WatchPayload:
        """The watcher's view of ``table`` now (the answer to **Watch**)."""
        with render.clock_notes(notes):
            drawn = renderers.table_message(table)
        return watch_payload(table, drawn, self._last.get(table.id), head_line(table))

    def watch(self, interaction: discord.Interaction, table: Table, notes: Sequence[ClockNote] = (),
              place: Place | None = None, message_id: int | None = None) -> None:
        """``interaction`` was just answered with the watcher's view of ``table``: from now on its
        token keeps it current (a newer Watch of the same person replaces the older; ``place``, the
        place reserved for it, becomes this watcher's).  Past ``per_person`` views, the person's
        oldest stops following."""
        self.release(place)
        group = self._groups.get(table.id)
        if group is None:
            # (its first watcher was just answered with the table as it is: nothing to edit yet)
            group = self._groups[table.id] = _Group(table, summary=self._last.get(table.id),
                                                    shown=watch_key(table, len(notes)))
        group.table = table
        group.notes = tuple(notes)
        user_id = int(interaction.user.id)
        old = group.watchers.pop(user_id, None)
        if old is not None:
            self._bury(old)
        kept = token_of(interaction) if isinstance(interaction, discord.Interaction) else interaction
        w = Watcher(user_id, kept, self._now() + self.lifetime - MARGIN, since=next(self._order),
                    message_id=message_id)
        group.watchers[user_id] = w
        w.timer = self._spawn(self._expire(table.id, w), f"watch-expiry:{table.id}:{user_id}")
        mine = sorted(((g, x) for g in self._groups.values() for x in g.watchers.values()
                       if x.user_id == user_id and not x.dead), key=lambda gx: gx[1].since)
        for g, old in mine[:max(0, len(mine) - self.per_person)]:
            self._retire(g, old, replaced_line(g.table.id, table.id, self.per_person,
                                               of_person(user_id, g.table.locale)))

    def count(self, table_id: str) -> int:
        group = self._groups.get(table_id)
        return 0 if group is None else sum(1 for w in group.watchers.values() if not w.dead)

    # ---- the listener: the table changed ------------------------------------------------------------
    def changed(self, table: Table, notes: Sequence[ClockNote] = ()) -> None:
        """The table was redrawn: its watchers' views are edited soon (coalesced) if it moved."""
        group = self._groups.get(table.id)
        if group is None:
            return
        group.table = table
        group.notes = tuple(notes)
        if watch_key(table, len(group.notes)) != group.shown:
            self._want(group)

    def summary(self, table: Table, drawn: Rendered | None) -> None:
        """The table posted an end-of-hand (or end-of-game) summary, ``drawn`` (of its public
        events only): the watchers see it too, under the table, until the next one.  After the
        game's end the views get one last edit."""
        over = render.phase_of(table) == "finished"
        if over:
            self._last.pop(table.id, None)
        elif drawn is not None:
            self._last[table.id] = drawn
        group = self._groups.get(table.id)
        if group is None:
            return
        group.table = table
        if drawn is not None:
            group.summary = drawn
            group.summaries += 1
            group.shown = None
        if over:
            group.closing = True
            group.shown = None
        self._want(group)

    def editing(self, table_id: str) -> bool:
        """Whether an edit of a watcher's view of this table is wanted or under way."""
        group = self._groups.get(table_id)
        return group is not None and (group.wanted or (group.task is not None and not group.task.done()))

    async def close(self) -> None:
        tasks = list(self._tasks)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ---- the work -------------------------------------------------------------------------------------
    def _spawn(self, coro: Coroutine[object, None, None], name: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("A watcher's view task failed", exc_info=task.exception())

    def _want(self, group: _Group) -> None:
        group.wanted = True
        if group.task is None or group.task.done():
            group.task = self._spawn(self._run(group), f"watch:{group.table.id}")

    async def _run(self, group: _Group) -> None:
        while group.wanted:
            wait = group.last_edit + self.interval - self._now()
            if wait > 0:
                await self._sleep(wait)  # coalesce: whatever changed meanwhile goes in one edit
            group.wanted = False
            await self._edit(group)
        if group.closing:
            self._close(group.table.id, group)

    async def _edit(self, group: _Group) -> None:
        table = group.table
        now = self._now()
        live = [w for w in group.watchers.values() if not w.dead and now < w.expires]
        key = watch_key(table, len(group.notes))
        if not live or key == group.shown:
            return
        # Drawn once for every watcher of the table: the work per change does not grow with them.
        with render.clock_notes(group.notes):
            drawn = renderers.table_message(table)
        payload = watch_payload(table, drawn, group.summary, head_line(table))
        self.draws += 1
        group.shown = key
        group.last_edit = now
        await asyncio.gather(*(self._send(group, w, payload) for w in live))
        group.last_edit = self._now()

    async def _send(self, group: _Group, w: Watcher, payload: WatchPayload) -> None:
        try:
            await edit_token(w.interaction, payload, w.message_id)
        except discord.NotFound:
            self.failures += 1  # dismissed: nobody sees it any more
            self._drop(group, w, "its message is gone")
            return
        except discord.HTTPException as e:
            self.failures += 1
            if e.status == 401 or e.code in (50027, 10015):
                self._drop(group, w, "its token ran out")
            else:
                group.shown = None  # unknown: the next change tries again
                log.info("Could not edit a watcher's view of table %s: %s", group.table.id, e)
            return
        self.edits += 1

    async def _expire(self, table_id: str, w: Watcher) -> None:
        """Just before the token runs out: one last edit saying the view stopped following, then the
        watcher is forgotten (the token is never used again)."""
        await self._sleep(max(0.0, w.expires - self._now()))
        group = self._groups.get(table_id)
        if w.dead or group is None or group.watchers.get(w.user_id) is not w:
            return
        w.dead = True
        group.watchers.pop(w.user_id, None)
        await self._last_word(table_id, group, w, expired_line(table_id, of_person(w.user_id, group.table.locale)))

    def _retire(self, group: _Group, w: Watcher, line: str) -> None:
        """The person's view ``w`` stops following now (they watch too many tables): one last edit
        with ``line``, then its token is never used again."""
        group.watchers.pop(w.user_id, None)
        self._bury(w)
        self._spawn(self._last_word(group.table.id, group, w, line), f"watch-retire:{group.table.id}:{w.user_id}")

    async def _last_word(self, table_id: str, group: _Group, w: Watcher, line: str) -> None:
        if group.task is not None and not group.task.done():
            # An edit in flight on this token: let it land first, so the last line stays last.
            with contextlib.suppress(Exception):
                await asyncio.shield(group.task)
        with render.clock_notes(group.notes):
            drawn = renderers.table_message(group.table)
        payload = watch_payload(group.table, drawn, group.summary, line)
        with reading(of_person(w.user_id, group.table.locale)):
            payload["components"] = [{"type": 1, "components": [_table_button("watch", table_id)]}] \
                if render.phase_of(group.table) == "running" else []
        with contextlib.suppress(discord.HTTPException):
            await edit_token(w.interaction, payload, w.message_id)
            self.edits += 1
        if not group.watchers and not self.editing(table_id) and self._groups.get(table_id) is group:
            del self._groups[table_id]

    def _drop(self, group: _Group, w: Watcher, why: str) -> None:
        log.info("A watcher's view of table %s dropped: %s", group.table.id, why)
        if group.watchers.get(w.user_id) is w:
            del group.watchers[w.user_id]
        self._bury(w)

    def _bury(self, w: Watcher) -> None:
        w.dead = True
        if w.timer is not None and w.timer is not asyncio.current_task():
            w.timer.cancel()

    def _close(self, table_id: str, group: _Group) -> None:
        for w in list(group.watchers.values()):
            self._bury(w)
        group.watchers.clear()
        if self._groups.get(table_id) is group:
            del self._groups[table_id]
