"""One scenario per rule of docs/rules.md §2 (Tricks), with fixed deals."""

import json
import random

import pytest

import games.tricks.rules  # noqa: F401  (registers the game)
from engine.cards import card
from engine.core import Action, Event, IllegalAction, replay
from games.tricks.rules import BAD_CARD_PENALTY, Tricks, order_of_hand
from tests.engine.test_conformance import playout

C = [card(r + "C") for r in "23456789TJQKA"]
D = [card(r + "D") for r in "23456789TJQKA"]
H = [card(r + "H") for r in "23456789TJQKA"]
S = [card(r + "S") for r in "23456789TJQKA"]

# Seat 0 holds every club, 1 every diamond, 2 every spade, 3 every heart: seat 0 leads clubs and
# nobody can follow, so seat 0 takes all 13 tricks of hand 0.
SUIT_SPLIT = [list(C), list(D), list(S), list(H)]
# Clubs split between seats 0 (2..8) and 1 (9..A), diamonds likewise (2..7 / 8..A).
SHARED_CLUBS = [C[:7] + D[:6], C[7:] + D[6:], list(S), list(H)]


def new(deal=None, target=1000, seed=1) -> Tricks:
    return Tricks.create(4, {"target": target}, seed=seed, deal=deal)


def play(g: Tricks, seat: int, code: str) -> list[Event]:
    return g.apply(seat, Action("play", (card(code),)))


def bad(g: Tricks, seat: int, text: str = "floober") -> list[Event]:
    return g.apply(seat, Action("bad", (), (text,)))


def finish_hand(g: Tricks) -> list[Event]:
    """Play the current hand out with the first legal card of whoever is to act."""
    hand = g.hand_no
    events: list[Event] = []
    while g.hand_no == hand and not g.is_over:
        s = g.turn
        events += g.apply(s, Action("play", (g.legal_plays(s)[0],)))
    return events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


# --- the deal --------------------------------------------------------------------------------
def test_fifty_two_cards_thirteen_each_and_a_deal_must_be_one_deck():
    g = new(seed=5)
    assert [len(h) for h in g.hands] == [13] * 4
    assert sorted(c.index for h in g.hands for c in h) == list(range(52))
    with pytest.raises(ValueError):
        new(deal=[C, D, S, H[:12] + [C[0]]])
    with pytest.raises(ValueError):
        Tricks.create(3, {}, 1)


def test_target_defaults_to_1000_and_must_be_at_least_1():
    assert Tricks.read_options(None) == {"target": 1000}
    assert Tricks.read_options({"target": "25"}) == {"target": 25}
    with pytest.raises(ValueError, match="between"):
        Tricks.read_options({"target": 0})


# --- rule 1: the order of a hand; the first player becomes last ----------------------------------
def test_hand_h_is_led_first_by_seat_h_mod_4_and_the_order_rotates_each_hand():
    assert [order_of_hand(h) for h in range(5)] == [
        (0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2), (0, 1, 2, 3)]
    g = new(seed=3)
    assert g.turn == 0 and g.order == (0, 1, 2, 3)
    for h in range(1, 6):
        events = finish_hand(g)
        deal = next(e for e in events if e.kind == "deal")
        assert deal.data == (h, *order_of_hand(h))
        start = events[-1]  # the new hand's first trick
        assert start.seat == h % 4 and start.data == (0, *order_of_hand(h))
        assert g.hand_no == h and g.leader == g.turn == h % 4
        assert g.public_view()["order"] == list(order_of_hand(h))


def test_play_goes_round_in_seat_order_from_the_leader():
    g = new(SHARED_CLUBS)
    play(g, 0, "2C")
    play(g, 1, "9C")
    assert g.turn == 2
    play(g, 2, "2S")
    assert g.turn == 3
    play(g, 3, "2H")
    assert g.turn == 1  # 9♣ won: seat 1 leads, then 2, 3, 0
    play(g, 1, "TC")
    assert g.turn == 2


# --- follow suit; the highest card of the led suit wins; no trumps --------------------------------
def test_must_follow_suit_when_able_and_an_illegal_card_changes_nothing():
    g = new(SHARED_CLUBS)
    play(g, 0, "5C")
    assert {c.code for c in g.legal_plays(1)} == {c.code for c in C[7:]}
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        play(g, 1, "8D")
    assert e.value.code == "must_follow" and "follow suit" in e.value.reason
    assert g.to_dict() == before


def test_a_player_void_in_the_led_suit_may_play_anything():
    g = new(SHARED_CLUBS)
    play(g, 0, "5C")
    play(g, 1, "9C")
    assert {c.code for c in g.legal_plays(2)} == {c.code for c in S}


def test_highest_card_of_the_led_suit_wins_and_a_higher_off_suit_card_does_not():
    g = new(SHARED_CLUBS)
    play(g, 0, "5C")
    play(g, 1, "9C")
    play(g, 2, "AS")  # an ace, but not of the led suit: no trumps
    events = play(g, 3, "AH")
    trick = next(e for e in events if e.kind == "trick")
    assert trick.seat == 1 and trick.data == (0, 1, C[3], C[7], S[12], H[12])


