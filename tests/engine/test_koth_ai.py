"""The King of the Hill computer player: always legal, better than chance, and sensible in the
positions people recognise (declaring, burying, calling, pairs, feeding a partner, taking points)."""

from __future__ import annotations

import random
from collections import Counter

import games.koth.rules  # noqa: F401  (registers the game)
from engine.cards import card, cards
from engine.core import TABLE, Action, get
from games.koth.ai import KothAI
from games.koth.rules import KingOfTheHill
from games.koth.trump import Trump
from tests.engine.test_koth_rules import crafted, deal_until, make_deal, new, play

AI_ = KothAI()


def choose(g: KingOfTheHill, seat: int) -> Action:
    return AI_.choose(g, seat, random.Random(0))


def play_round(seed: int, ai_seats: set[int], **options) -> KingOfTheHill:
    """One round; AI seats act through the AI (declaring only when they want to), the others at
    random (declaring rarely, as people hesitate)."""
    g = KingOfTheHill.create(5, {"rounds": 1, **options}, seed)
    rng = random.Random(seed)
    while not g.is_over:
        acting = g.to_act()
        if TABLE in acting:
            move = None
            for s in acting[:-1]:
                if s in ai_seats:
                    move = AI_.choose_optional(g, s, rng)
                elif rng.random() < 0.05:
                    move = g.random_action(s, rng)
                if move is not None:
                    g.apply(s, move)
                    break
            if move is None:
                g.apply(TABLE, g.table_timer()[1])
            continue
        s = acting[0]
        if s in ai_seats:
            d = g.decision(s)
            a = AI_.choose(g, s, rng)
            if d.pick:
                assert a.kind == d.kind and len(a.cards) == d.pick
                assert not Counter(a.cards) - Counter(d.cards)
            else:
                assert a in d.actions, (a, d.actions)
        else:
            a = g.random_action(s, rng)
        g.apply(s, a)
    return g


# ---- legality, determinism, strength -------------------------------------------------------------
def test_registered_as_the_koth_ai():
    assert get("koth").ai is KothAI


def test_always_legal_and_never_reneges_in_whole_rounds():
    for seed in range(40):
        opts = {"called_copy": "second", "ready_trick": 1} if seed % 2 else {}
        g = play_round(seed, set(range(5)), **opts)
        assert g.is_over and g.last_round is not None


def test_deterministic():
    a = play_round(3, set(range(5))).to_dict()
    b = play_round(3, set(range(5))).to_dict()
    assert a == b


def test_its_side_wins_more_rounds_than_random_players_do():
    ai_wins = random_wins = 0
    rounds = 150
    for seed in range(rounds):
        me = seed % 5
        g = play_round(seed, {me})
        lr = g.last_round
        held = lr["challenge_score"] < 80
        won = [(s in lr["defenders"]) == held for s in range(5)]
        ai_wins += won[me]
        random_wins += sum(won) - won[me]
    assert ai_wins / rounds > random_wins / (4 * rounds) + 0.12


def test_uses_only_what_its_seat_may_see():
    """Reshuffling the cards the seat cannot see never changes its choice."""
    checked = moved = 0
    for seed in range(12):
        g = KingOfTheHill.create(5, {"rounds": 1, "ready_round": 0}, seed)
        rng = random.Random(seed)
        shuffle_rng = random.Random(100 + seed)
        while not g.is_over:
            acting = g.to_act()
            seat = rng.choice(acting)
            if seat != TABLE and (g.phase in ("play", "call", "bury", "suit") or checked % 7 == 0):
                other = _reshuffle_hidden(g, seat, shuffle_rng)
                moved += other.to_dict()["hands"] != g.to_dict()["hands"]
                mine = AI_.choose_optional(g, seat, random.Random(1))
                assert AI_.choose_optional(other, seat, random.Random(1)) == mine
                checked += 1
            g.apply(seat, g.random_action(seat, rng))
    assert checked > 500 and moved > checked // 2


