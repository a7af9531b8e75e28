"""One scenario per rule of docs/rules.md §4 (King of the Hill), with fixed deals and crafted states."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from engine.cards import Card, card, cards
from engine.core import TABLE, Action, IllegalAction, rng_for
from games.koth.ai import KothAI
from games.koth.rules import DECK, KingOfTheHill, points_of, trick_winner
from games.koth.trump import TRUMPS, Trump

HEARTS_2 = Trump("H", "2")


# ---- helpers ----------------------------------------------------------------------------------
def make_deal(spec: dict[int, str], dead: str = "") -> list[list[Card]]:
    """Five hands of 20 (in the order each seat receives them) and the dead hand: the given cards
    first, the rest filled from the double deck with the 2s and jokers kept for the dead hand, so
    only the seats a test names hold trump-rank cards."""
    hands = [list(cards(spec.get(s, ""))) for s in range(5)]
    dead_cards = list(cards(dead))
    pool = Counter(DECK)
    pool.subtract(c for h in hands for c in h)
    pool.subtract(dead_cards)
    assert all(n >= 0 for n in pool.values()), "the spec uses a card more than twice"
    rest = sorted(pool.elements(), key=lambda c: (c.rank == "2", c.suit == "~", c.index))
    tail = rest[len(rest) - (8 - len(dead_cards)):]
    rest = rest[: len(rest) - len(tail)]
    for h in hands:
        while len(h) < 20:
            h.append(rest.pop(0))
    return [*hands, dead_cards + tail]


def new(deal: list[list[Card]] | None = None, seed: int = 1, **options: Any) -> KingOfTheHill:
    return KingOfTheHill.create(5, {"ready_round": 0, **options}, seed=seed, deal=deal)


def deal_until(g: KingOfTheHill, count: int) -> None:
    while g.deal_count < count:
        g.apply(TABLE, Action("deal"))


def dealt_to(g: KingOfTheHill, seat: int, nth: int) -> int:
    """How many cards are dealt once ``seat`` has received its ``nth`` card (1-based)."""
    return (nth - 1) * 5 + (seat - g.start) % 5 + 1


def declare(g: KingOfTheHill, seat: int, codes: str) -> list:
    return g.apply(seat, Action("declare", cards(codes)))


def play(g: KingOfTheHill, seat: int, codes: str) -> list:
    return g.apply(seat, Action("play", cards(codes)))


def crafted(hands: list[str], *, trump: tuple[str, str] = ("H", "2"), koth: int = 0, leader: int | None = None,
            teammate: int | None = None, called: str | None = None, call_done: bool = False,
            points: list[int] | None = None, buried: str = "", ranks: list[int] | None = None,
            trick: list[tuple[int, str]] | None = None, round_no: int = 2, **options: Any) -> KingOfTheHill:
    """A game in the play phase with the given hands (the rest of the state made consistent enough
    for the rule under test)."""
    g = new(None, **options)
    d = g.to_dict()
    leader = koth if leader is None else leader
    tr = [[s, code.split()] for s, code in (trick or [])]
    d.update(
        phase="play", hands=[h.split() for h in hands], stock=[], deal_count=100, trump=list(trump),
        trump_how="declared", koth=koth, start=koth, leader=leader,
        turn=(leader + len(tr)) % 5, teammate=teammate, called=called, call_done=call_done,
        points=points or [0] * 5, buried=buried.split(), dead=buried.split(), ranks=ranks or [2] * 5,
        trick=tr, round_no=round_no, declared=None, declarations=[],
    )
    return KingOfTheHill.from_dict(d)


def at_last_trick(*, koth: int = 0, teammate: int | None = None, points: list[int], winner_is: int,
                  buried: str = "5D 5D TD KD 3C 4C 6C 7C", ranks: list[int] | None = None,
                  **options: Any) -> KingOfTheHill:
    """Every seat holds one card; the last trick carries no points and ``winner_is`` wins it
    (it holds the only trump, A♥, and the others hold low clubs)."""
    hands = ["3S"] * 5
    hands[winner_is] = "AH"
    return crafted(hands, koth=koth, leader=koth, teammate=teammate, called="AS" if teammate is not None else None,
                   call_done=teammate is not None, points=points, buried=buried, ranks=ranks, **options)


def finish_last_trick(g: KingOfTheHill) -> list:
    events = []
    while g.phase == "play":
        s = g.turn
        events += g.apply(s, Action("play", g.legal_plays(s)[0]))
    return events


def hand_end(events: list) -> Any:
    return next(e for e in events if e.kind == "hand_end")


# ---- trump order (a value passed in) ----------------------------------------------------------
def test_trump_order_red_joker_black_joker_trump_rank_in_suit_other_trump_ranks_then_trump_suit():
    t = HEARTS_2
    high_to_low = cards("~R ~B 2H 2S AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H")
    for a, b in zip(high_to_low, high_to_low[1:], strict=False):
        assert t.compare(a, b) == 1 and t.compare(b, a) == -1, (a, b)
    assert all(t.effective_suit(c) == TRUMPS for c in high_to_low)
    assert t.compare(card("2S"), card("2C")) == 0 and t.compare(card("2D"), card("2S")) == 0
    assert t.compare(card("3H"), card("AS")) == 1  # the lowest trump beats a plain ace


def test_plain_suits_rank_ace_to_two_without_the_trump_rank():
    t = Trump("H", "7")
    spades = cards("AS KS QS JS TS 9S 8S 6S 5S 4S 3S 2S")
    for a, b in zip(spades, spades[1:], strict=False):
        assert t.compare(a, b) == 1
    assert t.effective_suit(card("7S")) == TRUMPS and t.effective_suit(card("8S")) == "S"
    assert t.compare(card("AS"), card("AC")) == 0  # different plain suits: neither beats the other
    assert not t.beats(card("AC"), card("2S"), "S") and t.beats(card("3S"), card("2S"), "S")


def test_ordering_is_a_value_not_a_property_of_the_card():
    c = card("5D")
    assert Trump("D", "2").effective_suit(c) == TRUMPS
    assert Trump("S", "2").effective_suit(c) == "D"
    assert Trump("S", "5").effective_suit(c) == TRUMPS
    before_declaring = Trump(None, "2")
    assert before_declaring.is_trump(card("2D")) and before_declaring.is_trump(card("~B"))
    assert not before_declaring.is_trump(card("AD"))


def test_trump_rank_cards_of_other_suits_are_equal_and_the_first_played_wins():
    g = crafted(["3C 9D", "2S 9D", "2D 9D", "2C 9D", "5C 9D"], leader=0)
    play(g, 0, "3C")
    play(g, 1, "2S")
    play(g, 2, "2D")
    play(g, 3, "2C")
    play(g, 4, "5C")
    assert g.last_trick[0] == 1 and g.leader == 1 and g.turn == 1


def test_trump_rank_in_the_trump_suit_beats_the_other_trump_ranks():
    trick = [(0, (card("3C"),)), (1, (card("2S"),)), (2, (card("2H"),)), (3, (card("2C"),)), (4, (card("~B"),))]
    assert trick_winner(HEARTS_2, trick[:4]) == 2
    assert trick_winner(HEARTS_2, trick) == 4


# ---- seats, rounds and the live deal ----------------------------------------------------------
def test_round_one_has_trump_rank_two_and_no_koth_yet():
    g = new(make_deal({}))
    assert g.phase == "deal" and g.koth is None and g.trump == Trump(None, "2") and g.round_no == 1


def test_deal_is_one_card_at_a_time_counter_clockwise_from_the_starting_player():
    deal = make_deal({})
    g = new(deal)
    assert g.to_act() == (TABLE,) and g.table_timer() == (2.0, Action("deal"))
    start = g.start
    for i in range(10):
        events = g.apply(TABLE, Action("deal"))
        seat = (start + i) % 5
        (e,) = events
        assert e.kind == "dealt" and e.seat == seat and e.to == seat and e.data == (deal[seat][i // 5],)
    assert [len(h) for h in g.hands] == [2] * 5
    deal_until(g, 100)
    assert g.hands == [list(h) for h in deal[:5]] and sorted(g.stock, key=lambda c: c.index) == sorted(
        deal[5], key=lambda c: c.index)
    assert g.phase == "late"


def test_deal_rate_option_sets_the_table_timer_and_people_cannot_deal():
    g = new(make_deal({}), deal_rate=0.5)
    assert g.table_timer() == (0.5, Action("deal"))
    d = g.decision(TABLE)
    assert d.actions == (Action("deal"),) and d.timer == 0.5
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        g.apply(0, Action("deal"))
    assert e.value.code == "not_your_turn" and g.to_dict() == before


def test_table_timer_is_set_exactly_when_the_table_acts():
    g = new(make_deal({0: "2H"}), seed=3)
    while not g.is_over:
        acting = g.to_act()
        assert (g.table_timer() is not None) == (TABLE in acting)
        if TABLE in acting:
            assert acting[-1] == TABLE and g.decision(TABLE).actions == (g.table_timer()[1],)
            g.apply(TABLE, g.table_timer()[1])
        else:
            s = acting[0]
            g.apply(s, g.legal_actions(s)[0] if g.phase != "bury" else Action("bury", tuple(g.hands[s][:8])))
        if g.round_no > 1:
            break


# ---- declaring --------------------------------------------------------------------------------
def test_a_player_holding_a_trump_rank_card_may_declare_while_dealing():
    g = new(make_deal({2: "2H"}))
    deal_until(g, dealt_to(g, 2, 1))
    assert g.to_act() == (2, TABLE)
    d = g.decision(2)
    assert d.kind == "declare" and d.actions == (Action("declare", (card("2H"),)),)
    events = declare(g, 2, "2H")
    assert len(events) == 1 and events[0].kind == "declare" and events[0].to is None
    assert g.public_view()["declaration"] == {"seat": 2, "cards": ["2H"]}
    assert g.to_act() == (TABLE,)  # nobody holds a pair: only the deal goes on


def test_once_a_single_is_declared_only_an_identical_pair_overrides_it():
    g = new(make_deal({0: "2H", 1: "2S 2S", 3: "2D 2C"}))
    deal_until(g, 10)
    declare(g, 0, "2H")
    assert g.to_act() == (1, TABLE)  # seat 3 holds two trump-rank cards, but not an identical pair
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        declare(g, 3, "2D")
    assert e.value.code == "need_pair"
    with pytest.raises(IllegalAction) as e:
        declare(g, 3, "2D 2C")
    assert e.value.code == "bad_declare"
    assert g.to_dict() == before
    declare(g, 1, "2S 2S")
    assert g.declared == (1, card("2S"), 2)


def test_the_declarer_may_strengthen_their_own_single_with_the_pair():
    g = new(make_deal({4: "2C 2C"}))
    deal_until(g, dealt_to(g, 4, 1))
    declare(g, 4, "2C")
    deal_until(g, dealt_to(g, 4, 2))
    assert g.decision(4).actions == (Action("declare", cards("2C 2C")),)
    declare(g, 4, "2C 2C")
    assert g.public_view()["declaration"] == {"seat": 4, "cards": ["2C", "2C"]}


def test_a_declared_pair_is_final():
    g = new(make_deal({0: "2H 2H", 1: "2S 2S"}))
    deal_until(g, 100)
    declare(g, 0, "2H 2H")
    assert g.to_act() == (TABLE,) and g.decision(1) is None
    with pytest.raises(IllegalAction) as e:
        declare(g, 1, "2S 2S")
    assert e.value.code == "declared_final"


def test_jokers_and_other_ranks_cannot_declare():
    g = new(make_deal({0: "~R ~R 3H 2D"}))
    deal_until(g, 100)
    assert g.decision(0).actions == (Action("declare", (card("2D"),)),)
    for code, why in (("~R", "bad_declare"), ("~R ~R", "bad_declare"), ("3H", "bad_declare"), ("2S", "not_in_hand")):
        with pytest.raises(IllegalAction) as e:
            declare(g, 0, code)
        assert e.value.code == why


def test_late_window_of_three_seconds_takes_declarations_then_the_table_closes_it():
    g = new(make_deal({3: "2S"}))
    deal_until(g, 100)
    assert g.phase == "late" and g.table_timer() == (3.0, Action("close")) and g.to_act() == (3, TABLE)
    declare(g, 3, "2S")
    events = g.apply(TABLE, Action("close"))
    assert g.trump == Trump("S", "2") and g.trump_how == "declared"
    assert any(e.kind == "trump" and e.data == ("S", "2", "declared") for e in events)
    with pytest.raises(IllegalAction):
        declare(g, 3, "2S")


def test_in_round_one_the_player_holding_the_final_declaration_becomes_koth():
    g = new(make_deal({0: "2H", 2: "2C 2C"}))
    deal_until(g, 100)
    declare(g, 0, "2H")
    declare(g, 2, "2C 2C")
    g.apply(TABLE, Action("close"))
    assert g.koth == 2 and g.trump == Trump("C", "2") and g.phase == "bury"


def test_round_one_without_a_declaration_picks_a_random_suit_and_a_random_koth():
    picks = set()
    for seed in range(12):
        g = new(make_deal({}), seed=seed)
        deal_until(g, 100)
        events = g.apply(TABLE, Action("close"))
        rng = rng_for(seed, "fallback", 1)
        suit = rng.choice("CDHS")
        assert (g.trump.suit, g.koth, g.trump_how) == (suit, rng.randrange(5), "random")
        assert events[0].kind == "trump" and events[0].seat == g.koth
        picks.add((g.trump.suit, g.koth))
    assert len(picks) > 3  # really random, not a fixed default


def later_round(koth: int, ranks: list[int], spec: dict[int, str], **options: Any) -> KingOfTheHill:
    """Round 2 about to be dealt from a fixed deal, after everyone said ready."""
    g = KingOfTheHill.create(5, {"ready_round": 5, **options}, seed=5)
    d = g.to_dict()
    d.update(koth=koth, ranks=ranks, round_no=2, stock=[c.code for c in KingOfTheHill._stock_from(
        make_deal(spec), koth)])
    g = KingOfTheHill.from_dict(d)
    for s in range(5):
        g.apply(s, Action("ready"))
    return g


def test_later_rounds_start_with_the_koth_and_use_the_koths_rank():
    g = later_round(3, [2, 4, 2, 9, 2], {3: "9D"})
    assert g.phase == "deal" and g.start == 3 and g.trump == Trump(None, "9")
    events = g.apply(TABLE, Action("deal"))
    assert events[0].seat == 3 and g.hands[3] == [card("9D")]
    assert g.decision(3).actions == (Action("declare", (card("9D"),)),)


def test_later_round_without_a_declaration_gives_the_koth_five_seconds_to_choose():
    g = later_round(1, [2, 5, 2, 2, 2], {})
    deal_until(g, 100)
    events = g.apply(TABLE, Action("close"))
    assert g.phase == "suit" and events == [events[0]] and events[0].kind == "suit_choice"
    # A required move of the KotH (asked, pinged, its own 5 s deadline), not an optional one beside
    # a table step (RULES §4.4).
    assert g.to_act() == (1,) and g.table_timer() is None and g.decision(TABLE) is None
    d = g.decision(1)
    assert d.timer == 5.0 and [a.code for a in d.actions] == ["suit C", "suit D", "suit H", "suit S"]
    with pytest.raises(IllegalAction) as e:
        g.apply(0, Action("suit", (), ("H",)))
    assert e.value.code == "not_your_turn"
    g.apply(1, g.parse_action(1, "hearts"))
    assert g.trump == Trump("H", "5") and g.trump_how == "chosen" and g.koth == 1 and g.phase == "bury"


def test_later_round_koth_who_lets_the_time_pass_gets_the_ais_suit():
    # §4.9: the timeout move is the AI's choice (no rule-made move of its own, unlike the call).
    g = later_round(1, [2, 5, 2, 2, 2], {})
    deal_until(g, 100)
    g.apply(TABLE, Action("close"))
    assert g.timeout_action(1) is None
    chosen = KothAI().choose(g, 1, random.Random(0))
    assert chosen in g.decision(1).actions
    g.apply(1, chosen)
    assert g.trump.suit == chosen.args[0] and g.phase == "bury"


def test_a_log_from_when_the_suit_was_a_table_step_still_replays():
    g = later_round(1, [2, 5, 2, 2, 2], {})
    deal_until(g, 100)
    g.apply(TABLE, Action("close"))
    g.apply(TABLE, Action("close"))
    assert g.trump == Trump(rng_for(5, "fallback", 2).choice("CDHS"), "5") and g.trump_how == "random"


# ---- the dead hand ------------------------------------------------------------------------------
def test_koth_takes_the_dead_hand_privately_and_buries_any_eight_within_sixty_seconds():
    deal = make_deal({1: "2H"}, dead="AS AS KS KS QS QS JS JS")
    g = new(deal)
    deal_until(g, 100)
    declare(g, 1, "2H")
    events = g.apply(TABLE, Action("close"))
    dead = next(e for e in events if e.kind == "dead_hand")
    assert dead.to == 1 and sorted(c.code for c in dead.data) == sorted(c.code for c in deal[5])
    assert len(g.hands[1]) == 28
    d = g.decision(1)
    assert d.kind == "bury" and d.pick == 8 and len(d.cards) == 28 and d.timer == 60.0
    assert g.view(1)["dead_hand"] and "dead_hand" not in g.view(0)
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        g.apply(1, Action("bury", cards("AS AS KS KS QS QS JS")))
    assert e.value.code == "wrong_count"
    with pytest.raises(IllegalAction) as e:
        g.apply(1, Action("bury", cards("AS AS AS KS QS QS JS JS")))
    assert e.value.code == "not_in_hand"
    assert g.to_dict() == before
    buried = tuple(g.hands[1][:8])  # any 8: here the first cards dealt, not the dead hand
    events = g.apply(1, Action("bury", buried))
    assert events == [events[0]] and events[0].kind == "buried" and events[0].data == ()
    assert len(g.hands[1]) == 20 and g.buried == list(buried) and g.phase == "call"
    assert g.view(1)["buried"] == [c.code for c in buried] and "buried" not in g.view(2)


# ---- the call ------------------------------------------------------------------------------------
def to_call(g: KingOfTheHill) -> KingOfTheHill:
    deal_until(g, 100)
    if g.declared is None:
        declare(g, g.to_act()[0], g.decision(g.to_act()[0]).actions[0].code[8:])
    g.apply(TABLE, Action("close"))
    g.apply(g.koth, Action("bury", tuple(g.hands[g.koth][20:])))
    return g


def test_call_is_any_card_but_jokers_and_trump_rank_cards_within_fifteen_seconds():
    g = to_call(new(make_deal({0: "2H"})))
    d = g.decision(0)
    called = {a.cards[0].code for a in d.actions}
    assert d.timer == 15.0 and len(called) == 48 and not called & {"~R", "~B", "2H", "2S", "2C", "2D"}
    assert "AH" in called  # a trump-suit card may be called
    for code in ("~B", "2S"):
        with pytest.raises(IllegalAction) as e:
            g.apply(0, Action("call", cards(code)))
        assert e.value.code == "bad_call"
    events = g.apply(0, Action("call", cards("AS")))
    assert events[0].kind == "call" and g.called == card("AS") and g.phase == "play" and g.turn == 0


def test_when_the_fifteen_seconds_pass_without_a_call_nobody_is_enlisted():
    """RULES §4.6 (seed step 11): the call's timeout enlists nobody — not a card the AI picks."""
    g = to_call(new(make_deal({0: "2H"})))
    timeout = g.timeout_action(0)
    assert timeout is not None and timeout not in g.decision(0).actions  # never offered to a person
    assert g.timeout_action(1) is None
    events = g.apply(0, timeout)
    assert [e.kind for e in events] == ["call"] and events[0].data == () and events[0].to is None
    assert g.called is None and g.phase == "play" and g.turn == 0
    pv = g.public_view()
    assert pv["called"] is None and pv["alone"] and pv["defenders"] == [0]
    # Nobody joins whatever they play, and the round is scored with the KotH alone.
    rng = random.Random(1)
    while g.phase == "play":
        seat = g.to_act()[0]
        assert not any(e.kind in ("teammate", "alone") for e in g.apply(seat, g.random_action(seat, rng)))
    assert g.last_round["defenders"] == [0]


