"""The Great Dalmuti's hot path (issue 35): a play's numbers and events are found by the action's
identity, and the give random_action just drew is carried out without being checked again.  These
tests pin that the shortcuts never change what the rules say: a drawn move leaves the same state
and events as the same move typed in (a new, equal Action, which always takes the checked path)."""

from __future__ import annotations

import random

import pytest

from engine.core import Action, IllegalAction
from games.dalmuti.rules import TAX, Dalmuti


@pytest.mark.parametrize("seed", range(12))
def test_a_drawn_move_does_what_the_same_move_typed_in_does(seed: int) -> None:
    g = Dalmuti.create(5, {"hands": 2}, seed)
    rng = random.Random(seed)
    kinds = set()
    while not g.is_over:
        acting = g.to_act()
        seat = acting[0] if len(acting) == 1 else rng.choice(acting)
        a = g.random_action(seat, rng)
        twin = g.copy()
        typed = Action(a.kind, tuple(reversed(a.cards)), a.args)  # equal cards, another object
        assert typed is not a
        events = g.apply(seat, a)
        assert twin.apply(seat, typed) == events
        assert twin.to_dict() == g.to_dict()
        kinds.add(a.kind)
    assert {"play", "pass", "give"} <= kinds


def test_a_give_drawn_on_another_state_is_checked() -> None:
    seed = next(s for s in range(100) if Dalmuti.create(5, {"hands": 1}, s).holder is None)
    g = Dalmuti.create(5, {"hands": 1}, seed)
    rng = random.Random(seed)
    while g.phase != TAX:
        acting = g.to_act()
        g.apply(acting[0], g.random_action(acting[0], rng))
    seat = g.to_act()[0]
    a = g.random_action(seat, rng)
    x = g.copy()  # a search's copy: the draw was the original's
    for c in a.cards:  # the cards leave the copy's hand (by an edit)
        x.counts[seat][c.number] = 0
    before = x.to_dict()
    with pytest.raises(IllegalAction):
        x.apply(seat, a)
    assert x.to_dict() == before
