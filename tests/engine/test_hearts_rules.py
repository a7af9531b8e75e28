"""One scenario per rule of docs/rules.md §1, with fixed deals, in both rule sets."""

import pytest

from engine.cards import card, cards
from engine.core import Action, IllegalAction
from games.hearts.rules import Hearts

C = [card(r + "C") for r in "23456789TJQKA"]
D = [card(r + "D") for r in "23456789TJQKA"]
H = [card(r + "H") for r in "23456789TJQKA"]
S = [card(r + "S") for r in "23456789TJQKA"]
QS, TWO_C = card("QS"), card("2C")

# Seat 0 holds every club, 1 every diamond, 2 every spade, 3 every heart.
SUIT_SPLIT = [list(C), list(D), list(S), list(H)]


def play(g: Hearts, seat: int, code: str) -> list:
    return g.apply(seat, Action("play", (card(code),)))


def pass3(g: Hearts, seat: int, codes: str) -> list:
    return g.apply(seat, Action("pass", cards(codes)))


def new(rules="classic", deal=None, **opts) -> Hearts:
    return Hearts.create(4, {"rules": rules, **opts}, seed=1, deal=deal)


def at_hold_hand(deal, **opts) -> Hearts:
    """A classic game at its fourth hand (no passing) with a fixed deal."""
    g = new("classic", deal, **opts)
    d = g.to_dict()
    d["hand_no"] = 3
    d["phase"] = "play"
    d["pass_choice"] = [None] * 4
    g = Hearts.from_dict(d)
    g._begin_play()
    return g


def plays(g: Hearts) -> set[str]:
    return {c.code for c in g.legal_plays(g.turn)}


# --- rule 1: the 2♣ holder leads --------------------------------------------------------------
def test_two_of_clubs_holder_leads_and_must_lead_it_in_classic():
    g = at_hold_hand(SUIT_SPLIT)
    assert g.to_act() == (0,)
    assert plays(g) == {"2C"}
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        play(g, 0, "AC")
    assert e.value.code == "illegal_card" and "2♣" in e.value.reason
    assert g.to_dict() == before


def test_mcgill_two_of_clubs_holder_leads_but_may_lead_any_card():
    deal = [list(D), list(C), list(S), list(H)]  # 2♣ is with seat 1
    g = new("mcgill", deal)
    assert g.phase == "play" and g.to_act() == (1,)
    assert plays(g) == {c.code for c in C}
    play(g, 1, "AC")
    assert g.turn == 2


# --- rule 2: follow suit; highest of the led suit wins and leads -----------------------------
def test_must_follow_suit_when_able_and_highest_of_led_suit_wins():
    deal = [C[:6] + D[:7], C[6:] + D[7:13], list(S), list(H)]
    g = at_hold_hand(deal)
    play(g, 0, "2C")
    assert plays(g) == {c.code for c in C[6:]}  # seat 1 holds clubs: must follow
    with pytest.raises(IllegalAction) as e:
        play(g, 1, "9D")
    assert e.value.code == "illegal_card" and "follow suit" in e.value.reason
    play(g, 1, "8C")
    play(g, 2, "AS")  # void in clubs: an ace of another suit does not win
    play(g, 3, "2H")  # holds only hearts: allowed on the first trick
    assert g.last_trick[0] == 1 and g.turn == 1 and g.leader == 1
    assert g.hand_points == [0, 1, 0, 0]


def test_not_your_turn_and_card_not_in_hand_are_refused_without_change():
    g = at_hold_hand(SUIT_SPLIT)
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        play(g, 1, "2D")
    assert e.value.code == "not_your_turn"
    with pytest.raises(IllegalAction) as e:
        play(g, 0, "2D")
    assert e.value.code == "not_in_hand"
    with pytest.raises(IllegalAction):
        g.apply(0, Action("pass", cards("3C 4C 5C")))
    assert g.to_dict() == before


# --- rule 3: points -------------------------------------------------------------------------
def test_each_heart_scores_one_and_queen_of_spades_thirteen():
    g = new("mcgill", SUIT_SPLIT)
    play(g, 0, "2C")
    play(g, 1, "2D")
    play(g, 2, "QS")
    play(g, 3, "AH")
    assert g.hand_points == [14, 0, 0, 0]
    trick = g.last_trick
    assert trick[0] == 0 and trick[1] == 14


def test_a_hand_scores_26_points_in_all():
    g = new("mcgill", [C[:7] + D[:6], C[7:] + D[6:], list(S), list(H)])
    while g.hand_no == 0:
        s = g.turn
        play(g, s, g.legal_plays(s)[-1].code)
    assert sum(g.scores) in (26, 78)


