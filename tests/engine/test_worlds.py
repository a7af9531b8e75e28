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
import games.dalmuti.rules
from engine.core import Game
from engine.worlds import NoWorld, deal_constrained
from games.hearts.rules import Hearts
from games.koth.rules import KingOfTheHill
from games.tricks.rules import Tricks

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


# ---- The Great Dalmuti and Siege ------------------------------------------------------------------
MORE = {"dalmuti": [{"hands": 3}, {"hands": 2, "pass": "open"}], "siege": [{"max_rounds": 12}]}


def _move_any(g: Game, rng: random.Random, ai) -> None:
    """One move, table steps included: the AI most of the time, random otherwise."""
    acting = g.to_act()
    seat = rng.choice(acting)
    if seat == engine.core.TABLE:
        holder = next((s for s in acting if s >= 0), None)
        a = ai.choose_optional(g, holder, rng) if holder is not None and rng.random() < 0.5 else None
        if a is not None:
            g.apply(holder, a)
        else:
            g.apply(seat, g.decision(seat).actions[0])
        return
    g.apply(seat, ai.choose(g, seat, rng) if rng.random() < 0.7 else g.random_action(seat, rng))


def _check_plain_world(real: Game, w: Game, seat: int) -> None:
    assert w.view(seat) == real.view(seat)
    assert Counter(c.code for c in w.all_cards()) == Counter(c.code for c in real.all_cards())
    assert w.decision(seat) == real.decision(seat)
    if engine.core.TABLE not in real.to_act():
        assert w.to_act() == real.to_act()
    assert w.seed != real.seed


@pytest.mark.parametrize("name", sorted(MORE))
def test_dalmuti_and_siege_worlds_look_the_same_to_the_seat(name: str) -> None:
    entry = engine.get(name)
    ai = entry.ai()
    checked = 0
    for seed in range(16):
        g = entry.game.create(entry.game.min_players, MORE[name][seed % len(MORE[name])], seed)
        rng = random.Random(seed)
        while not g.is_over:
            if rng.random() < (0.1 if name == "dalmuti" else 0.03):
                for seat in range(g.players):
                    w = g.sample_world(seat, random.Random(rng.random()))
                    _check_plain_world(g, w, seat)
                    checked += 1
                    if rng.random() < 0.05:
                        w2 = w.copy()
                        while not w2.is_over:
                            _move_any(w2, rng, ai)
            _move_any(g, rng, ai)
    assert checked > 200


def _dalmuti_after_taxes():
    from games.dalmuti.rules import Dalmuti

    # Seats 0..3 ranked 0 (Greater Dalmuti), 1, 2, 3 (Greater Peon).  The Peon's best are 3 and 4.
    numbers = [n for n in range(1, 13) for _ in range(n)] + [13, 13]
    peon = [3, 4, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12, 13]
    rest = list(numbers)
    for x in peon:
        rest.remove(x)
    hands = [rest[0::3], rest[1::3], rest[2::3], peon]
    hands[0], hands[1] = hands[0] + hands[1][-1:], hands[1][:-1]  # uneven is fine: 80 cards in all
    g = Dalmuti.create(4, {"hands": 1}, 5, [[games.dalmuti.rules.CARDS[x] for x in h] for h in hands],
                       ranking=[0, 1, 2, 3])
    g.apply(engine.core.TABLE, games.dalmuti.rules.CLOSE_LOOK)  # nobody calls a revolution
    return g


def test_dalmuti_taxes_paid_stay_with_the_receiver_and_received_taxes_bound_the_payer() -> None:
    from games.dalmuti.rules import CARDS

    g = _dalmuti_after_taxes()
    assert g.tax_received[0] == ["D3", "D4"]
    g.apply(0, engine.core.Action("give", (CARDS[12], CARDS[12])))  # back: two 12s
    g.apply(1, engine.core.Action("give", g.decision(1).cards[-1:]))  # the Lesser Dalmuti's worst
    for i in range(40):
        # The Greater Peon knows the Dalmuti holds its 3 and 4 (nothing played yet).
        w = g.sample_world(3, random.Random(i))
        assert w.counts[0][3] >= 1 and w.counts[0][4] >= 1
        # The Greater Dalmuti knows the Peon had nothing better than its 4 left (it was given 12s).
        w = g.sample_world(0, random.Random(i))
        assert sum(w.counts[3][1:4]) == 0
        # A Merchant knows neither: the 3 and 4 may be anywhere it cannot see.
    seen = {(w.counts[0][3], sum(w.counts[3][1:4]))
            for w in (g.sample_world(2, random.Random(i)) for i in range(60))}
    assert any(a == 0 for a, _ in seen) and any(b > 0 for _, b in seen)


def test_dalmuti_world_during_the_look_has_its_own_jester_holder() -> None:
    from games.dalmuti.rules import JESTER_NUMBER, LOOK, Dalmuti

    holders = set()
    for seed in range(40):
        g = Dalmuti.create(4, {"hands": 1}, seed)
        assert g.phase == LOOK
        for i in range(5):
            w = g.sample_world(0, random.Random(100 * seed + i))
            two = [s for s in range(4) if w.counts[s][JESTER_NUMBER] == 2]
            assert w.holder == (two[0] if two else None)
            assert w.to_act() == ((w.holder, engine.core.TABLE) if two else (engine.core.TABLE,))
            holders.add(w.holder)
    assert {1, 2, 3} <= holders  # the seat cannot tell who was dealt both Jesters


