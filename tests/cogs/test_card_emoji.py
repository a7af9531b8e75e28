"""The card-emoji lookup as the screens use it: nothing until a sync filled the registry (text as
before), then the emoji on card buttons, menu options and the table's trick line — and every message
still within Discord's limits with the longest emoji markup, a 28-card King of the Hill hand
included."""

from __future__ import annotations

import re
from collections.abc import Iterator

import discord
import pytest

from cogs.pictures import emoji, faces
from cogs.table import render, renderer, renderers
from cogs.table.components import hand_view
from games.dalmuti.rules import CARDS, DECK_NUMBERS, Dalmuti
from games.hearts.rules import Hearts
from games.tricks.rules import Tricks
from tables.runtime import SeatView
from tables.table import Phase
from tests.cogs.test_dalmuti_screens import GD, GP, LD, LP, MERCHANT, dalmuti_table, deal_with, looked
from tests.cogs.test_dalmuti_screens import seat_view as dalmuti_seat_view
from tests.cogs.test_koth_screens import ALI, bury_game, koth_table, seat_view
from tests.cogs.test_render import hearts_table
from tests.cogs.test_siege_screens import fixed, siege_table
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


def deal4(first: list[int]) -> list[list[str]]:
    """Four hands of 20: seat 0 gets the numbers ``first``, the rest of the deck goes round."""
    rest = list(DECK_NUMBERS)
    for n in first:
        rest.remove(n)
    hands: list[list[str]] = [[CARDS[n].code for n in first], [], [], []]
    for i, n in enumerate(rest):
        hands[1 + i % 3].append(CARDS[n].code)
    return hands


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


# The longest line a caller puts above the hand view's text (tables.game: a click just before a redraw).
HEAD = "⚠️ That changed just before your click — here is your hand now.\n"
MARKUP = re.compile(r"<:(\w{2,32}):(\d+)>")


def _codes_shown(text: str, ready: dict[str, discord.PartialEmoji]) -> list[str]:
    """The card codes whose emoji ``text`` carries, in order."""
    by_id = {e.id: code for code, e in ready.items()}
    return [by_id[int(i)] for _, i in MARKUP.findall(text)]


def test_a_28_card_koth_hand_fits_with_emoji_markup(ready: dict[str, discord.PartialEmoji]) -> None:
    t = koth_table(bury_game())
    sv = seat_view(t, ALI)
    hand = sv.view["hand"]
    assert len(hand) == 28
    content, view = hand_view(sv)
    options = [o for i in view.children if isinstance(i.item, discord.ui.Select) for o in i.item.options]
    assert options and all(o.emoji is not None and o.emoji.id is not None for o in options)
    # Every card of the hand on the hand lines as its emoji, trumps first, and the message still fits
    # with the longest line a caller puts above it.
    assert sorted(_codes_shown(content, ready)) == sorted(hand)
    assert len(content) <= renderer.HAND_ROOM
    assert not P.message_problems(_payload(HEAD + content, view)), len(HEAD + content)
    # Every emoji's markup is whole (nothing cut in the middle of one).
    assert content.count("<:") == len(MARKUP.findall(content)) == 28


def _hand_lines(content: str) -> list[str]:
    return [line for line in content.splitlines() if "<:" in line]


