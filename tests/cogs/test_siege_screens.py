"""Siege's screens on their own: King pile progress, house piles in slot order, stock and discard,
the last attack, actions of the current step (menus by kind past 25), and public lines that stop
naming cards once they may have moved into a hand."""

from __future__ import annotations

import re

import discord

from cogs import renderers
from cogs.components import ACTION_TEMPLATE, MENU_TEMPLATE, hand_view
from cogs.render_siege import king_progress
from engine.core import Event
from engine.siege import BY_CODE, Siege
from tables.runtime import SeatView
from tables.table import Phase, Seat, Table
from tests.cogs.fakes import custom_ids, game_controls
from tests.cogs.playthrough import spoken_forms

ALI, BEA = 0, 1


def siege_table(state: Siege) -> Table:
    seats = [Seat(10, "Ali"), Seat(11, "Bea"), Seat(None, "AI 1", is_ai=True), Seat(None, "AI 2", is_ai=True)]
    t = Table(id="ABC234", game="siege", options=dict(state.options), speed="normal", guild_id=1, channel_id=2,
              host_id=10, seats=seats, phase=Phase.RUNNING, seed=1)
    t.state = state
    return t


def fixed(**changes) -> Siege:
    d = Siege.create(4, {"max_rounds": 5}, seed=2).to_dict()
    d.update(changes)
    return Siege.from_dict(d)


def public_ok(t: Table, text: str) -> None:
    for code in t.state.hidden_from(None):
        for form in spoken_forms("siege", code):
            assert not form.search(text), (code, text)


def test_king_pile_progress() -> None:
    assert king_progress("H", ["2H", "3H", "4H", "7H", "TH"]) == "♥ King 2 3 4 · · 7 · · 10"
    assert king_progress("S", []) == "♠ King · · · · · · · · ·"


def test_table_shows_piles_in_slot_order_counts_and_the_last_attack() -> None:
    g = fixed(
        kings=[["2H", "3H", "4H", "7H", "TH"], [], ["5D"], []],
        houses=[[["QH", "5S", "5X", "7H", "7C"], None, ["AX", "3X", "4X"]], [["JS", "6S"], None, None],
                [None, None, None], [None, None, None]],
        last_attack={"seat": 1, "slot": 2, "target": 2, "target_slot": 1, "attack_score": 3, "defend_score": 2,
                     "winner": 1, "taken": ["8D", "9D"], "discarded": ["QD", "AS", "2S", "3S", "4S"]},
    )
    t = siege_table(g)
    text = renderers.table_message(t).text()
    assert "♥ King 2 3 4 · · 7 · · 10 (5/9)" in text
    assert "① Queen Q♥: 5♠ blank 5 7♥ 7♣ — score **8** · ② — · ③ Ace blank A: blank 3 blank 4 — score **2**" in text
    assert "① Jack J♠: 6♠ — score **1**" in text and "♦ King · · · 5 · · · · · (1/9)" in text
    pv = g.public_view()
    assert f"stock {pv['stock']} · discard pile {pv['discard']}" in text
    assert ("⚔️ Last attack: Bea's pile ② (score 3) against AI 1's pile ① (score 2) — **Bea** won and took 8♦ 9♦; "
            "discarded Q♦ A♠ 2♠ 3♠ 4♠.") in text
    assert "▶ **Ali**'s turn" in text
    public_ok(t, text)


def test_actions_of_the_step_spill_into_menus_by_kind() -> None:
    hand = ["2H", "3H", "4H", "5H", "6H", "5S", "5X", "7X", "8X", "QS", "JX", "AD", "9H", "7C"]
    g = fixed(hands=[hand, [], [], []], phase="attack",
              houses=[[["QH", "5C", "5D"], None, ["AX", "3X", "4X"]], [["JS", "6S"], None, None],
                      [["QC"], None, None], [None, None, None]])
    t = siege_table(g)
    d = g.decision(ALI)
    assert d.kind == "attack" and len(d.actions) > 25
    sv = SeatView(t, ALI, g.view(ALI), d, None)
    content, view = hand_view(sv)
    menus = [i.item for i in view.children if isinstance(i.item, discord.ui.Select)]
    buttons = [i for i in game_controls(view) if not isinstance(i, discord.ui.Select)]
    assert all(re.fullmatch(MENU_TEMPLATE, m.custom_id) and len(m.options) <= 25 for m in menus)
    assert menus[0].placeholder == "⚔️ Attack"
    assert any("➕ Place a card" in m.placeholder for m in menus)
    assert [b.label for b in buttons] == ["🔨 Start building", "End turn (discard 14)"]
    assert all(re.fullmatch(ACTION_TEMPLATE, b.custom_id) for b in buttons)
    offered = sorted([o.value for m in menus for o in m.options] + [b.custom_id.rsplit(":", 1)[1] for b in buttons])
    assert offered == sorted(a.code.replace(" ", "_") if a.kind in ("build", "end") else a.code for a in d.actions)
    attack = next(o for o in menus[0].options if o.value == "attack 1 2")
    assert attack.label == "⚔️ Pile ① → Bea"
    assert attack.description == "your Queen (score 4) against their Jack (score 1) — ties go to them"
    place = next(o for m in menus for o in m.options if o.value == "place 5S 1")
    assert place.label == "5♠ → Queen pile ①"
    king = next(o for m in menus for o in m.options if o.value == "place 2H king")
    assert king.label == "2♥ → King pile"
    assert "Your suit: ♥" in content and "Your piles: ① Queen Q♥: 5♣ 5♦ — score **4**" in content
    assert all(len(cid) <= 100 for cid in custom_ids(view))


def test_recent_lines_name_cards_only_during_the_turn_being_played() -> None:
    g = Siege.create(4, {"max_rounds": 5}, seed=2)
    t = siege_table(g)
    five, queen = BY_CODE["5S"], BY_CODE["QH"]
    t.recent = [Event("turn", 0, (1,)), Event("start", 0, (queen, 1)), Event("place", 0, (five, "1", 2)),
                Event("end", 0, (2,)), Event("turn", 1, (1,)), Event("place", 1, (BY_CODE["6S"], "king", 1))]
    lines = renderers.renderer_for("siege").recent_lines(t)
    assert "🏰 Ali started a Queen pile in slot ① with a card." in lines
    assert "Ali placed a card on pile ① (score 2)." in lines
    assert "👑 Bea added 6♠ to their King pile (1/9)." in lines
    assert "Ali ended the turn, discarding 2 cards." in lines
