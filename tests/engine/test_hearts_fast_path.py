"""The Hearts hot path (issue 18 §3) keeps derived data: each hand split by suit, and the action
random_action just drew.  These tests pin that the derived data never changes what the rules say:
the legal cards are exactly the old definition's, in hand order (the AI and the search depend on
that order), and a drawn action is checked again once the state was edited by hand."""

from __future__ import annotations

import random

import pytest

from engine.cards import Card
from engine.core import Action, IllegalAction
from games.hearts.rules import QUEEN_SPADES, TWO_CLUBS, Hearts

OPTIONS = ({"rules": "classic", "target": 40}, {"rules": "mcgill", "target": 30})


def reference_legal(g: Hearts, seat: int) -> list[Card]:
    """The legal plays as the rules define them, computed from scratch by scanning the hand."""
    hand = g.hands[seat]
    if not g.trick:
        if not g.classic:
            return list(hand)
        if g.trick_no == 0:
            return [TWO_CLUBS]
        if g.hearts_broken:
            return list(hand)
        return [c for c in hand if c.suit != "H"] or list(hand)
    led = g.trick[0][1].suit
    follow = [c for c in hand if c.suit == led]
    if follow:
        return follow
    if g.classic and g.trick_no == 0:
        return [c for c in hand if c.suit != "H" and c is not QUEEN_SPADES] or list(hand)
    return list(hand)


def split_matches_hands(g: Hearts) -> bool:
    if g._legal is None:
        return True
    # The split is flat, seat by seat, by suit number: C D H S are 0 1 2 3.
    return all(g._legal[s * 4 + n] == [c for c in g.hands[s] if c.suit == suit]
               for s in range(4) for n, suit in enumerate("CDHS"))


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: o["rules"])
def test_legal_plays_are_the_scanned_hand_in_order_through_whole_games(options) -> None:
    checked = 0
    for seed in range(40):
        g = Hearts.create(4, options, seed)
        rng = random.Random(seed)
        while not g.is_over:
            acting = g.to_act()
            seat = acting[0] if len(acting) == 1 else rng.choice(acting)
            if g.phase == "play":
                assert g.legal_plays(seat) == reference_legal(g, seat)
                assert [a.cards[0] for a in g.decision(seat).actions] == reference_legal(g, seat)
                checked += 1
            assert split_matches_hands(g)
            if rng.random() < 0.1:
                g = g.copy()  # search plays on copies: the copy's split must be its own
            if rng.random() < 0.05 and g.phase == "play":
                g = g.sample_world(seat, rng)
            g.apply(seat, g.random_action(seat, rng))
        assert split_matches_hands(g)
    assert checked > 1000


def test_a_drawn_card_is_checked_again_after_the_hands_were_edited() -> None:
    g = Hearts.create(4, {"rules": "mcgill", "target": 1}, 3)
    seat = g.to_act()[0]
    a = g.random_action(seat, random.Random(0))
    drawn = a.cards[0]
    # Move the drawn card to the next seat (as a test or sample_world may edit hands), and say so.
    other = (seat + 1) % 4
    swap = g.hands[other][0]
    g.hands[seat] = [swap if c is drawn else c for c in g.hands[seat]]
    g.hands[other] = [drawn if c is swap else c for c in g.hands[other]]
    g._legal = None
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        g.apply(seat, a)
    assert e.value.code == "not_in_hand" and g.to_dict() == before
    g.apply(seat, Action("play", (swap,)))  # the edited hand plays on
    assert swap in g.trick[0] and split_matches_hands(g)


def test_a_renege_is_refused_whether_or_not_the_split_is_built() -> None:
    for built in (True, False):
        g = Hearts.create(4, {"rules": "mcgill", "target": 1}, 1)
        rng = random.Random(1)

        def can_renege(g: Hearts = g) -> bool:
            led = g.trick[0][1].suit if g.trick else None
            hand = g.hands[g.turn]
            return led is not None and any(c.suit == led for c in hand) and any(c.suit != led for c in hand)

        while not can_renege():
            g.apply(g.turn, g.random_action(g.turn, rng))
        if not built:
            g._legal = None
        off = next(c for c in g.hands[g.turn] if c.suit != g.trick[0][1].suit)
        before = g.to_dict()
        with pytest.raises(IllegalAction) as e:
            g.apply(g.turn, Action("play", (off,)))
        assert e.value.code == "illegal_card" and g.to_dict() == before


def test_options_read_the_same_every_time_and_each_game_gets_its_own_copy() -> None:
    """Hearts remembers what option sets read as (games are created with the same few)."""
    expected = {"rules": "classic", "target": 40, "moon": "others_plus_26"}
    first = Hearts.read_options({"target": "40"})
    first["target"] = 5  # a caller's copy: changing it changes nothing remembered
    assert Hearts.read_options({"target": "40"}) == expected == Hearts.create(4, {"target": 40}, 1).options
    a, b = Hearts.create(4, {"target": 40}, 1), Hearts.create(4, {"target": 40}, 2)
    assert a.options is not b.options
    for bad in ({"target": "0"}, {"target": [40]}, {"colour": "red"}):  # refused each time, never remembered
        for _ in range(2):
            with pytest.raises(ValueError):
                Hearts.read_options(bad)
