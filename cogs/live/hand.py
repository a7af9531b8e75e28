"""Live hand views: the ephemeral hand message a person opened is kept current through the
interaction's token.

Discord lets the bot edit an interaction's response (``@original``) for 15 minutes through the
interaction's own webhook, and those edits are not counted against the bot's global REST limit.
So once a person opens their hand (**My hand**, ``/hand``) or clicks on it, the newest such
interaction is remembered here per (table, person): its token, when it runs out, and what the
message shows now (its :func:`live_key`).  What to edit comes from the runtime's signals, so no
view is compared at a redraw: ``seat_changed`` names the seats whose own view changed (the person's
decision, their cards, a missed turn, a return), and a redraw compares only the table's public
milestones (:func:`public_key`: a trick ended, a new hand or round, the game over), which every
view shows.  A view is edited at most once per ``interval`` (later changes are coalesced into the
next edit), and only when its :func:`live_key` differs from what it shows.

The table message itself was the answer to ``/game new``: while that interaction's token lives,
the listener edits the table message through it too (:meth:`LiveViews.table_token`), so those
edits are not counted by the global limit either.

A seat taken in the lobby (``/game join``, **Join**) registers its answer too: it becomes the
person's hand when the game starts, as does the host's answer to ``/game start``.

Only the (table id, user id) → token mapping and what was last shown live here: no game state (the
view is drawn from the runtime's seat view at the moment of the edit).  It is lost on a restart, and
that is fine: the person's next turn ping then carries a **My hand** button.  A view whose token ran
out or whose message is gone (the person dismissed it) is dropped and the same happens.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
from discord.http import Route, handle_message_parameters
from discord.webhook.async_ import async_context

from cogs.table import render
from cogs.table.components import HandMessage, hand_payload
from cogs.watch.view import Token, token_of
from tables.live import SeatView
from tables.runtime import Runtime
from tables.table import Table

log = logging.getLogger(__name__)

LIFETIME = 15 * 60.0  # how long Discord keeps an interaction token valid
MARGIN = 30.0  # stop using a token this much before it runs out (an edit in flight, a slow clock)
INTERVAL = 1.0  # at most one edit per view per this many seconds
# Discord lets a message be edited 5 times in 5 s.  Edits sent a second apart would make six in
# exactly 5 s, and a request held up on a busy machine lands closer to the next one: so a sixth edit
# waits until BURST_WINDOW has passed since the first of the five before it, a second to spare.
BURST, BURST_WINDOW = 5, 6.0
#: The interaction's ``extras`` key set once a click was answered by updating the anchored table
#: message it came from (cogs/live/anchors.py): its @original is public from then on.
ORIGINAL_IS_TABLE = "deckhand.original_is_table"
PUSH_WAIT = 3.0  # how long a turn ping waits for the view's edit before pinging with a button
# Fields of a seat's view whose change is news for the person even when their cards and decision
# stay the same: a trick ended (a new trick number, a new leader), a new hand or round, a mark.
LIVE_FIELDS = ("phase", "hand_no", "trick_no", "round", "leader", "turn_no", "marked", "received", "tax_received")
# The public ones: when one changes, every view of the table is worth an edit.
PUBLIC_FIELDS = ("phase", "hand_no", "trick_no", "round", "leader", "turn_no")


def live_key(sv: SeatView) -> tuple[object, ...]:
    """What a hand view shows that is worth an edit when it changes: the phase, the person's
    decision, their cards, the fields above, their missed turns and whether the AI plays for them,
    and their own card chosen ahead (tables/ahead.py).
    Other players' cards landing on the table are not (the view is redrawn when the person's turn
    comes, with the table as it is then)."""
    table, view, d = sv.table, sv.view or {}, sv.decision
    decision = None if d is None else (d.kind, d.pick, tuple(a.code for a in d.actions),
                                       tuple(c.code for c in d.cards))
    seat = table.seats[sv.seat] if 0 <= sv.seat < len(table.seats) else None
    present = (seat.missed, seat.away) if seat is not None else (0, False)
    over = table.state is not None and table.state.is_over
    return (render.phase_of(table), over, decision, sv.deadline, tuple(view.get("hand") or ()),
            tuple(_frozen(view.get(k)) for k in LIVE_FIELDS), present, sv.ahead, sv.dropped)


async def edit_original(interaction: discord.Interaction | Token, msg: HandMessage) -> None:
    """``interaction.edit_original_response(content=..., view=..., embed=None)`` with the hand view
    as its JSON, and without reading Discord's answer back into a message object: a live view is
    edited some fifty times a hand and nobody reads that answer (building the View and parsing the
    answer showed in the bench's profile of the bot).  The request is discord.py's own (its
    webhook adapter, pinned in requirements.txt: its rate-limit handling and errors)."""
    state = interaction._state
    payload: dict[str, Any] = {"embeds": [], "content": msg.content, "components": msg.components, "tts": False}
    if state.allowed_mentions is not None:
        payload["allowed_mentions"] = state.allowed_mentions.to_dict()
    await async_context.get().edit_original_interaction_response(
        interaction.application_id, interaction.token, session=interaction._session,
        proxy=state.http.proxy, proxy_auth=state.http.proxy_auth, payload=payload)


async def edit_followup(interaction: discord.Interaction | Token, message_id: int, msg: HandMessage) -> None:
    """:func:`edit_original` for a hand view that is a followup of ``interaction`` (message
    ``message_id``): a click on an anchored table's message answers with that message updated
    (cogs/live/anchors.py), so its ``@original`` is the public table message and the person's own
    view is the followup that came with it."""
    state = interaction._state
    payload: dict[str, Any] = {"embeds": [], "content": msg.content, "components": msg.components}
    if state.allowed_mentions is not None:
        payload["allowed_mentions"] = state.allowed_mentions.to_dict()
    await async_context.get().edit_webhook_message(
        interaction.application_id, interaction.token, message_id, session=interaction._session,
        proxy=state.http.proxy, proxy_auth=state.http.proxy_auth, payload=payload)


def original_is_table(interaction: object) -> bool:
    """Whether ``interaction`` was answered by updating the public table message it was clicked on
    (cogs/live/anchors.py): then its ``@original`` is that message, never a private view, and a
    view it answered with privately is a followup, edited by its id."""
    return bool((getattr(interaction, "extras", None) or {}).get(ORIGINAL_IS_TABLE))


async def edit_original_message(interaction: discord.Interaction | Token, *, content: str | None,
                                embed: discord.Embed | None,
                                view: discord.ui.View, allowed_mentions: discord.AllowedMentions) -> None:
    """``interaction.edit_original_response(...)`` for the table message (edited through the
    token of the ``/game new`` that posted it), likewise without reading the message back."""
    state = interaction._state
    with handle_message_parameters(content=content, embed=embed, view=view, allowed_mentions=allowed_mentions,
                                   previous_allowed_mentions=state.allowed_mentions) as params:
        await async_context.get().edit_original_interaction_response(
            interaction.application_id, interaction.token, session=interaction._session,
            proxy=state.http.proxy, proxy_auth=state.http.proxy_auth,
            payload=params.payload, multipart=params.multipart, files=params.files)


async def update_message(interaction: discord.Interaction, msg: HandMessage) -> None:
    """``interaction.response.edit_message(content=..., view=..., embed=None)`` — the answer to a
    click on a hand view is that hand view redrawn — with the hand view as its JSON, and without
    asking Discord for the message back (nobody reads it)."""
    response = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    state = interaction._state
    data: dict[str, Any] = {"tts": False, "embeds": [], "content": msg.content, "components": msg.components}
    if state.allowed_mentions is not None:
        data["allowed_mentions"] = state.allowed_mentions.to_dict()
    route = Route("POST", "/interactions/{webhook_id}/{webhook_token}/callback", webhook_id=interaction.id,
                  webhook_token=interaction.token)
    await async_context.get().request(route, session=interaction._session, proxy=state.http.proxy,
                                      proxy_auth=state.http.proxy_auth,
                                      payload={"type": discord.InteractionResponseType.message_update.value,
                                               "data": data})
    response._response_type = discord.InteractionResponseType.message_update


def public_key(table: Table) -> tuple[object, ...]:
    """The table's public milestones that every hand view shows (from the public view only)."""
    state = getattr(table, "state", None)
    if state is None:
        return (render.phase_of(table),)
    try:
        view = state.public_view()
    except Exception:  # a half-built state: nothing to compare, edit as if it changed
        return (render.phase_of(table), object())
    return (render.phase_of(table), state.is_over, tuple(_frozen(view.get(k)) for k in PUBLIC_FIELDS))


def _frozen(value: object) -> object:
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    return value


@dataclass(eq=False)
class Pace:
    """The pace of one person's hand message, shared by the views that follow each other on it: a
    click answered with the hand makes a new view (a new token) while an edit through the old one
    may still be on its way, and Discord counts both against the one message.  Counted from when
    each edit was answered, not sent: a request held up on the way lands next to the one after it."""

    last_edit: float = -math.inf  # when the last edit was answered
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=BURST))  # when the last edits were answered
    # One edit of the message at a time, whichever view makes it: the next waits for the last answer.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass(eq=False)
