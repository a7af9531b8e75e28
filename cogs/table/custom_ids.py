"""The persistent components' custom ids, and the items (:class:`discord.ui.DynamicItem`) built from
them: everything a click needs is in its id, so the bot rebuilds the item from the id when someone
clicks, however old the message or the process is, and hands the click to the cog.

Custom ids (at most 100 characters):

* ``dh:t:{act}:{table}`` — table buttons: join, leave, ai, start, hand, back, watch on the PUBLIC
  message, refresh or hint on a hand view, watch on a watcher's view.  They never carry a card.
  ``howto`` (the game's quick start) on the lobby, the running table message and on hand views
  where there is room; ``again``
  (Play again) on a finished table.
* ``dh:a:{table}:{version}:{action code, spaces as _}`` — one per legal action, only on the
  EPHEMERAL hand view of the seat that may take it.
* ``dh:m:{table}:{version}:{n}`` — action menu ``n`` (up to four) when the legal actions are more
  than 25 buttons, or whenever the renderer says ``menus_always`` (a menu per pile, one of
  attacks): each option's value is one legal action's code; choosing it is that action
  (the actions the renderer keeps ungrouped — pass, end turn — stay buttons below).  The
  renderer groups the actions (by number, by pile or by effective suit, as the game plays) and
  adjacent small groups share a menu.
* ``dh:s:{table}:{version}:{kind}`` — a "choose exactly N cards" menu (at most 25 cards).  Option
  values are card codes, with ``#1``, ``#2``… appended when a code is there more than once
  (three 5s), so every value is unique and maps back to a card.  Also used to choose the
  cards of a combination when the legal combinations are too many to list (a pair lead in King of
  the Hill): the chosen cards are matched against the legal actions.
* ``dh:p:{table}:{version}:{kind}:{n}`` and ``dh:k:{table}:{version}:{kind}:{ok|clear}`` — a pick
  over more than 25 cards (8 of 28, say): up to four menus, one per group of
  suits, each a part of the choice, then **OK** / **Clear**.  The partial choice lives in the
  engine's state (the seat's ``view["marked"]``; each menu change is one ``{kind} … mark`` action,
  **Clear** is ``{kind} mark``, **OK** is ``{kind}`` alone), so it survives a restart; the menus show
  it as their defaults.  A game whose view has no ``marked`` gets no part menus (``/play`` instead).
* ``dh:h:{table}:{action code, spaces as _}`` — play ahead (tables/ahead.py): one per card of the
  hand, only on the EPHEMERAL hand view of its holder while the others play, choosing that card for
  when their turn comes; ``dh:h:{table}:-`` is **Cancel**.  No version: nothing of the table changes
  when a card is chosen, and the runtime checks the card is still in the hand.
* ``dh:r:{table}:{step}:{op}`` — a finished game's replay viewer (cogs/replay/view.py): **Replay**
  on the finished table message (``open``), ⏮ ◀ ▶ ⏭ and the jump menu (``jump``) on the viewer.

The version is the table's version when the view was drawn: the runtime refuses a click made on an
out-of-date view (or a second click on the same one) instead of playing something unintended.  The
part menus and **Clear** are the exception: their version is the one since which the seat has only
marked cards (:func:`tables.clicks.marking_since`), so their ids stay the same while the choice is built up (the
redrawn message keeps the other menus usable, and so does an older hand view of the same bury),
and the cog accepts them while that still holds.  **OK** carries the current version: it buries
only the choice the person saw.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import discord

import words
from cogs.i18n.reading import lang
from cogs.pictures.emoji import card_emoji
from cogs.table import render, renderers
from cogs.table.renderer import GENERIC
from engine.core import Action, AnyCard
from tables.shards import STARTING
from words import N_

TABLE_ID = r"[A-Z0-9]{6}"
VERSION = r"[0-9]{1,9}"
KIND = r"[a-z_]{1,40}"
TABLE_TEMPLATE = rf"dh:t:(?P<act>join|leave|ai|start|hand|back|refresh|hint|again|howto|watch):(?P<tid>{TABLE_ID})"
ACTION_TEMPLATE = rf"dh:a:(?P<tid>{TABLE_ID}):(?P<ver>{VERSION}):(?P<code>[A-Za-z0-9~_]{{1,80}})"
PICK_TEMPLATE = rf"dh:s:(?P<tid>{TABLE_ID}):(?P<ver>{VERSION}):(?P<kind>{KIND})"
MENU_TEMPLATE = rf"dh:m:(?P<tid>{TABLE_ID}):(?P<ver>{VERSION}):(?P<n>[0-3])"
PART_TEMPLATE = rf"dh:p:(?P<tid>{TABLE_ID}):(?P<ver>{VERSION}):(?P<kind>{KIND}):(?P<part>[0-3])"
AHEAD_TEMPLATE = rf"dh:h:(?P<tid>{TABLE_ID}):(?P<code>[A-Za-z0-9~_]{{1,80}}|-)"
DONE_TEMPLATE = rf"dh:k:(?P<tid>{TABLE_ID}):(?P<ver>{VERSION}):(?P<kind>{KIND}):(?P<op>ok|clear)"


# ---- letting views go --------------------------------------------------------------------------
def let_go(view: discord.ui.View | discord.ui.LayoutView | None) -> None:
    """``view`` is done with (sent, or its click answered): stop it and empty it.  A View and its
    items point at each other (each item's ``view``), a cycle only the garbage collector frees; a
    hand view is some 15-25 items with their buttons and emoji, drawn for every click and every live
    edit, so under load that garbage made most of the collector's work and its pauses (issue 35).
    Emptied, the items and the view go as soon as the last reference does."""
    if view is None:
        return
    view.stop()
    view.clear_items()


def answered(interaction: discord.Interaction) -> None:
    """The interaction is handled: cut the cycle between it and its ``response`` (each points at
    the other), which only the garbage collector could free, and with the interaction the clicked
    message and its components (some forty objects a click; under load the collector's main work
    and its longest pauses, issue 35).  Cut, they all go as soon as the last task holding the
    interaction ends.  Only once the response was sent: the response still says so
    (``is_done()``, ``type``), and anything that would send another is refused as before.  Every
    component's callback (:func:`releasing`) and every command (:class:`AnsweringTree`) ends here."""
    response = getattr(interaction, "_cs_response", None)
    if isinstance(response, discord.InteractionResponse) and response.is_done():
        response._parent = None  # type: ignore[assignment]  # discord.py types it as never None; cut on purpose


class AnsweringTree(discord.app_commands.CommandTree):  # type: ignore[type-arg]  # (any client)
    """discord.py's command tree, whose every command (and autocomplete) ends with
    :func:`answered`: a slash command's interaction is freed without the collector, as a click's is."""

    async def _call(self, interaction: discord.Interaction) -> None:
        try:
            await super()._call(interaction)
        finally:
            answered(interaction)


#: A component of ours: a DynamicItem (what discord.py types its ``item`` as) sits in either kind of view.
UIItem = discord.ui.Item[discord.ui.View | discord.ui.LayoutView]
ItemT = TypeVar("ItemT", bound=UIItem)


def releasing(callback: Callable[[ItemT, discord.Interaction], Coroutine[Any, Any, None]]
              ) -> Callable[[ItemT, discord.Interaction], Coroutine[Any, Any, None]]:
    """A DynamicItem's ``callback`` that lets go of the View discord.py rebuilt from the clicked
    message (``View.from_message``: every component of it, for this one click) once it returns,
    and of the interaction (:func:`answered`)."""

    @functools.wraps(callback)
    async def run(self: ItemT, interaction: discord.Interaction) -> None:
        try:
            await callback(self, interaction)
        finally:
            let_go(self.view)
            answered(interaction)

    return run

MAX_BUTTONS = 25  # 5 rows of 5
MAX_OPTIONS = 25  # Discord's limit for one select menu
MAX_ROWS = 5
MAX_MENUS = 4  # leaves a row for buttons (pass, end turn, OK)
ROW_BUTTONS = 5
VALUE_SEP = "#"  # a card code's copy number in a menu value: "D5#2"

_TABLE_BUTTONS: dict[str, tuple[str, discord.ButtonStyle, str | None]] = {
    "join": (N_("Join"), discord.ButtonStyle.success, "🪑"),
    "leave": (N_("Leave"), discord.ButtonStyle.secondary, None),
    "ai": (N_("Add AI"), discord.ButtonStyle.secondary, "🤖"),
    "start": (N_("Start"), discord.ButtonStyle.primary, "▶️"),
    "hand": (N_("My hand"), discord.ButtonStyle.primary, "🃏"),
    "back": (N_("I'm back"), discord.ButtonStyle.secondary, "👋"),
    "refresh": (N_("Refresh"), discord.ButtonStyle.secondary, "🔄"),
    "hint": (N_("Hint"), discord.ButtonStyle.secondary, "💡"),
    "again": (N_("Play again"), discord.ButtonStyle.success, "🔁"),
    "howto": (N_("How to play"), discord.ButtonStyle.secondary, "❔"),
    "watch": (N_("Watch"), discord.ButtonStyle.secondary, "👀"),
}
LOBBY_BUTTONS: tuple[str, ...] = ("join", "leave", "ai", "start", "howto")
RUNNING_BUTTONS: tuple[str, ...] = ("hand", "back", "watch", "howto")
# only once a game was played (a lobby closed early has nothing to replay)
FINISHED_BUTTONS: tuple[str, ...] = ("again",)


class Handler(Protocol):
    """What the components call; :class:`cogs.table.game.GameCog` implements it."""

    async def on_table_button(self, interaction: discord.Interaction, act: str, table_id: str) -> None: ...

    async def on_action_button(
        self, interaction: discord.Interaction, table_id: str, version: int, code: str
    ) -> None: ...

    async def on_pick(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, values: list[str]
    ) -> None: ...

    async def on_part(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, part: int, values: list[str]
    ) -> None: ...

    async def on_pick_done(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, op: str
    ) -> None: ...

    async def on_ahead(self, interaction: discord.Interaction, table_id: str, code: str | None) -> None: ...


HANDLER_COG = "GameCog"


async def _handler(interaction: discord.Interaction) -> Handler | None:
    # ignore: discord.py types the client as a plain Client; ours is a commands.Bot (a test's fake has get_cog too).
    cog = interaction.client.get_cog(HANDLER_COG)  # type: ignore[attr-defined]
    if cog is None:
        # Between a restart and the cog loading, say so instead of letting the click "fail".
        await interaction.response.send_message(words.translate(words.resolve(interaction.locale), STARTING),
                                                ephemeral=True)
    return cog


NUMBER_DIGITS = 9  # the most digits a number in a custom id or a menu value has (a version, a step)


def number(text: object, digits: int = NUMBER_DIGITS) -> int | None:
    """A number from a custom id or a menu value, strictly: ASCII digits only, at most ``digits`` of
    them, else ``None`` ("²" passes ``str.isdigit`` and fails ``int``; 5,000 digits fail ``int`` too).
    A click carrying anything else was not made by a component the bot drew."""
    if not isinstance(text, str) or not 0 < len(text) <= digits or not text.isascii() or not text.isdigit():
        return None
    return int(text)


def _number(text: str) -> int:
    """A number the item's template already matched (``[0-9]{1,9}``): :func:`number`, which cannot fail."""
    value = number(text)
    if value is None:  # (the template let through something no component of ours carries)
        raise ValueError(f"not a number of a custom id: {text[:12]!r}")
    return value


def encode_code(code: str) -> str:
    return code.replace(" ", "_")


def decode_code(text: str) -> str:
    return text.replace("_", " ")


def card_values(cards: Sequence[AnyCard]) -> list[str]:
    """A unique menu value per card: its code, with ``#n`` when the code is there more than once."""
    total = Counter(c.code for c in cards)
    seen: Counter[str] = Counter()
    out = []
    for c in cards:
        seen[c.code] += 1
        out.append(c.code if total[c.code] == 1 else f"{c.code}{VALUE_SEP}{seen[c.code]}")
    return out


def value_code(value: str) -> str:
    """The card code of a menu value (``D5#2`` → ``D5``)."""
    return value.split(VALUE_SEP, 1)[0]


def _values(item: UIItem, interaction: discord.Interaction) -> list[str]:
    return list(getattr(item, "values", None) or ()) or _data_values(interaction)


def _data_values(interaction: discord.Interaction) -> list[str]:
    """A menu click's chosen values as Discord sent them (the interaction's raw data)."""
    data: Mapping[str, object] = interaction.data or {}
    values = data.get("values", [])
    return list(values) if isinstance(values, list) else []


def _received_select(item: UIItem) -> discord.ui.Select | None:
    return item if isinstance(item, discord.ui.Select) else None


# ---- the items ---------------------------------------------------------------------------------
class TableButton(discord.ui.DynamicItem[discord.ui.Button], template=TABLE_TEMPLATE):
    """Join / Leave / Add AI / Start / My hand / I'm back on the public table message; Refresh on a
    hand view."""

    def __init__(self, act: str, table_id: str) -> None:
        label, style, emoji = _TABLE_BUTTONS[act]
        label = words.translate(lang(), label)  # in the language being drawn (cogs/i18n/reading.py)
        super().__init__(discord.ui.Button(label=label, style=style, emoji=emoji, custom_id=f"dh:t:{act}:{table_id}"))
        self.act = act
        self.table_id = table_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: UIItem, match: re.Match[str], /
    ) -> TableButton:
        return cls(match["act"], match["tid"])

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            await handler.on_table_button(interaction, self.act, self.table_id)


