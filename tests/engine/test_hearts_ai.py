"""The Hearts computer player: always legal, better than chance, and sensible in the positions
people recognise (dumping Q♠, ducking, passing, not leading hearts, stopping a moon)."""

from __future__ import annotations

import random

import pytest

import engine
from engine.cards import Card, card, cards
from engine.core import Action
from games.hearts.ai import HeartsAI
from games.hearts.rules import Hearts

QS = card("QS")
AH = card("AH")
DECK = {card(r + s) for r in "23456789TJQKA" for s in "CDHS"}


def make_deal(*hands: str) -> list[list[Card]]:
    """Four hands written as card codes; checks they form one deck so a typo fails loudly."""
    out = [list(cards(h)) for h in hands]
    assert [len(h) for h in out] == [13, 13, 13, 13]
    assert {c for h in out for c in h} == DECK
    return out


def play(g: Hearts, moves: str) -> None:
    """Play the given cards, each by whoever's turn it is."""
    for code in moves.split():
        g.apply(g.turn, Action("play", (card(code),)))


def ai_card(g: Hearts, seat: int) -> Card:
    a = HeartsAI().choose(g, seat, random.Random(0))
    assert a.kind == "play"
    return a.cards[0]


# ---- legality, determinism, strength ---------------------------------------------------------
def test_registered_as_the_hearts_ai() -> None:
    assert engine.get("hearts").ai is HeartsAI


@pytest.mark.parametrize("rules", ["classic", "mcgill"])
def test_always_legal_in_full_games(rules: str) -> None:
    ai = HeartsAI()
    hands = 0
    for seed in range(100):
        g = Hearts.create(4, {"rules": rules}, seed)
        rng = random.Random(seed)
        while not g.is_over:
            for seat in g.to_act():
                d = g.decision(seat)
                a = ai.choose(g, seat, rng)
                if d.pick:
                    assert a.kind == d.kind and len(set(a.cards)) == d.pick and set(a.cards) <= set(d.cards)
                else:
                    assert a in d.actions
                g.apply(seat, a)  # raises IllegalAction if the engine disagrees
        hands += g.hand_no + 1
        assert g.outcome() is not None
    assert hands > 300  # full games to 100, not single hands


def test_deterministic() -> None:
    def run(seed: int) -> list[str]:
        g = Hearts.create(4, {}, seed)
        rng = random.Random(seed)
        log = []
        while not g.is_over:
            for seat in g.to_act():
                a = HeartsAI().choose(g, seat, rng)
                log.append(a.code)
                g.apply(seat, a)
        return log

    assert run(7) == run(7)


@pytest.mark.parametrize("rules", ["classic", "mcgill"])
def test_beats_random_players(rules: str) -> None:
    ai = HeartsAI()
    ai_total = random_total = 0.0
    games = 200
    for seed in range(games):
        g = Hearts.create(4, {"rules": rules, "target": 1}, seed)  # one hand
        rng = random.Random(seed)
        me = seed % 4
        while not g.is_over:
            for seat in g.to_act():
                g.apply(seat, ai.choose(g, seat, rng) if seat == me else g.random_action(seat, rng))
        ai_total += g.scores[me]
        random_total += (sum(g.scores) - g.scores[me]) / 3
    # Equal play would average the same (~6.5 a hand each); a decent player takes far fewer.
    assert ai_total / games < 0.6 * (random_total / games)


def test_uses_only_what_its_seat_may_see() -> None:
    """Reshuffling the cards the seat cannot see never changes its choice."""
    ai = HeartsAI()
    checked = changed = 0
    for seed in range(20):
        g = Hearts.create(4, {}, seed)
        rng = random.Random(seed)
        shuffle_rng = random.Random(1000 + seed)
        while not g.is_over:
            for seat in g.to_act():
                if g.phase == "play":
                    other = Hearts.from_dict(g.to_dict())
                    _reshuffle_hidden(other, seat, shuffle_rng)
                    changed += other.hands != g.hands
                    assert ai.choose(other, seat, random.Random(seed)) == ai.choose(g, seat, random.Random(seed))
                    checked += 1
                g.apply(seat, ai.choose(g, seat, rng))
    assert checked > 1000 and changed > checked // 2  # the reshuffles really moved cards


