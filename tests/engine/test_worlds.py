"""``state.sample_world(seat, rng)``: a random full state consistent with what one seat knows.

The redeal check: at many random points of seeded games, the seat's view of every sampled world
equals its real view; and the sampled hands could really have produced the plays seen (replaying
the hand's plays from the sampled hands is legal), declared cards stay with their declarer, the
sampled worlds vary the hidden cards, and a sampled world plays on to the end."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import engine
from engine.core import Game
from engine.hearts import Hearts
from engine.koth import KingOfTheHill
from engine.tricks import Tricks
from engine.worlds import NoWorld, deal_constrained

GAMES = {
    "hearts": [{"rules": "classic", "target": 1}, {"rules": "mcgill", "target": 1}, {"rules": "classic", "target": 30}],
    "tricks": [{"target": 4}],
    "koth": [{"rounds": 1, "ready_round": 0}, {"rounds": 2, "called_copy": "second", "ready_round": 1,
                                                "ready_trick": 1}],
}


def move(g: Game, rng: random.Random, ai) -> None:
    """One move: the registered AI most of the time (realistic play shows voids), random otherwise."""
    acting = g.to_act()
    seat = rng.choice(acting)
    if seat >= 0 and rng.random() < 0.7:
        a = ai.choose(g, seat, rng)
    else:
        a = g.random_action(seat, rng)
    g.apply(seat, a)


def start_of_play(g: Game) -> bool:
    """Whether ``g`` is at the first card of a hand's play (hands final, nothing played yet)."""
    if isinstance(g, KingOfTheHill):
        return g.phase in ("play", "trick_ready") and g.trick_no == 0 and not g.trick
    return g.phase == "play" and g.trick_no == 0 and not g.trick


def plays_since_start(g: Game) -> list[tuple[int, tuple]]:
    """This hand's plays in order, as (seat, cards)."""
    out: list[tuple[int, tuple]] = []
    if isinstance(g, Tricks):
        for lead, _, cs in g.history:
            out.extend(((lead + i) % 4, (c,)) for i, c in enumerate(cs))
        out.extend((s, (c,)) for s, c in g.trick)
    elif isinstance(g, Hearts):
        for lead, cs in g.history:
            out.extend(((lead + i) % 4, (c,)) for i, c in enumerate(cs))
        out.extend((s, (c,)) for s, c in g.trick)
    else:
        for t in g.history:
            out.extend(t)
        out.extend(g.trick)
    return out


def check_world(real: Game, w: Game, seat: int, start: Game | None) -> None:
    assert w.view(seat) == real.view(seat)
    assert Counter(c.code for c in w.all_cards()) == Counter(c.code for c in real.all_cards())
    assert w.decision(seat) == real.decision(seat)
    if -1 not in real.to_act():  # while the table deals, who may declare is itself hidden
        assert w.to_act() == real.to_act()
    # Whoever acts next in the world can make every move its decision offers (Hearts: the seat
    # leading the first trick holds 2♣, which is public knowledge).
    if not w.is_over:
        mover = w.to_act()[0]
        d = w.decision(mover)
        for a in (d.actions if not d.pick else [w.random_action(mover, random.Random(0))]):
            w.copy().apply(mover, a)
    # The sampled hands could have played what was played: rebuild each hand as it was at the
    # start of play and replay every card of the hand from there; the engine refuses any renege.
    if start is not None and start_of_play(start) and not isinstance(real, KingOfTheHill) or (
            start is not None and isinstance(real, KingOfTheHill) and start.round_no == real.round_no):
        plays = plays_since_start(real)
        replay = start.copy()
        for s in range(real.players):
            back = list(w.hands[s])
            back.extend(c for p, cs in plays if p == s for c in cs)
            replay.hands[s] = back
        if isinstance(replay, KingOfTheHill):
            replay._reset_derived()
            replay.phase, replay.turn = "play", replay.leader
        else:
            replay._legal = None
        for p, cs in plays:
            if isinstance(replay, KingOfTheHill) and replay.phase == "trick_ready":
                replay.phase, replay.turn = "play", replay.leader
            replay.apply(p, engine.core.Action("play", cs))
    if isinstance(real, KingOfTheHill):
        for s, c, n in real.declarations:
            if s == seat or real.phase in ("round_ready", "over"):
                continue
            held = w.hands[s].count(c) + sum(cs.count(c) for p, cs in plays_since_start(real) if p == s)
            if s == real.koth:
                held += w.buried.count(c)
            assert held >= n, f"declarer {s} lost its declared {c}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_sampled_worlds_look_the_same_to_the_seat_and_explain_the_plays(name: str) -> None:
    entry = engine.get(name)
    ai = entry.ai()
    checked = 0
    for seed in range(12 if name == "koth" else 40):
        opts = GAMES[name][seed % len(GAMES[name])]
        g = entry.game.create(entry.game.min_players, opts, seed)
        rng = random.Random(seed)
        start: Game | None = None
        step = 0
        while not g.is_over:
            if start_of_play(g) and (start is None or start_of_play(start) is False or
                                     getattr(start, "hand_no", getattr(start, "round_no", 0))
                                     != getattr(g, "hand_no", getattr(g, "round_no", 0))):
                start = g.copy()
            if rng.random() < (0.08 if name == "koth" else 0.25):
                for seat in range(g.players):
                    w = g.sample_world(seat, random.Random(rng.random()))
                    same_hand = start is not None and getattr(start, "hand_no", -1) == getattr(g, "hand_no", -2)
                    check_world(g, w, seat, start if (same_hand or name == "koth") else None)
                    checked += 1
                    if rng.random() < 0.05:
                        # The world is a game like any other: it plays on to the end.
                        w2 = w.copy()
                        while not w2.is_over:
                            move(w2, rng, ai)
            move(g, rng, ai)
            step += 1
    assert checked > 200


