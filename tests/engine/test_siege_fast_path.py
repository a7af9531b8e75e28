"""Siege's hot path (issue 35): the action random_action just drew is carried out without being
checked again, and what a house pile takes is remembered by its cards.  These tests pin that the
shortcuts never change what the rules say: the legal actions are the checked path's in their
order, and a drawn action played on the fast path leaves the same state and events as the same
move typed in (a new, equal Action object, which always takes the checked path)."""

from __future__ import annotations

import random

import pytest

from engine.core import Action, IllegalAction
from games.siege.rules import Siege, fits


def reference_legal(g: Siege, seat: int) -> list[str]:
    """The build moves as the rules define them, from scratch: every distinct card of the hand in
    deck order, then the swaps and ``end`` (the attacks, when any, come first)."""
    out = [a.code for a in g.legal(seat) if a.kind in ("attack", "build")]
    mine = g.houses[seat]
    own = "HSDC"[seat]
    for c in sorted(set(g.hands[seat]), key=lambda c: c.index):
        if not c.is_number:
            out += [f"start {c.code} {i + 1}" for i in range(3) if mine[i] is None]
            continue
        if c.suit == own:
            out.append(f"place {c.code} king")
        out += [f"place {c.code} {i + 1}" for i in range(3) if mine[i] is not None and fits(mine[i], c)]
    out += [f"swap {i + 1} {j + 1}" for i, j in ((0, 1), (0, 2), (1, 2))
            if mine[i] is not None or mine[j] is not None]
    return out + ["end"]


@pytest.mark.parametrize("seed", range(12))
def test_a_drawn_action_does_what_the_same_move_typed_in_does(seed: int) -> None:
    g = Siege.create(4, {"max_rounds": 8}, seed)
    rng = random.Random(seed)
    moves = 0
    while not g.is_over:
        seat = g.to_act()[0]
        assert [a.code for a in g.legal(seat)] == reference_legal(g, seat)
        a = g.random_action(seat, rng)
        twin = g.copy()
        typed = Action(a.kind, tuple(a.cards), tuple(a.args))  # equal, not the same object
        assert typed is not a
        events = g.apply(seat, a)
        assert twin.apply(seat, typed) == events
        assert twin.to_dict() == g.to_dict()
        moves += 1
    assert moves > 50


def test_a_drawn_action_is_checked_again_once_the_state_changed() -> None:
    g = Siege.create(4, {"max_rounds": 8}, 3)
    rng = random.Random(3)
    while True:  # random moves until one drawn is a place
        assert not g.is_over
        seat = g.to_act()[0]
        a = g.random_action(seat, rng)
        if a.kind == "place":
            break
        g.apply(seat, a)
    # The card leaves the hand by another move (here an edit by hand, then _touch as every change does).
    c = a.cards[0]
    g.hands[seat] = [x for x in g.hands[seat] if x is not c]
    g._touch()
    before = g.to_dict()
    with pytest.raises(IllegalAction):
        g.apply(seat, a)
    assert g.to_dict() == before
