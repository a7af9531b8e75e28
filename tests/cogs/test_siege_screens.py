"""Siege's screens on their own: King pile progress, house piles in slot order, stock and discard,
the last attack, actions of the current step (menus by kind past 25), and public lines that stop
naming cards once they may have moved into a hand."""

from __future__ import annotations

import re

import discord

from cogs.table import renderers
from cogs.table.components import ACTION_TEMPLATE, MENU_TEMPLATE, hand_view
from engine.core import Event
from games.siege.rules import BY_CODE, Siege
from games.siege.screens import king_progress
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


def test_actions_go_into_a_menu_per_pile_with_attacks_apart() -> None:
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
    assert [m.placeholder for m in menus] == [
        "⚔️ Attack", "👑 King pile (0/9) · 🏰 Empty slot ②: start a pile", "① Queen pile (score 4)",
        "③ Ace pile (score 2) · ⇄ Swap slots"]  # (the smallest neighbouring build menus share one)
    assert [b.label for b in buttons] == ["🔨 Start building", "End turn (discard 14)"]
    assert all(re.fullmatch(ACTION_TEMPLATE, b.custom_id) for b in buttons)
    offered = sorted([o.value for m in menus for o in m.options] + [b.custom_id.rsplit(":", 1)[1] for b in buttons])
    assert offered == sorted(a.code.replace(" ", "_") if a.kind in ("build", "end") else a.code for a in d.actions)
    attack = next(o for o in menus[0].options if o.value == "attack 1 2")
    assert attack.label == "⚔️ Pile ① → Bea"
    assert attack.description == "your Queen ① (score 4) against their Jack ① (score 1): you win"
    place = next(o for m in menus for o in m.options if o.value == "place 5S 1")
    assert place.label == "5♠ → Queen pile ①" and place.description == "Queen pile ①: score 4 → 6"
    king = next(o for m in menus for o in m.options if o.value == "place 2H king")
    assert king.label == "2♥ → King pile" and king.description == "your King pile: 0/9 → 1/9"
    ace = next(o for m in menus for o in m.options if o.value == "place 2H 3")
    assert ace.description == "Ace pile ③: score 2 → 4"  # (the ace counts once the straight holds a 2)
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


def _controls(g: Siege, seat: int = ALI) -> tuple[str, list[discord.ui.Select], list[discord.ui.Button], list]:
    sv = SeatView(siege_table(g), seat, g.view(seat), g.decision(seat), None)
    content, view = hand_view(sv)
    rows = view.to_components()
    menus = [i.item for i in view.children if isinstance(i.item, discord.ui.Select)]
    buttons = [i.item for i in view.children if isinstance(i.item, discord.ui.Button)]
    view.stop()
    return content, menus, buttons, rows


def test_a_short_turn_is_menus_too_and_the_cards_no_pile_takes_are_greyed_with_the_reason() -> None:
    g = fixed(hands=[["5S", "9S", "3C", "5X", "QX", "7H"], [], [], []], phase="build",
              houses=[[["QH", "5C", "6D"], ["JD", "4D"], ["AX", "3X", "4X"]], [["JS", "6S"], None, None],
                      [None, None, None], [None, None, None]])
    d = g.decision(ALI)
    assert len(d.actions) <= 25  # (buttons would fit: the menus are the layout all the same)
    content, menus, buttons, rows = _controls(g)
    assert [m.placeholder for m in menus] == ["👑 King pile (0/9)", "① Queen pile (score 4)", "③ Ace pile (score 2)",
                                              "⇄ Swap slots"]
    assert [b.label for b in buttons] == ["End turn (discard 6)", "Hint", "How to play"]
    assert len(rows) <= 5
    # Every legal move is offered once; the cards offered are exactly those the engine lets go somewhere.
    offered = [o.value for m in menus for o in m.options] + ["end"]
    assert sorted(offered) == sorted(a.code for a in d.actions)
    greyed = [line for line in content.splitlines() if line.startswith("-# 🚫")]
    assert greyed == [
        "-# 🚫 Can't place 9♠ and 3♣ now: your King pile takes only hearts; the Queen pile ① takes a new number only "
        "once every number in it is paired (pair the 5 and the 6 first); the Jack pile ② takes only diamonds; the "
        "Ace pile ③ grows only with a 2 or a 5.",
        "-# 🚫 Can't place blank Q now: a Queen, Jack or Ace starts a pile in an empty slot, and all three slots hold "
        "a pile.",
    ]
    placed = {o.value.split()[1] for m in menus for o in m.options if o.value.startswith("place")}
    assert placed == {"7H", "5S", "5X"}


def test_no_greyed_line_off_turn_nor_when_every_card_fits() -> None:
    g = fixed(hands=[["2H", "QS"], ["5S", "9D"], [], []], phase="build")
    content, *_ = _controls(g)
    assert "Can't place" not in content  # 2♥ goes on the King pile, Q♠ starts a pile
    content, menus, buttons, _ = _controls(g, BEA)
    assert "Can't place" not in content and not menus and [b.label for b in buttons] == ["Refresh", "How to play"]


def test_the_attack_preview_says_who_wins_a_tie_included() -> None:
    g = fixed(hands=[["2D"], [], [], []], phase="attack",
              houses=[[["JH", "5H", "6H"], ["QX", "7S", "7C"], ["AX"]], [["QS", "8S"], None, None],
                      [["JD", "2D", "3D", "4D", "5D"], None, None], [None, None, None]])
    _, menus, _, _ = _controls(g)
    attacks = {o.value: o.description for o in menus[0].options}
    assert menus[0].placeholder == "⚔️ Attack" and all(v.startswith("attack") for v in attacks)
    tie = "your Jack ① (score 2) against their Queen ① (score 2): they hold, a tie goes to them"
    assert attacks["attack 1 2"] == tie
    assert attacks["attack 2 2"] == "your Queen ② (score 4) against their Queen ① (score 2): you win"
    assert attacks["attack 3 3"] == "your Ace ③ (score 0) against their Jack ① (score 4): they hold"
    # The verdict is the fight's: each attack played on a copy goes as previewed.
    for code, said in attacks.items():
        copy = g.copy()
        events = copy.apply(ALI, Siege.action_from_code(code))
        fight = next(e for e in events if e.kind == "fight")
        assert (fight.seat == ALI) == said.endswith("you win"), code