class ActionButton(discord.ui.DynamicItem[discord.ui.Button], template=ACTION_TEMPLATE):
    """One legal action (a card to play, pass, end turn) on a player's own hand view."""

    def __init__(
        self,
        table_id: str,
        version: int,
        code: str,
        label: str | None = None,
        style: discord.ButtonStyle | None = None,
        emoji: discord.PartialEmoji | None = None,
        disabled: bool = False,
    ) -> None:
        if label is None or style is None:
            try:
                action = Action.parse(code)
                label = label or renderers.action_label(action)
                style = style or GENERIC.action_style(action)
            except Exception:  # a code of a game with its own cards: words are the renderer's job
                label = label or code
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=label[:80],
            style=style or discord.ButtonStyle.secondary,
            emoji=emoji,
            custom_id=f"dh:a:{table_id}:{version}:{encode_code(code)}",
            disabled=disabled,
        )
        super().__init__(button)
        self.table_id = table_id
        self.version = version
        self.code = code

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: UIItem, match: re.Match[str], /
    ) -> ActionButton:
        return cls(match["tid"], _number(match["ver"]), decode_code(match["code"]), getattr(item, "label", None),
                   getattr(item, "style", None))

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            await handler.on_action_button(interaction, self.table_id, self.version, self.code)


class ActionMenu(discord.ui.DynamicItem[discord.ui.Select], template=MENU_TEMPLATE):
    """One menu of legal actions (when they are too many for buttons): choosing an option is that
    action, exactly as its button would be."""

    def __init__(
        self,
        table_id: str,
        version: int,
        n: int,
        options: Sequence[discord.SelectOption] = (),
        placeholder: str | None = None,
        select: discord.ui.Select | None = None,
    ) -> None:
        if select is None:
            select = discord.ui.Select(custom_id=f"dh:m:{table_id}:{version}:{n}", placeholder=(placeholder or
                                       "Choose")[:150], min_values=1, max_values=1, options=list(options))
        super().__init__(select)
        self.table_id = table_id
        self.version = version
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: UIItem, match: re.Match[str], /
    ) -> ActionMenu:
        return cls(match["tid"], _number(match["ver"]), _number(match["n"]), select=_received_select(item))

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is None:
            return
        values = _values(self.item, interaction)
        if len(values) != 1:
            await interaction.response.send_message(
                words.translate(words.resolve(interaction.locale), N_("Choose one option in the menu.")),
                ephemeral=True)
            return
        await handler.on_action_button(interaction, self.table_id, self.version, values[0])


