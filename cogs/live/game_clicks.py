"""The component clicks of :class:`cogs.table.game.GameCog` (the buttons and menus of table messages and
hand views, :mod:`cogs.table.custom_ids`), and the hand views it keeps current: parse the click, call the
runtime, answer.  What a click names and whether it is out of date: :mod:`tables.clicks`.

A mixin: the cog's own helpers (``_safely``, ``_say``, ``_table``, ``_hand``…) are reached through
``self``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Unpack

import discord

import engine
import words
from cogs.i18n import reading
from cogs.live import anchors
from cogs.live.hand import LiveViews, original_is_table, update_message
from cogs.table import renderers
from cogs.table.components import (
    TableButton,
    card_values,
    hand_payload,
    hand_view,
    let_go,
    marked_values,
    pick_parts,
    value_code,
)
from cogs.table.custom_ids import answered
from cogs.table.howto import howto_text
from cogs.table.render import NO_PINGS, Extras
from cogs.watch import view as watch
from cogs.watch.visibility import may_see
from engine.core import Action, Event
from tables import clicks
from tables.clicks import MARK
from tables.finished import AnyTable
from tables.ids import normalise
from tables.live import SeatView
from tables.runtime import Runtime, TableError
from tables.table import Phase, Table
from tables.tournaments import WITHHELD
from words import N_

if TYPE_CHECKING:
    from cogs.live.listener import DiscordListener

log = logging.getLogger("cogs.table.game")


class ComponentClicks:
    """Component clicks and live hand views for the game cog."""

    # What this mixin uses of the cog (cogs/table/game.py), declared for the type checker.
    runtime: Runtime
    live: LiveViews | None
    discord_listener: DiscordListener | None
    rules_url: str | None

    if TYPE_CHECKING:
        async def _safely(self, interaction: discord.Interaction, work: Awaitable[object]) -> None: ...
        async def _say(self, interaction: discord.Interaction, text: str | None,
                       **kwargs: Unpack[Extras]) -> int | None: ...
        def _table(self, interaction: discord.Interaction, table_id: str | None,
                   over: Callable[[AnyTable], str] | None = None) -> Table: ...
        async def _join(self, interaction: discord.Interaction, table_id: str | None) -> None: ...
        async def _leave(self, interaction: discord.Interaction, table_id: str | None) -> None: ...
        async def _ai(self, interaction: discord.Interaction, table_id: str | None, count: int | None,
                      program: str | None = None, level: str | None = None) -> None: ...
        async def _start(self, interaction: discord.Interaction, table_id: str | None) -> None: ...
        async def _hand(self, interaction: discord.Interaction, table_id: str | None) -> None: ...
        async def _hint(self, interaction: discord.Interaction, table_id: str | None) -> None: ...
        async def _again(self, interaction: discord.Interaction, table_id: str) -> None: ...
        def _guild(self, interaction: discord.Interaction) -> int: ...
        def _answer_by(self, interaction: discord.Interaction) -> float: ...

    # ==== components ===========================================================================
    async def on_table_button(self, interaction: discord.Interaction, act: str, table_id: str) -> None:
        work = {
            "join": lambda: self._join(interaction, table_id),
            "leave": lambda: self._leave(interaction, table_id),
            "ai": lambda: self._ai(interaction, table_id, None),
            "start": lambda: self._start(interaction, table_id),
            "hand": lambda: self._hand(interaction, table_id),
            "back": lambda: self._back(interaction, table_id),
            "refresh": lambda: self._refresh(interaction, table_id),
            "hint": lambda: self._hint(interaction, table_id),
            "again": lambda: self._again(interaction, table_id),
            "howto": lambda: self._howto(interaction, table_id),
            "watch": lambda: self._watch(interaction, table_id),
        }.get(act)
        if work is None:
            await self._say(interaction, words.translate(words.resolve(interaction.locale),
                                                         N_("That button does nothing any more.")))
            return
        # A click on the message of a table where the bot is not a member is answered by updating
        # that message (its private answer follows): the message stays current, its token is fresh.
        anchors.answer_by_update(interaction, act, table_id, self.runtime, self.discord_listener)
        await self._safely(interaction, work())
        answered(interaction)

    async def _howto(self, interaction: discord.Interaction, table_id: str) -> None:
        """How to play: the table's game's quick start, only to the person who asked (an interaction
        answer: no counted REST call).  A table that left memory still names its game (its stub)."""
        guild_id = self._guild(interaction)
        tid = normalise(table_id)
        table = self.runtime.tables.get(tid) or self.runtime.finished.get(tid)
        if table is None or table.guild_id != guild_id or table.game not in engine.games() \
                or not may_see(interaction, table):
            raise TableError(N_("That table is gone. `/game rules` has the rules of every game."))
        await self._say(interaction, howto_text(table.game, self.rules_url, words.resolve(interaction.locale)))

    async def _back(self, interaction: discord.Interaction, table_id: str) -> None:
        table = self._table(interaction, table_id)
        # Not seated, no game, or not away: the runtime says so (and keeps the clock as it is).
        await self.runtime.back(table.id, interaction.user.id)
        # Welcome back with the hand itself, kept current from now on.
        sv = self.runtime.seat_view(table.id, interaction.user.id)
        content, view = hand_view(sv)
        back = words.translate(reading.lang(), N_("Welcome back — you play your seat again."))
        shown = await self._show(interaction, f"👋 {back}\n{content}", view)
        self._live(interaction, sv, message_id=shown)

    async def _refresh(self, interaction: discord.Interaction, table_id: str) -> None:
        """The hand view redrawn in place (the Refresh button on a hand view)."""
        table = self._table(interaction, table_id)
        sv = self.runtime.seat_view(table.id, interaction.user.id)
        if sv.view is None:
            raise TableError(N_("The game at table `{id}` has not started yet."), id=table.id)
        content, view = hand_view(sv)
        await interaction.response.edit_message(content=content, view=view, embed=None)
        let_go(view)
        self._live(interaction, sv)

    async def _watch(self, interaction: discord.Interaction, table_id: str, *, command: bool = False) -> None:
        """**Watch** (or ``/game watch``, ``command``): the public table, privately, kept current
        (cogs/watch/view.py).  Whoever plays at the table is pointed at their hand, which shows the table
        too."""
        # A finished table gets one answer, whether it is in memory or only its stub is.
        def over(t: AnyTable) -> str:
            return watch.over_line(t, command=command)

        table = self._table(interaction, table_id, over=over)
        listener = self.discord_listener
        watchers = listener.watchers if listener is not None else None
        if listener is None or watchers is None:
            raise TableError(N_("Watching is not available right now."))
        if table.phase == Phase.LOBBY:
            raise TableError(N_("The game at table `{id}` has not started yet: there is nothing to watch."),
                             id=table.id)
        if table.phase == Phase.FINISHED:
            raise TableError(over(table))
        seat = table.seat_of(interaction.user.id)
        if seat is not None and not table.seats[seat].left:
            raise TableError(N_("You play at table `{id}`: press **My hand** (or use `/hand`) to see your "
                                "cards and the table."), id=table.id)
        if self.runtime.tournaments.withheld(table.id, interaction.user.id):
            raise TableError(WITHHELD, id=table.id)
        watchers.use_clock(getattr(self.runtime, "clock", None))  # (when each token runs out: the table's clock)
        if watchers.full(table.id, interaction.user.id):  # (before drawing; `reserve` decides)
            raise TableError(watch.full_line(table.id))
        notes = listener.notes(table)
        payload = watchers.view(table, notes)
        embeds = [discord.Embed.from_dict(e) for e in payload["embeds"]]
        view = discord.ui.View(timeout=None)
        if payload["components"]:
            view.add_item(TableButton("watch", table.id))
        # The place is taken before the first await (people pressing together cannot pass the
        # limit), and given back if the answer fails.
        place = watchers.reserve(table.id, interaction.user.id)
        if place is None:
            raise TableError(watch.full_line(table.id))
        try:
            sent = None
            if _own_message(interaction) is not None:  # Watch on the watcher's own view: follow on there
                await interaction.response.edit_message(content=payload["content"], embeds=embeds, view=view)
            else:
                sent = await interaction.response.send_message(payload["content"], embeds=embeds, view=view,
                                                               ephemeral=True, allowed_mentions=NO_PINGS)
        except BaseException:
            watchers.release(place)
            raise
        let_go(view)
        # (a Watch on an anchored table's message updated that message: the view is a followup)
        followup = getattr(sent, "message_id", None) if original_is_table(interaction) else None
        watchers.watch(interaction, table, notes, place, message_id=followup)

    # ---- live hand views ---------------------------------------------------------------------
    async def _show(self, interaction: discord.Interaction, content: str, view: discord.ui.View) -> int | None:
        """A hand view as the answer: in place of the hand view the click came from, else new; the
        id of the message that shows it, when known."""
        message = _own_message(interaction)
        if message is not None:
            await interaction.response.edit_message(content=content, view=view, embed=None)
            let_go(view)
            return int(message.id)
        callback = await interaction.response.send_message(content, view=view, ephemeral=True,
                                                           allowed_mentions=NO_PINGS)
        let_go(view)
        return getattr(callback, "message_id", None)

    def _seat_view(self, table_id: str, user_id: int) -> SeatView | None:
        try:
            return self.runtime.seat_view(table_id, user_id)
        except TableError:
            return None

    def _live(self, interaction: discord.Interaction, sv: SeatView | None, lobby: bool = False,
              message_id: int | None = None) -> None:
        """This interaction was answered with the person's hand view (``lobby``: with their seat in a
        lobby, to become their hand view when the game starts): keep it current from now on.
        ``message_id``: the message that shows it (by default the hand view the click was on)."""
        if self.live is None or sv is None or (sv.view is None and not lobby):
            return
        if message_id is None:
            own = _own_message(interaction)
            message_id = int(own.id) if own is not None else None
        try:
            self.live.opened(interaction, sv.table.id, interaction.user.id, sv if sv.view is not None else None,
                             message_id=message_id)
        except Exception:
            log.exception("Could not keep a hand view current: %s", _describe(interaction))

    async def on_action_button(
        self, interaction: discord.Interaction, table_id: str, version: int, code: str
    ) -> None:
        async def work() -> None:
            table = self._table(interaction, table_id)
            await self._act(interaction, table_id, version, clicks.action_named(table, interaction.user.id, code))

        await self._safely(interaction, work())
        answered(interaction)

    async def on_pick(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, values: list[str]
    ) -> None:
        async def work() -> None:
            table = self._table(interaction, table_id)
            action = self._picked(table, interaction.user.id, kind, values)
            await self._act(interaction, table_id, version, action)

        await self._safely(interaction, work())
        answered(interaction)

    def _picked(self, table: Table, user_id: int, kind: str, values: Sequence[str]) -> Action:
        """The action chosen in a card menu: its values are card codes (``D5#2`` for a second copy),
        which :func:`tables.clicks.picked` reads as the decision's own cards."""
        return clicks.picked(table, user_id, kind, [value_code(v) for v in values])

    async def on_part(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, part: int, values: list[str]
    ) -> None:
        """One part menu of a pick over more than 25 cards changed: the seat's marked cards become
        those marked in the other menus plus the ones chosen here (one engine action, so the choice
        is stored and survives a restart), and the hand view is redrawn with fresh components."""

        async def work() -> None:
            table, _ = self._chooser(interaction, table_id, version, kind, marking=True)
            sv = self.runtime.seat_view(table.id, interaction.user.id)
            decision = sv.decision
            if decision is None:  # never: the chooser saw one, and nothing ran since
                raise TableError(clicks.OUT_OF_DATE)
            parts = pick_parts(sv, renderers.renderer_for(table.game), decision)
            if parts is None or not 0 <= part < len(parts):
                raise TableError(clicks.OUT_OF_DATE)
            cards = list(decision.cards)
            before = marked_values(cards, (sv.view or {}).get("marked") or [])
            here = {value for value, _, _ in parts[part][1]}
            chosen = set(values) & here
            after = (before - here) | chosen
            if after != before:
                by_value = dict(zip(card_values(cards), cards, strict=True))
                marked = tuple(by_value[v] for v in card_values(cards) if v in after)
                await self.runtime.act(table.id, interaction.user.id, Action(kind, marked, (MARK,)),
                                       version=table.version, answer_by=self._answer_by(interaction))
            await self._refresh(interaction, table.id)

        await self._safely(interaction, work())
        answered(interaction)

    async def on_pick_done(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, op: str
    ) -> None:
        async def work() -> None:
            if op == "clear":
                table, seat = self._chooser(interaction, table_id, version, kind, marking=True)
                if table.state is not None and table.state.view(seat).get("marked"):
                    await self.runtime.act(table.id, interaction.user.id, Action(kind, (), (MARK,)),
                                           version=table.version, answer_by=self._answer_by(interaction))
                await self._refresh(interaction, table.id)
                return
            # OK buries what is marked now, only if that is what this view showed: its exact version.
            table, _ = self._chooser(interaction, table_id, version, kind)
            await self._act(interaction, table.id, version, Action(kind))

        await self._safely(interaction, work())
        answered(interaction)

    async def on_ahead(self, interaction: discord.Interaction, table_id: str, code: str | None) -> None:
        """Play ahead (tables/ahead.py): a card chosen for when the person's turn comes, or
        **Cancel** (``code`` None); the answer is their hand view redrawn, which alone shows it.
        Their turn came meanwhile: the card is their move now, as its button would be."""
        async def work() -> None:
            table = self._table(interaction, table_id)
            events = await self.runtime.play_ahead(table.id, interaction.user.id, code,
                                                   answer_by=self._answer_by(interaction))
            sv = self.runtime.seat_view(table.id, interaction.user.id)
            ack = None if events is None else renderers.renderer_for(table.game).ack_line(table, sv.seat, events)
            await update_message(interaction, hand_payload(sv, ack))
            self._live(interaction, sv)

        await self._safely(interaction, work())
        answered(interaction)

    def _chooser(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, marking: bool = False
    ) -> tuple[Table, int]:
        """The table and seat of a click on a part menu or OK / Clear, refused when the view it came
        from is out of date.  ``marking`` (a part menu, Clear): it still stands while the seat has
        done nothing but mark cards since it was drawn."""
        table = self._table(interaction, table_id)
        seat = clicks.chooser(table, interaction.user.id, version, kind, marking)
        return table, seat

    async def _act(self, interaction: discord.Interaction, table_id: str, version: int, action: str | Action) -> None:
        table = self._table(interaction, table_id)
        try:
            events = await self.runtime.act(table.id, interaction.user.id, action, version=version,
                                            answer_by=self._answer_by(interaction))
        except TableError as e:
            own = _own_message(interaction)
            if e.code != "stale" or own is None or self.live is None \
                    or not self.live.shows(table.id, interaction.user.id, int(own.id)) \
                    or clicks.moved_since(table, interaction.user.id, version):
                raise  # (a second click on the same view: the first one's answer stays as it is)
            # A click on the live view just before it was redrawn (a card dealt, a turn taken by the
            # clock): it shows the hand as it is now, in place, and stays live.
            sv = self.runtime.seat_view(table.id, interaction.user.id)
            content, view = hand_view(sv)
            changed = words.translate(reading.lang(),
                                      N_("That changed just before your click — here is your hand now."))
            await self._show(interaction, f"⚠️ {changed}\n{content}", view)
            self._live(interaction, sv)
            return
        sv = self.runtime.seat_view(table.id, interaction.user.id)
        ack = renderers.renderer_for(table.game).ack_line(table, sv.seat, events)
        # The hand view the click came from becomes the fresh one (it is this user's ephemeral message).
        await update_message(interaction, hand_payload(sv, ack))
        self._live(interaction, sv)  # what it shows is that seat view, whatever happened since

    def _after_move(self, table: Table, user_id: int, events: Sequence[Event]) -> tuple[str, discord.ui.View, SeatView]:
        """The hand view after a move, headed by what the move did, and the seat view it shows."""
        sv = self.runtime.seat_view(table.id, user_id)
        content, view = hand_view(sv)
        ack = renderers.renderer_for(table.game).ack_line(table, sv.seat, events)
        return f"{ack}\n{content}", view, sv


def _own_message(interaction: discord.Interaction) -> discord.Message | None:
    """The ephemeral message (a hand view) a component interaction came from, else ``None`` (a
    command, or a button on a public message)."""
    message = getattr(interaction, "message", None)
    if message is None or getattr(interaction, "type", None) == discord.InteractionType.application_command:
        return None
    flags = getattr(message, "flags", None)
    return message if getattr(flags, "ephemeral", False) else None


def _describe(interaction: discord.Interaction) -> str:
    data = getattr(interaction, "data", None) or {}
    name = data.get("name") or data.get("custom_id") or "?"
    return f"{name} by {getattr(interaction.user, 'id', '?')} in guild {interaction.guild_id}"