def _reshuffle_hidden(g: Hearts, seat: int, rng: random.Random) -> None:
    # The cards this seat passed are known to be with the receiver, so only the rest move.
    known = set(g.passed[seat])
    others = [s for s in range(4) if s != seat]
    pool = [c for s in others for c in g.hands[s] if c not in known]
    rng.shuffle(pool)
    for s in others:
        keep = [c for c in g.hands[s] if c in known]
        n = len(g.hands[s]) - len(keep)
        g.hands[s] = keep + pool[:n]
        del pool[:n]


# ---- passing ----------------------------------------------------------------------------------
def _pass_of(hand: str) -> set[Card]:
    rest = [c for c in sorted(DECK, key=lambda c: c.index) if c not in set(cards(hand))]
    deal = [list(cards(hand)), rest[:13], rest[13:26], rest[26:]]
    g = Hearts.create(4, {"rules": "classic"}, 1, deal=deal)
    assert g.phase == "pass"
    a = HeartsAI().choose(g, 0, random.Random(0))
    assert a.kind == "pass" and len(set(a.cards)) == 3
    return set(a.cards)


def test_passes_queen_of_spades_when_short_in_spades() -> None:
    assert QS in _pass_of("QS 3S 2C 4C 6C 8C 3D 5D 7D 9D 2H 4H 6H")


def test_keeps_queen_of_spades_behind_enough_low_spades() -> None:
    chosen = _pass_of("QS 2S 3S 4S 5S 2C 4C 3D 5D AD KD 2H 4H")
    assert QS not in chosen
    assert {card("AD"), card("KD")} <= chosen


def test_passes_high_spades_without_cover_and_high_hearts() -> None:
    chosen = _pass_of("AS KS 2C 3C 4C 5C 6C 2D 3D 4D 2H 3H AH")
    assert chosen == {card("AS"), card("KS"), AH}


def test_passes_a_short_suit_to_make_a_void() -> None:
    chosen = _pass_of("9D 2S 3S 4S 5S 2C 3C 4C 5C 2H 3H 4H 5H")
    assert card("9D") in chosen  # the singleton diamond goes, leaving a void
    assert not chosen & set(cards("2C 2H 2S"))  # the lowest cards stay


# ---- playing ----------------------------------------------------------------------------------
# McGill rules: no passing and the 2♣ holder may lead anything, so a deal reaches a position fast.
MCGILL = {"rules": "mcgill"}


def test_dumps_queen_of_spades_when_void() -> None:
    deal = make_deal(
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        "QS 2S 3S 4S AH KH 2D 3D 4D 5D 6D 7D 8D",
        "5S 6S 7S 8S 9S 2H 3H 4H 5H 6H 9D TD JD",
        "TS JS KS AS 7H 8H 9H TH JH QH QD KD AD",
    )
    g = Hearts.create(4, MCGILL, 0, deal=deal)
    play(g, "2C")
    assert ai_card(g, 1) is QS


def test_dumps_high_heart_when_void_without_queen() -> None:
    deal = make_deal(
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        "2S 3S 4S 5S AH 2H 2D 3D 4D 5D 6D 7D 8D",
        "QS 6S 7S 8S 9S KH 3H 4H 5H 6H 9D TD JD",
        "TS JS KS AS 7H 8H 9H TH JH QH QD KD AD",
    )
    g = Hearts.create(4, MCGILL, 0, deal=deal)
    play(g, "2C")
    assert ai_card(g, 1) is AH


def test_ducks_under_the_winning_card() -> None:
    deal = make_deal(
        "2C 9D 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
        "5D 8D TD KD 2S 3S 4S 5S 2H 3H 4H 5H AC",
        "2D 3D 4D 6D 7D JD 6S 7S 8S 9S 6H 7H 8H",
        "QD AD TS JS QS KS AS 9H TH JH QH KH AH",
    )
    g = Hearts.create(4, MCGILL, 0, deal=deal)
    play(g, "9D")
    assert ai_card(g, 1) is card("8D")  # the highest diamond that still loses to 9♦
    play(g, "8D")
    assert ai_card(g, 2) is card("7D")