class PickSelect(discord.ui.DynamicItem[discord.ui.Select], template=PICK_TEMPLATE):
    """Choose exactly ``pick`` cards (a pass of 3, a tax return, two cards for a pair) on a player's
    own hand view."""

    def __init__(
        self,
        table_id: str,
        version: int,
        kind: str,
        cards: tuple[AnyCard, ...] = (),
        pick: int = 1,
        placeholder: str | None = None,
        select: discord.ui.Select | None = None,
        options: Sequence[discord.SelectOption] | None = None,
    ) -> None:
        if select is None:
            if options is None:
                options = [discord.SelectOption(label=render.label(c), value=v, description=getattr(c, "name", None),
                                                emoji=card_emoji(c))
                           for c, v in zip(cards, card_values(cards), strict=True)]
            options = list(options)[:MAX_OPTIONS]
            n = min(pick, len(options))
            select = discord.ui.Select(
                custom_id=f"dh:s:{table_id}:{version}:{kind}",
                placeholder=(placeholder or words.ngettext(lang(), "Choose {n} card", "Choose {n} cards", pick))[:150],
                min_values=n,
                max_values=n,
                options=options,
            )
        super().__init__(select)
        self.table_id = table_id
        self.version = version
        self.kind = kind

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: UIItem, match: re.Match[str], /
    ) -> PickSelect:
        # Keep the received select: its options and the chosen values come from the click.
        return cls(match["tid"], _number(match["ver"]), match["kind"], select=_received_select(item))

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            values = _values(self.item, interaction)
            await handler.on_pick(interaction, self.table_id, self.version, self.kind, values)


