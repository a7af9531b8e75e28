"""The Great Dalmuti's screens on their own: a hand grouped by number, plays as single choices
("three 5s", "two 9s + Jester", "pass"), menus by number beyond 25 plays, a tax return menu whose
repeated numbers still have unique values, the revolution, and the public table."""

from __future__ import annotations

import random
import re

import discord

from cogs.table import render, renderers
from cogs.table.autocomplete import legal_choices
from cogs.table.components import MENU_TEMPLATE, PICK_TEMPLATE, card_values, hand_view, value_code
from cogs.table.game import GameCog
from engine.core import TABLE, Event
from games.dalmuti.rules import CARDS, CLOSE_LOOK, DECK_NUMBERS, JESTER, Dalmuti, dcard
from tables.runtime import SeatView
from tables.table import Phase, Seat, Table
from tests.cogs.fakes import custom_ids, game_controls
from tests.cogs.playthrough import spoken_forms

GD, LD, MERCHANT, LP, GP = 0, 1, 2, 3, 4  # seats in ranking order


def dalmuti_table(**kw) -> Table:
    seats = [Seat(10, "Ali"), Seat(11, "Bea"), Seat(None, "AI 1", is_ai=True), Seat(12, "Cy"), Seat(13, "Dee")]
    return Table(id="ABC234", game="dalmuti", options=Dalmuti.read_options({"hands": 2}), speed="normal",
                 guild_id=1, channel_id=2, host_id=10, seats=seats, **kw)


def deal_with(first: list[int], holder: int = 0) -> list[list[str]]:
    """Seat ``holder`` gets the numbers ``first``; the rest of the deck goes round the others."""
    rest = list(DECK_NUMBERS)
    for n in first:
        rest.remove(n)
    hands: list[list[str]] = [[] for _ in range(5)]
    hands[holder] = [CARDS[n].code for n in first]
    others = [s for s in range(5) if s != holder]
    for i, n in enumerate(rest):
        hands[others[i % 4]].append(CARDS[n].code)
    return hands


def looked(g: Dalmuti) -> Dalmuti:
    """Past the look at the cards that starts every hand (nobody called a revolution)."""
    g.apply(TABLE, CLOSE_LOOK)
    return g


def seat_view(t: Table, seat: int) -> SeatView:
    return SeatView(t, seat, t.state.view(seat), t.state.decision(seat), 1_700_000_060.0)


def public_ok(t: Table, text: str) -> None:
    for code in t.state.hidden_from(None):
        for form in spoken_forms("dalmuti", code):
            assert not form.search(text), (code, form.pattern, text)


def test_hand_grouped_by_number_and_the_tax_return_menu() -> None:
    # Ali (Greater Dalmuti) holds three 5s, two 9s and a Jester among others; Dee (Greater Peon) pays.
    t = dalmuti_table(phase=Phase.RUNNING, seed=1)
    t.state = looked(Dalmuti.create(5, {"hands": 2}, seed=3, deal=deal_with([5, 5, 5, 9, 9, 13, 12, 12]),
                                    ranking=[GD, LD, MERCHANT, LP, GP]))
    sv = seat_view(t, GD)
    assert sv.decision.kind == "give" and sv.decision.pick == 2
    content, view = hand_view(sv)
    counts = renderers.renderer_for("dalmuti").hand_lines(sv, sv.view["hand"])[0]
    assert "5 ×3 · 9 ×2 · 12 ×2 · Jester ×1" in counts and counts in content
    assert "You are the **Greater Dalmuti**" in content and "Taxes: you received" in content
    assert "give back to **Dee**" in content
    (select,) = game_controls(view)
    assert re.fullmatch(PICK_TEMPLATE, select.custom_id) and select.min_values == select.max_values == 2
    values = [o.value for o in select.options]
    assert len(values) == len(set(values)) == len(sv.decision.cards)  # unique though the numbers repeat
    assert {"D5#1", "D5#2", "D5#3", "JJ"} <= set(values)
    assert [value_code(v) for v in values] == [c.code for c in sv.decision.cards]
    five = next(o for o in select.options if o.value == "D5#2")
    assert five.label == "5" and "hold 3" in five.description
    # The click maps back to the decision's own cards and makes its action.
    action = GameCog._picked(GameCog(None), t, 10, "give", ["D5#1", "D5#3"])
    assert action.kind == "give" and [c.code for c in action.cards] == ["D5", "D5"]
    # /play autocomplete lets a repeated number be chosen as often as it is held.
    names = [c.value for c in legal_choices(sv.decision, "D5 ", sv.view["hand"], renderers.renderer_for("dalmuti"))]
    assert "D5 D5" in names and "D5 JJ" in names
    assert legal_choices(sv.decision, "D5 D5", sv.view["hand"], renderers.renderer_for("dalmuti"))[0].value == "D5 D5"
    # The public table names no tax card.
    text = renderers.table_message(t).text()
    assert "choosing 2 cards to give back" in text and "Greater Peon" in text
    public_ok(t, text)