def test_ducks_a_heart_lead() -> None:
    deal = make_deal(
        "2C 9H 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
        "2H 7H TH AH 2S 3S 4S 5S 2D 3D 4D 5D AC",
        "6D 7D 8D 9D TD JD 6S 7S 8S 9S 6H 3H 4H",
        "QD KD AD TS JS QS KS AS 5H 8H JH QH KH",
    )
    g = Hearts.create(4, MCGILL, 0, deal=deal)
    play(g, "9H")
    assert ai_card(g, 1) is card("7H")


def test_takes_a_clean_trick_with_its_highest_card_when_last() -> None:
    deal = make_deal(
        "2C 3D 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
        "4D 2S 3S 4S 5S 2H 3H 4H 5H 6H 7H 8H AC",
        "5D 6S 7S 8S 9S TS JS 9H TH JH QH KH AH",
        "2D 6D 7D 8D 9D TD JD QD KD AD QS KS AS",
    )
    g = Hearts.create(4, MCGILL, 0, deal=deal)
    play(g, "3D 4D 5D")
    # No points in it and seat 3 plays last: A♦ is safe to spend now and a liability later.
    assert ai_card(g, 3) is card("AD")


def test_does_not_lead_a_heart_without_reason() -> None:
    deal = make_deal(
        "2C 5C 6C 7C 9C TC JC QC KC 2D 3D TS 9H",
        "AC 2H 3H 4H 5H 6H 7H 8D 9D TD 7S 8S 9S",
        "3C 4D 5D 6D 7D JD 2S 3S 4S 5S 6S 8H TH",
        "4C 8C QD KD AD JS QS KS AS JH QH KH AH",
    )
    g = Hearts.create(4, MCGILL, 0, deal=deal)
    play(g, "2C AC 3C 4C")  # seat 1 wins and leads; hearts may be led (McGill)
    assert g.turn == 1
    assert ai_card(g, 1).suit != "H"


def test_does_not_lead_high_spades_while_queen_is_out() -> None:
    deal = make_deal(
        "2C 5C 6C 7C 9C TC JC QC KC 2D 3D TS 9H",
        "AC AS KS 2S 3S 8D 9D TD 2H 3H 4H 5H 6H",
        "3C 4D 5D 6D 7D JD 4S 5S 6S 7S 8S 8H TH",
        "4C 8C QD KD AD QS 9S JS 7H JH QH KH AH",
    )
    g = Hearts.create(4, MCGILL, 0, deal=deal)
    play(g, "2C AC 3C 4C")
    led = ai_card(g, 1)
    assert led not in (card("AS"), card("KS"))
    assert led in (card("2S"), card("3S"))  # a low spade to flush Q♠ out


# The moon position: seat 0 holds the top cards and takes every trick; seat 1 keeps A♥.
MOON_DEAL = (
    "2C AS KS AC KC QC AD KD QD KH QH JH TH",
    "AH 2H 3H 2S 3S 4S 5S 3C 4C 5C 2D 3D 4D",
    "QS 6S 7S 8S 6C 7C 8C 5D 6D 7D 4H 5H 6H",
    "9S TS JS 9C TC JC 8D 9D TD JD 7H 8H 9H",
)
MOON_TAIL = "AC 3C 6C 9C  AD 2D 5D 8D  KH 2H 4H 7H  KC 4C 7C TC  KD 3D 6D 9D  QC 5C 8C JC  QD 4D 7D TD"


def test_blocks_a_moon() -> None:
    g = Hearts.create(4, MCGILL, 0, deal=make_deal(*MOON_DEAL))
    play(g, "AS 2S QS 9S " + MOON_TAIL + " QH")
    assert g.hand_points == [17, 0, 0, 0] and g.trick_no == 8 and g.turn == 1
    # Seat 0 has every point with five tricks to go: A♥ takes a heart and ends the moon.
    assert ai_card(g, 1) is AH