class PartSelect(discord.ui.DynamicItem[discord.ui.Select], template=PART_TEMPLATE):
    """One part of a pick over more than 25 cards: the cards of some suits.  Each change is sent at
    once and marked in the engine (the seat's ``marked`` cards) until **OK**."""

    def __init__(
        self,
        table_id: str,
        version: int,
        kind: str,
        part: int,
        options: Sequence[discord.SelectOption] = (),
        max_values: int = 1,
        placeholder: str | None = None,
        select: discord.ui.Select | None = None,
        disabled: bool = False,
    ) -> None:
        if select is None:
            select = discord.ui.Select(
                custom_id=f"dh:p:{table_id}:{version}:{kind}:{part}",
                placeholder=(placeholder or words.translate(lang(), N_("Choose")))[:150],
                min_values=0,
                max_values=max(1, min(max_values, len(options))),
                options=list(options),
                disabled=disabled,
            )
        super().__init__(select)
        self.table_id = table_id
        self.version = version
        self.kind = kind
        self.part = part

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: UIItem, match: re.Match[str], /
    ) -> PartSelect:
        return cls(match["tid"], _number(match["ver"]), match["kind"], _number(match["part"]),
                   select=_received_select(item))

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            values = list(getattr(self.item, "values", None) or _data_values(interaction))
            await handler.on_part(interaction, self.table_id, self.version, self.kind, self.part, values)


