"""The card-emoji lookup as the screens use it: nothing until a sync filled the registry (text as
before), then the emoji on card buttons, menu options and the table's trick line — and every message
still within Discord's limits with the longest emoji markup, a 28-card King of the Hill hand
included."""

from __future__ import annotations

import re
from collections.abc import Iterator

import discord
import pytest

from cogs import emoji, faces, render, renderers
from cogs.components import hand_view
from engine.tricks import Tricks
from tables.runtime import SeatView
from tables.table import Phase
from tests.cogs.test_koth_screens import ALI, bury_game, koth_table, seat_view
from tests.cogs.test_tricks_screens import tricks_table
from tests.fakediscord import payloads as P


@pytest.fixture
def ready() -> Iterator[dict[str, discord.PartialEmoji]]:
    """Every face as an emoji with the longest name and a 19-digit id (the worst case for length)."""
    by_code = {}
    for i, code in enumerate(faces.face_codes()):
        name = faces.emoji_name(code, code.encode())
        by_code[code] = discord.PartialEmoji(name=name, id=1_234_567_890_123_456_000 + i)
    emoji.REGISTRY.use(by_code)
    try:
        yield by_code
    finally:
        emoji.REGISTRY.clear()


def _payload(content: str, view: discord.ui.View) -> dict:
    return {"content": content, "components": view.to_components()}


def test_nothing_until_a_sync_filled_the_registry() -> None:
    emoji.REGISTRY.clear()
    assert emoji.card_emoji("QS") is None and emoji.card_markup("QS", "Q♠") == "Q♠"
    assert render.face("QS") == "Q♠"
    emoji.REGISTRY.clear("refused")
    assert emoji.card_emoji("QS") is None


def test_tricks_buttons_and_table_carry_the_emoji(ready: dict[str, discord.PartialEmoji]) -> None:
    t = tricks_table(phase=Phase.RUNNING, seed=9)
    g = Tricks.create(4, {"target": 25}, seed=4)
    t.state = g
    leader = g.public_view()["turn"]
    lead = g.decision(leader).actions[0]
    t.recent = [e for e in g.apply(leader, lead) if e.to is None]
    text = renderers.table_message(t).text()
    assert f"{render.seat_name(t, leader)} {ready[lead.cards[0].code]}" in text
    seat = g.public_view()["turn"]
    sv = SeatView(t, seat, g.view(seat), g.decision(seat), None)
    content, view = hand_view(sv)
    buttons = [i.item for i in view.children if isinstance(i.item, discord.ui.Button)]
    card_buttons = [b for b in buttons if b.emoji is not None and b.emoji.id is not None]
    assert card_buttons, "no card button carries its emoji"
    for b in card_buttons:
        # The label keeps the short text (screen readers, search); the emoji is the label's card.
        code = next(c for c, e in ready.items() if e.id == b.emoji.id)
        assert b.label == render.label(code)
    assert not P.message_problems(_payload(content, view))


def test_a_28_card_koth_hand_fits_with_emoji_markup(ready: dict[str, discord.PartialEmoji]) -> None:
    t = koth_table(bury_game())
    sv = seat_view(t, ALI)
    hand = sv.view["hand"]
    assert len(hand) == 28
    content, view = hand_view(sv)
    options = [o for i in view.children if isinstance(i.item, discord.ui.Select) for o in i.item.options]
    assert options and all(o.emoji is not None and o.emoji.id is not None for o in options)
    assert not P.message_problems(_payload(content, view))
    # The hand fanned as emoji (one markup per card, ~40 characters each) next to the rest of the
    # hand text still fits in one message: room for the hand line however it is drawn.
    markup = " ".join(emoji.card_markup(c, "") for c in hand)
    assert all(re.fullmatch(r"<:\w{2,32}:\d+>", m) for m in markup.split())
    assert len(content) + len(markup) + 40 <= 2000, (len(content), len(markup))
    # 20 cards (a King of the Hill hand before the dead hand) with generous room to spare.
    assert len(" ".join(emoji.card_markup(c, "") for c in hand[:20])) < 1000


def test_dalmuti_and_siege_codes_have_faces() -> None:
    from engine.dalmuti import CARDS
    from engine.siege import DISTINCT

    codes = set(faces.face_codes())
    assert {c.code for c in CARDS[1:]} <= codes
    assert {c.code for c in DISTINCT} <= codes  # the suited Siege cards reuse the standard faces