def test_ducks_the_same_heart_when_the_leader_has_few_points() -> None:
    g = Hearts.create(4, MCGILL, 0, deal=make_deal(*MOON_DEAL))
    play(g, "AS 2S 6S 9S " + MOON_TAIL + " QH")  # Q♠ stays out: seat 0 has only 4 points
    assert g.hand_points == [4, 0, 0, 0] and g.turn == 1
    assert ai_card(g, 1) is card("3H")


# Seat 0 again takes everything; seat 1 runs out of diamonds while holding A♥.
DISCARD_DEAL = (
    "2C AS KS AC KC AD KD QD JD KH QH JH TH",
    "AH 2H 3H 2S 3S 4S 5S 3C 4C 5C QC 2D 3D",
    "QS 6S 7S 8S 6C 7C 8C 4D 5D 6D 4H 5H 6H",
    "9S TS JS 9C TC JC 7D 8D 9D TD 7H 8H 9H",
)


def test_discards_no_points_onto_a_shooter() -> None:
    g = Hearts.create(4, MCGILL, 0, deal=make_deal(*DISCARD_DEAL))
    play(g, "AS 2S QS 9S  AD 2D 4D 7D  KD 3D 5D 8D  KH 2H 4H 7H  QD")
    assert g.hand_points == [17, 0, 0, 0] and g.turn == 1
    # Void in diamonds: normally A♥ would go, but not onto the seat collecting every point.
    chosen = ai_card(g, 1)
    assert chosen.suit != "H"
    assert chosen is card("QC")


def test_discards_a_high_heart_when_nobody_is_shooting() -> None:
    g = Hearts.create(4, MCGILL, 0, deal=make_deal(*DISCARD_DEAL))
    play(g, "AS 2S 6S 9S  AD 2D 4D 7D  KD 3D 5D 8D  KH 2H 4H 7H  QD")
    assert g.hand_points == [4, 0, 0, 0] and g.turn == 1
    assert ai_card(g, 1) is AH


# ---- issue 18: the weaknesses the strong level's measurement found ---------------------------
def test_does_not_lead_spades_from_under_its_own_queen() -> None:
    deal = make_deal(
        "2C 5C 6C 7C 9C TC JC QC KC 2D 3D TS 9H",
        "AC QS 8S 4S 2H 3H 4H 5H 6H 8D 9D TD 7H",
        "3C 4D 5D 6D 7D JD 2S 3S 5S 6S 7S 8H TH",
        "4C 8C QD KD AD 9S JS KS AS JH QH KH AH",
    )
    g = Hearts.create(4, MCGILL, 0, deal=deal)
    play(g, "2C AC 3C 4C")
    assert g.turn == 1
    # A♠ and K♠ are out: 4♠ or 8♠ would strip the cover of our own Q♠.
    assert ai_card(g, 1).suit != "S"


def _position(hands: list[str], trick: str, leader: int, trick_no: int) -> Hearts:
    """A McGill position made by hand: the given hands, the current trick led by ``leader``, and
    every other card already won by seat 0."""
    g = Hearts.create(4, MCGILL, 0)
    g.hands = [list(cards(h)) for h in hands]
    played = [(leader + i) % 4 for i in range(len(trick.split()))]
    g.trick = list(zip(played, cards(trick), strict=True))
    held = {c for h in g.hands for c in h} | {c for _, c in g.trick}
    g.won = [[c for c in sorted(DECK, key=lambda c: c.index) if c not in held], [], [], []]
    g.trick_no, g.leader = trick_no, leader
    g.turn = (leader + len(g.trick)) % 4
    g.hearts_broken = True
    g._legal = None
    return g


def test_discards_a_card_that_can_still_take_a_lead_before_one_nobody_can_lead_to() -> None:
    # Seat 1 is void in hearts; nobody else holds a diamond, so nobody can ever lead to its K♦,
    # while 9♣ still takes a club lead of 2♣-5♣ (held by seats 2 and 3).
    g = _position(["6H 7H 8H", "KD 9C 2S 3S", "2C 3C 4C TH", "5C 6C 9H JH"], "5H", 0, 9)
    assert ai_card(g, 1) is card("9C")


