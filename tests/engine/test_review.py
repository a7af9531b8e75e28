"""A review of a person's play (engine/review.py): a planted blunder is a mistake with the better move
named, the judgement reads only what the seat knew (re-dealt hidden cards change nothing beyond
noise), and moves made for the person are marked, not judged."""

from __future__ import annotations

import random

import pytest

import engine
from engine.cards import card
from engine.core import Action, Game
from engine.review import (
    FINE,
    MADE_FOR_YOU,
    MISTAKE,
    NOT_SEARCHED,
    ONLY_MOVE,
    TIMEOUT,
    Review,
    judge,
    merge,
    review,
    searched,
)
from tests import wargame
from tests.engine.test_hints import hearts_position, play
from tests.engine.test_search import OPTIONS, advance, searchable_position

QS = card("QS")


def queen_blunder() -> Game:
    """Seat 0 is last to a spade trick led under J♠ and holds Q♠ with 2♠: Q♠ takes the trick and its
    13 points, 2♠ stays under; seat 0 is out of clubs, so the queen can go on a club trick later."""
    return hearts_position(["QS 2S 3D 4D", "4C 7S 5C", "6C 9S 7C", "TC KS AS"],
                           [(1, "6S"), (2, "8S"), (3, "JS")], turn=0)


def test_the_planted_queen_dump_is_a_mistake_with_the_safe_card_better() -> None:
    g = queen_blunder()
    before = g.to_dict()
    j = judge(g, 0, play("QS"), random.Random(1), playouts=120)
    assert g.to_dict() == before  # judging changes nothing
    assert j.mark == MISTAKE and j.best == "play 2S"
    assert j.made_value == -13.0  # the trick and its queen are certain
    assert j.loss >= engine.get("hearts").review_thresholds[1]
    # The safe card itself is fine and costs nothing.
    safe = judge(g, 0, play("2S"), random.Random(1), playouts=120)
    assert safe.mark == FINE and safe.loss == 0.0 and safe.best == "play 2S"


def hearts_game_with_planted_queen() -> tuple[int, int, list[tuple[int, str]]]:
    """A whole one-hand game of normal AIs in which seat 0, last to a spade trick won by a card under
    Q♠ and holding only lower spades besides, plays Q♠ instead: (game seed, log index of the dump, log)."""
    e = engine.get("hearts")
    for seed in range(60):
        g = e.game.create(4, {"target": 1}, seed)
        ai, rng = e.ai(), random.Random(seed)
        log: list[tuple[int, str]] = []
        at = None
        while not g.is_over:
            s = next(s for s in g.to_act() if g.decision(s) is not None)
            a = ai.choose(g, s, rng)
            if at is None and s == 0 and g.phase == "play" and len(g.trick) == 3 and QS in g.hands[0]:
                led = g.trick[0][1].suit
                top = max((c for _, c in g.trick if c.suit == led), key=lambda c: c.value)
                spades = [c for c in g.hands[0] if c.suit == "S"]
                # Every other spade of the seat's stays under the trick: the safe cards.
                if led == "S" and top.value < QS.value and all(c.value < top.value for c in spades if c != QS) \
                        and len(spades) > 1:
                    a, at = Action("play", (QS,)), len(log)
            log.append((s, a.code))
            g.apply(s, a)
        if at is not None:
            return seed, at, log
    raise AssertionError("no game offered the planted dump")


def test_a_review_of_the_log_marks_the_planted_dump() -> None:
    seed, at, log = hearts_game_with_planted_queen()
    r = review("hearts", 4, {"target": 1}, seed, log, 0, "t", playouts=120, steps=[at])
    (j,) = r.decisions
    assert j.step == at and j.made == "play QS" and j.mark == MISTAKE
    best = Action.parse(j.best).cards[0]
    assert best.suit == "S" and best.value < QS.value  # a spade that stays under the trick's winner
    assert r.costliest(3) == [j] and r.average_loss == j.loss and r.units == "points"


@pytest.mark.parametrize("name", ["hearts", "tricks", "dalmuti", "koth"])
def test_the_judgement_is_blind_to_the_hidden_cards(name: str) -> None:
    """The re-deal check: the same decision with every card the seat cannot see dealt again
    (consistently with what it knows) gets the same mark and better move, losses within noise."""
    tolerance = engine.get(name).review_thresholds[0] / 2
    for seed in range(3):
        g = searchable_position(name, seed)
        seat = g.turn
        made = g.legal_actions(seat)[-1]
        other = g.sample_world(seat, random.Random(99 + seed))
        other.seed = g.seed
        held = (lambda x: x.counts) if name == "dalmuti" else (lambda x: x.hands)
        assert any(held(other)[s] != held(g)[s] for s in range(g.players) if s != seat)
        a = judge(g, seat, made, random.Random(7), playouts=60)
        b = judge(other, seat, made, random.Random(7), playouts=60)
        assert a.mark == b.mark and a.best == b.best
        assert abs(a.loss - b.loss) <= tolerance


def test_the_planted_dump_is_judged_alike_in_a_re_dealt_world() -> None:
    g = queen_blunder()
    a = judge(g, 0, play("QS"), random.Random(3), playouts=120)
    for k in range(3):
        other = g.sample_world(0, random.Random(k))
        assert other.hands[1:] != g.hands[1:] or k  # at least the first re-deal differs
        b = judge(other, 0, play("QS"), random.Random(3), playouts=120)
        assert (b.mark, b.best) == (a.mark, a.best) and abs(a.loss - b.loss) <= 0.5