def test_siege_rival_between_turns_holds_what_it_was_seen_to_win_and_own_discards_stay() -> None:
    from games.siege.rules import Siege

    holding = discarding = 0
    for seed in range(30):
        g = Siege.create(4, {"max_rounds": 30}, seed)
        rng = random.Random(seed)
        ai = engine.get("siege").ai()
        for _ in range(400):
            if g.is_over:
                break
            seat = g.turn
            waiting = [s for s in range(4) if s != seat and g.hands[s]]
            if waiting or (g.own_discard[seat] and rng.random() < 0.2):
                for i in range(3):
                    w = g.sample_world(seat, random.Random(1000 * seed + i))
                    for s in waiting:
                        # Between turns a rival holds only fight winnings, which everyone saw.
                        assert Counter(w.hands[s]) == Counter(g.hands[s])
                        holding += 1
                    assert not Counter(g.own_discard[seat]) - Counter(w.discard)
                    discarding += bool(g.own_discard[seat])
            # Some random moves: the AI seldom attacks a pile that would beat it, so rivals
            # seldom win a defence without them.
            g.apply(seat, ai.choose(g, seat, rng) if rng.random() < 0.7 else g.random_action(seat, rng))
    assert holding >= 20 and discarding >= 20


def test_siege_worlds_vary_what_the_seat_cannot_see() -> None:
    from games.siege.rules import Siege

    g = Siege.create(4, {"max_rounds": 30}, 2)
    rng = random.Random(2)
    ai = engine.get("siege").ai()
    while g.turn_no < 9:
        g.apply(g.turn, ai.choose(g, g.turn, rng))
    seat = (g.turn + 1) % 4
    acting = [tuple(sorted(c.code for c in g.sample_world(seat, random.Random(i)).hands[g.turn]))
              for i in range(20)]
    stocks = [tuple(c.code for c in g.sample_world(seat, random.Random(i)).stock[-5:]) for i in range(20)]
    assert len(set(acting)) >= 15 and len(set(stocks)) >= 15
    assert all(g.sample_world(seat, random.Random(i)).hands[seat] == g.hands[seat] for i in range(5))


@pytest.mark.parametrize("name", sorted(MORE))
def test_dalmuti_and_siege_copy_is_independent(name: str) -> None:
    entry = engine.get(name)
    g = entry.game.create(entry.game.min_players, MORE[name][0], 5)
    rng = random.Random(5)
    for _ in range(60):
        _move_any(g, rng, entry.ai())
    assert not g.is_over
    before = g.to_dict()
    c = g.copy()
    assert c.to_dict() == before and c.view(0) == g.view(0)
    while not c.is_over:
        _move_any(c, rng, entry.ai())
    assert g.to_dict() == before


def _tricks_after(deal: list[str], moves: str) -> Tricks:
    from engine.cards import card, cards

    g = Tricks.create(4, {"target": 1}, 0, [list(cards(h)) for h in deal])
    for code in moves.split():
        g.apply(g.turn, engine.core.Action("play", (card(code),)))
    return g


def test_tricks_reads_of_sound_play_narrow_the_worlds() -> None:
    from engine.cards import cards

    g = _tricks_after([
        "9C 2D 3D 2H 3H 4H 5H 6H 7H 8H 9H TH JH",
        "5C 6C 7C 8C QD KD AD QH KH AH 2S 3S 4S",
        "KC AC 2C 3C 4C TC 4D 5D 6D 7D 5S 6S 7S",
        "JC QC 8D 9D TD JD 8S 9S TS JS QS KS AS",
    ], "9C 5C KC JC  4D 8D 2D QD")
    likely = g.likely(0)
    # Seat 1 followed under the 9C with the 5C: no lower club.  Seat 3, last, played the JC under
    # the KC: nothing lower and nothing that would have won.  Seat 1, last, won the 8D with the QD:
    # nothing cheaper that would have won.
    assert not set(cards("2C 3C 4C 9D TD JD")) & likely[1]
    assert {c for c in likely[3] if c.suit == "C"} == set(cards("QC"))
    assert set(cards("2C 3C 4C")) <= g.knowledge(0)[1]  # what the rules alone say: could be there
    for i in range(40):
        w = g.sample_world(0, random.Random(i))
        check_world(g, w, 0, None)
        assert not set(cards("2C 3C 4C 9D TD JD")) & set(w.hands[1])
        assert {c for c in w.hands[3] if c.suit == "C"} <= set(cards("QC"))
    # The normal player's play never contradicts the reads: its real hands are always among them.
    ai = engine.get("tricks").ai()
    for seed in range(6):
        g = Tricks.create(4, {"target": 1}, seed)
        while not g.is_over:
            for seat in range(4):
                likely = g.likely(seat)
                assert all(set(g.hands[s]) <= likely[s] for s in range(4))
            g.apply(g.turn, ai.choose(g, g.turn, random.Random(0)))


def test_tricks_reads_a_person_contradicts_fall_back_to_the_rules() -> None:
    from engine.cards import card

    # Everyone follows the AC with a higher club than the 2C someone must hold: by the reads nobody
    # can hold it, so the worlds keep to what the rules say.
    g = _tricks_after([
        "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        "2C 5C 6C 7C 8C 9C AH 2D 3D 4D 5D 6D 7D",
        "4C TC JC 8D 9D TD JD QD KD AD 2S 3S 4S",
        "3C QC KC 5S 6S 7S 8S 9S TS JS QS KS AS",
    ], "AC 5C 4C 3C")
    assert not any(card("2C") in g.likely(0)[s] for s in (1, 2, 3))
    holders = set()
    for i in range(30):
        w = g.sample_world(0, random.Random(i))
        check_world(g, w, 0, None)
        holders.update(s for s in (1, 2, 3) if card("2C") in w.hands[s])
    assert holders == {1, 2, 3}
