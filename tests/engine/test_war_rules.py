"""War's own rules (docs/rules.md §6, games/war/rules.py)."""

from __future__ import annotations

import random

import pytest

from engine.cards import card
from engine.core import Action, IllegalAction
from games.war.ai import WarAI
from games.war.rules import War


def deal(*hands: str) -> War:
    return War.create(len(hands), {"cards": len(hands[0].split())}, 1,
                      deal=[[card(c) for c in h.split()] for h in hands])


def play(g: War, seat: int, code: str) -> list[str]:
    return [e.kind for e in g.apply(seat, Action("play", (card(code),)))]


def test_the_highest_rank_takes_the_battle_and_leads_the_next() -> None:
    g = deal("2C AS", "KD 3H", "5S 4C")
    assert play(g, 0, "2C") == ["play"] and play(g, 1, "KD") == ["play"]
    assert play(g, 2, "5S") == ["play", "trick"]
    assert g.scores == [0, 1, 0] and g.turn == 1  # the King took it, and its player leads


def test_of_equal_ranks_the_first_played_wins() -> None:
    g = deal("9C", "9D")
    play(g, 0, "9C")
    assert play(g, 1, "9D") == ["play", "trick", "game_end"]
    assert g.scores == [1, 0] and g.is_over and g.outcome() is not None


def test_out_of_turn_or_a_card_not_held_is_refused_and_nothing_changes() -> None:
    g = deal("2C AS", "KD 3H")
    before = g.to_dict()
    with pytest.raises(IllegalAction, match="not your turn"):
        play(g, 1, "KD")
    with pytest.raises(IllegalAction, match="do not hold"):
        play(g, 0, "KD")
    assert g.to_dict() == before


def test_a_game_survives_storage_and_ends_with_the_most_battles_first() -> None:
    g = War.create(3, {"cards": 4}, "seed")
    rng = random.Random(2)
    while not g.is_over:
        seat = g.to_act()[0]
        g.apply(seat, WarAI().choose(g, seat, rng))
        assert War.from_dict(g.to_dict()).to_dict() == g.to_dict()
    assert sum(g.scores) == 4
    outcome = g.outcome()
    assert outcome is not None and list(outcome.scores) == g.scores
