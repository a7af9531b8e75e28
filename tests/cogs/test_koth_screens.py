"""King of the Hill's screens on their own: the live deal with its declarations, a hand of 28 fanned
by effective suit with trumps first, the bury over four part menus, the call from menus by suit,
two cards for a pair lead from one menu, and the public table's trump, called card, defenders,
challengers' points and ranks."""

from __future__ import annotations

import random
import re

import discord

from cogs.table import renderers
from cogs.table.components import (
    DONE_TEMPLATE,
    MENU_TEMPLATE,
    PART_TEMPLATE,
    PICK_TEMPLATE,
    TABLE_TEMPLATE,
    hand_view,
)
from cogs.table.game import GameCog
from engine.cards import card
from engine.core import TABLE, Action, Event
from games.koth.rules import CLOSE_ACTION, DEAL_ACTION, KingOfTheHill
from tables.runtime import SeatView
from tables.table import Phase, Seat, Table
from tests.cogs.fakes import custom_ids, game_controls
from tests.cogs.playthrough import spoken_forms

ALI = 0


def koth_table(state: KingOfTheHill) -> Table:
    seats = [Seat(10, "Ali"), Seat(11, "Bea"), Seat(None, "AI 1", is_ai=True), Seat(None, "AI 2", is_ai=True),
             Seat(None, "AI 3", is_ai=True)]
    t = Table(id="ABC234", game="koth", options=dict(state.options), speed="normal", guild_id=1, channel_id=2,
              host_id=10, seats=seats, phase=Phase.RUNNING, seed=1)
    t.state = state
    return t


def seat_view(t: Table, seat: int) -> SeatView:
    return SeatView(t, seat, t.state.view(seat), t.state.decision(seat), 1_700_000_060.0)


def public_ok(t: Table, text: str) -> None:
    for code in t.state.hidden_from(None):
        for form in spoken_forms("koth", code):
            assert not form.search(text), (code, text)


def bury_game() -> KingOfTheHill:
    """Round 1, fully dealt; Ali declares, the late window closes: Ali is the King with 28 cards."""
    for seed in range(100):
        g = KingOfTheHill.create(5, {"ready_round": 0, "rounds": 1}, seed=seed)
        while g.phase == "deal":
            g.apply(TABLE, DEAL_ACTION)
        if g.declare_options(ALI):
            g.apply(ALI, g.declare_options(ALI)[0])
            g.apply(TABLE, CLOSE_ACTION)
            assert g.phase == "bury" and g.koth == ALI
            return g
    raise AssertionError("no seed lets Ali declare")


def test_the_deal_shows_progress_declarations_and_a_declare_button() -> None:
    for seed in range(100):
        g = KingOfTheHill.create(5, {"ready_round": 0, "rounds": 1}, seed=seed)
        for _ in range(37):
            g.apply(TABLE, DEAL_ACTION)
        if g.declare_options(ALI):
            break
    t = koth_table(g)
    t.deadlines = {TABLE: 1_700_000_002.0}
    text = renderers.table_message(t).text()
    assert "37/100 cards" in text and "No declaration yet" in text and "trump rank **2**" in text
    assert "No King yet" in text
    public_ok(t, text)
    content, view = hand_view(seat_view(t, ALI))
    ids = custom_ids(view)
    declares = [i.item for i in view.children if getattr(i.item, "label", "").startswith("📢 Declare")]
    assert declares and ids[-2:] == [f"dh:t:refresh:{t.id}", f"dh:t:howto:{t.id}"]
    assert re.fullmatch(TABLE_TEMPLATE, ids[-2]) and re.fullmatch(TABLE_TEMPLATE, ids[-1])
    assert "37/100 cards dealt" in content and "new cards show up here" in content and "Refresh" not in content
    # Declared: the public table shows it, and the others only a Refresh button until they can override.
    t.recent = g.apply(ALI, g.declare_options(ALI)[0])
    text = renderers.table_message(t).text()
    assert re.search(r"📢 \*\*Ali\*\* declared 2[♣♦♥♠] — an identical pair can still override it", text)
    assert "📢 Ali declared 2" in text  # the recent line
    public_ok(t, text)
    if not g.declare_options(1):
        _, view = hand_view(seat_view(t, 1))
        assert custom_ids(view) == [f"dh:t:refresh:{t.id}", f"dh:t:howto:{t.id}"]