def test_every_games_hand_line_shows_the_hand_as_emoji(ready: dict[str, discord.PartialEmoji]) -> None:
    # Hearts (and Tricks, which shares the default): one line per suit, the emoji in hand order.
    t = hearts_table(phase=Phase.RUNNING, seed=1)
    t.state = Hearts.create(4, {}, seed=3)
    sv = SeatView(t, 0, t.state.view(0), t.state.decision(0), None)
    content, view = hand_view(sv)
    groups = render.group_by_suit(sv.view["hand"], lambda c: c)
    assert _hand_lines(content) == [" ".join(str(ready[c]) for c in cs) for _, cs in groups]
    assert not any(render.label(c) in line for line in _hand_lines(content) for c in sv.view["hand"])
    assert not P.message_problems(_payload(HEAD + content, view))
    # King of the Hill: by effective suit, trumps first, each group's size kept.
    kt = koth_table(bury_game())
    ksv = seat_view(kt, ALI)
    lines = renderers.renderer_for("koth").hand_lines(ksv, ksv.view["hand"])
    assert lines[1].startswith("**Trumps** (") and all(MARKUP.search(line) for line in lines[1:])
    assert [c for line in lines for c in _codes_shown(line, ready)] == list(ksv.view["hand"])
    # Dalmuti: by number, each number's emoji and how many.
    dt = dalmuti_table(phase=Phase.RUNNING, seed=1)
    dt.state = looked(Dalmuti.create(5, {"hands": 2}, seed=3, deal=deal_with([5, 5, 5, 9, 9, 13, 12, 12]),
                                     ranking=[GD, LD, MERCHANT, LP, GP]))
    content, _ = hand_view(dalmuti_seat_view(dt, GD))
    counts = f"{ready['D5']} ×3 · {ready['D9']} ×2 · {ready['D12']} ×2 · {ready['JJ']} ×1"
    assert counts in content
    # Siege: the hand by suit, blanks last, and the player's piles.
    hand = ["2H", "3H", "5S", "5X", "7X", "QS"]
    g = fixed(hands=[hand, [], [], []], phase="attack",
              houses=[[["QH", "5C", "5D"], None, ["AX", "3X", "4X"]], [None, None, None],
                      [["QC"], None, None], [None, None, None]])
    st = siege_table(g)
    content, _ = hand_view(SeatView(st, 0, g.view(0), g.decision(0), None))
    hand_line = next(line for line in content.splitlines() if line.startswith(str(ready["2H"])))
    assert _codes_shown(hand_line, ready) == [c for c in g.view(0)["hand"]]
    piles = next(line for line in content.splitlines() if line.startswith("Your piles: "))
    assert piles == (f"Your piles: ① Queen {ready['QH']}: {ready['5C']} {ready['5D']} — score **4** · ② — · "
                     f"③ Ace {ready['AX']}: {ready['3X']} {ready['4X']} — score **2**")


def test_the_hand_line_reads_as_before_without_emoji() -> None:
    emoji.REGISTRY.clear("refused")
    t = hearts_table(phase=Phase.RUNNING, seed=1)
    t.state = Hearts.create(4, {}, seed=3)
    sv = SeatView(t, 0, t.state.view(0), t.state.decision(0), None)
    content, _ = hand_view(sv)
    assert "<:" not in content
    for _, cs in render.group_by_suit(sv.view["hand"]):
        assert " ".join(cs) in content.splitlines()
    kt = koth_table(bury_game())
    content, _ = hand_view(seat_view(kt, ALI))
    assert "<:" not in content and "**Trumps** (" in content


def test_a_hand_too_long_for_its_emoji_reads_as_text(ready: dict[str, discord.PartialEmoji],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    kt = koth_table(bury_game())
    sv = seat_view(kt, ALI)
    with_emoji, _ = hand_view(sv)
    assert len(_codes_shown(with_emoji, ready)) == 28
    # Less room than the emoji need: the same view, its cards as text, nothing else lost.
    monkeypatch.setattr(renderer, "HAND_ROOM", len(with_emoji) - 1)
    as_text, _ = hand_view(sv)
    assert "<:" not in as_text and len(as_text) < len(with_emoji)
    assert as_text.splitlines()[-1] == with_emoji.splitlines()[-1]  # the move line is still there
    assert all(render.label(c) in as_text for c in sv.view["hand"])
    with emoji.text_only():
        assert hand_view(sv)[0] == as_text
    # Not even the text fits (no screen comes near): cut at a line, never mid-markup, never too long.
    monkeypatch.setattr(renderer, "HAND_ROOM", 300)
    cut, _ = hand_view(sv)
    assert len(cut) <= 300 + len("\n" + "Chosen") + 100 and "<:" not in cut and cut.endswith("…")


def test_long_piles_go_text_before_the_hand_line(ready: dict[str, discord.PartialEmoji]) -> None:
    # Siege: Ali's own piles as emoji would not fit with his hand; the piles read as text, the hand
    # line keeps its emoji.
    queen = ["QH"] + [n + s for n in "23456789" for s in "SDC"] + ["5X", "5X", "7X"]
    jack = ["JX", "2X", "3X", "4X", "6X", "8X", "9X", "TX"]
    hand = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "AX", "QX"]
    g = fixed(hands=[hand, [], [], []], phase="attack", houses=[[queen, jack, None], [None] * 3, [None] * 3,
                                                                 [None] * 3])
    sv = SeatView(siege_table(g), 0, g.view(0), g.decision(0), None)
    assert len(renderers.renderer_for("siege").hand_body(sv)) > renderer.HAND_ROOM  # the case this is about
    content, view = hand_view(sv)
    lines = content.splitlines()
    piles = next(line for line in lines if line.startswith("Your piles: "))
    assert "<:" not in piles and piles.startswith("Your piles: ① Queen Q♥: 2♠ 2♦ 2♣")
    hand_line = next(line for line in lines if line.startswith("<:"))
    assert _codes_shown(hand_line, ready) == list(g.view(0)["hand"])
    assert len(content) <= renderer.HAND_ROOM and not P.message_problems(_payload(HEAD + content, view))