def _reshuffle_hidden(g: KingOfTheHill, seat: int, rng: random.Random) -> KingOfTheHill:
    d = g.to_dict()
    # Declared cards were shown: they stay with their declarer.
    declared: dict[int, Counter] = {s: Counter() for s in range(5)}
    for s, code, n in d["declarations"]:
        declared[s][code] = max(declared[s][code], n)
    others = [s for s in range(5) if s != seat]
    pool: list[str] = []
    keep: dict[int, list[str]] = {}
    for s in others:
        pinned = Counter(declared[s])
        kept: list[str] = []
        for c in d["hands"][s]:
            if pinned.get(c, 0) > 0:
                pinned[c] -= 1
                kept.append(c)
            else:
                pool.append(c)
        keep[s] = kept
    pool += d["stock"]
    hide_buried = d["koth"] != seat
    if hide_buried:
        pool += d["buried"]
    rng.shuffle(pool)
    for s in others:
        n = len(d["hands"][s]) - len(keep[s])
        d["hands"][s] = keep[s] + pool[:n]
        del pool[:n]
    d["stock"], pool = pool[: len(d["stock"])], pool[len(d["stock"]):]
    if hide_buried:
        d["buried"] = pool[: len(d["buried"])]
    return KingOfTheHill.from_dict(d)


# ---- ready and declaring ---------------------------------------------------------------------------
def test_says_ready_at_once():
    g = KingOfTheHill.create(5, {}, 1)
    assert all(choose(g, s) == Action("ready") for s in range(5))


def test_declares_with_a_strong_trump_holding_and_not_with_a_weak_one():
    strong = new(make_deal({0: "2H AH KH QH 9H 7H ~R 4C", 1: "2S 3C 4C 5C 6C 7D 8D 9D"}))
    deal_until(strong, 40)  # eight cards each
    assert AI_.choose_optional(strong, 0, random.Random(0)) == Action("declare", (card("2H"),))
    assert AI_.choose_optional(strong, 1, random.Random(0)) is None  # one trump in eight: wait


def test_locks_its_own_single_with_the_pair_and_overrides_only_for_a_better_suit():
    g = new(make_deal({0: "2H AH KH QH 9H 7H ~R 2H", 1: "2S 2S 3C 4C 5C 6C 7D 8D"}))
    deal_until(g, 35)  # seven each: seat 0 has the single only
    g.apply(0, Action("declare", (card("2H"),)))
    assert AI_.choose_optional(g, 1, random.Random(0)) is None  # a pair, but spades are no better for it
    deal_until(g, 40)
    assert AI_.choose_optional(g, 0, random.Random(0)) == Action("declare", cards("2H 2H"))


def test_koth_choosing_the_suit_takes_its_longest():
    g = crafted(["AS KS QS 9S 7S 3S 3C 4D", "9C", "9C", "9C", "9C"], koth=0)
    g.phase = "suit"
    assert choose(g, 0) == Action("suit", (), ("S",))


# ---- burying and calling ------------------------------------------------------------------------------
def test_buries_a_short_suit_to_void_it_and_the_points_it_cannot_protect():
    hand = cards("~R 2H 2S AH KH 9H 5H 3H AS AS QS 9S 8S 7S 6S 4S KC TC 3C 9D 7D 6D 4D QC JC 8C 7C 6C")
    # Without a dead-hand bonus (multiplier 0), burying points costs nothing.
    chosen = AI_.choose_bury(hand, Trump("H", "2"), multiplier=0)
    assert len(chosen) == 8 and not Counter(chosen) - Counter(hand)
    assert {card("9D"), card("7D"), card("6D"), card("4D")} <= set(chosen)  # diamonds voided
    assert {card("KC"), card("TC")} <= set(chosen)  # clubs without the ace: its points go under
    assert not {card("~R"), card("2H"), card("2S"), card("AH"), card("AS")} & set(chosen)


