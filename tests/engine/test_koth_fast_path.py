"""King of the Hill's hot path (issue 35): legal plays are shared actions built once, the play
random_action just drew is carried out without being checked again, and who acts during the deal
is remembered until a trump-rank card or a declaration changes it.  These tests pin that the
shortcuts never change what the rules say: the legal plays are the rules' own, in their order, and
a drawn play leaves the same state and events as the same move typed in (a new Action, its cards
in the other order, which always takes the checked path)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from engine.cards import Card
from engine.core import TABLE, Action, IllegalAction
from games.koth.rules import PLAY, KingOfTheHill


def _distinct(cs: list[Card]) -> list[Card]:
    return list(dict.fromkeys(cs))


def _pairs(cs: list[Card]) -> list[Card]:
    seen: set[Card] = set()
    out = []
    for c in cs:
        if c in seen:
            out.append(c)
        seen.add(c)
    return out


def _two(a: Card, b: Card) -> tuple[Card, ...]:
    return (a, b) if a.index <= b.index else (b, a)


def reference_legal(g: KingOfTheHill, seat: int) -> list[tuple[Card, ...]]:
    """The plays as docs/rules.md §4 step 9 defines them, from scratch: a lead is any card or
    identical pair; a follow is of the led suit (an identical pair of it to a pair lead, else as
    many of it as held, the rest any card)."""
    hand = g.hands[seat]
    if not g.trick:
        return [(c,) for c in _distinct(hand)] + [(c, c) for c in _pairs(hand)]
    lead = g.trick[0][1]
    led = g.trump.effective_suit(lead[0])
    suited = [c for c in hand if g.trump.effective_suit(c) == led]
    if len(lead) == 1:
        return [(c,) for c in _distinct(suited or hand)]
    if _pairs(suited):
        return [(c, c) for c in _pairs(suited)]
    if len(suited) >= 2:
        return [_two(a, b) for a, b in combinations(suited, 2)]
    if suited:
        return [_two(suited[0], c) for c in _distinct(hand) if c is not suited[0]]
    return [_two(a, b) for a, b in combinations(_distinct(hand), 2)] + [(c, c) for c in _pairs(hand)]


@pytest.mark.parametrize("seed", range(10))
def test_a_drawn_play_does_what_the_same_play_typed_in_does(seed: int) -> None:
    g = KingOfTheHill.create(5, {"rounds": 1, "ready_round": 0}, seed)
    rng = random.Random(seed)
    plays = 0
    while not g.is_over:
        acting = g.to_act()
        if g.phase in ("deal", "late"):
            assert acting == tuple(s for s in range(5) if g.declare_options(s)) + (TABLE,)
        seat = acting[0] if len(acting) == 1 else rng.choice(acting)
        if g.phase != PLAY:
            g.apply(seat, g.random_action(seat, rng))
            continue
        legal = reference_legal(g, seat)
        assert g.legal_plays(seat) == legal
        d = g.decision(seat)
        assert d is not None and [a.cards for a in d.actions] == legal
        a = g.random_action(seat, rng)
        twin = g.copy()
        typed = Action("play", tuple(reversed(a.cards)))  # equal cards, another object (and order)
        events = g.apply(seat, a)
        assert twin.apply(seat, typed) == events
        assert twin.to_dict() == g.to_dict()
        plays += 1
    assert plays > 80


def test_a_drawn_play_is_checked_again_once_the_state_changed() -> None:
    g = KingOfTheHill.create(5, {"rounds": 1, "ready_round": 0}, 4)
    rng = random.Random(4)
    while g.phase != PLAY:
        acting = g.to_act()
        seat = acting[0] if len(acting) == 1 else rng.choice(acting)
        g.apply(seat, g.random_action(seat, rng))
    turn = g.turn
    assert turn is not None
    a = g.random_action(turn, rng)
    # The card leaves the hand by an edit, and the cached legal plays are forgotten as every change does.
    g.hands[turn] = [c for c in g.hands[turn] if c is not a.cards[0]]
    g._legal = None
    before = g.to_dict()
    with pytest.raises(IllegalAction):
        g.apply(turn, a)
    assert g.to_dict() == before