def test_the_first_player_to_play_the_called_card_joins_the_defenders():
    g = crafted(["3S 9C", "AS 9C", "4S 9C", "AS 9C", "5S 9C"], called="AS")
    play(g, 0, "3S")
    events = play(g, 1, "AS")
    assert any(e.kind == "teammate" and e.seat == 1 for e in events)
    assert g.teammate == 1 and g.public_view()["defenders"] == [0, 1]
    play(g, 2, "4S")
    play(g, 3, "AS")
    assert g.teammate == 1


def test_called_copy_second_makes_the_second_copys_player_the_teammate():
    g = crafted(["3S 9C", "AS 9C", "4S 9C", "AS 9C", "5S 9C"], called="AS", called_copy="second")
    play(g, 0, "3S")
    assert not any(e.kind == "teammate" for e in play(g, 1, "AS")) and g.teammate is None
    play(g, 2, "4S")
    play(g, 3, "AS")
    assert g.teammate == 3


def test_a_koth_who_plays_the_called_card_first_defends_alone():
    g = crafted(["AS 9C", "3S 9C", "4S 9C", "AS 9C", "5S 9C"], called="AS")
    events = play(g, 0, "AS")
    assert any(e.kind == "alone" and e.seat == 0 for e in events)
    for s, c in ((1, "3S"), (2, "4S"), (3, "AS"), (4, "5S")):
        play(g, s, c)
    assert g.teammate is None and g.public_view()["alone"] and g.public_view()["defenders"] == [0]