def test_keeps_points_out_of_the_bury_when_the_dead_hand_bonus_makes_it_costly():
    hand = cards("~R 2H 2S AH KH 9H 5H 3H AS AS QS 9S 8S 7S 6S 4S KC TC 3C 9D 7D 6D 4D QC JC 8C 7C 6C")
    for mult in (1, 2, 3):
        chosen = AI_.choose_bury(hand, Trump("H", "2"), multiplier=mult)
        assert len(chosen) == 8 and not Counter(chosen) - Counter(hand)
        assert not any(c.rank in "5TK" for c in chosen), chosen  # a challenger's last trick would pay x mult
        assert {card("9D"), card("7D"), card("6D"), card("4D")} <= set(chosen)  # still voids diamonds
    # The AI's bury decision reads the table's multiplier.
    g = crafted([" ".join(c.code for c in hand), "9C", "9C", "9C", "9C"], koth=0)
    g.phase = "bury"
    a = choose(g, 0)
    assert a.kind == "bury" and not any(c.rank in "5TK" for c in a.cards)


def test_calls_an_ace_it_does_not_hold():
    g = crafted(["AS AS KS 9S 3C 4C 5C 6C 7C 8C 9D TD", "9C", "9C", "9C", "9C"], koth=0)
    g.phase = "call"
    a = choose(g, 0)
    assert a.kind == "call" and a.cards[0].rank == "A" and a.cards[0] not in g.hands[0]
    assert a.cards[0].suit != "H"  # a plain ace, not a trump
    assert a.cards[0] is card("AC")  # its longest plain suit: it can lead clubs to find the partner


def test_with_the_second_copy_calls_an_ace_whose_other_copy_it_holds():
    g = crafted(["AS KS 9S 3C 4C 5C 6C 7C 8C 9D TD", "9C", "9C", "9C", "9C"], koth=0, called_copy="second")
    g.phase = "call"
    assert choose(g, 0) == Action("call", (card("AS"),))


def test_does_not_call_an_ace_it_buried():
    g = crafted(["KS 9S 3C 4C 5C 6C 7C 8C 9D TD", "9C", "9C", "9C", "9C"], koth=0, buried="AC AC AD AD")
    g.phase = "call"
    assert choose(g, 0).cards[0] not in (card("AC"), card("AD"))


# ---- playing ---------------------------------------------------------------------------------------------
def test_leads_a_winning_pair():
    g = crafted(["AS AS 3S 7C 9D", "9C", "9C", "9C", "9C"])
    assert choose(g, 0) == Action("play", cards("AS AS"))


def test_feeds_points_to_a_partner_who_is_winning_the_trick():
    g = crafted(["AS 3C", "3S 3C", "8D 3C", "TS 4S 3C", "5C 3C"], koth=0, teammate=3, called="AH", call_done=True)
    play(g, 0, "AS")
    play(g, 1, "3S")
    play(g, 2, "8D")
    assert choose(g, 3) == Action("play", (card("TS"),))


def test_does_not_give_points_to_the_other_side():
    g = crafted(["KS 3C", "AS 3C", "8D 3C", "TS 4S 3C", "5C 3C"], koth=1, teammate=2, called="AH", call_done=True,
                leader=0)
    play(g, 0, "KS")
    play(g, 1, "AS")  # the KotH wins it so far
    play(g, 2, "8D")
    assert choose(g, 3) == Action("play", (card("4S"),))


def test_takes_points_from_the_challengers_with_the_cheapest_winner():
    g = crafted(["KS 3C", "TS 3C", "5S 3C", "AS QS 9S 3C", "5C 3C"], koth=3, teammate=None, called="AH",
                leader=0)
    play(g, 0, "KS")
    play(g, 1, "TS")
    play(g, 2, "5S")
    assert choose(g, 3) == Action("play", (card("AS"),))  # 25 points: only the ace beats the king


def test_a_challenger_trumps_in_when_void_to_take_points_from_the_koth():
    g = crafted(["9C 3C", "KS 3C", "4D 3C", "7H 4D 3C", "5C 3C"], koth=1, teammate=None, called="AD",
                call_done=True, leader=1)
    play(g, 1, "KS")
    play(g, 2, "4D")
    assert choose(g, 3) == Action("play", (card("7H"),))