# --- rule 4: shooting the moon --------------------------------------------------------------
@pytest.mark.parametrize("rules", ["mcgill", "classic"])
def test_moon_shooter_scores_zero_and_everyone_else_26(rules):
    g = new("mcgill", SUIT_SPLIT) if rules == "mcgill" else at_hold_hand(SUIT_SPLIT)
    events = []
    for i in range(13):
        events += play(g, 0, C[i].code)
        events += play(g, 1, D[i].code)
        spade = g.legal_plays(2)[0].code
        events += play(g, 2, spade)
        events += play(g, 3, H[i].code)
    end = next(e for e in events if e.kind == "hand_end")
    assert end.data[:5] == (0, 26, 26, 26, 0)
    assert g.scores == [0, 26, 26, 26]


def test_moon_option_shooter_minus_26():
    g = new("mcgill", SUIT_SPLIT, moon="shooter_minus_26")
    for i in range(13):
        play(g, 0, C[i].code)
        play(g, 1, D[i].code)
        play(g, 2, g.legal_plays(2)[0].code)
        play(g, 3, H[i].code)
    assert g.scores == [-26, 0, 0, 0]


# --- rule 5: game end at the target; lowest wins; ties shared ---------------------------------
def test_game_ends_after_the_hand_reaching_the_target_and_lowest_wins():
    g = new("mcgill", SUIT_SPLIT, target=26)
    for i in range(13):
        play(g, 0, C[i].code)
        play(g, 1, D[i].code)
        play(g, 2, g.legal_plays(2)[0].code)
        play(g, 3, H[i].code)
    assert g.is_over and g.to_act() == ()
    out = g.outcome()
    assert out.scores == (0, 26, 26, 26)
    assert out.winners == (0,) and out.places == (1, 2, 2, 2)
    with pytest.raises(IllegalAction):
        play(g, 0, "2C")


def test_game_goes_on_below_the_target_and_ties_for_lowest_share_the_win():
    g = new("mcgill", SUIT_SPLIT, target=100)
    _moon_hand_generic(g)
    assert not g.is_over and g.hand_no == 1 and g.scores == [0, 26, 26, 26]
    d = g.to_dict()
    d["scores"] = [99, 40, 40, 74]
    d["hands"] = [[c.code for c in h] for h in SUIT_SPLIT]
    d["turn"] = d["leader"] = 0
    g = Hearts.from_dict(d)
    _moon_hand_generic(g)  # seat 0 shoots again: 99, 66, 66, 100 → the game is over
    out = g.outcome()
    assert out.scores == (99, 66, 66, 100)
    assert out.winners == (1, 2) and out.places == (3, 1, 1, 4)


def _moon_hand_generic(g: Hearts) -> None:
    for i in range(13):
        play(g, 0, C[i].code)
        play(g, 1, D[i].code)
        play(g, 2, g.legal_plays(2)[0].code)
        play(g, 3, H[i].code)


# --- classic: passing -----------------------------------------------------------------------
def test_classic_pass_cycle_left_right_across_hold():
    g = new("classic")
    dirs = []
    for _ in range(5):
        dirs.append(g.pass_dir)
        g.hand_no += 1
    assert dirs == ["left", "right", "across", "hold", "left"]
    assert new("mcgill").pass_dir == "hold"


def test_passing_is_simultaneous_and_exchanges_only_when_all_four_chose():
    g = new("classic", SUIT_SPLIT)
    assert g.phase == "pass" and g.to_act() == (0, 1, 2, 3)
    pass3(g, 2, "QS KS AS")
    assert g.to_act() == (0, 1, 3)
    assert card("QS") in g.hands[2]  # nothing moves before everyone has chosen
    with pytest.raises(IllegalAction) as e:
        pass3(g, 2, "2S 3S 4S")
    assert e.value.code == "already_passed"
    pass3(g, 0, "AC KC QC")
    pass3(g, 1, "AD KD QD")
    events = pass3(g, 3, "AH KH QH")
    assert g.phase == "play"
    # left: seat s gives to seat s+1
    assert set(cards("QS KS AS")) <= set(g.hands[3])
    assert set(cards("AH KH QH")) <= set(g.hands[0])
    assert set(cards("AC KC QC")) <= set(g.hands[1])
    received = [e for e in events if e.kind == "received"]
    assert {e.to for e in received} == {0, 1, 2, 3}
    assert all(e.to == e.seat for e in received)
    assert g.view(3)["received"] == ["QS", "KS", "AS"] or set(g.view(3)["received"]) == {"QS", "KS", "AS"}
    assert g.turn == 0  # still holds 2♣


@pytest.mark.parametrize("bad", ["2C 3C", "2C 3C 4C 5C", "2C 2C 3C", "2D 3C 4C"])
def test_a_pass_must_be_three_different_cards_from_your_hand(bad):
    g = new("classic", SUIT_SPLIT)
    before = g.to_dict()
    with pytest.raises(IllegalAction):
        g.apply(0, Action("pass", cards(bad)))
    assert g.to_dict() == before