def test_plays_read_as_sets_and_spill_into_menus_by_number() -> None:
    # Ali leads with many sets and a Jester: more than 25 plays.
    t = dalmuti_table(phase=Phase.RUNNING, seed=1)
    g = looked(Dalmuti.create(5, {"hands": 2}, seed=3,
                              deal=deal_with([12] * 6 + [11] * 5 + [10] * 4 + [9] * 3 + [13]),
                              ranking=[GD, LD, MERCHANT, LP, GP]))
    t.state = g
    g.apply(GD, Dalmuti.action_from_code("give D12 D12"))  # taxes: Ali keeps her Jester
    g.apply(LD, Dalmuti.action_from_code("give " + g.decision(LD).cards[-1].code))
    assert g.public_view()["phase"] == "play" and g.public_view()["turn"] == GD
    sv = seat_view(t, GD)
    r = renderers.renderer_for("dalmuti")
    labels = {r.action_label(a) for a in sv.decision.actions}
    assert {"three 12s", "two 9s + Jester", "a Jester"} <= labels
    assert len(sv.decision.actions) > 25
    content, view = hand_view(sv)
    menus = [i.item for i in view.children if isinstance(i.item, discord.ui.Select)]
    assert 2 <= len(menus) <= 5 and all(re.fullmatch(MENU_TEMPLATE, m.custom_id) for m in menus)
    assert all(1 <= len(m.options) <= 25 for m in menus) and menus[0].placeholder.startswith("Play ")
    offered = [o.value for m in menus for o in m.options]
    assert sorted(offered) == sorted(a.code for a in sv.decision.actions)
    assert all(len(cid) <= 100 for cid in custom_ids(view))
    # Each menu holds whole numbers: a number's plays never straddle two menus.
    def number(code: str) -> str:
        cards = code.split()[1:]
        return next((c for c in cards if c != "JJ"), "JJ")

    owners = {}
    for m in menus:
        for o in m.options:
            assert owners.setdefault(number(o.value), m.custom_id) == m.custom_id
    # Following: "beat three 12s" with a pass button.
    g.apply(GD, next(a for a in sv.decision.actions if r.action_label(a) == "three 11s"))
    turn = g.public_view()["turn"]
    sv2 = seat_view(t, turn)
    content, view = hand_view(sv2)
    assert "beat **three 11s**" in content
    labels2 = [getattr(i.item, "label", None) for i in view.children]
    assert "Pass" in labels2
    text = renderers.table_message(t).text()
    assert "**To beat:** three 11s (played by Ali)" in text
    public_ok(t, text)