# --- rule 2: the winner leads; 1 point per trick; scores accumulate ------------------------------
def test_the_winner_of_a_trick_leads_the_next_one():
    g = new(SHARED_CLUBS)
    play(g, 0, "5C")
    play(g, 1, "9C")
    play(g, 2, "2S")
    events = play(g, 3, "2H")
    assert g.leader == g.turn == 1
    assert events[-1] == Event("trick_start", 1, (1, 1, 2, 3, 0))


def test_each_trick_scores_one_point_and_the_event_carries_the_winners_running_total():
    g = new(SUIT_SPLIT)
    totals = []
    for i in range(3):
        play(g, 0, C[i].code)
        play(g, 1, D[i].code)
        play(g, 2, S[i].code)
        events = play(g, 3, H[i].code)
        trick = next(e for e in events if e.kind == "trick")
        totals.append(trick.data[1])
    assert totals == [1, 2, 3] and g.scores == [3, 0, 0, 0]
    assert g.hand_tricks() == [3, 0, 0, 0]


def test_scores_accumulate_across_hands():
    g = new(SUIT_SPLIT, seed=9)
    events = finish_hand(g)
    end = next(e for e in events if e.kind == "hand_end")
    assert end.data == (0, 0, 13, 0, 0, 0, 13, 0, 0, 0)
    assert g.scores == [13, 0, 0, 0] and g.hand_no == 1
    events = finish_hand(g)
    end = next(e for e in events if e.kind == "hand_end")
    tricks, scores = end.data[2:6], end.data[6:10]
    assert sum(tricks) == 13 and list(scores) == [13 + tricks[0], *tricks[1:]] == g.scores


def test_a_hand_reports_its_events_in_protocol_order():
    g = new(SHARED_CLUBS)
    events = play(g, 0, "2C") + play(g, 1, "9C") + play(g, 2, "2S") + play(g, 3, "2H")
    assert kinds(events) == ["play", "play", "play", "play", "trick", "trick_start"]
    events = finish_hand(g)
    assert kinds(events)[-8:-6] == ["trick", "hand_end"]
    assert kinds(events)[-6:] == ["deal", "dealt", "dealt", "dealt", "dealt", "trick_start"]
    assert [e.to for e in events if e.kind == "dealt"] == [0, 1, 2, 3]


def test_opening_events_are_the_first_hands_deal_and_first_trick():
    g = new(SUIT_SPLIT)
    ev = g.opening_events()
    assert ev[0] == Event("deal", None, (0, 0, 1, 2, 3))
    assert [(e.kind, e.seat, e.to, e.data) for e in ev[1:5]] == [
        ("dealt", s, s, tuple(SUIT_SPLIT[s])) for s in range(4)]
    assert ev[5] == Event("trick_start", 0, (0, 0, 1, 2, 3))
    play(g, 0, "2C")
    with pytest.raises(ValueError):
        g.opening_events()


# --- rule 3: the game ends after the hand in which someone reaches the target --------------------
def test_reaching_the_target_mid_hand_ends_the_game_only_when_the_hand_ends():
    g = new(SUIT_SPLIT, target=4)
    for i in range(4):
        play(g, 0, C[i].code)
        play(g, 1, D[i].code)
        play(g, 2, S[i].code)
        play(g, 3, H[i].code)
    assert g.scores[0] == 4 and not g.is_over and g.to_act() == (0,)
    events = finish_hand(g)
    assert g.is_over and g.to_act() == () and g.turn is None
    assert kinds(events)[-2:] == ["hand_end", "game_end"]
    assert events[-1].data == (13, 0, 0, 0)
    with pytest.raises(IllegalAction) as e:
        play(g, 0, "2C")
    assert e.value.code == "game_over"


def test_below_the_target_a_new_hand_is_dealt():
    g = new(SUIT_SPLIT, target=14)
    finish_hand(g)
    assert not g.is_over and g.hand_no == 1 and g.scores == [13, 0, 0, 0]


def test_highest_score_wins():
    g = new(SUIT_SPLIT, target=13)
    finish_hand(g)
    out = g.outcome()
    assert out.scores == (13, 0, 0, 0) and out.winners == (0,) and out.places == (1, 2, 2, 2)


def test_ties_for_the_highest_score_share_the_win():
    d = new(SUIT_SPLIT, target=13).to_dict()
    d["scores"] = [0, 13, 4, -100]
    g = Tricks.from_dict(d)
    finish_hand(g)  # seat 0 takes all 13: 13, 13, 4, -100
    out = g.outcome()
    assert out.scores == (13, 13, 4, -100)
    assert out.winners == (0, 1) and out.places == (1, 1, 3, 4)