class LiveView:
    table_id: str
    user_id: int
    interaction: Token  # its @original is the hand message
    expires: float  # on LiveViews' clock
    message_id: int | None = None  # the hand message, when known
    # live_key of what the message shows now (None: unknown, edit on next change)
    shown: tuple[object, ...] | None = None
    pace: Pace = field(default_factory=Pace)
    wanted: bool = False
    task: asyncio.Task[None] | None = None
    dead: bool = False
    edits: int = 0
    followup: bool = False  # the hand message is a followup of ``interaction`` (its @original is public)


class LiveViews:
    """The live hand views of every table, by (table id, user id)."""

    def __init__(
        self,
        runtime: Runtime | None = None,
        *,
        lifetime: float = LIFETIME,
        margin: float = MARGIN,
        interval: float = INTERVAL,
        now: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[object]] | None = None,
    ) -> None:
        # Discord's token lifetime and how long before its end a token is no longer used (both
        # injectable: a test's Discord whose tokens live seconds, and the bot told the same).
        self.lifetime = lifetime
        self.margin = margin
        self.interval = interval
        self._now = now or time.monotonic
        self._sleep = sleep or asyncio.sleep
        self._own_clock = now is None and sleep is None
        self.runtime = runtime  # seat views come from it (the cog sets it when the listener could not)
        self._views: dict[tuple[str, int], LiveView] = {}
        self._by_table: dict[str, dict[int, LiveView]] = {}  # the same views, found by table
        self._public: dict[str, tuple[object, ...]] = {}  # public_key of each table at its last redraw
        # The table message itself was the answer to /game new: that interaction's token edits it
        # too, uncounted by the global limit, while it lives (table id -> (interaction, expires)).
        # Per table: the interaction that may edit its message, when its token runs out, and the
        # message (None: the interaction's @original).
        self._table_tokens: dict[str, tuple[Token, float, int | None]] = {}
        self._stale: set[str] = set()  # tables whose message no token can edit any more
        self._tasks: set[asyncio.Task[None]] = set()
        self.edits = 0  # token edits made (for the bench and tests)
        self.failures = 0

    @property
    def runtime(self) -> Runtime | None:
        return self._runtime

    @runtime.setter
    def runtime(self, runtime: Runtime | None) -> None:
        self._runtime = runtime
        clock = getattr(runtime, "clock", None)
        if clock is not None and self._own_clock:
            # The table's clock paces the edits too (a test's fake clock drives both).
            self._now, self._sleep = clock.now, clock.sleep

    # ---- the cog: a person's interaction answered with their hand view -------------------------
    def opened(self, interaction: discord.Interaction, table_id: str, user_id: int, sv: SeatView | None = None,
               message_id: int | None = None) -> None:
        """``interaction`` was just answered with ``user_id``'s hand view at ``table_id`` (``sv``,
        the seat view it was drawn from; ``message_id``, the message showing it): from now on its
        token keeps that message current."""
        followup = original_is_table(interaction)
        if followup and message_id is None:
            return  # (its @original is the public table message: a view with no id of its own is never edited)
        old = self._views.get((table_id, user_id))
        v = LiveView(table_id, user_id, token_of(interaction), self._now() + self.lifetime - self.margin, message_id,
                     shown=live_key(sv) if sv is not None else None, followup=followup)
        if old is not None:
            old.dead = True
            v.pace = old.pace
            if old.task is not None and not old.task.done():
                # An edit through the old token may land after this answer: draw again after it.
                v.shown = None
                old.task.add_done_callback(lambda _t: self._want(v))
        self._views[(table_id, user_id)] = v
        self._by_table.setdefault(table_id, {})[user_id] = v

    def drop(self, table_id: str, user_id: int) -> None:
        v = self._views.pop((table_id, user_id), None)
        if v is not None:
            v.dead = True
            mine = self._by_table.get(table_id)
            if mine is not None:
                mine.pop(user_id, None)
                if not mine:
                    del self._by_table[table_id]

    def alive(self, table_id: str, user_id: int) -> bool:
        """Whether ``user_id`` has a hand view at this table that can still be edited."""
        v = self._views.get((table_id, user_id))
        if v is None or v.dead:
            return False
        if self._now() >= v.expires:
            self.drop(table_id, user_id)
            return False
        return True

    def shows(self, table_id: str, user_id: int, message_id: int) -> bool:
        """Whether ``message_id`` is ``user_id``'s live hand view at this table."""
        v = self._views.get((table_id, user_id))
        return v is not None and not v.dead and v.message_id == message_id

    def views_of(self, table_id: str) -> list[LiveView]:
        return list(self._by_table.get(table_id, {}).values())

    def editing(self, table_id: str) -> bool:
        """Whether an edit of a hand view of this table is wanted or under way."""
        return any(not v.dead and (v.wanted or (v.task is not None and not v.task.done()))
                   for v in self.views_of(table_id))

    # ---- the table message, through the token of the /game new that posted it ------------------
    def table_opened(self, interaction: discord.Interaction, table_id: str, message_id: int | None = None) -> None:
        """``interaction`` was answered with the table message of ``table_id`` (``message_id``: it
        posted the message as a followup; None: it is the interaction's @original): until its token
        runs out, the table message is edited through it (Discord's global limit does not count
        those)."""
        self._table_tokens[table_id] = (token_of(interaction), self._now() + self.lifetime - self.margin, message_id)
        self._stale.discard(table_id)

    def table_token(self, table_id: str) -> Token | None:
        """The interaction that may edit the table message, while its token lives."""
        held = self._table_tokens.get(table_id)
        if held is None:
            return None
        if self._now() >= held[1]:
            del self._table_tokens[table_id]
            return None
        return held[0]

    def table_stale(self, table_id: str) -> None:
        """No token can edit the table message any more (a table where the bot is not a member):
        the next interaction about the table posts it again (:meth:`needs_posting`)."""
        self._stale.add(table_id)

    def needs_posting(self, table_id: str) -> bool:
        """Whether the table's message must be posted again (no live token can edit it)."""
        return table_id in self._stale or self.table_token(table_id) is None

    async def edit_table(self, interaction: Token, table_id: str, *, content: str | None,
                         embed: discord.Embed | None, view: discord.ui.View,
                         allowed_mentions: discord.AllowedMentions) -> None:
        """Edit the table message through ``interaction``'s token (its @original, or the followup
        that posted the table again)."""
        held = self._table_tokens.get(table_id)
        message_id = held[2] if held is not None and held[0] is interaction else None
        if message_id is None:
            await edit_original_message(interaction, content=content, embed=embed, view=view,
                                        allowed_mentions=allowed_mentions)
            return
        state = interaction._state
        with handle_message_parameters(content=content, embed=embed, view=view, allowed_mentions=allowed_mentions,
                                       previous_allowed_mentions=state.allowed_mentions) as params:
            await async_context.get().edit_webhook_message(
                interaction.application_id, interaction.token, message_id, session=interaction._session,
                proxy=state.http.proxy, proxy_auth=state.http.proxy_auth, payload=params.payload,
                multipart=params.multipart, files=params.files)

    def table_token_gone(self, table_id: str) -> None:
        """The table message is no longer edited through a token (it failed, or the game is over)."""
        self._table_tokens.pop(table_id, None)

    # ---- the listener: the table changed ----------------------------------------------------------
    def changed(self, table: Table) -> None:
        """The table was redrawn: when a public milestone changed (a trick ended, a new hand, the
        end), every live view of it is edited soon (coalesced); the seats' own changes come from
        :meth:`seat_changed`."""
        mine = self._by_table.get(table.id)
        if not mine:
            self._public.pop(table.id, None)
            return
        key = public_key(table)
        if self._public.get(table.id) == key:
            return
        self._public[table.id] = key
        for v in list(mine.values()):
            if self.alive(v.table_id, v.user_id):
                self._want(v)  # (``_edit`` draws only when the view's own key differs)

    def seat_changed(self, table: Table, seats: Sequence[int]) -> None:
        """The runtime's signal: these seats' own views changed.  Each seat's signal edits that
        person's view only (which seats had private news is hidden from everyone else)."""
        mine = self._by_table.get(table.id)
        if not mine:
            return
        for s in seats:
            user = table.seats[s].user_id if 0 <= s < len(table.seats) else None
            v = mine.get(user) if user is not None else None
            if v is not None and self.alive(v.table_id, v.user_id):
                self._want(v)

    async def push(self, table: Table, user_id: int) -> bool:
        """Bring ``user_id``'s view up to date now (or as soon as its pace allows) and say whether it
        is kept current: False when there is none, its token ran out or the edit failed."""
        if not self.alive(table.id, user_id):
            return False
        v = self._views[(table.id, user_id)]
        sv = self._seat_view(v)
        if sv is None or sv.view is None:
            return False
        if live_key(sv) == v.shown and (v.task is None or v.task.done()):
            return True
        self._want(v)
        task = v.task
        if task is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(task), PUSH_WAIT + self.interval)
        # Still alive after the edit (a gone message or a dead token drops it): it shows this turn, or
        # a newer state if the table moved meanwhile (or the person clicked it).
        return self.alive(table.id, user_id)

    def let_go(self, table_id: str) -> None:
        """The table is another process's now: none of its views is edited from here again (an
        edit waiting for its pace is cancelled)."""
        self._public.pop(table_id, None)
        self._table_tokens.pop(table_id, None)
        for v in self.views_of(table_id):
            if v.task is not None and v.task is not asyncio.current_task():
                v.task.cancel()
            self.drop(v.table_id, v.user_id)

    async def close(self) -> None:
        tasks = list(self._tasks)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ---- the work ---------------------------------------------------------------------------------
    def _seat_view(self, v: LiveView) -> SeatView | None:
        runtime = self.runtime
        if runtime is None:
            return None
        try:
            # (its ``view`` is None while the table is a lobby)
            return runtime.seat_view(v.table_id, v.user_id)
        except Exception:  # the table is gone, or the person no longer sits there
            return None

    def _want(self, v: LiveView) -> None:
        if v.dead:
            return
        v.wanted = True
        if v.task is None or v.task.done():
            v.task = asyncio.get_running_loop().create_task(self._run(v), name=f"live:{v.table_id}:{v.user_id}")
            self._tasks.add(v.task)
            v.task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("A live hand view task failed", exc_info=task.exception())

    async def _run(self, v: LiveView) -> None:
        table = None
        pace = v.pace
        while v.wanted and not v.dead:
            async with pace.lock:
                due = pace.last_edit + self.interval
                if len(pace.recent) == BURST:
                    due = max(due, pace.recent[0] + BURST_WINDOW)
                wait = due - self._now()
                if wait > 0:
                    await self._sleep(wait)  # coalesce: whatever changed meanwhile goes in one edit
                v.wanted = False
                if v.dead or self._now() >= v.expires:
                    break
                table = await self._edit(v)
        if not v.dead:
            if table is None:
                sv = self._seat_view(v)
                table = sv.table if sv is not None else None
            # (the table the edit drew is the runtime's own object: its phase and seats are current)
            if table is None or render.phase_of(table) == "finished" or table.seat_of(v.user_id) is None:
                # The game is over and the view says so: nothing more will change.
                self.drop(v.table_id, v.user_id)

    async def _edit(self, v: LiveView) -> Table | None:
        """Edit the view when what it shows changed; the table it was drawn from (``None`` when
        the view was dropped)."""
        sv = self._seat_view(v)
        if sv is None or (sv.view is None and render.phase_of(sv.table) == "finished"):
            self.drop(v.table_id, v.user_id)  # gone, or a lobby that closed without a game
            return None
        if sv.view is None:
            return sv.table  # a lobby seat's view waits for the game to start
        key = live_key(sv)
        if key == v.shown:
            return sv.table
        msg = hand_payload(sv)
        try:
            if v.followup and v.message_id is not None:
                await edit_followup(v.interaction, v.message_id, msg)
            else:
                await edit_original(v.interaction, msg)
        except discord.NotFound:
            # The person dismissed the message (or Discord forgot the interaction): ping with a button.
            self.failures += 1
            self._gone(v, "its message is gone")
            return None
        except discord.HTTPException as e:
            self.failures += 1
            if e.status == 401 or e.code in (50027, 10015):
                self._gone(v, "its token ran out")
            else:
                v.shown = None  # unknown: the next change tries again
                log.info("Could not edit a live hand view at table %s: %s", v.table_id, e)
            return None if v.dead else sv.table
        except (aiohttp.ClientError, OSError, TimeoutError) as e:
            # The connection broke under the request (a pooled one the server had just closed):
            # the edit did not happen; try again after the usual pause.
            self.failures += 1
            v.shown = None
            v.wanted = True
            log.info("Could not edit a live hand view at table %s (%s: %s); trying again", v.table_id,
                     type(e).__name__, e)
            return sv.table
        finally:
            v.pace.last_edit = self._now()
            v.pace.recent.append(v.pace.last_edit)
        v.shown = key
        v.edits += 1
        self.edits += 1
        return sv.table

    def _gone(self, v: LiveView, why: str) -> None:
        log.info("Live hand view at table %s dropped: %s", v.table_id, why)
        if self._views.get((v.table_id, v.user_id)) is v:
            self.drop(v.table_id, v.user_id)
        v.dead = True