def test_nobody_playing_the_called_card_leaves_the_koth_alone():
    g = at_last_trick(points=[0, 0, 30, 0, 0], winner_is=0)
    g.called = card("AS")  # both copies buried or never played
    end = hand_end(finish_last_trick(g))
    assert end.data[1] == -1 and g.last_round["defenders"] == [0]


# ---- tricks ---------------------------------------------------------------------------------------
def test_the_leader_plays_one_card_or_an_identical_pair():
    g = crafted(["3S 3S 4S 2C ~R", "9C"] + ["9D"] * 3)
    assert {tuple(c.code for c in p) for p in g.legal_plays(0)} == {
        ("3S",), ("4S",), ("2C",), ("~R",), ("3S", "3S")}
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        play(g, 0, "3S 4S")
    assert e.value.code == "bad_lead" and g.to_dict() == before


def test_a_follower_with_a_pair_of_the_led_suit_must_play_a_pair():
    g = crafted(["3S 3S", "9S 9S 4S KD", "5C 5C", "5C 5C", "5C 5C"])
    play(g, 0, "3S 3S")
    assert [tuple(c.code for c in p) for p in g.legal_plays(1)] == [("9S", "9S")]
    with pytest.raises(IllegalAction) as e:
        play(g, 1, "9S 4S")
    assert e.value.code == "must_follow"