class PickDone(discord.ui.DynamicItem[discord.ui.Button], template=DONE_TEMPLATE):
    """**OK** (carry out the pick marked across the part menus) or **Clear** (unmark them all)."""

    def __init__(
        self,
        table_id: str,
        version: int,
        kind: str,
        op: str,
        label: str | None = None,
        disabled: bool = False,
    ) -> None:
        style = discord.ButtonStyle.success if op == "ok" else discord.ButtonStyle.secondary
        button: discord.ui.Button[discord.ui.View]
        said = label or words.translate(lang(), N_("OK") if op == "ok" else N_("Clear"))
        button = discord.ui.Button(label=said[:80], style=style,
                                   disabled=disabled, custom_id=f"dh:k:{table_id}:{version}:{kind}:{op}")
        super().__init__(button)
        self.table_id = table_id
        self.version = version
        self.kind = kind
        self.op = op

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: UIItem, match: re.Match[str], /
    ) -> PickDone:
        return cls(match["tid"], _number(match["ver"]), match["kind"], match["op"], getattr(item, "label", None))

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            await handler.on_pick_done(interaction, self.table_id, self.version, self.kind, self.op)


class AheadButton(discord.ui.DynamicItem[discord.ui.Button], template=AHEAD_TEMPLATE):
    """Play ahead: a card of the hand chosen for when its holder's turn comes (``code``), or
    **Cancel** (``code`` None), on the holder's own hand view while the others play."""

    def __init__(
        self,
        table_id: str,
        code: str | None,
        label: str | None = None,
        style: discord.ButtonStyle | None = None,
        emoji: discord.PartialEmoji | None = None,
    ) -> None:
        if code is None:
            label = label or words.translate(lang(), N_("Cancel"))
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=(label or code or "?")[:80], style=style or discord.ButtonStyle.secondary, emoji=emoji,
            custom_id=ahead_id(table_id, code))
        super().__init__(button)
        self.table_id = table_id
        self.code = code

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: UIItem, match: re.Match[str], /
    ) -> AheadButton:
        code = None if match["code"] == "-" else decode_code(match["code"])
        return cls(match["tid"], code, getattr(item, "label", None), getattr(item, "style", None))

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            await handler.on_ahead(interaction, self.table_id, self.code)