def test_pass_directions_right_and_across():
    g = new("classic", SUIT_SPLIT)
    for s, cs in enumerate(["2C 3C 4C", "2D 3D 4D", "2S 3S 4S", "2H 3H 4H"]):
        pass3(g, s, cs)
    while g.hand_no == 0:
        play(g, g.turn, g.legal_plays(g.turn)[0].code)
    assert g.pass_dir == "right"
    hand1 = g.hands[1][:3]
    for s in range(4):
        g.apply(s, Action("pass", tuple(g.hands[s][:3])))
    assert set(hand1) <= set(g.hands[0])  # right: seat s gives to seat s-1


# --- classic: no points on the first trick ---------------------------------------------------
def test_first_trick_forbids_hearts_and_queen_of_spades_for_a_void_player_holding_other_cards():
    g = at_hold_hand(SUIT_SPLIT)
    play(g, 0, "2C")
    play(g, 1, "AD")
    assert plays(g) == {c.code for c in S} - {"QS"}
    with pytest.raises(IllegalAction) as e:
        play(g, 2, "QS")
    assert "first trick" in e.value.reason
    play(g, 2, "AS")
    assert plays(g) == {c.code for c in H}  # holds nothing but hearts: may play one


def crafted(hands: list[str], turn: int, trick_no: int = 1, hearts_broken: bool = False,
            trick: str = "", rules: str = "classic") -> Hearts:
    """A mid-hand state: the given hands and trick; every other card sits in seat 0's won pile."""
    d = new(rules).to_dict()
    d["phase"] = "play"
    d["hand_no"] = 3
    held = [cards(h) for h in hands]
    on_table = cards(trick) if trick else ()
    leader = (turn - len(on_table)) % 4
    used = {c for h in held for c in h} | set(on_table)
    d["hands"] = [[c.code for c in h] for h in held]
    d["trick"] = [[(leader + i) % 4, c.code] for i, c in enumerate(on_table)]
    d["won"] = [[c.code for c in C + D + H + S if c not in used], [], [], []]
    d["pass_choice"] = [None] * 4
    d.update(trick_no=trick_no, turn=turn, leader=leader, hearts_broken=hearts_broken)
    return Hearts.from_dict(d)


def test_first_trick_allows_points_when_the_player_holds_nothing_else():
    g = crafted(["3C", "4D QS", "5S", "6H"], turn=1, trick_no=0, trick="2C")
    assert plays(g) == {"4D"}  # a diamond exists: Q♠ is refused
    g = crafted(["3C", "2H QS", "5S", "6H"], turn=1, trick_no=0, trick="2C")
    assert plays(g) == {"2H", "QS"}  # only points in hand: anything goes
    play(g, 1, "QS")
    assert g.turn == 2


def test_mcgill_allows_points_on_the_first_trick():
    g = new("mcgill", SUIT_SPLIT)
    play(g, 0, "2C")
    play(g, 1, "2D")
    assert "QS" in plays(g)


# --- classic: hearts must be broken before they are led ---------------------------------------
def test_hearts_cannot_be_led_until_broken_then_can():
    g = crafted(["3C 2H", "4C 5D", "6C 7D", "8D 9H"], turn=0, trick_no=11)
    assert plays(g) == {"3C"}
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        play(g, 0, "2H")
    assert "broken" in e.value.reason and g.to_dict() == before
    play(g, 0, "3C")
    play(g, 1, "4C")
    play(g, 2, "6C")
    events = play(g, 3, "9H")  # void in clubs: discarding a heart breaks hearts
    assert any(e.kind == "hearts_broken" and e.seat == 3 for e in events) and g.hearts_broken
    assert g.turn == 2
    g = crafted(["2H", "5D", "7D", "8D 9H"], turn=3, trick_no=12 - 1, hearts_broken=True)
    assert plays(g) == {"8D", "9H"}


def test_leader_may_lead_hearts_unbroken_when_holding_only_hearts():
    g = crafted(["3C", "4C", "6C", "8H 9H"], turn=3, trick_no=12)
    assert not g.hearts_broken
    assert plays(g) == {"8H", "9H"}


def test_mcgill_allows_leading_hearts_any_time():
    g = new("mcgill", [list(H), list(C), list(D), list(S)])
    assert g.turn == 1  # 2♣ holder
    play(g, 1, "AC")
    play(g, 2, "2D")
    play(g, 3, "2S")
    play(g, 0, "2H")  # a heart discard in the first trick
    assert g.turn == 1
    g = crafted(["3C", "4C", "6C", "8H 9D"], turn=3, trick_no=12, rules="mcgill")
    assert plays(g) == {"8H", "9D"}  # unbroken, yet a heart may be led