def test_a_follower_without_a_pair_plays_as_many_cards_of_the_led_suit_as_held_up_to_two():
    g = crafted(["3S 3S", "9S 4S KS KD", "5C 5C", "5C 5C", "5C 5C"])
    play(g, 0, "3S 3S")
    assert {tuple(sorted(c.code for c in p)) for p in g.legal_plays(1)} == {
        ("4S", "9S"), ("4S", "KS"), ("9S", "KS")}
    with pytest.raises(IllegalAction):
        play(g, 1, "9S KD")


def test_a_follower_with_one_card_of_a_led_pairs_suit_must_play_it():
    g = crafted(["3S 3S", "9S KD QD QD", "5C 5C", "5C 5C", "5C 5C"])
    play(g, 0, "3S 3S")
    plays = {tuple(sorted(c.code for c in p)) for p in g.legal_plays(1)}
    assert plays == {("9S", "KD"), ("9S", "QD")}
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        play(g, 1, "QD QD")
    assert e.value.code == "must_follow" and g.to_dict() == before
    play(g, 1, "KD 9S")  # either order names the same play


def test_a_follower_void_in_the_led_suit_plays_anything_of_the_count_led():
    g = crafted(["3S 3S", "KD QD QD 4C", "5C 5C", "5C 5C", "5C 5C"])
    play(g, 0, "3S 3S")
    plays = {tuple(sorted(c.code for c in p)) for p in g.legal_plays(1)}
    assert plays == {("KD", "QD"), ("4C", "KD"), ("4C", "QD"), ("QD", "QD")}
    with pytest.raises(IllegalAction) as e:
        play(g, 1, "KD")
    assert e.value.code == "wrong_count"


