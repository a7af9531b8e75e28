"""One scenario per rule of docs/rules.md §5 (Siege), with fixed deals and crafted states."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

import games.siege.rules  # noqa: F401  (registers the game)
from engine.cards import card
from engine.core import Action, IllegalAction, get
from games.siege.rules import DECK, Siege, SiegeCardError, pile_score, siege_card, siege_cards

C = siege_card


def pile(text: str) -> list:
    return list(siege_cards(text))

H_NUMBERS = "2H 3H 4H 5H 6H 7H 8H 9H TH"


def crafted(
    turn: int = 0,
    phase: str = "build",
    hands: tuple[str, str, str, str] = ("", "", "", ""),
    kings: tuple[str, str, str, str] = ("", "", "", ""),
    houses: dict[int, list[str | None]] | None = None,
    stock: str | None = None,
    discard: str = "",
    **options,
) -> Siege:
    """A mid-game state.  ``houses`` maps a seat to its three slots (each a string of codes, the
    special card first, or None).  Cards not mentioned become the stock (next draw last) unless
    ``stock`` is given, in which case they are left out of the game."""
    d = Siege.create(4, options, seed=1).to_dict()
    slots = {s: [None, None, None] for s in range(4)}
    slots.update(houses or {})
    used = Counter()
    for text in (*hands, *kings, discard, stock or ""):
        used.update(siege_cards(text))
    for piles in slots.values():
        for p in piles:
            if p is not None:
                used.update(siege_cards(p))
    left = Counter(DECK) - used
    assert not used - Counter(DECK), "a crafted state holds cards the deck does not"
    rest = [c.code for c, n in left.items() for _ in range(n)]
    d.update(
        turn=turn,
        phase=phase,
        hands=[text.split() for text in hands],
        kings=[text.split() for text in kings],
        houses=[[None if p is None else p.split() for p in slots[s]] for s in range(4)],
        stock=rest if stock is None else stock.split(),
        discard=discard.split(),
        attacked=[],
        last_attack=None,
    )
    return Siege.from_dict(d)


def act(g: Siege, code: str, seat: int | None = None) -> list:
    return g.apply(g.turn if seat is None else seat, Siege.action_from_code(code))


def refused(g: Siege, code: str, expect: str, seat: int | None = None) -> IllegalAction:
    """``code`` is refused with error code ``expect`` and the state is exactly as it was."""
    before = g.to_dict()
    legal = {a.code for a in g.legal(g.turn)}
    with pytest.raises(IllegalAction) as e:
        act(g, code, seat)
    assert e.value.code == expect, e.value.reason
    assert g.to_dict() == before
    assert code not in legal
    return e.value


def legal_codes(g: Siege) -> set[str]:
    return {a.code for a in g.legal(g.turn)}


# ---- the deck and the seats -----------------------------------------------------------------
def test_deck_is_96_cards_a_to_q_of_four_suits_and_four_blanks_of_each_rank():
    counts = Counter(DECK)
    assert len(DECK) == 96
    suited = [c for c in counts if c.suit != "X"]
    blanks = [c for c in counts if c.suit == "X"]
    assert len(suited) == 48 and all(counts[c] == 1 for c in suited)
    assert len(blanks) == 12 and all(counts[c] == 4 for c in blanks)
    assert {c.rank for c in counts} == set("A23456789TJQ")  # no kings
    assert C("TH").label == "10♥" and C("5X").label == "blank 5" and str(C("5X")) == "5X"
    assert C("5X").name == "blank five" and C("QS").name == "queen of spades"


def test_cards_are_interned_immutable_values_read_forgivingly():
    assert C("5X") is C("5 blank") is C("blank five") is C("5▫") is C("5x")
    assert C("10h") is C("TH") is C("10♥") is C("ten of hearts")
    assert C("qs") is C("Q♠")
    with pytest.raises(AttributeError):
        C("5H").rank = "6"
    with pytest.raises(SiegeCardError, match="no kings"):
        C("KH")
    with pytest.raises(SiegeCardError):
        C("zz")


def test_seats_own_hearts_spades_diamonds_clubs_in_that_order():
    g = Siege.create(4, {}, seed=3)
    assert [g.view(s)["suit"] for s in range(4)] == ["H", "S", "D", "C"]
    assert Siege.min_players == Siege.max_players == 4
    with pytest.raises(ValueError):
        Siege.create(3, {}, seed=3)


# ---- rule 1: draw up to 5; reshuffle ----------------------------------------------------------
def test_a_fixed_deal_gives_each_seat_its_first_five_cards_in_turn():
    deal = [siege_cards("2H 3H QX 5X 5X"), siege_cards("2S 3S JS 7X 7X"),
            siege_cards("2D 3D AD 9X 9X"), siege_cards("2C 3C QC TX TX")]
    g = Siege.create(4, {}, seed=5, deal=deal)
    assert g.turn == 0 and sorted(g.view(0)["hand"]) == sorted("2H 3H QX 5X 5X".split())
    for seat in range(1, 4):
        act(g, "end")
        assert g.turn == seat and Counter(g.hands[seat]) == Counter(deal[seat])
    assert Counter(g.all_cards()) == Counter(DECK)
    fresh = [Siege.create(4, {}, seed=seed, deal=deal).stock for seed in (5, 6)]
    assert fresh[0][-15:] == fresh[1][-15:] and fresh[0] != fresh[1]  # the rest is shuffled by the seed
    with pytest.raises(ValueError):
        Siege.create(4, {}, seed=5, deal=[*deal[:3], siege_cards("2H 3C QC TX TX")])  # 2H twice
    with pytest.raises(ValueError):
        Siege.create(4, {}, seed=5, deal=[*deal[:3], [*deal[3], C("4C")]])  # six cards
    with pytest.raises(ValueError):
        Siege.create(4, {}, seed=5, deal=[*deal, [C("4C")]])  # a fifth list must complete the deck


def test_the_draw_deals_five_on_top_of_cards_won_earlier():
    """RULES §5.1 (seed: "the player might already have some cards"): 5 more, not up to 5."""
    g = crafted(turn=0, hands=("2H", "4S 5S 6X", "", ""))
    stock = len(g.stock)
    events = act(g, "end")
    assert g.turn == 1 and len(g.hands[1]) == 8 and len(g.stock) == stock - 5
    assert Counter(siege_cards("4S 5S 6X")) <= Counter(g.hands[1])
    assert any(e.kind == "draw" and e.seat == 1 and e.data == (5,) for e in events)
    # Six cards won: still five more.
    g = crafted(turn=0, hands=("", "2S 3S 4S 5X 6X 7X", "", ""))
    act(g, "end")
    assert len(g.hands[1]) == 11


def test_discard_pile_is_shuffled_into_a_new_stock_when_the_stock_runs_out():
    g = crafted(turn=0, hands=("2H", "", "", ""), stock="4X 3X", discard="5X 6X 7X 8X 9X TX 2X 3D")
    events = act(g, "end")  # discards 2H, then seat 1 draws 3X 4X, reshuffles, draws 3 more
    kinds = [e.kind for e in events]
    assert kinds.index("reshuffle") < kinds.index("draw")
    assert next(e for e in events if e.kind == "reshuffle").data == (9,)
    assert len(g.hands[1]) == 5 and Counter(siege_cards("3X 4X")) <= Counter(g.hands[1])
    assert g.discard == [] and len(g.stock) == 6
    again = crafted(turn=0, hands=("2H", "", "", ""), stock="4X 3X", discard="5X 6X 7X 8X 9X TX 2X 3D")
    act(again, "end")
    assert again.to_dict() == g.to_dict()  # the reshuffle is seeded


def test_draw_stops_short_when_stock_and_discard_are_both_empty():
    g = crafted(turn=0, hands=("", "", "", ""), stock="4X", discard="")
    act(g, "end")  # seat 0 discards nothing
    assert g.turn == 1 and [c.code for c in g.hands[1]] == ["4X"] and g.stock == [] and g.discard == []


# ---- rule 2: attacks ----------------------------------------------------------------------------
def test_attack_won_by_the_attacker_takes_the_defenders_numbers_and_discards_both_specials_and_attacker():
    g = crafted(turn=0, phase="attack",
                houses={0: ["QX 7X 7X", None, None], 2: ["JD 4D 5D 6D", "AS 5S", None]})
    events = act(g, "attack 1 3")  # 4 beats 3
    assert g.houses[2] == [None, pile("AS 5S"), None]  # the defending pile is broken up
    assert g.houses[0] == [None, None, None]  # the winning attacker is discarded after the fight
    assert Counter(g.hands[0]) == Counter(siege_cards("4D 5D 6D"))
    assert Counter(g.discard) == Counter(siege_cards("JD QX 7X 7X"))
    assert g.last_attack["winner"] == 0 and (g.last_attack["attack_score"], g.last_attack["defend_score"]) == (4, 3)
    assert [e.kind for e in events][:3] == ["attack", "fight", "discarded"]


def test_attack_lost_gives_the_defender_the_attackers_numbers_and_the_defending_pile_stays():
    g = crafted(turn=0, phase="attack", hands=("", "", "2S", ""),
                houses={0: ["JX 4X 5X", None, None], 2: ["QD 9X 9X", None, None]})
    act(g, "attack 1 3")  # 2 against 4
    assert g.houses[2][0] == pile("QD 9X 9X") and g.houses[0][0] is None
    assert Counter(g.hands[2]) == Counter(siege_cards("2S 4X 5X"))  # won cards join the hand
    assert g.discard == [C("JX")]
    assert g.last_attack["winner"] == 2


def test_a_tie_goes_to_the_defender():
    g = crafted(turn=0, phase="attack", houses={0: ["JX 4X 5X", None, None], 1: ["AH 7C 8C", None, None]})
    act(g, "attack 1 2")
    assert g.last_attack["attack_score"] == g.last_attack["defend_score"] == 2
    assert g.last_attack["winner"] == 1 and g.houses[1][0] == pile("AH 7C 8C")
    assert Counter(g.hands[1]) == Counter(siege_cards("4X 5X"))


def test_an_attack_meets_the_rivals_pile_closest_to_the_king_pile():
    g = crafted(turn=0, phase="attack", houses={0: ["QX 7X 7X", None, None], 3: [None, "JC 2C", "QC 5X 5X 6X 6X"]})
    act(g, "attack 1 4")
    assert g.last_attack["target_slot"] == 2 and g.houses[3][1] is None and g.houses[3][2] is not None


def test_no_attack_on_yourself_or_on_a_player_without_house_piles():
    g = crafted(turn=0, phase="attack",
                houses={0: ["QX 7X 7X", "JH", None], 1: ["JS 2S", None, None]})
    assert legal_codes(g) >= {"attack 1 2", "attack 2 2"}
    assert not any(a.startswith("attack") and a.endswith((" 1", " 3", " 4")) for a in legal_codes(g))
    refused(g, "attack 1 1", "self_attack")
    refused(g, "attack 1 3", "no_target")
    refused(g, "attack 3 2", "empty_slot")
    refused(g, "attack 1 5", "bad_seat")


def test_each_house_pile_attacks_at_most_once_per_turn():
    g = crafted(turn=0, phase="attack",
                houses={0: ["QX 7X 7X", "QH 8X 8X", None], 1: ["JS 2S", None, None], 2: ["JD 2D", None, None]})
    act(g, "attack 1 2")
    assert g.phase == "attack" and g.view(0)["attacked"] == [1]
    refused(g, "attack 1 3", "already_attacked")
    act(g, "attack 2 3")
    assert g.phase == "build"  # no pile left to attack with: the attack step is over


def test_attacks_come_before_building():
    g = crafted(turn=0, phase="attack", hands=("QH 2H", "", "", ""),
                houses={0: ["QX 7X 7X", None, None], 1: ["JS 2S", None, None]})
    events = act(g, "start QH 2")  # building ends the attack step
    assert g.phase == "build" and [e.kind for e in events] == ["build", "start"]
    refused(g, "attack 1 2", "wrong_phase")
    g = crafted(turn=0, phase="attack", houses={0: ["QX 7X 7X", None, None], 1: ["JS 2S", None, None]})
    act(g, "build")
    assert g.phase == "build" and not any(a.startswith("attack") for a in legal_codes(g))


def test_the_attack_step_is_skipped_when_no_attack_is_possible():
    g = crafted(turn=3, hands=("", "", "", ""), houses={0: ["QX 7X 7X", None, None]})
    act(g, "end")  # seat 0 has a pile but nobody else does
    assert g.turn == 0 and g.phase == "build"
    g = crafted(turn=3, houses={0: ["QX 7X 7X", None, None], 2: ["JD", None, None]})
    act(g, "end")
    assert g.phase == "attack" and "attack 1 3" in legal_codes(g)


# ---- rule 3: building ---------------------------------------------------------------------------
def test_a_queen_jack_or_ace_starts_a_pile_in_an_empty_slot_only():
    g = crafted(turn=0, hands=("QH JX AC 5X 5H", "", "", ""), houses={0: [None, "JS", None]})
    assert {a for a in legal_codes(g) if a.startswith("start")} == {
        f"start {c} {s}" for c in ("QH", "JX", "AC") for s in (1, 3)}
    refused(g, "start QH 2", "slot_taken")
    refused(g, "start 5X 1", "not_special")
    refused(g, "place QH 1", "not_number")
    refused(g, "start QS 1", "not_in_hand")
    act(g, "start JX 3")
    assert g.houses[0][2] == [C("JX")] and pile_score(g.houses[0][2]) == 0


def test_king_pile_takes_only_number_cards_of_your_own_suit():
    g = crafted(turn=1, hands=("", "5S 5H 5X", "", ""))
    assert {a for a in legal_codes(g) if a.endswith("king")} == {"place 5S king"}
    refused(g, "place 5H king", "wrong_suit")
    refused(g, "place 5X king", "wrong_suit")
    act(g, "place 5S king")
    assert g.kings[1] == [C("5S")] and g.public_view()["scores"] == [0, 1, 0, 0]


def test_queen_pile_takes_pairs_a_new_number_only_when_every_number_is_paired():
    g = crafted(turn=0, hands=("2S 2X 5H 5D 7X 2D", "", "", ""), houses={0: ["QX 2C", None, None]})
    refused(g, "place 5H 1", "does_not_fit")  # the lone 2 needs its pair first (the seed's example)
    act(g, "place 2S 1")
    act(g, "place 5H 1")  # every number paired: a single new number may come
    refused(g, "place 7X 1", "does_not_fit")
    act(g, "place 2X 1")  # more of a number already there is always fine
    act(g, "place 5D 1")
    act(g, "place 7X 1")
    assert pile_score(g.houses[0][0]) == 2 * 6 and g.view(0)["houses"][0][0] == {
        "kind": "queen", "special": "QX", "cards": ["2C", "2S", "5H", "2X", "5D", "7X"], "score": 12}


def test_jack_pile_takes_its_suit_and_a_blank_jack_takes_blanks():
    g = crafted(turn=0, hands=("4D 4X 9D 9X", "", "", ""), houses={0: ["JD", "JX", None]})
    refused(g, "place 4X 1", "does_not_fit")
    refused(g, "place 4D 2", "does_not_fit")
    for code in ("place 4D 1", "place 9D 1", "place 4X 2", "place 9X 2"):
        act(g, code)
    assert pile_score(g.houses[0][0]) == 2 and pile_score(g.houses[0][1]) == 2


def test_ace_pile_stays_a_straight_built_at_either_end():
    g = crafted(turn=0, hands=("5S 6X 4H 8D 5X 7C", "", "", ""), houses={0: ["AC", None, None]})
    act(g, "place 5S 1")  # one card is a straight
    act(g, "place 6X 1")
    act(g, "place 4H 1")  # the low end grows too
    refused(g, "place 8D 1", "does_not_fit")  # a gap
    refused(g, "place 5X 1", "does_not_fit")  # a repeated number is no straight
    act(g, "place 7C 1")
    assert pile_score(g.houses[0][0]) == 4  # cards without the ace


def test_ace_pile_holding_a_two_counts_the_ace_too():
    g = crafted(turn=0, hands=("2X", "", "", ""), houses={0: ["AX 3D 4S", None, None]})
    assert pile_score(g.houses[0][0]) == 2
    act(g, "place 2X 1")
    assert pile_score(g.houses[0][0]) == 4 and g.view(1)["houses"][0][0]["score"] == 4


def test_all_nine_on_the_king_pile_wins_at_once():
    g = crafted(turn=2, hands=("", "", "TD 5X", ""), kings=("2H 3H", "2S", "2D 3D 4D 5D 6D 7D 8D 9D", "2C 3C 4C"))
    events = act(g, "place TD king")
    assert g.is_over and g.to_act() == () and g.decision(2) is None
    assert [e.kind for e in events][-2:] == ["win", "game_end"]
    out = g.outcome()
    assert out.winners == (2,) and out.scores == (2, 1, 9, 3) and out.places == (3, 4, 1, 2)
    refused(g, "end", "game_over", seat=2)


# ---- rule 4: reordering -------------------------------------------------------------------------
def test_swap_exchanges_two_slots_during_the_build_step():
    g = crafted(turn=0, houses={0: ["QX 7X 7X", None, "JH"]})
    assert {a for a in legal_codes(g) if a.startswith("swap")} == {"swap 1 2", "swap 1 3", "swap 2 3"}
    act(g, "swap 1 3")
    assert g.houses[0] == [[C("JH")], None, pile("QX 7X 7X")]
    act(g, "swap 2 3")  # into an empty slot
    assert g.houses[0][1] == pile("QX 7X 7X") and g.houses[0][2] is None
    g = crafted(turn=0, houses={0: [None, "JH", None]})
    refused(g, "swap 1 3", "empty_slot")
    refused(g, "swap 2 2", "bad_slot")
    refused(g, "swap 2 4", "bad_slot")


# ---- rule 5: the end of the turn --------------------------------------------------------------
def test_end_discards_the_hand_and_is_always_legal():
    g = crafted(turn=0, phase="attack", hands=("QH 2D 3X", "", "", ""),
                houses={0: ["QX 7X 7X", None, None], 1: ["JS 2S", None, None]})
    assert g.outcome() is None and "end" in legal_codes(g)
    events = act(g, "end")
    assert g.hands[0] == [] and Counter(g.discard) == Counter(siege_cards("QH 2D 3X"))
    assert events[0].kind == "end" and events[0].data == (3,) and events[0].to is None
    assert next(e for e in events if e.kind == "discard").to == 0  # face down: only the player sees them
    assert g.turn == 1 and "end" in legal_codes(g)


def test_every_decision_has_the_turn_timer():
    g = crafted(turn=0, phase="attack", houses={0: ["QX 7X 7X", None, None], 1: ["JS 2S", None, None]})
    assert g.decision(0).timer == 90 and g.decision(0).kind == "attack" and g.decision(1) is None
    act(g, "build")
    assert g.decision(0).timer == 90 and g.decision(0).kind == "build"


def test_not_your_turn_and_unknown_actions_change_nothing():
    g = crafted(turn=0, hands=("2H", "2S", "", ""))
    refused(g, "place 2S king", "not_your_turn", seat=1)
    refused(g, "fly", "bad_action")
    refused(g, "place 2H 7", "bad_slot")
    refused(g, "place 2H", "bad_args")
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        g.apply(0, Action("place", (card("KH"),), ("king",)))
    assert e.value.code == "bad_card" and g.to_dict() == before


# ---- table option: max_rounds ---------------------------------------------------------------
def test_max_rounds_ends_the_game_ranked_by_king_pile_progress_ties_shared():
    g = crafted(turn=3, kings=("2H 3H", "2S 3S", "", "2C"), max_rounds=2)
    g.turn_no = 7  # the last turn of round 2
    events = act(g, "end")
    assert g.is_over and events[-1].kind == "game_end" and g.winner is None
    out = g.outcome()
    assert out.scores == (2, 2, 0, 1) and out.winners == (0, 1) and out.places == (1, 1, 4, 3)
    g = crafted(turn=3, max_rounds=2)
    g.turn_no = 6
    act(g, "end")
    assert not g.is_over and g.turn == 0 and g.round() == 2
    assert Siege.read_options(None) == {"max_rounds": 0}  # unlimited by default
    with pytest.raises(ValueError):
        Siege.read_options({"max_rounds": -1})


# ---- what each seat may see ------------------------------------------------------------------
def test_a_view_never_lists_another_seats_hand():
    for seed in range(30):
        g = get("siege").game.create(4, {"max_rounds": 8}, seed)
        rng = random.Random(seed)
        while not g.is_over:
            for seat in range(4):
                v = g.view(seat)
                assert v["hand"] == sorted(v["hand"], key=lambda x: ("HSDCX".index(x[1]), C(x).value))
                assert Counter(v["hand"]) == Counter(c.code for c in g.hands[seat])
                on_table = {c.code for pile in g.kings for c in pile} | {
                    c.code for h in g.houses for p in h if p for c in p}
                shown = set(json.dumps(v).replace('"', " ").replace(",", " ").replace("]", " ").split())
                for other in range(4):
                    if other != seat:
                        secret = {c.code for c in g.hands[other]} - on_table - {c.code for c in g.hands[seat]}
                        secret -= set((g.last_attack or {}).get("taken", ())) | set(
                            (g.last_attack or {}).get("discarded", ()))
                        assert not secret & shown, f"seat {seat} sees seat {other}'s {secret & shown}"
                assert v["hand_counts"] == [len(h) for h in g.hands]
            assert "hand" not in g.public_view()
            seat = g.turn
            g.apply(seat, g.random_action(seat, rng))


def test_hidden_cards_leave_out_codes_shown_elsewhere_since_blank_codes_repeat():
    g = crafted(turn=0, hands=("5X", "5X 7D", "", "9X"), houses={2: ["QX 9X 9X", None, None]})
    assert g.hidden_from(None) == {"5X", "7D"}
    assert g.hidden_from(0) == {"7D"}  # seat 0 holds a 5X itself: the code shows in its own hand
    assert g.hidden_from(1) == set()
    assert "9X" not in g.hidden_from(2)


def test_state_round_trips_through_json_exactly():
    g = Siege.create(4, {"max_rounds": 5}, seed=11)
    rng = random.Random(11)
    while not g.is_over:
        data = json.loads(json.dumps(g.to_dict()))
        r = Siege.from_dict(data)
        assert r.to_dict() == g.to_dict() and r.legal(r.turn) == g.legal(g.turn)
        g.apply(g.turn, g.random_action(g.turn, rng))


# ---- codes and text ---------------------------------------------------------------------------
def test_action_codes_round_trip_and_people_can_type_loosely():
    for a in (Action("place", (C("5X"),), ("king",)), Action("start", (C("QH"),), ("2",)),
              Action("attack", (), ("1", "3")), Action("swap", (), ("1", "3")), Action("end")):
        assert Siege.action_from_code(a.code) == a
    g = crafted(turn=0, phase="attack", hands=("5H QX 5X", "", "", ""),
                houses={0: ["JX", None, None], 1: ["JS 2S", None, None]})
    p = g.parse_action
    assert p(0, "5h king") == Action("place", (C("5H"),), ("king",))
    assert p(0, "place 5♥ k").code == "place 5H king"
    assert p(0, "5 blank 1").code == "place 5X 1"
    assert p(0, "q▫ 2").code == "start QX 2"
    assert p(0, "attack 1 ♠").code == "attack 1 2"
    assert p(0, "done").code == "end" and p(0, "BUILD").code == "build"
    with pytest.raises(IllegalAction):
        p(0, "kh king")
    with pytest.raises(IllegalAction):
        p(1, "end")
    # half-typed moves are refused with a sentence, never a crash
    for text in ("start", "place", "play", "attack 1 x", "attack 1 ?"):
        try:
            a = p(0, text)
        except IllegalAction as e:
            assert e.reason
        else:
            with pytest.raises(IllegalAction):
                g.apply(0, a)


# ---- games end --------------------------------------------------------------------------------
def test_random_games_end_by_a_complete_king_pile_within_a_move_cap():
    """Unlimited rounds: random players still finish (measured: 30 seeds, at most ~2,000 actions)."""
    finished = 0
    for seed in range(20):
        g = Siege.create(4, {}, seed)
        rng = random.Random(seed)
        for _ in range(6000):
            if g.is_over:
                break
            g.apply(g.turn, g.random_action(g.turn, rng))
        finished += g.is_over and g.winner is not None and len(g.kings[g.winner]) == 9
        assert Counter(g.all_cards()) == Counter(DECK)
    assert finished == 20


def test_unplaceable_names_exactly_the_cards_no_build_move_uses_each_with_a_reason_from_the_rules():
    """Along random games: a card is listed iff no legal start or place moves it, each distinct card
    once; the reason names every pile it was measured against; another seat's turn lists nothing."""
    from games.siege.rules import defending_slot

    met = Counter()
    for seed in range(6):
        g = Siege.create(4, {"max_rounds": 4}, seed=seed)
        rng = random.Random(seed)
        while not g.is_over:
            seat = g.turn
            used = {a.cards[0].code for a in g.legal(seat) if a.kind in ("start", "place")}
            listed = g.unplaceable(seat)
            codes = [c.code for c, _ in listed]
            assert len(codes) == len(set(codes))
            assert set(codes) == set(g.view(seat)["hand"]) - used
            for c, why in listed:
                met[c.is_number] += 1
                if c.is_number:
                    assert why.startswith("your King pile takes only ")
                    piles = [p for p in g.houses[seat] if p is not None]
                    assert why.count(" pile ") == 1 + (len(piles) or 1)  # (the King pile; each house pile, or none yet)
                    # The move the reason stands for is refused by the engine too.
                    for i in range(3):
                        with pytest.raises(IllegalAction):
                            g.copy().apply(seat, Action("place", (c,), (str(i + 1),)))
                else:
                    assert all(p is not None for p in g.houses[seat]) and "all three slots" in why
            assert all(g.unplaceable(s) == [] for s in range(4) if s != seat)
            g.apply(seat, g.random_action(seat, rng))
        assert g.unplaceable(g.turn) == []
    assert met[True] > 20  # (number cards met often; a full house row more rarely)
    assert defending_slot([None, [1], None]) == 1 and defending_slot([None, None, None]) is None