def ahead_id(table_id: str, code: str | None) -> str:
    return f"dh:h:{table_id}:{'-' if code is None else encode_code(code)}"


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[UIItem]], ...] = (
    TableButton, ActionButton, PickSelect, ActionMenu, PartSelect, PickDone, AheadButton)


# ---- the replay viewer (cogs/replay/view.py) ----------------------------------------------------
# ``dh:r:{table}:{step}:{op}``: a finished game's replay.  The step is the one the viewer shows; the
# ops move from it (first, prev, next, last), ``jump`` is the menu (its values are steps) and
# ``open`` (step 0) is the **Replay** button on a finished table message, which opens a viewer of
# one's own; ``review`` is the viewer's **Review my play** (cogs/replay/review.py: the clicker's own
# review, in a message of its own).  Only finished games are replayed, so nothing in these ids is
# hidden from anyone.
REPLAY_OPS = ("open", "first", "prev", "next", "last", "review")
REPLAY_TEMPLATE = rf"dh:r:(?P<tid>{TABLE_ID}):(?P<step>[0-9]{{1,6}}):(?P<op>{'|'.join(REPLAY_OPS)})"
JUMP_TEMPLATE = rf"dh:r:(?P<tid>{TABLE_ID}):(?P<step>[0-9]{{1,6}}):jump"
_REPLAY_BUTTONS: dict[str, tuple[str, str]] = {
    "open": (N_("Replay"), "🎞️"), "first": (N_("First"), "⏮️"), "prev": (N_("Back"), "◀️"),
    "next": (N_("Next"), "▶️"), "last": (N_("Last"), "⏭️"), "review": (N_("Review my play"), "🔍"),
}


@runtime_checkable
class ReplayHandler(Protocol):
    """What the replay viewer's components call; cogs/replay/view.py's cog implements it."""

    async def on_replay(self, interaction: discord.Interaction, table_id: str, step: int, op: str,
                        values: list[str]) -> None: ...


async def _replay_handler(interaction: discord.Interaction) -> ReplayHandler | None:
    cog = await _handler(interaction)
    if cog is None:
        return None
    if not isinstance(cog, ReplayHandler):  # (has no on_replay)
        await interaction.response.send_message(
            words.translate(words.resolve(interaction.locale), N_("That button does nothing any more.")),
            ephemeral=True)
        return None
    return cog


class ReplayButton(discord.ui.DynamicItem[discord.ui.Button], template=REPLAY_TEMPLATE):
    """**Replay** on a finished table message, and the viewer's ⏮ ◀ ▶ ⏭."""

    def __init__(self, table_id: str, step: int, op: str, disabled: bool = False) -> None:
        label, emoji = _REPLAY_BUTTONS.get(op, (N_("Replay"), "🎞️"))
        label = words.translate(lang(), label)
        style = discord.ButtonStyle.primary if op in ("open", "next") else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=label, emoji=emoji, style=style, disabled=disabled,
                                           custom_id=f"dh:r:{table_id}:{step}:{op}"))
        self.table_id = table_id
        self.step = step
        self.op = op

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: UIItem, match: re.Match[str], /
    ) -> ReplayButton:
        return cls(match["tid"], _number(match["step"]), match["op"])

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _replay_handler(interaction)
        if handler is not None:
            await handler.on_replay(interaction, self.table_id, self.step, self.op, [])


class ReplayJump(discord.ui.DynamicItem[discord.ui.Select], template=JUMP_TEMPLATE):
    """The viewer's menu: a hand, round or trick to jump to (each option's value is a step)."""

    def __init__(self, table_id: str, step: int, options: Sequence[discord.SelectOption] = (),
                 select: discord.ui.Select | None = None) -> None:
        if select is None:
            select = discord.ui.Select(custom_id=f"dh:r:{table_id}:{step}:jump", placeholder="Jump to…",
                                       min_values=1, max_values=1, options=list(options)[:MAX_OPTIONS])
        super().__init__(select)
        self.table_id = table_id
        self.step = step

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: UIItem, match: re.Match[str], /
    ) -> ReplayJump:
        return cls(match["tid"], _number(match["step"]), select=_received_select(item))

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _replay_handler(interaction)
        if handler is not None:
            await handler.on_replay(interaction, self.table_id, self.step, "jump", _values(self.item, interaction))


DYNAMIC_ITEMS += (ReplayButton, ReplayJump)