def test_a_single_lead_must_be_followed_in_suit_and_all_trumps_are_one_suit():
    g = crafted(["3H 9C", "2S AS", "~B 4D", "AC 4D", "5C 4D"])
    play(g, 0, "3H")  # a trump lead: the trump-rank 2♠ and the joker follow it
    assert [p for p in g.legal_plays(1)] == [(card("2S"),)]
    with pytest.raises(IllegalAction) as e:
        play(g, 1, "AS")
    assert e.value.code == "must_follow"
    play(g, 1, "2S")
    assert g.legal_plays(2) == [(card("~B"),)]
    play(g, 2, "~B")
    assert len(g.legal_plays(3)) == 2  # no trump: anything
    play(g, 3, "AC")
    play(g, 4, "5C")
    assert g.last_trick[0] == 2 and g.turn == 2


def test_the_highest_of_the_led_suit_or_of_trumps_wins_and_leads_next():
    g = crafted(["9S 3C", "AS 3C", "AC 3C", "4H 3C", "KS 3C"])
    play(g, 0, "9S")
    play(g, 1, "AS")
    play(g, 2, "AC")  # an off-suit ace does nothing
    play(g, 3, "4H")  # a low trump takes it
    play(g, 4, "KS")
    assert g.last_trick[0] == 3 and g.leader == 3 and g.turn == 3 and g.points[3] == 10


