"""The strong AI level (engine/search.py): legal, deterministic for a given generator, blind to the
cards its seat cannot see, and within its budget (playouts, or the caller's ``time_left``)."""

from __future__ import annotations

import random

import pytest

import engine
from engine.core import TABLE, Game
from engine.search import SearchAI

OPTIONS = {"hearts": {"target": 1}, "tricks": {"target": 1}, "koth": {"rounds": 1, "ready_round": 0},
           "dalmuti": {"hands": 1}}


def table_step(g: Game, ai, rng: random.Random) -> bool:
    """While the table itself acts (a deal, a look): an AI's optional move, else the table's step.
    False when it is a seat's turn."""
    acting = g.to_act()
    if TABLE not in acting:
        return False
    a = next((ai.choose_optional(g, s, rng) for s in acting if s != TABLE), None)
    g.apply(*((acting[0], a) if a is not None else (TABLE, g.decision(TABLE).actions[0])))
    return True


def advance(g: Game, rng: random.Random, until) -> None:
    ai = engine.get(type(g).name).ai()
    while not until(g):
        if table_step(g, ai, rng):
            continue
        s = g.to_act()[0]
        g.apply(s, ai.choose(g, s, rng))


def searchable_position(name: str, seed: int) -> Game:
    e = engine.get(name)
    g = e.game.create(e.game.min_players, OPTIONS[name], seed)
    # Dalmuti: a few plays in (its hands have no tricks to count).
    far = (lambda g: g.left[g.turn] <= 14) if name == "dalmuti" else (lambda g: g.trick_no >= 2)
    advance(g, random.Random(seed), lambda g: g.phase == "play" and g.to_act() == (g.turn,) and far(g)
            and len(g.decision(g.turn).actions) >= 2)
    return g


def test_levels_and_unknown_level() -> None:
    from tests import wargame  # (here: bench/hints.py imports this module, and War imports the cogs)

    assert engine.levels("hearts") == ("normal", "strong")
    assert engine.levels("dalmuti") == ("normal", "strong")
    assert engine.levels("siege") == ("normal", "strong")
    assert isinstance(engine.ai_for("koth", "strong", playouts=10), SearchAI)
    assert isinstance(engine.ai_for("tricks"), engine.get("tricks").ai)
    with wargame.registered(), pytest.raises(KeyError, match="normal"):
        engine.ai_for("war", "strong")  # (every real game has a strong AI)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_strong_plays_whole_hands_legally(name: str) -> None:
    e = engine.get(name)
    strong = engine.ai_for(name, "strong", playouts=12)
    normal = e.ai()
    for seed in range(2):
        g = e.game.create(e.game.min_players, OPTIONS[name], seed)
        rng = random.Random(seed)
        while not g.is_over:
            acting = g.to_act()
            if TABLE in acting:
                a = next((strong.choose_optional(g, s, rng) for s in acting if s != TABLE), None)
                g.apply(*((acting[0], a) if a is not None else (TABLE, g.decision(TABLE).actions[0])))
                continue
            s = acting[0]
            a = (strong if s == seed % g.players else normal).choose(g, s, rng)
            d = g.decision(s)
            assert d.pick or a in d.actions
            g.apply(s, a)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_same_generator_same_choice_and_blind_to_hidden_cards(name: str) -> None:
    for seed in range(3):
        g = searchable_position(name, seed)
        seat = g.turn
        strong = engine.ai_for(name, "strong", playouts=40)
        a = strong.choose(g, seat, random.Random(7))
        assert strong.choose(g, seat, random.Random(7)) == a
        # Deal the hidden cards again (the seat's own sampled world): nothing it can see changed,
        # so neither may its choice.
        other = g.sample_world(seat, random.Random(99))
        other.seed = g.seed
        held = (lambda x: x.counts) if name == "dalmuti" else (lambda x: x.hands)
        assert any(held(other)[s] != held(g)[s] for s in range(g.players) if s != seat)
        assert strong.choose(other, seat, random.Random(7)) == a


def test_budget_by_playouts_and_by_time_left() -> None:
    g = searchable_position("hearts", 4)
    n = len(engine.get("hearts").search.candidates(g, g.turn))  # a world plays out every candidate
    assert n >= 2
    ai = engine.ai_for("hearts", "strong", playouts=10 * n)
    ai.choose(g, g.turn, random.Random(1))
    assert ai.last["worlds"] == 10 and ai.last["playouts"] == 10 * n and not ai.last["out_of_time"]
    # A caller's clock that has already run out: no world at all, the normal AI's move.
    ai = engine.ai_for("hearts", "strong", playouts=10_000, time_left=lambda: 0.0)
    assert ai.choose(g, g.turn, random.Random(1)) == engine.get("hearts").ai().choose(g, g.turn, random.Random(1))
    assert ai.last == {"worlds": 0, "playouts": 0, "out_of_time": True, "means": {}}


class MoveClock:
    """A deterministic stand-in for the caller's clock: time is the number of moves the normal AI
    has chosen (inside the search's playouts), and the deadline is ``budget`` moves."""

    def __init__(self, ai: SearchAI, budget: int) -> None:
        self.moves, self.budget = 0, budget
        base = ai.base
        outer = self

        class Counting(type(base)):  # the game's normal AI, counting its moves
            def choose(self, state, seat, rng):
                outer.moves += 1
                return base.choose(state, seat, rng)

        ai.base = Counting()

    def time_left(self) -> float:
        return float(self.budget - self.moves)