def test_moves_made_for_the_person_are_marked_not_judged() -> None:
    seed, at, log = hearts_game_with_planted_queen()
    mine = [i for i, (s, _) in enumerate(log) if s == 0]
    timed_out, away = mine[-3], at
    flagged = [(s, c, i in (timed_out, away), i == timed_out) for i, (s, c) in enumerate(log)]
    r = review("hearts", 4, {"target": 1}, seed, flagged, 0, "t", playouts=8)
    marks = {d.step: d.mark for d in r.decisions}
    assert sorted(marks) == mine  # every decision of the seat, and only those
    assert marks[timed_out] == TIMEOUT and marks[away] == MADE_FOR_YOU
    assert marks[mine[0]] == NOT_SEARCHED  # the pass
    assert marks[mine[-1]] == ONLY_MOVE  # the last card
    assert all(d.step not in (timed_out, away) for d in r.judged)
    assert all(d.mark not in (TIMEOUT, MADE_FOR_YOU) for d in r.costliest(13))


def test_deterministic_and_pieces_add_up_to_the_whole() -> None:
    seed, _, log = hearts_game_with_planted_queen()
    whole = review("hearts", 4, {"target": 1}, seed, log, 2, "s", playouts=16)
    assert review("hearts", 4, {"target": 1}, seed, log, 2, "s", playouts=16) == whole
    steps = [d.step for d in whole.decisions]
    parts = [review("hearts", 4, {"target": 1}, seed, log, 2, "s", playouts=16, steps=steps[k::3]) for k in range(3)]
    assert merge(parts) == whole
    assert Review.from_dict(whole.to_dict()) == whole
    assert whole.judged  # a whole hand of play has decisions with a choice


def test_a_game_without_a_search_says_so() -> None:
    with wargame.registered():  # (every real game has a strong AI)
        e = engine.get("war")
        g = e.game.create(2, {}, 1)
        s = g.to_act()[0]
        log = [(s, e.ai().choose(g, s, random.Random(1)).code)]
        r = review("war", 2, {}, 1, log, s, "x")
    assert not r.searched and r.decisions == [] and r.average_loss is None
    assert "cannot be reviewed" in r.note and "War" in r.note


def review_position(name: str, seed: int) -> Game:
    """A decision the strong search covers, with a choice, some way into a game of ``name``."""
    if name in OPTIONS:
        return searchable_position(name, seed)
    e = engine.get(name)
    g = e.game.create(e.game.min_players, {}, seed)
    rng, hooks = random.Random(seed), e.search
    advance(g, rng, lambda g: getattr(g, "turn_no", 0) >= 3 and len(g.to_act()) == 1 and g.to_act()[0] >= 0
            and hooks.searchable(g, g.to_act()[0]) and len(hooks.candidates(g, g.to_act()[0])) >= 2)
    return g


@pytest.mark.parametrize("name", sorted(n for n in engine.games() if searched(n)))
def test_the_review_weighs_moves_with_the_strong_level_itself(name: str) -> None:
    """The review's judgement of the strong AI's own move is that search's: the same candidates
    (Hearts' equivalent cards merged, King of the Hill's shortlist), the same worlds and playouts,
    the same means — so it never falls back to a weaker searcher than the hint and the strong seat."""
    checked = 0
    for seed in range(6):
        g = review_position(name, seed)
        seat = g.to_act()[0]
        strong = engine.ai_for(name, "strong", playouts=40)
        chosen = strong.choose(g, seat, random.Random(7))
        last = strong.last
        if not last.get("worlds"):
            continue  # one candidate only: nothing searched to compare with
        j = judge(g, seat, chosen, random.Random(7), playouts=40)
        assert j.worlds == last["worlds"], (seed, j)
        assert j.best == chosen.code and j.loss == 0.0
        assert j.made_value == round(last["means"][chosen.code], 4)
        checked += 1
    assert checked >= 3


def test_the_review_follows_the_strong_level_registered() -> None:
    """A strong level that sees the queen dump as harmless (every playout scores 0) makes the review
    see it so too: the review asks the registered level, it does not build a searcher of its own."""
    from engine.core import LEVELS as _LEVELS
    from engine.search import SearchAI

    class Blind(SearchAI):
        def _playout(self, start, x, seat, rng, time_left=None):  # type: ignore[no-untyped-def]
            return 0.0

    def blind(playouts=None, time_left=None, max_candidates=None):  # type: ignore[no-untyped-def]
        spec = engine.get("hearts")
        return Blind(spec.search, spec.ai(), playouts or spec.playouts, time_left, max_candidates)

    g = queen_blunder()
    assert judge(g, 0, play("QS"), random.Random(1), playouts=40).mark == MISTAKE
    real = _LEVELS[("hearts", "strong")]
    _LEVELS[("hearts", "strong")] = blind
    try:
        j = judge(g, 0, play("QS"), random.Random(1), playouts=40)
    finally:
        _LEVELS[("hearts", "strong")] = real
    assert j.mark == FINE and j.loss == 0.0 and j.worlds >= 2
