"""Tricks' screens on their own: the table message, sentences, the hand view and the lobby options."""

from __future__ import annotations

import re

from cogs.table import render, renderers
from cogs.table.autocomplete import option_choices
from cogs.table.components import ACTION_TEMPLATE, hand_view
from engine.cards import card
from engine.core import Event
from games.tricks.rules import Tricks
from tables.runtime import SeatView
from tables.table import Phase, Seat, Table
from tests.cogs.fakes import custom_ids, enabled_ids

QS, AS, TH, TWO_C = card("QS"), card("AS"), card("TH"), card("2C")


def tricks_table(**kw) -> Table:
    return Table(id="ABC234", game="tricks", options=Tricks.read_options({"target": 25}), speed="normal",
                 guild_id=1, channel_id=2, host_id=10, seats=[Seat(10, "Ali"), Seat(11, "Bea"),
                                                              Seat(None, "AI 1", is_ai=True), Seat(12, "Cy")], **kw)


def test_tricks_is_playable_and_the_lobby_suggests_short_targets() -> None:
    assert "tricks" in renderers.RENDERERS
    values = [c.value for c in option_choices("tricks", "")]
    assert values[:3] == ["target=25", "target=50", "target=100"] and "target=1000" in values
    assert Tricks.read_options({})["target"] == 1000  # the default stays the seed's (RULES §2.3)
    assert [c.value for c in option_choices("tricks", "target=5")] == ["target=50"]


def test_sentences() -> None:
    t = tricks_table()
    say = renderers.renderer_for("tricks").event_text
    assert say(t, Event("deal", None, (1, 1, 2, 3, 0))) == "Hand 2 dealt — Bea leads."
    assert say(t, Event("play", 3, (TH,))) == "Cy played 10♥."
    # Bea led A♠; the trick's cards are in play order from the leader.
    assert say(t, Event("trick", 1, (4, 7, AS, card("3S"), QS, card("5H")))) == "Bea took trick 5 with A♠ (now 7)."
    assert "bad card" in say(t, Event("bad_card", 2, ("floober", -100))) and "−100" in say(
        t, Event("bad_card", 2, ("floober", -100)))
    assert say(t, Event("hand_end", None, (0, 0, 4, 3, 2, 4, 4, 3, 2, 4))) == \
        "Hand over: Ali: 4 tricks → 4 · Bea: 3 tricks → 3 · AI 1: 2 tricks → 2 · Cy: 4 tricks → 4."
    assert say(t, Event("game_end", None, (25, 3, 26, 4))) == "Game over — AI 1 won with 26 points."
    assert say(t, Event("dealt", 0, (QS,), 0)) is None


def test_running_table_shows_the_trick_tricks_won_scores_and_target() -> None:
    t = tricks_table(phase=Phase.RUNNING, seed=9)
    g = Tricks.create(4, {"target": 25}, seed=4)
    t.state = g
    leader = g.public_view()["turn"]
    lead = g.decision(leader).actions[0]
    t.recent = [e for e in g.apply(leader, lead) if e.to is None]
    t.deadlines = {g.public_view()["turn"]: 1_700_000_030.0}
    text = renderers.table_message(t).text()
    assert "first to **25** points wins" in text and "trick 1/13" in text
    assert f"{render.seat_name(t, leader)} {lead.cards[0].label}" in text
    assert "(0 tricks this hand) · 12 cards" in text and "<t:1700000030:R>" in text
    hidden = g.hidden_from(None)
    assert hidden and not any(card(c).label in text or re.search(rf"\b{c}\b", text) for c in hidden)


def test_hand_view_buttons_follow_suit() -> None:
    t = tricks_table(phase=Phase.RUNNING, seed=9)
    g = Tricks.create(4, {"target": 25}, seed=4)
    t.state = g
    leader = g.public_view()["turn"]
    g.apply(leader, g.decision(leader).actions[0])
    seat = g.public_view()["turn"]
    sv = SeatView(t, seat, g.view(seat), g.decision(seat), None)
    content, view = hand_view(sv)
    ids = enabled_ids(view)[:-2]
    assert custom_ids(view)[-2:] == [f"dh:t:hint:{t.id}", f"dh:t:howto:{t.id}"]
    assert all(re.fullmatch(ACTION_TEMPLATE, x) for x in custom_ids(view)[:-2])
    assert sorted(x.rsplit(":", 1)[1].replace("_", " ") for x in ids) == sorted(a.code for a in sv.decision.actions)
    assert "On the table:" in content and "target 25" in content
    # The cards that may not follow are there too, disabled, and the view says why.
    hand = g.view(seat)["hand"]
    assert len(custom_ids(view)) == len(hand) + 2
    if len(ids) < len(hand):
        assert "🚫 You must follow suit" in content
    for code in g.view(seat)["hand"]:
        assert card(code).label in content


def test_what_a_program_sends_cannot_restyle_the_table_message() -> None:
    # Issue 14 item 7: a bad card's text with backticks closed the code span early and put a
    # clickable masked link on the table message.  It stays inside one code span now.
    from tables.programs.protocol import Answer, answer_action

    t = tricks_table(phase=Phase.RUNNING, seed=9)
    g = Tricks.create(4, {"target": 25}, seed=4)
    t.state = g
    turn = g.public_view()["turn"]
    said = "|RESPONSE|card|x`[win](https://evil.example/)`<@&1>|END|"
    action = answer_action(Answer(said), g.legal_plays(turn))  # what the runtime does with it
    bad = g.apply(turn, action)[0]
    assert bad.kind == "bad_card"
    # The recent lines of the table message (a game's last hand ends on it) use the same sentence.
    line = renderers.renderer_for("tricks").event_text(t, bad)
    assert "sent a bad card" in line
    assert "[win](https://evil.example/)" in line.replace("\u02cb", "")  # shown, not lost
    assert line.count("`") == 2, line  # one code span, closed where it should be
    outside = re.sub(r"`[^`]*`", "", line)
    assert "evil" not in outside and "](" not in outside and "<@" not in outside, line
    assert render.code_span("a\nb``c") == "`a?bˋˋc`" and render.code_span("  ") == "`?`"