# --- rule 4: the bad card (program players) ------------------------------------------------------
def test_bad_card_costs_100_abandons_the_hand_rotates_and_deals_afresh():
    g = new(SHARED_CLUBS, seed=11)
    play(g, 0, "2C")
    play(g, 1, "9C")
    play(g, 2, "2S")
    play(g, 3, "2H")  # seat 1 has 1 point and leads
    play(g, 1, "TC")
    old_hands = [list(h) for h in g.hands]
    events = bad(g, 2, "floober")
    assert g.scores == [0, 1, -BAD_CARD_PENALTY, 0] and g.bad_cards == [0, 0, 1, 0]
    assert events[0] == Event("bad_card", 2, ("floober", -100))
    assert events[0].to is None  # public
    assert events[1] == Event("hand_end", None, (0, 1, 0, 1, 0, 0, 0, 1, -100, 0))
    # An abandoned hand counts as a hand: the number advances and the order rotates.
    assert events[2] == Event("deal", None, (1, 1, 2, 3, 0))
    assert g.hand_no == 1 and g.leader == g.turn == 1 and g.trick == [] and g.trick_no == 0
    # A fresh deal: all 52 cards, 13 each, not the abandoned hands.
    assert [len(h) for h in g.hands] == [13] * 4
    assert sorted(c.index for h in g.hands for c in h) == list(range(52))
    assert g.hands != old_hands
    assert [e.data for e in events if e.kind == "dealt"] == [tuple(h) for h in g.hands]


def test_bad_card_is_only_for_the_seat_to_act_and_changes_nothing_otherwise():
    g = new(SHARED_CLUBS)
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        bad(g, 1)
    assert e.value.code == "not_your_turn" and g.to_dict() == before


def test_bad_card_is_never_offered_to_people_or_chosen_at_random():
    g = new(seed=4)
    assert all(a.kind == "play" for a in g.decision(0).actions)
    with pytest.raises(IllegalAction):
        g.parse_action(0, "bad")
    with pytest.raises(IllegalAction):
        g.parse_action(0, "bad floober")
    rng = random.Random(4)
    while not g.is_over and g.hand_no < 3:
        s = g.turn
        a = g.random_action(s, rng)
        assert a.kind == "play"
        g.apply(s, a)


def test_a_bad_card_after_someone_reached_the_target_ends_the_game():
    g = new(SUIT_SPLIT, target=2)
    for i in range(2):
        play(g, 0, C[i].code)
        play(g, 1, D[i].code)
        play(g, 2, S[i].code)
        play(g, 3, H[i].code)
    play(g, 0, "5C")
    events = bad(g, 1, "10D")
    assert kinds(events) == ["bad_card", "hand_end", "game_end"]
    assert g.is_over and g.outcome().scores == (2, -100, 0, 0) and g.outcome().winners == (0,)


def test_bad_card_text_is_kept_short_and_safe_and_replays():
    g = new(SHARED_CLUBS)
    events = g.apply(0, Action("bad", (), ("|RESPONSE|card|x|END|" + "z" * 100,)))
    what = events[0].data[0]
    assert "|" not in what and len(what) <= 40
    log = [(0, Action("bad", (card("QS"),), ("and", "more")).code)]
    again, ev = replay("tricks", 4, {"target": 1000}, 1, log, deal=SHARED_CLUBS)
    bad = next(e for e in ev if e.kind == "bad_card")  # after the creation's events (the first deal)
    assert bad.data[0] == "QS and more" and again.scores[0] == -100


# --- turns, views, serialisation -----------------------------------------------------------------
def test_not_your_turn_and_card_not_in_hand_are_refused_without_change():
    g = new(SHARED_CLUBS)
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        play(g, 1, "9C")
    assert e.value.code == "not_your_turn"
    with pytest.raises(IllegalAction) as e:
        play(g, 0, "9C")
    assert e.value.code == "not_in_hand"
    with pytest.raises(IllegalAction) as e:
        g.apply(0, Action("pass", (C[0],)))
    assert e.value.code == "bad_action"
    assert g.to_dict() == before


def test_people_type_cards_forgivingly():
    g = new(SHARED_CLUBS)
    assert g.parse_action(0, "10c") == Action("play", (card("TC"),))
    assert g.parse_action(0, "play 2c") == Action("play", (card("2C"),))
    with pytest.raises(IllegalAction):
        g.parse_action(1, "9c")


def test_views_show_only_your_own_hand():
    g = new(SHARED_CLUBS)
    play(g, 0, "2C")
    pub = g.public_view()
    assert "hand" not in pub and pub["trick"] == [[0, "2C"]] and pub["cards_left"] == [12, 13, 13, 13]
    v = g.view(1)
    assert v["seat"] == 1 and set(v["hand"]) == {c.code for c in g.hands[1]}
    assert not set(json.dumps(v).replace('"', " ").split()) & g.hidden_from(1)
    assert g.hidden_from(1) == {c.code for s in (0, 2, 3) for c in g.hands[s]}


def test_serialisation_round_trips_exactly_mid_trick():
    g = new(seed=8)
    rng = random.Random(8)
    for _ in range(30):
        g.apply(g.turn, g.random_action(g.turn, rng))
    d = json.loads(json.dumps(g.to_dict()))
    r = Tricks.from_dict(d)
    assert r.to_dict() == g.to_dict() and r.view(2) == g.view(2)


def test_random_playouts_keep_the_conformance_invariants():
    for seed in range(12):
        playout("tricks", seed, Tricks.short_options[seed % 2], full=seed % 3 == 0)
    playout("tricks", 99, {"target": 30}, full=False)