def test_dalmutis_biggest_hand_fits(ready: dict[str, discord.PartialEmoji]) -> None:
    # Four players: 20 cards each, the Greater Dalmuti 22 with the taxes — every number there is.
    t = dalmuti_table(phase=Phase.RUNNING, seed=1)
    t.seats = t.seats[:4]
    deal = deal4([1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13])
    g = Dalmuti.create(4, {"hands": 2}, seed=3, deal=deal, ranking=[0, 1, 2, 3])
    t.state = looked(g)
    for seat in range(4):
        sv = dalmuti_seat_view(t, seat)
        content, view = hand_view(sv)
        assert len(content) <= renderer.HAND_ROOM and not P.message_problems(_payload(HEAD + content, view))
        assert "<:" in content
    big = max(len(g.view(s)["hand"]) for s in range(4))
    assert big >= 20


def test_a_long_siege_board_fits_its_fields(ready: dict[str, discord.PartialEmoji]) -> None:
    # Every player with three long piles: as emoji they would overrun a field (1,024 characters).
    queen = ["QH"] + [n + s for n in "23456789" for s in "HSDC"] + ["5X", "5X", "7X"]
    jack = ["JX"] + ["2X", "3X", "4X", "5X", "6X", "7X", "8X", "9X", "TX"]
    ace = ["AX", "2X", "3X", "4X"]
    houses = [[queen, jack, ace], [queen[:9], None, ace], [None, jack, None], [ace, ace, ace]]
    g = fixed(houses=houses, kings=[["2H", "3H"], ["2S"], [], []])
    t = siege_table(g)
    r = renderers.table_message(t)
    d = r.embed.to_dict()
    assert not P.message_problems({"embeds": [d]}), P.message_problems({"embeds": [d]})
    fields = d["fields"]
    # Ali's board is too long for emoji: his piles as text; the others keep their emoji.
    assert "<:" not in fields[0]["value"] and "① Queen Q♥: 2♥ 2♠" in fields[0]["value"]
    assert all("<:" in f["value"] for f in fields[1:4])
    assert all(f["value"].count("<:") == len(MARKUP.findall(f["value"])) for f in fields)
    # Only cards lying on the piles are shown as emoji (nothing hidden reaches the public table).
    on_table = {c for row in houses for pile in row if pile for c in pile}
    assert set(_codes_shown(r.text(), ready)) <= on_table


def test_a_board_over_the_embed_total_reads_as_text(ready: dict[str, discord.PartialEmoji],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Every player's block just within a field with its emoji.  Four fields of 1,024 and the rest
    # stay under an embed's 6,000 (Siege has four seats), so the total is checked against a smaller
    # limit here to see the whole message drawn again as text.
    pile = ["QH"] + [n + s for n in "23456" for s in "HSDC"] + ["5X", "7X"]
    houses = [[pile, ["AX", "2X"], None] for _ in range(4)]
    t = siege_table(fixed(houses=houses))
    as_drawn = renderers.renderer_for("siege").table_message(t).embed
    fields = as_drawn.to_dict()["fields"]
    assert all(900 < len(f["value"]) <= render.MAX_FIELD and "<:" in f["value"] for f in fields[:4])
    assert len(as_drawn) <= render.MAX_EMBEDS and renderers.table_message(t).embed.to_dict() == as_drawn.to_dict()
    monkeypatch.setattr(render, "MAX_EMBEDS", len(as_drawn) - 1)
    r = renderers.table_message(t)
    assert "<:" not in r.text() and "① Queen Q♥: 2♥ 2♠ 2♦ 2♣" in r.text()
    assert len(r.embed) < len(as_drawn)
