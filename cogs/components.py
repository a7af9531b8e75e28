"""Buttons and menus that keep working after a restart.

Every component is a :class:`discord.ui.DynamicItem`: everything it needs is in its custom id, so
the bot rebuilds it from the id when someone clicks, however old the message or the process is.
A View here is only a box of such items — no game state lives in it; clicks go to the cog, which
asks the runtime.

Custom ids (at most 100 characters):

* ``dh:t:{act}:{table}`` — table buttons on the PUBLIC message: join, leave, ai, start, hand, back.
  They never carry a card.
* ``dh:a:{table}:{version}:{action code, spaces as _}`` — one per legal action, only on the
  EPHEMERAL hand view of the seat that may take it.
* ``dh:s:{table}:{version}:{kind}`` — a "choose exactly N cards" menu, also only on the hand view.

The version is the table's version when the view was drawn: the runtime refuses a click made on an
out-of-date view (or a second click on the same one) instead of playing something unintended.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol

import discord

from cogs import render
from engine.cards import Card
from engine.core import Action

log = logging.getLogger(__name__)

TABLE_ID = r"[A-Z0-9]{6}"
TABLE_TEMPLATE = rf"dh:t:(?P<act>join|leave|ai|start|hand|back):(?P<tid>{TABLE_ID})"
ACTION_TEMPLATE = rf"dh:a:(?P<tid>{TABLE_ID}):(?P<ver>[0-9]{{1,9}}):(?P<code>[A-Za-z0-9~_]{{1,80}})"
PICK_TEMPLATE = rf"dh:s:(?P<tid>{TABLE_ID}):(?P<ver>[0-9]{{1,9}}):(?P<kind>[a-z_]{{1,40}})"

MAX_BUTTONS = 25  # 5 rows of 5
MAX_OPTIONS = 25  # Discord's limit for one select menu

_TABLE_BUTTONS: dict[str, tuple[str, discord.ButtonStyle, str | None]] = {
    "join": ("Join", discord.ButtonStyle.success, "🪑"),
    "leave": ("Leave", discord.ButtonStyle.secondary, None),
    "ai": ("Add AI", discord.ButtonStyle.secondary, "🤖"),
    "start": ("Start", discord.ButtonStyle.primary, "▶️"),
    "hand": ("My hand", discord.ButtonStyle.primary, "🃏"),
    "back": ("I'm back", discord.ButtonStyle.secondary, "👋"),
}
LOBBY_BUTTONS = ("join", "leave", "ai", "start")
RUNNING_BUTTONS = ("hand", "back")


class Handler(Protocol):
    """What the components call; :class:`cogs.game.GameCog` implements it."""

    async def on_table_button(self, interaction: discord.Interaction, act: str, table_id: str) -> None: ...

    async def on_action_button(
        self, interaction: discord.Interaction, table_id: str, version: int, code: str
    ) -> None: ...

    async def on_pick(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, values: list[str]
    ) -> None: ...


HANDLER_COG = "GameCog"


async def _handler(interaction: discord.Interaction) -> Handler | None:
    cog = interaction.client.get_cog(HANDLER_COG)  # type: ignore[attr-defined]
    if cog is None:
        # Between a restart and the cog loading, say so instead of letting the click "fail".
        await interaction.response.send_message("Deckhand is starting up — try again in a moment.", ephemeral=True)
    return cog


def encode_code(code: str) -> str:
    return code.replace(" ", "_")


def decode_code(text: str) -> str:
    return text.replace("_", " ")


class TableButton(discord.ui.DynamicItem[discord.ui.Button], template=TABLE_TEMPLATE):
    """Join / Leave / Add AI / Start / My hand / I'm back on the public table message."""

    def __init__(self, act: str, table_id: str) -> None:
        label, style, emoji = _TABLE_BUTTONS[act]
        super().__init__(discord.ui.Button(label=label, style=style, emoji=emoji, custom_id=f"dh:t:{act}:{table_id}"))
        self.act = act
        self.table_id = table_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TableButton:
        return cls(match["act"], match["tid"])

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            await handler.on_table_button(interaction, self.act, self.table_id)