@pytest.mark.parametrize("name", sorted(GAMES))
def test_sampled_worlds_vary_the_hidden_cards(name: str) -> None:
    entry = engine.get(name)
    g = entry.game.create(entry.game.min_players, GAMES[name][0], 3)
    rng = random.Random(3)
    ai = entry.ai()
    while not (g.to_act() == (g.turn,) and getattr(g, "phase", "") == "play" and g.trick_no >= 2):
        move(g, rng, ai)
    seat = g.turn
    others = [s for s in range(g.players) if s != seat]
    seen = {tuple(tuple(sorted(c.code for c in g.sample_world(seat, random.Random(i)).hands[s])) for s in others)
            for i in range(20)}
    assert len(seen) >= 15
    # ... and the seat's own hand never changes.
    assert all(g.sample_world(seat, random.Random(i)).hands[seat] == g.hands[seat] for i in range(5))


def test_sampled_world_has_its_own_future() -> None:
    g = Hearts.create(4, {"target": 50}, 1)
    w = g.sample_world(0, random.Random(1))
    assert w.seed != g.seed  # later deals come from a fresh seed: the real ones stay unknown


def test_hearts_voids_and_forced_heart_lead_are_respected() -> None:
    from engine.cards import cards

    # Seat 1 shows out of clubs on the first trick; later seat 3 leads a heart before hearts broke.
    deal = [
        list(cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")),
        list(cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD")),
        list(cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")),
        list(cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")),
    ]
    g = Hearts.create(4, {"rules": "mcgill", "target": 1}, 0, deal)
    for code in ["2C", "2D", "2S", "2H"]:
        g.apply(g.turn, engine.core.Action("play", cards(code)))
    may, _ = g.knowledge(0)
    assert not any(c.suit == "C" for c in may[1]) and not any(c.suit == "C" for c in may[3])
    for i in range(30):
        w = g.sample_world(0, random.Random(i))
        assert not any(c.suit == "C" for c in w.hands[1] + w.hands[2] + w.hands[3])


def test_hearts_classic_heart_lead_before_broken_means_only_hearts() -> None:
    g = Hearts.create(4, {"rules": "classic", "target": 1}, 0)
    g.phase = "play"
    # A hand position made by hand: seat 2 leads a heart at trick 1 before hearts broke.
    from engine.cards import cards

    g.hands = [list(cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")),
               list(cards("3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD")),
               list(cards("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")),
               list(cards("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"))]
    g.history = [(0, tuple(cards("2C 2D 2H 2S")))]
    g.won[0] = list(cards("2C 2D 2H 2S"))
    g.trick_no, g.leader, g.turn, g.hearts_broken = 1, 0, 0, False
    # The 2H above broke hearts on trick 0, so make it a clean first trick instead.
    g.history = [(0, tuple(cards("2C 2D 2S 2H")))]
    g.hearts_broken = True
    may, _ = g.knowledge(1)
    assert any(c.suit == "C" for c in may[0])
    # Now a lead of a heart while hearts are not broken (rebuild without the 2H).
    g.history = [(0, tuple(cards("2C 2D 2S 3S")))]
    g.hands[3] = list(cards("2H 4S 5S 6S 7S 8S 9S TS JS QS KS AS"))
    g.hands[2] = list(cards("3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"))
    g.won[0] = list(cards("2C 2D 2S 3S"))
    g.hearts_broken = False
    g.leader = g.turn = 2
    g.trick = [(2, cards("3H")[0])]
    g.hands[2].remove(cards("3H")[0])
    may, _ = g.knowledge(0)
    assert all(c.suit == "H" for c in may[2])


def test_deal_constrained_respects_masks_and_reports_impossible() -> None:
    rng = random.Random(0)
    cs = list(range(10))
    allowed = [0b01] * 3 + [0b10] * 3 + [0b11] * 4
    for _ in range(50):
        a, b = deal_constrained(cs, allowed, [5, 5], rng)
        assert len(a) == len(b) == 5 and {0, 1, 2} <= set(a) and {3, 4, 5} <= set(b)
    with pytest.raises(NoWorld):
        deal_constrained(cs, [0b01] * 6 + [0b11] * 4, [5, 5], rng)


def test_copy_is_independent() -> None:
    for name in GAMES:
        entry = engine.get(name)
        g = entry.game.create(entry.game.min_players, GAMES[name][0], 5)
        rng = random.Random(5)
        for _ in range(40):
            move(g, rng, entry.ai())
        assert not g.is_over
        before = g.to_dict()
        c = g.copy()
        assert c.to_dict() == before
        while not c.is_over:
            move(c, rng, entry.ai())
        assert g.to_dict() == before