def test_a_pair_lead_cannot_be_won_by_two_different_cards():
    lead = (0, cards("3C 3C"))
    assert trick_winner(HEARTS_2, [lead, (1, cards("2S 2D"))]) == 0  # equal trump ranks, not identical
    assert trick_winner(HEARTS_2, [lead, (1, cards("~R ~B"))]) == 0
    assert trick_winner(HEARTS_2, [lead, (1, cards("AC KC"))]) == 0
    assert trick_winner(HEARTS_2, [lead, (1, cards("4C 4C"))]) == 1
    assert trick_winner(HEARTS_2, [lead, (1, cards("5H 5H"))]) == 1
    g = crafted(["3C 3C 9D", "2S 2D 9D", "AC KC 9D", "4D 4D 9D", "6D 7D 9D"])
    for s, c in enumerate(("3C 3C", "2S 2D", "AC KC", "4D 4D", "6D 7D")):
        play(g, s, c)
    assert g.last_trick[0] == 0 and g.points[0] == 10


def test_of_equal_plays_the_first_wins_also_for_pairs():
    g = crafted(["3C 3C 9D", "2S 2S 9D", "2D 2D 9D", "4D 4D 9D", "6D 6D 9D"])
    for s, c in enumerate(("3C 3C", "2S 2S", "2D 2D", "4D 4D", "6D 6D")):
        play(g, s, c)
    assert g.last_trick[0] == 1


def test_points_are_fives_tens_and_kings_two_hundred_in_all():
    assert points_of(cards("5S TD KH")) == 25 and points_of(cards("QS AS JS ~R 2H 9C")) == 0
    assert points_of(DECK) == 200


def test_each_play_has_ten_seconds():
    g = crafted(["9S", "AS", "AC", "4H", "KS"])
    assert g.decision(0).timer == 10.0 and g.decision(1) is None


# ---- scoring, rank changes and the next KotH ------------------------------------------------------
THRESHOLDS = [
    # challenge score, defence holds, gain
    (0, True, 3), (5, True, 2), (40, True, 2), (45, True, 1), (75, True, 1),
    (80, False, 0), (115, False, 0), (120, False, 1), (155, False, 1), (160, False, 2), (195, False, 2),
    (200, False, 3), (215, False, 3),
]


@pytest.mark.parametrize("score,holds,gain", THRESHOLDS)
def test_challenge_score_thresholds_at_0_40_80_120_160_200(score, holds, gain):
    g = at_last_trick(koth=1, teammate=3, points=[score, 25, 0, 60, 0], winner_is=1, ranks=[5, 5, 5, 5, 5])
    end = hand_end(finish_last_trick(g))
    lr = g.last_round
    assert lr["challenge_score"] == score and lr["dead_hand_bonus"] == 0 and end.data[2] == score
    if holds:
        assert g.koth == 3 and g.ranks == [5, 5 + gain, 5, 5 + gain, 5]
    else:
        assert g.koth == 2 and g.ranks == [5 + gain, 5, 5 + gain, 5, 5 + gain]
    assert lr["gain"] == gain and end.data[8] == gain


def test_the_dead_hand_counts_twice_only_when_a_challenger_takes_the_last_trick():
    buried = "5D 5D TD KD 3C 4C 6C 7C"  # 30 points
    held = at_last_trick(koth=0, teammate=2, points=[0, 20, 0, 0, 0], winner_is=2, buried=buried)
    finish_last_trick(held)
    assert held.last_round["dead_hand_bonus"] == 0 and held.last_round["challenge_score"] == 20
    lost = at_last_trick(koth=0, teammate=2, points=[0, 20, 0, 0, 0], winner_is=4, buried=buried)
    end = hand_end(finish_last_trick(lost))
    assert lost.last_round["dead_hand_bonus"] == 60 and lost.last_round["challenge_score"] == 80
    assert end.data[4:7] == (30, 60, 4)
    assert lost.koth == 1  # 80: the hill changes hands


def test_dead_hand_multiplier_option():
    g = at_last_trick(koth=0, points=[0, 0, 0, 0, 0], winner_is=3, dead_hand_multiplier=3)
    finish_last_trick(g)
    assert g.last_round["dead_hand_bonus"] == 90


def test_successful_defence_passes_the_hill_to_the_teammate_or_keeps_the_koth():
    with_mate = at_last_trick(koth=0, teammate=4, points=[0, 10, 0, 0, 0], winner_is=0)
    finish_last_trick(with_mate)
    assert with_mate.koth == 4 and with_mate.start == 4
    alone = at_last_trick(koth=0, points=[0, 10, 0, 0, 0], winner_is=0)
    finish_last_trick(alone)
    assert alone.koth == 0