class ActionButton(discord.ui.DynamicItem[discord.ui.Button], template=ACTION_TEMPLATE):
    """One legal action (a card to play) on a player's own hand view."""

    def __init__(self, table_id: str, version: int, code: str, label: str | None = None) -> None:
        action = Action.parse(code)
        red = any(c.suit in "HD" or c.code == "~R" for c in action.cards)
        button = discord.ui.Button(
            label=(label or render.action_label(action))[:80],
            style=discord.ButtonStyle.danger if red else discord.ButtonStyle.secondary,
            custom_id=f"dh:a:{table_id}:{version}:{encode_code(code)}",
        )
        super().__init__(button)
        self.table_id = table_id
        self.version = version
        self.code = code

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ActionButton:
        return cls(match["tid"], int(match["ver"]), decode_code(match["code"]), getattr(item, "label", None))

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            await handler.on_action_button(interaction, self.table_id, self.version, self.code)


class PickSelect(discord.ui.DynamicItem[discord.ui.Select], template=PICK_TEMPLATE):
    """Choose exactly ``pick`` cards (the Hearts pass) on a player's own hand view."""

    def __init__(
        self,
        table_id: str,
        version: int,
        kind: str,
        cards: tuple[Card, ...] = (),
        pick: int = 1,
        placeholder: str | None = None,
        select: discord.ui.Select | None = None,
    ) -> None:
        if select is None:
            options = [discord.SelectOption(label=c.label, value=c.code, description=c.name) for c in cards]
            n = min(pick, len(options))
            select = discord.ui.Select(
                custom_id=f"dh:s:{table_id}:{version}:{kind}",
                placeholder=placeholder or f"Choose {pick} cards",
                min_values=n,
                max_values=n,
                options=options[:MAX_OPTIONS],
            )
        super().__init__(select)
        self.table_id = table_id
        self.version = version
        self.kind = kind

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PickSelect:
        # Keep the received select: its options and the chosen values come from the click.
        select = item if isinstance(item, discord.ui.Select) else None
        return cls(match["tid"], int(match["ver"]), match["kind"], select=select)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = await _handler(interaction)
        if handler is not None:
            values = list(self.item.values) or list((interaction.data or {}).get("values", []))  # type: ignore[union-attr]
            await handler.on_pick(interaction, self.table_id, self.version, self.kind, values)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (TableButton, ActionButton, PickSelect)


def table_view(table: Any) -> discord.ui.View:
    """The buttons of the public table message for its phase (none once it has finished)."""
    view = discord.ui.View(timeout=None)
    phase = render.phase_of(table)
    acts = LOBBY_BUTTONS if phase == "lobby" else RUNNING_BUTTONS if phase == "running" else ()
    for act in acts:
        view.add_item(TableButton(act, table.id))
    return view


def hand_view(seat_view: Any) -> tuple[str, discord.ui.View]:
    """The ephemeral hand message of one seat: its text and one control per legal choice."""
    content = render.hand_text(seat_view)
    view = discord.ui.View(timeout=None)
    table, decision = seat_view.table, seat_view.decision
    if decision is None or render.phase_of(table) != "running":
        return content, view
    if decision.pick:
        placeholder = f"Choose {decision.pick} card{'s' if decision.pick != 1 else ''}"
        view.add_item(PickSelect(table.id, table.version, decision.kind, decision.cards, decision.pick, placeholder))
        if len(decision.cards) > MAX_OPTIONS:
            content += "\n*Too many cards for one menu: use `/play` to name them.*"
        return content, view
    shown = 0
    for action in render.in_hand_order(decision.actions, (seat_view.view or {}).get("hand")):
        custom_id = f"dh:a:{table.id}:{table.version}:{encode_code(action.code)}"
        if shown >= MAX_BUTTONS or len(custom_id) > 100 or not re.fullmatch(ACTION_TEMPLATE, custom_id):
            content += "\n*Some choices have no button: use `/play` for them.*"
            break
        view.add_item(ActionButton(table.id, table.version, action.code))
        shown += 1
    return content, view