def test_revolution_is_offered_privately_and_announced_without_naming_cards() -> None:
    t = dalmuti_table(phase=Phase.RUNNING, seed=1)
    g = Dalmuti.create(5, {"hands": 2}, seed=3, deal=deal_with([13, 13, 1, 2, 2], holder=GP),
                       ranking=[GD, LD, MERCHANT, LP, GP])
    t.state = g
    assert g.public_view()["phase"] == "look"
    sv = seat_view(t, GP)
    content, view = hand_view(sv)
    assert "greater revolution" in content and "keep quiet" in content
    labels = [getattr(i.item, "label", None) for i in view.children]
    assert "✊ Call the revolution" in labels and "No revolution" not in labels  # declining is silence
    text = renderers.table_message(t).text()
    assert "looking at their cards" in text and "Dee" not in text.split("\n")[1]
    assert "revolution" not in text.lower() and "▶" not in text  # nobody is named as acting
    # The same table message as when nobody holds both Jesters.
    other = dalmuti_table(phase=Phase.RUNNING, seed=1)
    other.state = Dalmuti.create(5, {"hands": 2}, seed=3, deal=deal_with([13, 1, 2, 2, 3], holder=GP),
                                 ranking=[GD, LD, MERCHANT, LP, GP])
    assert renderers.table_message(other).text() == text
    public_ok(t, text)
    t.recent = [e for e in g.apply(GP, Dalmuti.action_from_code("revolution")) if e.to is None]
    text = renderers.table_message(t).text()
    assert "greater revolution" in text and g.public_view()["ranking"][0] == GP
    public_ok(t, text)


def test_table_shows_passes_who_is_out_with_new_titles_cards_left_and_ranking() -> None:
    t = dalmuti_table(phase=Phase.RUNNING, seed=1)
    g = Dalmuti.create(5, {"hands": 2}, seed=11)
    t.state = g
    rng = random.Random(2)
    recent: list[Event] = []
    while not g.public_view()["finish_order"]:
        seat = g.to_act()[-1]  # the table, during the look: nobody calls a revolution
        action = CLOSE_LOOK if seat == TABLE else g.random_action(seat, rng)
        recent += [e for e in g.apply(seat, action) if e.to is None]
    t.recent = recent[-20:]
    pv = g.public_view()
    text = renderers.table_message(t).text()
    first = pv["finish_order"][0]
    assert f"🏁 Out: 1st {render.seat_name(t, first)} (next: Greater Dalmuti)" in text
    for s in range(5):
        assert f"{pv['titles'][s]} — {render.seat_badge(t, s)}" in text
    lines = text.splitlines()
    titles = [ln for ln in lines if " — " in ln and " point" in ln]
    assert [ln.split(" — ")[0].split(" ", 2)[-1] for ln in titles] == [pv["titles"][s] for s in pv["ranking"]]
    assert f"{render.seat_name(t, first)} is out 1st — next hand: Greater Dalmuti." in text
    public_ok(t, text)


def test_sentences() -> None:
    t = dalmuti_table()
    say = renderers.renderer_for("dalmuti").event_text
    five, nine = CARDS[5], CARDS[9]
    assert say(t, Event("play", 0, (five, five, five))) == "Ali played three 5s."
    assert say(t, Event("play", 1, (nine, nine, JESTER))) == "Bea played two 9s + Jester."
    assert say(t, Event("play", 1, (CARDS[8],))) == "Bea played an 8."
    assert say(t, Event("pass", 3, ())) == "Cy passed."
    assert say(t, Event("tax", 4, (0, 2))) == "💰 Dee paid 2 best cards in tax to Ali."
    assert say(t, Event("tax_sent", 4, (0, five, nine), 4)) is None  # private
    assert say(t, Event("out", 3, (1,))) == "🏁 Cy is out 1st — next hand: Greater Dalmuti."
    assert dcard("JJ") is JESTER and card_values([five, five, nine]) == ["D5#1", "D5#2", "D9"]


def test_a_single_eight_or_eleven_reads_with_an() -> None:
    from games.dalmuti.cards import said_set, set_name

    assert set_name(8, 1) == "an 8" and set_name(11, 2, 1) == "an 11 + Jester"
    assert set_name(7, 1) == "a 7" and set_name(8, 2) == "two 8s"
    assert str(said_set(11, 1)) == "an 11" and str(said_set(5, 1)) == "a 5"