def test_bury_eight_of_twenty_eight_with_part_menus() -> None:
    g = bury_game()
    t = koth_table(g)
    sv = seat_view(t, ALI)
    assert sv.decision.pick == 8 and len(sv.decision.cards) == 28
    r = renderers.renderer_for("koth")
    lines = r.hand_lines(sv, sv.view["hand"])
    assert lines[0] == "28 cards, trumps first:" and lines[1].startswith("**Trumps**")
    content, view = hand_view(sv)
    parts = [i.item for i in view.children if re.fullmatch(PART_TEMPLATE, i.item.custom_id or "")]
    done = [i.item for i in view.children if re.fullmatch(DONE_TEMPLATE, i.item.custom_id or "")]
    assert 2 <= len(parts) <= 4 and all(len(p.options) <= 25 and p.min_values == 0 for p in parts)
    values = [o.value for p in parts for o in p.options]
    assert len(values) == 28 == len(set(values))
    assert parts[0].placeholder.startswith("Trumps")
    assert [b.label for b in done] == ["Bury 0/8", "Clear"] and all(b.disabled for b in done)
    assert "bury 8 cards: choose them in the menus below" in content and "You took the dead hand" in content
    # Eight marked (in the engine) over two menus: shown as defaults, OK enabled.
    chosen = {0: [o.value for o in parts[0].options][:3], 1: [o.value for o in parts[1].options][:5]}
    # The values map back to the hand's own cards (a card held twice has two values).
    action = GameCog._picked(GameCog(None), t, 10, "bury", chosen[0] + chosen[1])
    assert action.kind == "bury" and len(action.cards) == 8
    g.apply(ALI, Action("bury", action.cards, ("mark",)))
    content, view = hand_view(seat_view(t, ALI))
    parts = [i.item for i in view.children if re.fullmatch(PART_TEMPLATE, i.item.custom_id or "")]
    ok = next(i.item for i in view.children if (i.item.custom_id or "").endswith(":ok"))
    assert ok.label == "Bury 8/8" and not ok.disabled
    assert sum(o.default for p in parts for o in p.options) == 8 and "Chosen (8/8)" in content
    assert {o.value for p in parts for o in p.options if o.default} == {*chosen[0], *chosen[1]}
    # The pick is full: a menu with nothing chosen in it waits until a card is unmarked elsewhere.
    assert all(p.disabled == (not any(o.default for o in p.options)) for p in parts)
    g.apply(ALI, Action("bury"))
    assert g.phase == "call" and sorted(c.code for c in g.buried) == sorted(c.code for c in action.cards)
    text = renderers.table_message(t).text()
    public_ok(t, text)


def test_call_from_menus_by_suit_then_the_public_table() -> None:
    g = bury_game()
    g.apply(ALI, g.random_action(ALI, random.Random(1)))
    t = koth_table(g)
    sv = seat_view(t, ALI)
    assert sv.decision.kind == "call" and len(sv.decision.actions) == 48
    content, view = hand_view(sv)
    menus = game_controls(view)
    assert len(menus) == 4 and all(isinstance(m, discord.ui.Select) for m in menus)
    assert all(re.fullmatch(MENU_TEMPLATE, m.custom_id) and len(m.options) == 12 for m in menus)
    assert menus[0].placeholder == "Call: Trumps"
    assert sorted(o.value for m in menus for o in m.options) == sorted(a.code for a in sv.decision.actions)
    assert menus[1].options[0].label.startswith("Call ")
    call = next(a for a in sv.decision.actions if a.cards[0].rank == "A" and a.cards[0].suit != g.trump.suit)
    t.recent = [e for e in g.apply(ALI, call) if e.to is None]
    text = renderers.table_message(t).text()
    suit = g.trump.suit
    assert f"trumps **{'♣♦♥♠'['CDHS'.index(suit)]}" in text and "👑 King: **Ali** (rank 2)" in text
    assert f"📣 Called: {call.cards[0].label} — whoever plays the first copy joins the King" in text
    assert "Known defenders: 👑 Ali" in text and "Challengers' points so far: **0**" in text
    assert text.count("— rank **2**") == 5  # every player's rank
    public_ok(t, text)


def test_two_cards_for_a_pair_lead_from_one_menu() -> None:
    g = bury_game()
    g.apply(ALI, g.random_action(ALI, random.Random(1)))
    g.apply(ALI, g.decision(ALI).actions[0])
    d = g.to_dict()
    # Fixed hands: Bea leads a pair of spades; Ali holds nine single spades and more.
    spades = ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "JS", "QS"]
    d["trump"] = ["H", "2"]
    d["hands"][ALI] = spades + ["3C", "4C", "5C"]
    d["hands"][1] = ["KS"]
    d["trick"] = [[1, ["AS", "AS"]]]
    d["leader"], d["turn"], d["phase"] = 1, ALI, "play"
    g2 = KingOfTheHill.from_dict(d)
    t = koth_table(g2)
    sv = seat_view(t, ALI)
    assert len(sv.decision.actions) == 36  # every two of the nine spades
    content, view = hand_view(sv)
    (select,) = game_controls(view)
    assert re.fullmatch(PICK_TEMPLATE, select.custom_id) and select.min_values == select.max_values == 2
    assert sorted(o.value for o in select.options) == sorted(spades)
    assert "a pair was led" in content
    action = GameCog._picked(GameCog(None), t, 10, "play", ["9S", "3S"])
    assert action in sv.decision.actions and {c.code for c in action.cards} == {"3S", "9S"}


def test_round_summary_and_standings() -> None:
    g = KingOfTheHill.create(5, {"ready_round": 0, "rounds": 1}, seed=5)
    rng = random.Random(3)
    events: list[Event] = []
    while not g.is_over:
        seat = g.to_act()[-1] if TABLE in g.to_act() else g.to_act()[0]
        events += g.apply(seat, g.random_action(seat, rng))
    t = koth_table(g)
    t.phase = Phase.FINISHED
    s = renderers.summary(t, [e for e in events if e.kind in ("hand_end", "game_end")]).text()
    assert "End of round 1" in s and "Challengers took" in s and "Final standings" in s and "rank" in s
    assert f"Replay: `/game replay id:{t.id}`" in s and f"`{t.seed}`" not in s
    public_ok(t, s)
    say = renderers.renderer_for("koth").event_text
    assert say(t, Event("declare", 1, (card("2H"), card("2H")))) == "📢 Bea declared a pair 2♥ 2♥."
    assert say(t, Event("teammate", 1, (card("AS"),))) == "🤝 Bea played the called A♠ and now defends with the King!"
    assert say(t, Event("dealt", 1, (card("AS"),), 1)) is None
