"""Each game's figures for /stats, counted from the events of real games played by the AIs."""

from __future__ import annotations

import random

import engine
from engine.core import TABLE, Event
from games.dalmuti.figures import dalmuti_figures
from games.koth.figures import koth_figures
from games.siege.figures import siege_figures
from games.tricks.figures import tricks_figures


def ai_game(name: str, players: int, options: dict, seed: int) -> tuple[engine.Game, list[Event]]:
    entry = engine.get(name)
    g = entry.game.create(players, options, seed)
    events: list[Event] = list(getattr(g, "start_events", []))
    ai, rng = entry.ai(), random.Random(seed)
    for _ in range(100_000):
        if g.is_over:
            break
        acting = g.to_act()
        seat = TABLE if TABLE in acting else acting[0]
        events += g.apply(seat, ai.choose(g, seat, rng))
    assert g.is_over
    return g, events


def test_tricks_figures_count_tricks_won_and_bad_cards():
    g, events = ai_game("tricks", 4, {"target": 20}, 3)
    figures = tricks_figures(events, 4)
    hands = sum(1 for e in events if e.kind == "hand_end")
    assert sum(f["tricks"] for f in figures) == 13 * hands
    assert [f["tricks"] for f in figures] == list(g.outcome().scores)  # 1 point a trick, no bad cards
    bad = tricks_figures([Event("bad_card", 2, ("10S", -100))], 4)
    assert bad[2]["bad_cards"] == 1 and bad[0]["bad_cards"] == 0


def test_dalmuti_figures_count_first_places_and_revolutions():
    g, events = ai_game("dalmuti", 5, {"hands": 3}, 4)
    figures = dalmuti_figures(events, 5)
    assert sum(f["firsts"] for f in figures) == 3 and all(f["hands"] == 3 for f in figures)
    firsts = [e.data[1] for e in events if e.kind == "hand_end"]
    assert [figures[s]["firsts"] for s in range(5)] == [firsts.count(s) for s in range(5)]
    rev = dalmuti_figures([Event("revolution", 4, ("greater",))], 5)
    assert rev[4]["revolutions"] == 1


def test_koth_figures_count_rounds_as_koth_and_hills_held():
    g, events = ai_game("koth", 5, {"rounds": 3, "ready_round": 0}, 5)
    figures = koth_figures(events, 5)
    ends = [e for e in events if e.kind == "hand_end"]
    assert sum(f["rounds_as_koth"] for f in figures) == len(ends) == 3
    assert sum(f["defences"] for f in figures) == sum(1 for e in ends if e.data[2] < 80)
    crafted = koth_figures([Event("hand_end", 1, (1, 3, 40)), Event("hand_end", 1, (2, -1, 120))], 5)
    assert crafted[1] == {"rounds_as_koth": 2, "defences": 1, "teammate": 0}
    assert crafted[3]["teammate"] == 1


def test_siege_figures_count_attacks_and_wins():
    crafted = [Event("attack", 0, (1, 2, 1, 5, 3)), Event("fight", 0, (2,)),
               Event("attack", 1, (1, 0, 1, 2, 4)), Event("fight", 0, (1,))]
    figures = siege_figures(crafted, 4)
    assert figures[0] == {"attacks": 1, "attacks_won": 1}
    assert figures[1] == {"attacks": 1, "attacks_won": 0}
    g, events = ai_game("siege", 4, {"max_rounds": 12}, 6)
    figures = siege_figures(events, 4)
    assert sum(f["attacks"] for f in figures) == sum(1 for e in events if e.kind == "attack")