def test_failed_defence_passes_the_hill_to_the_next_non_defender_counter_clockwise():
    g = at_last_trick(koth=4, teammate=0, points=[0, 100, 0, 0, 0], winner_is=4)
    finish_last_trick(g)
    assert g.koth == 1  # after 4 comes 0 (a defender), then 1
    g = at_last_trick(koth=2, points=[0, 100, 0, 0, 0], winner_is=2)
    finish_last_trick(g)
    assert g.koth == 3


def test_ranks_stop_at_ace_and_the_next_round_uses_the_new_koths_rank():
    g = at_last_trick(koth=0, teammate=1, points=[0, 0, 0, 0, 0], winner_is=0, ranks=[13, 12, 2, 2, 2])
    finish_last_trick(g)
    assert g.ranks == [14, 14, 2, 2, 2] and not g.is_over  # reaching A is not yet a win
    assert g.phase == "deal" and g.round_no == 3 and g.koth == 1 and g.trump == Trump(None, "A")


# ---- the end of the game ----------------------------------------------------------------------------
def test_a_rank_a_koth_defending_successfully_wins_the_game():
    g = at_last_trick(koth=0, points=[0, 10, 0, 0, 0], winner_is=0, ranks=[14, 2, 2, 2, 13])
    events = finish_last_trick(g)
    assert g.is_over and g.outcome().winners == (0,) and g.outcome().places[0] == 1
    assert any(e.kind == "game_end" for e in events)


def test_a_rank_a_teammate_defending_successfully_wins_the_game():
    g = at_last_trick(koth=0, teammate=2, points=[0, 10, 0, 0, 0], winner_is=0, ranks=[3, 2, 14, 2, 2])
    finish_last_trick(g)
    assert g.is_over and g.outcome().winners == (2,)


def test_a_rank_a_koth_whose_defence_fails_does_not_win():
    g = at_last_trick(koth=0, points=[0, 100, 0, 0, 0], winner_is=0, ranks=[14, 2, 2, 2, 2])
    finish_last_trick(g)
    assert not g.is_over and g.koth == 1


def test_rounds_option_ends_the_game_and_the_highest_rank_wins():
    g = at_last_trick(koth=0, points=[0, 130, 0, 0, 0], winner_is=0, ranks=[6, 5, 2, 5, 3], rounds=2)
    finish_last_trick(g)
    # challengers climb 1 (130): [6, 6, 3, 6, 4]; three share the top
    out = g.outcome()
    assert g.is_over and g.ranks == [6, 6, 3, 6, 4] and out.winners == (0, 1, 3)
    assert out.places == (1, 1, 5, 1, 4)
    assert g.public_view()["last_round"]["dead_hand"]  # the finished round is face up


def test_a_full_round_from_a_fixed_deal_to_scoring_adds_up():
    g = new(make_deal({0: "2H"}), rounds=1)
    to_call(g)
    g.apply(0, Action("call", cards("AS")))
    events = []
    while not g.is_over:
        s = g.to_act()[0]
        events += g.apply(s, Action("play", g.legal_plays(s)[-1]))
    lr = g.last_round
    taken = sum(e.data[1] for e in events if e.kind == "trick")
    assert taken + lr["dead_hand_points"] == 200
    defenders = set(lr["defenders"])
    expected = sum(p for s, p in enumerate(g.points) if s not in defenders) + lr["dead_hand_bonus"]
    assert lr["challenge_score"] == expected


# ---- ready acknowledgements ---------------------------------------------------------------------------
def test_everyone_acknowledges_readiness_before_a_round_with_the_options_delay():
    g = KingOfTheHill.create(5, {}, seed=2)
    assert g.phase == "round_ready" and g.to_act() == (0, 1, 2, 3, 4) and g.table_timer() is None
    assert g.decision(3).actions == (Action("ready"),) and g.decision(3).timer == 5.0
    g.apply(3, Action("ready"))
    assert g.to_act() == (0, 1, 2, 4)
    with pytest.raises(IllegalAction) as e:
        g.apply(3, Action("ready"))
    assert e.value.code == "already_ready"
    for s in (0, 1, 2, 4):
        g.apply(s, Action("ready"))
    assert g.phase == "deal" and g.to_act() == (TABLE,)


def test_ready_before_each_trick_only_when_its_delay_is_set():
    g = crafted(["9S 3C", "AS 3C", "AC 3C", "4H 3C", "KS 3C"])
    assert g.options["ready_trick"] == 0 and g.phase == "play"  # the default 0 s skips the step
    g = crafted(["9S 3C", "AS 3C", "AC 3C", "4H 3C", "KS 3C"], ready_trick=2)
    for s, c in enumerate(("9S", "AS", "AC", "4H", "KS")):
        play(g, s, c)
    assert g.phase == "trick_ready" and g.decision(0).timer == 2.0 and len(g.to_act()) == 5
    with pytest.raises(IllegalAction) as e:
        play(g, 3, "3C")
    assert e.value.code == "wrong_phase"
    for s in range(5):
        g.apply(s, Action("ready"))
    assert g.phase == "play" and g.turn == 3


