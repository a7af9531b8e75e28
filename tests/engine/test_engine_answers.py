"""What the engine answers so no layer above re-derives a rule: why a move is refused
(``engine.core.refusal``), who takes a trick and for how much (``trick_taken``), whom a pass goes to
(``Hearts.pass_target`` / ``pass_source``).  Hearts is checked in both builds."""

from __future__ import annotations

import random

import pytest

import engine
from engine.cards import card
from engine.core import IllegalAction, refusal
from games.tricks.rules import Tricks
from tools import native

FAST = engine.get("hearts").game
PURE = native.pure("hearts").Hearts


def _random_game(cls, options, seed, steps):
    """Yield (state, the public view before the step, events of the step) along one random game."""
    g = cls.create(cls.min_players, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.is_over:
            return
        seat = g.to_act()[0]
        before = g.public_view()
        events = g.apply(seat, g.random_action(seat, rng))
        yield g, before, events


@pytest.mark.parametrize("cls", [FAST, PURE, Tricks], ids=["hearts", "hearts-pure", "tricks"])
def test_trick_taken_agrees_with_play_on_every_trick(cls):
    options = {"rules": "classic"} if cls is not Tricks else {}
    tricks = 0
    for seed in range(6):
        for _, before, events in _random_game(cls, options, seed, 400):
            for e in events:
                if e.kind != "trick":
                    continue
                cards = list(e.data[2:])
                leader = before["trick"][0][0]  # the step played the trick's last card
                taken = cls.trick_taken(cards, leader)
                assert taken.seat == e.seat
                assert taken.card == cards[(e.seat - leader) % 4]
                assert taken.points == (e.data[1] if cls is not Tricks else 1)
                tricks += 1
    assert tricks > 50


def test_trick_taken_by_hand():
    cs = [card(c) for c in ("5H", "QS", "KH", "2H")]
    assert FAST.trick_taken(cs, 1) == (3, card("KH"), 16)  # K♥ third in play from seat 1: seat 3
    assert PURE.trick_taken(cs, 1) == (3, card("KH"), 16)
    assert Tricks.trick_taken([card(c) for c in ("9C", "AD", "TC", "2C")], 2) == (0, card("TC"), 1)


@pytest.mark.parametrize("cls", [FAST, PURE], ids=["hearts", "hearts-pure"])
def test_passes_go_where_pass_target_says(cls):
    seen = 0
    for seed in range(4):
        g = cls.create(4, {"rules": "classic", "target": 200}, seed=seed)
        rng = random.Random(seed)
        while not g.is_over and g.hand_no < 4:
            direction = g.pass_dir
            for seat in g.to_act():
                for e in g.apply(seat, g.random_action(seat, rng)):
                    if e.kind == "passed":
                        assert e.data[0] == cls.pass_target(e.seat, direction)
                        seen += 1
                    if e.kind == "received":
                        assert e.data[0] == cls.pass_source(e.seat, direction)
                break
    assert seen >= 4 * 3 * 4  # three passing hands of four seats, in each of four games
    assert [FAST.pass_target(0, d) for d in ("left", "across", "right", "hold")] == [1, 2, 3, 0]
    assert [FAST.pass_source(0, d) for d in ("left", "across", "right", "hold")] == [3, 2, 1, 0]


@pytest.mark.parametrize("name", sorted(engine.games()))
def test_refusal_is_the_engine_s_own_and_changes_nothing(name):
    cls = engine.get(name).game
    options = dict(cls.short_options[0])
    refused = allowed = 0
    for g, _, _ in _random_game(cls, options, 11, 120):
        seats = [s for s in g.to_act() if s >= 0]
        if not seats:
            continue
        seat = seats[0]
        before = g.to_dict()
        d = g.decision(seat)
        if d is not None and not d.pick and d.actions:
            assert refusal(g, seat, d.actions[0]) is None
            allowed += 1
        hand = g.view(seat).get("hand") or []
        for code in hand[:6]:
            text = f"{d.kind if d is not None else 'play'} {code}"
            got = refusal(g, seat, text)
            try:
                trial = cls.from_dict(g.to_dict())
                trial.apply(seat, trial.parse_action(seat, text))
                want = None
            except IllegalAction as e:
                want = (e.reason, e.code)
            assert (None if got is None else (got.reason, got.code)) == want, (name, text)
            refused += got is not None
        assert g.to_dict() == before  # asked of a copy: nothing changed, allowed or not
    assert allowed and refused, (allowed, refused)