def koth_lead() -> Game:
    """A King of the Hill lead: twenty candidates, a playout is the rest of the round."""
    e = engine.get("koth")
    g = e.game.create(5, OPTIONS["koth"], 0)
    advance(g, random.Random(0), lambda g: g.phase == "play" and g.to_act() == (g.turn,))
    assert len(g.decision(g.turn).actions) >= 20
    return g


# One world of the King of the Hill lead below is about 2,400 moves: deadlines before the first world
# ends, during the second and a few worlds in.
@pytest.mark.parametrize("budget", [30, 3000, 8000])
def test_the_deadline_holds_inside_a_world(budget: int) -> None:
    g = koth_lead()
    seat = g.turn
    n = len(g.decision(seat).actions)
    ai = engine.ai_for("koth", "strong", playouts=100_000)
    clock = MoveClock(ai, budget)
    a = ai.search(g, seat, random.Random(3), 100_000, clock.time_left)
    # Two worlds of twenty round-long playouts are thousands of moves: checking the clock only
    # between worlds overran any of these deadlines by far.  Now the overrun is at most the moves
    # between two looks (and the normal AI's own choice for the default).
    assert clock.moves <= budget + SearchAI.CHECK_EVERY + 1
    assert ai.last["out_of_time"] and a in g.decision(seat).actions
    worlds = ai.last["worlds"]
    if budget == 30:
        assert worlds == 0 and ai.last["means"] == {}
        assert a == engine.get("koth").ai().choose(g, seat, random.Random(3))
        return
    assert worlds >= (1 if budget == 3000 else 2) and len(ai.last["means"]) == n
    if worlds >= 2:
        # The interrupted world is dropped: the same search as one budgeted by the complete
        # worlds' playouts, with no clock at all.
        plain = engine.ai_for("koth", "strong")
        assert plain.search(g, seat, random.Random(3), worlds * n) == a
        assert plain.last["means"] == ai.last["means"] and plain.last["worlds"] == worlds


def test_a_deadline_never_reached_changes_nothing() -> None:
    g = searchable_position("tricks", 1)
    seat = g.turn
    n = len(engine.ai_for("tricks", "strong").hooks.candidates(g, seat))  # the moves it compares
    plain = engine.ai_for("tricks", "strong", playouts=30 * n)
    timed = engine.ai_for("tricks", "strong", playouts=30 * n, time_left=lambda: 1e9)
    assert plain.choose(g, seat, random.Random(5)) == timed.choose(g, seat, random.Random(5))
    assert plain.last == timed.last and timed.last["worlds"] == 30


def koth_many_candidates() -> Game:
    """A King of the Hill follow of a pair lead with 106 two-card plays (seed 4, trick 4)."""
    e = engine.get("koth")
    g = e.game.create(5, OPTIONS["koth"], 4)
    advance(g, random.Random(4), lambda g: g.phase == "play" and g.to_act() == (g.turn,)
            and len(g.decision(g.turn).actions) >= 80)
    assert len(g.decision(g.turn).actions) == 106
    return g


def test_a_hundred_candidates_search_a_shortlist_within_the_deadline() -> None:
    g = koth_many_candidates()
    seat = g.turn
    normal = engine.get("koth").ai().choose(g, seat, random.Random(3))
    # A world of all 106 candidates is ~7,000 moves, of 24 ~1,600: a deadline of 5,000 moves.
    every = engine.ai_for("koth", "strong", playouts=100_000, max_candidates=0)
    clock = MoveClock(every, 5000)
    assert every.search(g, seat, random.Random(3), 100_000, clock.time_left) == normal
    assert every.last["worlds"] == 0 and every.last["out_of_time"] and "shortlisted" not in every.last
    ai = engine.ai_for("koth", "strong", playouts=100_000)
    clock = MoveClock(ai, 5000)
    a = ai.search(g, seat, random.Random(3), 100_000, clock.time_left)
    assert ai.last["shortlisted"] == (24, 106)
    assert ai.last["worlds"] >= 2 and len(ai.last["means"]) == 24 and normal.code in ai.last["means"]
    assert a in g.decision(seat).actions and a.code in ai.last["means"]
    # Without a deadline, the playouts decide: whole worlds of the 24.
    ai.search(g, seat, random.Random(3), 3 * 24)
    assert ai.last["worlds"] == 3 and ai.last["playouts"] == 72 and not ai.last["out_of_time"]


def test_the_normal_move_is_always_on_the_shortlist() -> None:
    hooks = engine.get("koth").search
    normal = engine.get("koth").ai()
    seen = 0
    for seed in range(8):
        g = engine.get("koth").game.create(5, OPTIONS["koth"], seed)
        rng = random.Random(seed)
        while not g.is_over and g.round_no == 1:
            if table_step(g, normal, rng):
                continue
            s = g.to_act()[0]
            move = normal.choose(g, s, rng)
            if g.phase == "play":
                acts = list(g.decision(s).actions)
                ranked = normal.rank_plays(g, s, acts)
                # The normal AI's own ranking: its move first, every play exactly once.
                assert ranked[0] == move and sorted(a.code for a in ranked) == sorted(a.code for a in acts)
                if len(acts) > hooks.max_candidates:
                    seen += 1
                    short = hooks.shortlist(g, s, acts, normal, move, hooks.max_candidates)
                    assert short[0] == move and len(short) == len(set(short)) == hooks.max_candidates
                    assert set(short) <= set(acts)
            g.apply(s, move)
    assert seen >= 5  # follows of pair leads with more than 24 plays did come up