# ---- views, hidden cards and serialisation ---------------------------------------------------------------
def strings_in(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return set(obj.split())
    if isinstance(obj, dict):
        return set().union(*(strings_in(k) | strings_in(v) for k, v in obj.items())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(strings_in(v) for v in obj)) if obj else set()
    return set()


def test_views_never_list_another_seats_hand():
    g = new(make_deal({0: "2H"}), seed=4)
    to_call(g)
    g.apply(0, Action("call", cards("AS")))
    for _ in range(13):  # into the play
        s = g.to_act()[0]
        g.apply(s, Action("play", g.legal_plays(s)[0]))
    for seat in range(5):
        v = g.view(seat)
        assert v["hand"] == [c.code for c in g.sorted_hand(seat)]
        others = Counter(c.code for s in range(5) if s != seat for c in g.hands[s])
        # Both copies in other hands (the called card is only named, not shown).
        only_elsewhere = {code for code, n in others.items() if n == 2} - {"AS"}
        assert not strings_in(v) & only_elsewhere
        for key, value in v.items():
            if key != "hand" and isinstance(value, list) and value and all(isinstance(x, str) for x in value):
                for s in range(5):
                    if s != seat and g.hands[s]:
                        assert Counter(value) != Counter(c.code for c in g.hands[s]), key
        json.dumps(v)
    assert not strings_in(g.public_view()) & g.hidden_from(None)


def test_hand_is_sorted_by_effective_suit_with_trumps_first():
    g = crafted(["3C AS 2S ~B 5H 2H KD AH 4C", "9C", "9C", "9C", "9C"])
    assert g.view(0)["hand"] == ["~B", "2H", "2S", "AH", "5H", "AS", "4C", "3C", "KD"]


def test_hidden_from_lists_a_code_only_while_both_copies_are_out_of_sight():
    g = crafted(["AS 3C", "AS 4C", "KD KD", "9C", "9C"], called="QS")
    assert "AS" not in g.hidden_from(0) and "AS" in g.hidden_from(2) and "AS" in g.hidden_from(None)
    assert "KD" in g.hidden_from(0) and "KD" not in g.hidden_from(2)
    assert "QS" not in g.hidden_from(None)  # named by the call
    play(g, 0, "AS")
    assert "AS" not in g.hidden_from(None)


def test_public_view_shows_the_table_but_nothing_hidden():
    g = new(make_deal({1: "2D"}))
    deal_until(g, 30)
    declare(g, 1, "2D")
    pv = g.public_view()
    assert pv["dealt"] == 30 and pv["deal_total"] == 100 and pv["declaration"] == {"seat": 1, "cards": ["2D"]}
    assert pv["ranks"] == ["2"] * 5 and pv["trump_rank"] == "2" and pv["koth"] is None
    assert "hand" not in pv and not strings_in(pv) & g.hidden_from(None)


def test_state_round_trips_exactly_through_json_at_every_phase():
    g = KingOfTheHill.create(5, {"ready_trick": 1}, seed=9)
    seen = set()
    rng = __import__("random").Random(9)
    while g.round_no == 1 and not g.is_over:
        seen.add(g.phase)
        data = json.loads(json.dumps(g.to_dict()))
        r = KingOfTheHill.from_dict(data)
        assert r.to_dict() == g.to_dict() and r.to_act() == g.to_act()
        s = rng.choice(g.to_act())
        a = g.random_action(s, rng)
        assert r.apply(s, a) == g.apply(s, a)
    assert {"round_ready", "deal", "late", "bury", "call", "trick_ready", "play"} <= seen


def test_people_may_type_declarations_suits_and_pairs_forgivingly():
    g = new(make_deal({0: "2H 2H"}))
    deal_until(g, 100)
    assert g.parse_action(0, "2h") == Action("declare", (card("2H"),))
    assert g.parse_action(0, "2♥ 2♥") == Action("declare", cards("2H 2H"))
    p = crafted(["5H 5H 3C", "9C", "9C", "9C", "9C"])
    assert Counter(p.parse_action(0, "play 5h 5h").cards) == Counter(cards("5H 5H"))


def test_options_are_validated_with_a_sentence():
    assert KingOfTheHill.read_options(None) == {
        "rounds": 0, "called_copy": "first", "dead_hand_multiplier": 2, "deal_rate": 2,
        "ready_round": 5, "ready_trick": 0}
    with pytest.raises(ValueError, match="called_copy must be one of"):
        KingOfTheHill.read_options({"called_copy": "third"})
    with pytest.raises(ValueError):
        KingOfTheHill.create(4)
    with pytest.raises(ValueError):
        KingOfTheHill.create(5, None, 1, deal=[list(cards("2H"))] * 5)


def test_every_card_stays_in_the_game():
    g = KingOfTheHill.create(5, {"rounds": 2, "ready_round": 0}, seed=11)
    rng = __import__("random").Random(11)
    while not g.is_over:
        assert Counter(g.all_cards()) == Counter(DECK)
        s = rng.choice(g.to_act())
        g.apply(s, g.random_action(s, rng))
    assert g.outcome() is not None
