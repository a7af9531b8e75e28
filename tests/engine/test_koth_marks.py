"""King of the Hill's bury built up step by step: ``bury C… mark`` sets the KotH's private marked
cards (at most 8), ``bury`` alone buries exactly those, and the all-at-once ``bury`` + 8 cards stays
as it was.  The marked set is part of the state (it survives to_dict/from_dict, so a restart) and
never shows outside the KotH's own view."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

import engine
from engine.cards import cards
from engine.core import TABLE, Action, IllegalAction
from games.koth.ai import KothAI
from games.koth.rules import CONFIRM_BURY, KingOfTheHill
from tests.engine.test_conformance import check_restore, check_views, strings_in
from tests.engine.test_koth_rules import deal_until, declare, make_deal, new

KOTH = 1
DEAD = "AS AS KS KS QS QS JS JS"


def burying(**options) -> KingOfTheHill:
    g = new(make_deal({KOTH: "2H 3C 3C 4D 5D"}, dead=DEAD), **options)
    deal_until(g, 100)
    declare(g, KOTH, "2H")
    g.apply(TABLE, Action("close"))
    assert g.phase == "bury" and g.koth == KOTH and len(g.hands[KOTH]) == 28
    return g


def mark(g: KingOfTheHill, codes: str) -> list:
    return g.apply(KOTH, Action("bury", cards(codes), ("mark",)))


def codes(cs) -> list[str]:
    return sorted(c.code for c in cs)


def test_marking_sets_the_private_marked_cards_and_unmarking_takes_them_back():
    g = burying()
    assert g.view(KOTH)["marked"] == []
    assert mark(g, "AS KS 3C") == []  # no event at all: nothing to tell anyone
    assert sorted(g.view(KOTH)["marked"]) == ["3C", "AS", "KS"]
    # Marked in hand order (trumps first, then by suit), whatever order they were given in.
    order = g.view(KOTH)["hand"]
    assert g.view(KOTH)["marked"] == sorted(g.view(KOTH)["marked"], key=order.index)
    # Both copies of a card held twice; then "unmark" by setting a smaller set; then clear.
    mark(g, "AS AS KS 3C 3C")
    assert sorted(g.view(KOTH)["marked"]) == ["3C", "3C", "AS", "AS", "KS"]
    mark(g, "AS 3C")
    assert sorted(g.view(KOTH)["marked"]) == ["3C", "AS"]
    assert g.apply(KOTH, Action.parse("bury mark")) == []
    assert g.view(KOTH)["marked"] == []
    # The hand itself never changes while marking, and the decision stays the same pick.
    assert len(g.hands[KOTH]) == 28 and g.phase == "bury"


def test_more_than_eight_or_cards_not_held_are_refused_and_change_nothing():
    g = burying()
    mark(g, "AS KS")
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        mark(g, "AS AS KS KS QS QS JS JS 3C")
    assert e.value.code == "too_many"
    with pytest.raises(IllegalAction) as e:
        mark(g, "AS AS AS")  # two copies in the deck, two in hand: not three
    assert e.value.code == "not_in_hand"
    with pytest.raises(IllegalAction) as e:
        g.apply(KOTH, Action("bury", cards("AS"), ("unmark",)))
    assert e.value.code == "wrong_count"
    with pytest.raises(IllegalAction) as e:
        g.apply(0, Action("bury", cards("AS"), ("mark",)))  # only the KotH marks
    assert e.value.code == "not_your_turn"
    assert g.to_dict() == before


def test_confirm_needs_exactly_eight_marked_then_buries_exactly_those():
    g = burying()
    mark(g, "AS KS QS JS 3C 3C 4D")
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        g.apply(KOTH, CONFIRM_BURY)
    assert e.value.code == "wrong_count" and "7 marked" in e.value.reason
    assert g.to_dict() == before
    mark(g, "AS KS QS JS 3C 3C 4D 5D")
    events = g.apply(KOTH, CONFIRM_BURY)
    assert [(e.kind, e.seat, e.data, e.to) for e in events] == [("buried", KOTH, (), None)]
    assert codes(g.buried) == codes(cards("AS KS QS JS 3C 3C 4D 5D"))
    assert len(g.hands[KOTH]) == 20 and g.phase == "call" and g.marked == []
    assert "marked" not in g.view(KOTH) and codes(cards(" ".join(g.view(KOTH)["buried"]))) == codes(g.buried)


def test_the_old_all_at_once_bury_is_unchanged_and_ignores_marks():
    plain, marked = burying(), burying()
    mark(marked, "3C 4D 5D")
    eight = tuple(plain.hands[KOTH][:8])
    assert plain.apply(KOTH, Action("bury", eight)) == marked.apply(KOTH, Action("bury", eight))
    assert plain.to_dict() == marked.to_dict()  # the marks are gone with the bury
    assert plain.buried == list(eight)


def test_marked_cards_are_private_to_the_kotH():
    g = burying()
    mark(g, "AS 3C 4D")
    assert "marked" not in g.public_view()
    for seat in range(5):
        assert ("marked" in g.view(seat)) == (seat == KOTH)
    check_views(g)  # no view shows a code hidden from its seat
    # The KotH's cards (the marked ones among them) are hidden from everyone else.
    assert {"AS", "3C", "4D"} <= g.hidden_from(None) and not {"AS", "3C", "4D"} & g.hidden_from(KOTH)
    for seat in (0, 2, 3, 4):
        assert {"AS", "3C", "4D"} <= g.hidden_from(seat) - strings_in(g.view(seat))


def test_the_marked_set_survives_to_dict_and_from_dict():
    g = burying()
    mark(g, "AS AS 3C")
    r = check_restore(g, KingOfTheHill)
    assert r.marked == g.marked and r.view(KOTH)["marked"] == g.view(KOTH)["marked"]
    mark(g, "AS AS 3C 3C KS KS QS QS")
    r = KingOfTheHill.from_dict(json.loads(json.dumps(g.to_dict())))
    r.apply(KOTH, CONFIRM_BURY)
    g.apply(KOTH, CONFIRM_BURY)
    assert r.to_dict() == g.to_dict()
    # A snapshot written before marking existed (no "marked") loads with nothing marked.
    old = burying().to_dict()
    del old["marked"]
    assert KingOfTheHill.from_dict(old).marked == []


def test_marking_keeps_one_clock_for_the_whole_bury():
    g = burying()
    d = g.decision(KOTH)
    assert d.kind == "bury" and d.pick == 8 and d.timer == 60.0 and d.clock_key == "bury 1"
    mark(g, "AS KS")
    assert g.decision(KOTH) == d  # the same decision: the runtime keeps the deadline, pings nobody


def test_codes_read_back_and_a_log_with_marks_replays():
    g = burying()
    log = []
    for a in (Action("bury", cards("AS 3C"), ("mark",)), Action("bury", (), ("mark",)),
              Action("bury", cards("AS AS KS KS QS QS JS 3C"), ("mark",)), CONFIRM_BURY):
        assert KingOfTheHill.action_from_code(a.code) == a
        g.apply(KOTH, a)
        log.append(a.code)
    assert log[0] == "bury AS 3C mark" and log[1] == "bury mark" and log[-1] == "bury"
    again = burying()
    for code in log:
        again.apply(KOTH, KingOfTheHill.action_from_code(code))
    assert again.to_dict() == g.to_dict()


def test_typed_marks_and_confirm():
    g = burying()
    assert g.parse_action(KOTH, "bury as 10h mark") == Action("bury", cards("AS TH"), ("mark",))
    assert g.parse_action(KOTH, "as 3c mark") == Action("bury", cards("AS 3C"), ("mark",))
    assert g.parse_action(KOTH, "bury") == CONFIRM_BURY
    with pytest.raises(IllegalAction):
        g.parse_action(KOTH, "bury zz mark")


def test_timeout_moves_bury_the_marked_cards_and_make_up_eight():
    g = burying()
    mark(g, "AS 3C 3C")
    for seed in range(20):
        a = g.random_action(KOTH, random.Random(seed))
        assert a.kind == "bury" and len(a.cards) == 8 and not a.args
        assert not Counter(["AS", "3C", "3C"]) - Counter(c.code for c in a.cards)
    ai = KothAI().choose(g, KOTH, random.Random(1))
    assert ai.kind == "bury" and len(ai.cards) == 8
    assert not Counter(["AS", "3C", "3C"]) - Counter(c.code for c in ai.cards)
    g.apply(KOTH, ai)
    assert g.phase == "call" and Counter(c.code for c in g.buried)["3C"] == 2
    # With nothing marked, both moves are exactly what they always were (logs and playouts agree).
    plain = burying()
    assert plain.random_action(KOTH, random.Random(5)) == Action(
        "bury", tuple(random.Random(5).sample(plain.hands[KOTH], 8)))
    assert KothAI().choose(plain, KOTH, random.Random(1)).cards == tuple(
        KothAI().choose_bury(plain.hands[KOTH], plain.trump))


def test_marking_outside_the_bury_is_refused():
    g = burying()
    g.apply(KOTH, Action("bury", tuple(g.hands[KOTH][:8])))
    with pytest.raises(IllegalAction) as e:
        mark(g, "AS")
    assert e.value.code == "wrong_phase"
    with pytest.raises(IllegalAction):
        g.apply(KOTH, CONFIRM_BURY)


def test_random_playouts_with_marking_keep_every_invariant():
    """The conformance checks (views against hidden_from, restore, replay) with the bury built up by
    random marking steps before it is confirmed (or, sometimes, made at once or at a timeout)."""
    cls = engine.get("koth").game
    for seed in range(30):
        g = cls.create(5, {"rounds": 1, "ready_round": 0}, seed)
        rng = random.Random(seed)
        deck = Counter(c.code for c in g.all_cards())
        log = []
        while not g.is_over:
            seat = rng.choice(g.to_act())
            if g.phase == "bury" and seat == g.koth:
                hand = g.hands[seat]
                for _ in range(rng.randrange(1, 6)):
                    step = Action("bury", tuple(rng.sample(hand, rng.randrange(0, 9))), ("mark",))
                    g.apply(seat, step)
                    log.append((seat, step.code))
                    check_views(g)
                    check_restore(g, cls)
                    assert Counter(c.code for c in g.all_cards()) == deck
                ending = rng.random()
                if ending < 0.6:
                    action = Action("bury", tuple(rng.sample(hand, 8)), ("mark",))
                    g.apply(seat, action)
                    log.append((seat, action.code))
                    action = CONFIRM_BURY
                elif ending < 0.8:
                    action = Action("bury", tuple(rng.sample(hand, 8)))  # at once: the marks are dropped
                else:
                    action = g.random_action(seat, rng)  # a timeout: the marks are buried
                kept = Counter(g.marked) if ending < 0.6 or ending >= 0.8 else Counter()
            else:
                action, kept = g.random_action(seat, rng), Counter()
            g.apply(seat, action)
            log.append((seat, action.code))
            assert not kept - Counter(g.buried)
        again, _ = engine.replay("koth", 5, {"rounds": 1, "ready_round": 0}, seed, log)
        assert again.to_dict() == g.to_dict()