def test_remembers_who_showed_out_and_ducks_when_a_void_seat_plays_behind() -> None:
    g = _position(["6C 7C 8C 3D 4D 5D 6D 7D 8D 9D TD", "9C KC 2S 3S 4S 5S 6S 7S 8S 9S JD QD",
                   "TC JC QC AC TS JS QS KS AS KD AD 2H", "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"], "5C", 0, 1)
    # Seat 3 threw 2♦ on the first club trick: it will throw a heart on this one too.
    g.history = [(0, tuple(cards("2C 3C 4C 2D")))]
    assert ai_card(g, 1) is card("9C")
    g.history = []  # without that memory, plenty of clubs are out and K♣ looked safe to spend
    assert ai_card(g, 1) is card("KC")


def test_the_search_compares_one_card_of_each_run_of_equivalent_ones() -> None:
    from games.hearts.ai import equivalent_runs

    deal = make_deal(
        "2C 3C 5C 9C TC AD KD QD 2D 4H 5H JS QS",
        "4C 6C 7C 8C JC 3D 4D 5D 6D 7D 8D 9D TD",
        "QC KC AC JD 2H 3H 6H 7H 8H 9H TH JH QH",
        "KH AH 2S 3S 4S 5S 6S 7S 8S 9S TS KS AS",
    )
    g = Hearts.create(4, MCGILL, 0, deal=deal)
    hooks = engine.get("hearts").search
    runs = {a.cards[0].code for a in hooks.candidates(g, 0)}
    # 2C 3C touch; 9C TC touch; 5C alone (4C is out); AD KD QD touch; 2D alone; 4H 5H touch (a heart
    # costs a point whichever); JS and QS touch, but Q♠ costs 13: a run of its own.
    assert len(runs) == 8
    assert sum(1 for c in runs if c in ("2C", "3C")) == 1 and "5C" in runs and "2D" in runs
    assert sum(1 for c in runs if c in ("AD", "KD", "QD")) == 1 and {"JS", "QS"} <= runs
    assert sum(1 for c in runs if c in ("4H", "5H")) == 1
    # The normal player's card stands for its run.
    assert ai_card(g, 0).code in runs
    # A card on the table splits a run: seat 1, to follow the 5C, holds 4C and 6C 7C 8C apart, and
    # JC alone (9C TC are out).
    play(g, "5C")
    assert len(equivalent_runs(g, 1)) == 3
    # Cards gone in earlier tricks join them: with 5C and 6C played, 4C 7C 8C take the same tricks.
    play(g, "6C QC KH  AC 2S 2C")
    runs = {a.cards[0].code for a in equivalent_runs(g, 1)}
    assert len(runs) == 2 and "JC" in runs


def test_play_out_makes_the_same_moves_as_choose() -> None:
    from games.hearts.ai import play_out

    ai = HeartsAI()
    for seed in range(60):
        rules = "classic" if seed % 3 else "mcgill"
        g = Hearts.create(4, {"rules": rules, "target": 1 if seed % 2 else 100}, seed)
        rng = random.Random(seed)
        while g.phase == "pass":
            for s in g.to_act():
                g.apply(s, ai.choose(g, s, rng))
        for _ in range(rng.randrange(0, 50)):
            g.apply(g.turn, g.random_action(g.turn, rng))
        fast, slow = g.copy(), g.copy()
        play_out(fast, ai)
        while slow.phase == "play" and slow.hand_no == g.hand_no:
            slow.apply(slow.turn, ai.choose(slow, slow.turn, rng))
        assert fast.to_dict() == slow.to_dict()
        assert fast.hand_no != g.hand_no or fast.is_over


def test_knowledge_counts_cards_above_and_below_as_a_plain_count_would() -> None:
    from games.hearts.ai import _Knowledge

    for seed in range(12):
        g = Hearts.create(4, {"rules": "classic", "target": 1}, seed)
        ai, rng = HeartsAI(), random.Random(seed)
        while not g.is_over:
            s = g.to_act()[0]
            k = _Knowledge(g, s)
            for c in DECK:
                assert k.unseen_above(c) == sum(1 for v in k.unseen[c.suit] if v > c.value)
                assert k.unseen_below(c) == sum(1 for v in k.unseen[c.suit] if v < c.value)
            g.apply(s, ai.choose(g, s, rng))
