"""One scenario per rule of docs/rules.md §3 (The Great Dalmuti), with fixed deals and crafted states."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engine.core import TABLE, Action, IllegalAction
from games.dalmuti.rules import (
    CARDS,
    CLOSE_LOOK,
    DECK,
    JESTER,
    Dalmuti,
    DCard,
    dcard,
    opening_draw,
)

ALL_CODES = {c.code for c in CARDS[1:]}


def H(text: str) -> list[DCard]:
    """Cards written as numbers, ``J`` for a Jester: ``H("1 5 5 J")``."""
    return [dcard(t) for t in text.split()]


def play(*numbers: int | str) -> Action:
    """The play of those cards, as the engine lists it (numbers first, Jesters last)."""
    cs = sorted(H(" ".join(str(x) for x in numbers)), key=lambda c: c.number)
    return Dalmuti.action_from_code("play " + " ".join(c.code for c in cs))


PASS = Action("pass")


def rest_of_deck(*used: list[DCard]) -> list[DCard]:
    left = Counter(DECK)
    for cs in used:
        for c in cs:
            left[c] -= 1
            assert left[c] >= 0, f"the deck has no more {c}"
    return sorted(left.elements(), key=lambda c: c.number)


def deal_with(players: int, fixed: dict[int, str]) -> list[list[DCard]]:
    """A deal where the ``fixed`` seats hold exactly those cards and the others share the rest."""
    hands: list[list[DCard]] = [H(fixed[s]) if s in fixed else [] for s in range(players)]
    others = [s for s in range(players) if s not in fixed]
    for i, c in enumerate(rest_of_deck(*hands)):
        hands[others[i % len(others)]].append(c)
    return hands


def new(players: int = 5, ranking: list[int] | None = None, deal=None, seed: int = 1, look: bool = False,
        **opts) -> Dalmuti:
    """A new game; unless ``look``, past the look at the cards (the table closed it, nobody called)."""
    g = Dalmuti.create(players, opts, seed=seed, deal=deal,
                       ranking=list(range(players)) if ranking is None else ranking)
    if not look:
        g.start_events = g.start_events + g.apply(TABLE, CLOSE_LOOK)
    return g


def step(g: Dalmuti, rng: random.Random) -> list:
    """One random move of one random seat that may act (the table included, during the look)."""
    seat = rng.choice(g.to_act())
    return g.apply(seat, g.random_action(seat, rng))


def playing(hands: list[str], turn: int, current: str = "", by: int | None = None, ranking: list[int] | None = None,
            passed: tuple[int, ...] = (), finish: tuple[int, ...] = (), mode: str = "locked",
            hands_option: int = 1) -> Dalmuti:
    """A mid-hand state: the given hands and play to beat; every other card has been played."""
    n = len(hands)
    d = new(n, ranking, **{"pass": mode, "hands": hands_option}).to_dict()
    held = [H(h) for h in hands]
    cur = H(current)
    d.update(
        phase="play",
        hands=[[c.code for c in h] for h in held],
        pile=[c.code for c in rest_of_deck(*held)],
        turn=turn,
        leader=turn if not current else by,
        current={"cards": [c.code for c in cur], "by": by} if current else None,
        passed=[s in passed for s in range(n)],
        finish=list(finish),
        tax_step=0,
        revolution=None,
        holder=None,
        tax_given=[[] for _ in range(n)],
        tax_received=[[] for _ in range(n)],
    )
    return Dalmuti.from_dict(d)


def unchanged(g: Dalmuti, seat: int, action: Action, code: str) -> None:
    before = g.to_dict()
    with pytest.raises(IllegalAction) as e:
        g.apply(seat, action)
    assert e.value.code == code, e.value.reason
    assert g.to_dict() == before


def kinds(events) -> list[str]:
    return [e.kind for e in events]


# --- the deck --------------------------------------------------------------------------------
def test_deck_has_n_copies_of_each_number_and_two_jesters():
    counts = Counter(c.number for c in DECK)
    assert len(DECK) == 80
    assert counts == {**{n: n for n in range(1, 13)}, 13: 2}
    assert JESTER.code == "JJ" and JESTER.label == "Jester" and CARDS[5].code == "D5" and str(CARDS[12]) == "D12"
    assert dcard("D7") is dcard("7") is dcard("seven") is CARDS[7] and dcard("jester") is JESTER


# --- rule 1: the opening draw ------------------------------------------------------------------
class Scripted(random.Random):
    """Draws the given numbers, one draw round after another."""

    def __init__(self, *rounds: list[int]) -> None:
        super().__init__(0)
        self.rounds = list(rounds)
        self.asked: list[int] = []

    def sample(self, population, k, **_):  # type: ignore[override]
        self.asked.append(k)
        drawn = self.rounds.pop(0)
        assert len(drawn) == k
        return drawn


def test_opening_draw_lowest_card_is_greater_dalmuti_and_a_jester_draws_worst():
    rounds, ranking = opening_draw(5, Scripted([7, 1, 13, 12, 4]))
    assert ranking == [1, 4, 0, 3, 2]  # 1, 4, 7, 12, then the Jester (13) last
    assert rounds == [[(0, 7), (1, 1), (2, 13), (3, 12), (4, 4)]]


def test_opening_draw_ties_redraw_among_the_tied_players_only():
    rng = Scripted([5, 3, 5, 13, 13], [9, 4], [2, 2], [6, 1])
    rounds, ranking = opening_draw(5, rng)
    # Seats 0 and 2 tie on 5 and redraw (seat 2 wins); the two Jesters (seats 3, 4) tie, redraw a tie,
    # and redraw again (seat 4 wins).  Seat 1's 3 stays best.
    assert rng.asked == [5, 2, 2, 2]
    assert [sorted(s for s, _ in r) for r in rounds] == [[0, 1, 2, 3, 4], [0, 2], [3, 4], [3, 4]]
    assert ranking == [1, 2, 0, 4, 3]


def test_opening_draw_is_seeded_and_shown_as_events_and_in_the_view():
    g = Dalmuti.create(6, {}, seed=11)
    again = Dalmuti.create(6, {}, seed=11)
    assert g.to_dict() == again.to_dict()
    draws = [e for e in g.start_events if e.kind == "draw"]
    assert len(draws) >= 6 and all(e.to is None for e in draws)
    first = {e.seat: e.data[0].number for e in draws if e.data[1] == 0}
    for a in range(6):
        for b in range(6):
            if first[a] < first[b]:
                assert g.ranking.index(a) < g.ranking.index(b)
    ranking_event = next(e for e in g.start_events if e.kind == "ranking")
    assert list(ranking_event.data) == g.ranking
    shown = g.public_view()["opening_draw"]
    assert [[s, code] for s, code in shown[0]] == [[e.seat, e.data[0].code] for e in draws if e.data[1] == 0]


def test_titles_follow_the_ranking():
    g = new(6, ranking=[3, 1, 4, 0, 5, 2])
    titles = g.public_view()["titles"]
    assert titles[3] == "Greater Dalmuti" and titles[1] == "Lesser Dalmuti"
    assert titles[4] == titles[0] == "Merchant"
    assert titles[5] == "Lesser Peon" and titles[2] == "Greater Peon"
    assert g.public_view()["positions"] == [3, 1, 5, 0, 2, 4]


# --- rule 2: the deal --------------------------------------------------------------------------
@pytest.mark.parametrize("players,sizes", [(4, [20] * 4), (5, [16] * 5), (6, [14, 14, 13, 13, 13, 13]),
                                           (7, [12, 12, 12, 11, 11, 11, 11]), (8, [10] * 8)])
def test_deal_gives_all_80_cards_one_at_a_time_from_the_greater_dalmuti(players, sizes):
    ranking = list(range(players))[::-1]  # seat n-1 is the Greater Dalmuti
    g = new(players, ranking=ranking, seed=5)
    dealt = {e.seat: e.data for e in g.start_events if e.kind == "dealt"}
    assert all(dealt[s] == tuple(sorted(dealt[s], key=lambda c: c.number)) for s in dealt)
    assert [len(dealt[s]) for s in ranking] == sizes  # the extra cards go to the best ranks first
    assert Counter(c for h in dealt.values() for c in h) == Counter(DECK)
    assert all(e.to == e.seat for e in g.start_events if e.kind == "dealt")


def test_each_hand_is_a_fresh_seeded_deal():
    a = Dalmuti.create(5, {}, seed=3).to_dict()
    assert a == Dalmuti.create(5, {}, seed=3).to_dict()
    assert a["hands"] != Dalmuti.create(5, {}, seed=4).to_dict()["hands"]


# --- rule 3: revolution ------------------------------------------------------------------------
def test_holder_of_both_jesters_is_offered_a_revolution_privately_during_the_look():
    deal = deal_with(5, {2: "J J 12 12 11"})
    g = new(5, deal=deal, look=True)
    assert g.phase == "look" and g.to_act() == (2, TABLE)  # optional for the holder: the table ends it
    assert g.table_timer() == (8.0, CLOSE_LOOK)
    d = g.decision(2)
    assert d.kind == "revolution" and [a.code for a in d.actions] == ["revolution"]  # declining is silence
    assert g.tax_received == [[]] * 5  # no taxes yet
    unchanged(g, 2, Action("give", (CARDS[12], CARDS[12])), "wrong_phase")
    unchanged(g, 0, Action("revolution"), "not_your_turn")
    unchanged(g, 2, Action("no_revolution"), "bad_action")
    unchanged(g, 2, CLOSE_LOOK, "not_your_turn")  # only the table ends the look


def test_every_hand_starts_with_the_same_look_whoever_holds_both_jesters():
    """RULES §3.3: nothing public (view, events, timer, who may act besides the holder) says whether
    anyone holds both Jesters, nor who."""
    split = new(5, deal=deal_with(5, {2: "J 12 12 11", 3: "J 10 10"}), look=True)
    holder = new(5, deal=deal_with(5, {2: "J J 12 12 11"}), look=True)
    assert split.to_act() == (TABLE,) and holder.to_act() == (2, TABLE)
    assert split.table_timer() == holder.table_timer()
    pv = holder.public_view()
    assert pv["phase"] == "look" and pv["revolution"] is None and pv["revolution_holder"] is None
    for g in (split, holder):
        assert [e for e in g.start_events if e.to is None] == [e for e in split.start_events if e.to is None]
        assert g.decision(0) is None and g.decision(1) is None
    # Not calling leaves no trace: the table ends the look with the same public events either way.
    assert ([e for e in split.apply(TABLE, CLOSE_LOOK) if e.to is None]
            == [e for e in holder.apply(TABLE, CLOSE_LOOK) if e.to is None])
    assert holder.public_view()["revolution"] is None and holder.public_view()["revolution_holder"] is None


def test_a_revolution_skips_taxes_and_keeps_the_ranking():
    deal = deal_with(5, {2: "J J 12 12 11"})
    g = new(5, deal=deal, look=True)
    hands = [list(h) for h in g.counts]
    events = g.apply(2, Action("revolution"))
    assert kinds(events) == ["revolution", "taxes_skipped"] and events[0].data == ("plain",)
    assert g.phase == "play" and g.ranking == [0, 1, 2, 3, 4]
    assert g.counts == hands  # no cards moved
    assert g.to_act() == (0,)  # the Greater Dalmuti leads


def test_a_greater_revolution_by_the_greater_peon_reverses_the_ranking_and_skips_taxes():
    deal = deal_with(5, {4: "J J 12 12 11"})
    g = new(5, ranking=[0, 1, 2, 3, 4], deal=deal, look=True)
    assert "greater revolution" in g.decision(4).prompt
    hands = [list(h) for h in g.counts]
    events = g.apply(4, Action("revolution"))
    assert kinds(events) == ["revolution", "ranking", "taxes_skipped"] and events[0].data == ("greater",)
    assert g.ranking == [4, 3, 2, 1, 0]
    assert g.public_view()["titles"] == ["Greater Peon", "Lesser Peon", "Merchant", "Lesser Dalmuti",
                                         "Greater Dalmuti"]
    assert g.counts == hands
    assert g.to_act() == (4,)  # the new Greater Dalmuti leads, and play goes round in the new order
    g.apply(4, play(11))
    assert g.turn == 3


def test_declining_the_revolution_is_keeping_quiet_until_the_look_ends_then_taxes():
    deal = deal_with(5, {4: "J J 12 12 11"})
    g = new(5, deal=deal, look=True)
    with pytest.raises(IllegalAction) as e:
        g.parse_action(4, "no")
    assert "keep quiet" in e.value.reason
    events = g.apply(TABLE, CLOSE_LOOK)
    assert kinds(events)[:1] == ["tax"] and "no_revolution" not in kinds(events)
    assert g.phase == "tax" and g.to_act() == (0,)
    assert g.tax_given[4] == ["D11", "D12"]  # the Jesters count 13 here: they are the worst cards


# --- rule 4: taxes -----------------------------------------------------------------------------
def test_taxes_in_the_official_order_with_best_meaning_lowest_and_jesters_13():
    # Greater Peon (seat 4) holds a Jester and 12s; Lesser Peon (seat 3) a 6 and 7s.
    deal = deal_with(5, {4: "J 12 12 12", 3: "7 6 7", 0: "1 2 3", 1: "4 4 5"})
    g = new(5, deal=deal)
    # Step 1 at once: the Greater Peon's 2 best go to the Greater Dalmuti (not the Jester).
    assert g.phase == "tax" and g.to_act() == (0,)
    assert [c.code for c in g.decision(0).cards] == [c.code for c in H("1 2 3 12 12")]
    assert g.tax_given[4] == ["D12", "D12"] and g.tax_received[0] == ["D12", "D12"]
    assert g.left[1] == 3 and g.left[3] == 3  # the Lesser Peon has not paid yet
    d = g.decision(0)
    assert d.kind == "give" and d.pick == 2 and d.timer == 60
    # The Greater Dalmuti gives back any 2 (here a 1 and a 12, to show the choice is free).
    events = g.apply(0, Action("give", (CARDS[1], CARDS[12])))
    assert kinds(events) == ["tax_return", "return_sent", "return_received",
                             "tax", "tax_sent", "tax_received"]
    assert g.counts[4][1] == 1 and g.counts[4][12] == 2 and g.counts[4][13] == 1
    # Step 2: the Lesser Peon's best card (the 6) went to the Lesser Dalmuti, who gives back 1.
    assert g.tax_given[3] == ["D6"] and g.tax_received[1] == ["D6"]
    assert g.to_act() == (1,) and g.decision(1).pick == 1
    g.apply(1, Action("give", (CARDS[5],)))
    assert g.counts[3][5] == 1 and g.counts[1][6] == 1
    assert g.phase == "play" and g.to_act() == (0,)  # the Greater Dalmuti leads


def test_tax_transfers_are_private_events_to_the_two_players_involved():
    deal = deal_with(5, {4: "12 12 11", 0: "1 2"})
    g = new(5, deal=deal)
    ev = {e.kind: e for e in g.start_events if e.kind.startswith("tax")}
    assert ev["tax"].to is None and ev["tax"].data == (0, 2)  # public: who paid whom, how many
    assert ev["tax_sent"].to == 4 and ev["tax_sent"].data == (0, CARDS[11], CARDS[12])
    assert ev["tax_received"].to == 0 and ev["tax_received"].data == (4, CARDS[11], CARDS[12])
    events = g.apply(0, Action("give", (CARDS[1], CARDS[2])))
    for e in events:
        if any(isinstance(x, DCard) for x in e.data):
            assert e.to in (0, 4, 1, 3) and e.to in (e.seat, e.data[0])
        else:
            assert e.to is None
    ret = {e.kind: e for e in events}
    assert ret["return_sent"].to == 0 and ret["return_received"].to == 4
    assert ret["tax_return"].to is None and ret["tax_return"].data == (4, 2)


@pytest.mark.parametrize("cards,code", [("1", "wrong_count"), ("1 2 3", "wrong_count"), ("9 9", "not_in_hand")])
def test_a_tax_return_must_be_the_right_number_of_cards_from_your_hand(cards, code):
    deal = deal_with(5, {4: "12 12 11", 0: "1 2 3"})
    g = new(5, deal=deal)
    unchanged(g, 0, Action("give", tuple(H(cards))), code)
    unchanged(g, 4, Action("give", (CARDS[12], CARDS[12])), "not_your_turn")
    unchanged(g, 0, play(1), "wrong_phase")


# --- rule 5: play ------------------------------------------------------------------------------
def test_leader_may_play_any_set_of_one_number_with_jesters_wild_beside_a_number():
    g = playing(["3 3 3 9 J", "5 5", "6", "7"], turn=0)
    legal = {a.code for a in g.legal_plays(0)}
    assert legal == {"play D3", "play D3 D3", "play D3 D3 D3", "play D3 JJ", "play D3 D3 JJ", "play D3 D3 D3 JJ",
                     "play D9", "play D9 JJ", "play JJ"}
    d = g.decision(0)
    assert d.kind == "play" and d.timer == 30 and PASS not in d.actions
    unchanged(g, 0, PASS, "must_lead")
    unchanged(g, 0, Action("play", (CARDS[3], CARDS[9])), "mixed_set")
    unchanged(g, 0, play(3, 3, 3, 3), "not_in_hand")
    g.apply(0, play(9, "J"))
    assert g.cur_num == 9 and g.cur_k == 2 and g.turn == 1


def test_next_player_must_play_same_count_of_a_strictly_better_number_or_pass():
    g = playing(["8 8", "7 7 8 1", "6 6", "5"], turn=1, current="8 8", by=0)
    assert {a.code for a in g.legal_plays(1)} == {"play D7 D7", "pass"}
    unchanged(g, 1, play(8), "wrong_count")  # the one 8 left, alone
    unchanged(g, 1, play(7), "wrong_count")
    unchanged(g, 1, play(7, 7, 1), "mixed_set")
    g2 = playing(["8 8", "8 8", "6", "5"], turn=1, current="8 8", by=0)  # crafted: seat 1 asked anyway
    unchanged(g2, 1, play(8, 8), "too_weak")  # an equal number does not beat
    g.apply(1, play(7, 7))
    assert g.cur_num == 7 and g.cur_by == 1 and g.turn == 2


def test_a_lone_jester_counts_13_and_leads_the_worst_single():
    g = playing(["J 4", "12", "11 11", "3"], turn=0)
    g.apply(0, play("J"))
    assert g.cur_num == 13 and g.cur_k == 1
    assert {a.code for a in g.legal_plays(1)} == {"play D12", "pass"}  # even a 12 beats it
    g.apply(1, play(12))
    assert g.turn == 2 and {a.code for a in g.legal_plays(2)} == {"play D11", "pass"}


def test_two_jesters_alone_count_as_the_worst_pair():
    g = playing(["J J 4", "12 12", "12", "3"], turn=0)
    g.apply(0, play("J", "J"))
    assert g.cur_num == 13 and g.cur_k == 2
    assert {a.code for a in g.legal_plays(1)} == {"play D12 D12", "pass"}
    g.apply(1, PASS)
    # Seat 2's single 12 cannot make a pair: it passes automatically; so does seat 3.
    assert g.turn == 0 and g.cur_num == 0


def test_jesters_alone_beat_nothing_but_make_a_wild_set_beside_a_number():
    g = playing(["J J 9", "10 10", "8 8", "3"], turn=0, current="10 10", by=1)
    legal = {a.code for a in g.legal_plays(0)}
    assert legal == {"play D9 JJ", "pass"}
    unchanged(g, 0, play("J", "J"), "too_weak")
    g.apply(0, play(9, "J"))
    assert g.cur_num == 9 and g.cur_k == 2 and g.turn == 2


def test_locked_passing_a_passer_sits_out_the_rest_of_the_round():
    g = playing(["9 6 2", "8 3", "7 4", "12 5"], turn=0, mode="locked")
    g.apply(0, play(9))
    g.apply(1, PASS)
    g.apply(2, play(7))
    g.apply(3, PASS)
    assert g.turn == 0
    g.apply(0, play(6))
    # Seat 1 passed this round: it is skipped although its 3 could beat the 6.
    assert g.turn == 2 and g.public_view()["passed"] == [False, True, False, True]


def test_open_passing_a_passer_may_play_again_when_play_returns():
    g = playing(["9 6 2", "8 3", "7 4", "12 5"], turn=0, mode="open")
    g.apply(0, play(9))
    g.apply(1, PASS)
    g.apply(2, play(7))
    g.apply(3, PASS)
    g.apply(0, play(6))
    assert g.turn == 1
    g.apply(1, play(3))
    assert g.cur_num == 3 and g.cur_by == 1


def test_a_player_with_no_legal_play_passes_automatically():
    g = playing(["5 9", "6 6", "12", "4"], turn=0)
    events = g.apply(0, play(5))
    # Seat 1 (6s) and seat 2 (12) cannot beat a 5; seat 3's 4 can: it is the one asked.
    assert kinds(events) == ["play", "auto_pass", "auto_pass"]
    assert [e.seat for e in events[1:]] == [1, 2]
    assert g.to_act() == (3,) and g.decision(3).actions == (play(4), PASS)


def test_the_acting_seat_always_has_a_real_decision():
    for seed in range(30):
        g = Dalmuti.create(4 + seed % 5, {"hands": 1, "pass": ("locked", "open")[seed % 2]}, seed)
        rng = random.Random(seed)
        while not g.is_over:
            seat = rng.choice(g.to_act())
            d = g.decision(seat)
            assert d is not None
            if g.phase == "play" and g.cur_num:
                assert any(a.kind == "play" for a in d.actions), "a seat was asked with nothing to play"
            g.apply(seat, g.random_action(seat, rng))


# --- rule 6: rounds ----------------------------------------------------------------------------
def test_round_ends_when_everyone_else_has_passed_and_the_last_player_to_play_leads():
    g = playing(["12 1 5", "11 4", "10 6", "9 7"], turn=0)
    g.apply(0, play(12))
    g.apply(1, play(11))
    g.apply(2, PASS)
    g.apply(3, PASS)
    events = g.apply(0, PASS)
    assert events[-1].kind == "round_end" and events[-1].seat == 1 and events[-1].data == (1,)
    assert g.turn == 1 and g.cur_num == 0 and g.public_view()["current"] is None
    assert g.public_view()["passed"] == [False] * 4  # a new round: everyone may play again
    assert PASS not in g.decision(1).actions


def test_lead_passes_on_past_players_who_went_out():
    # Seat 3 is already out; seat 2 goes out with its last card and nobody beats it.
    g = playing(["7 8", "9 10", "2", "", "5 6"], turn=2, finish=(3,))
    events = g.apply(2, play(2))
    assert kinds(events) == ["play", "out", "auto_pass", "auto_pass", "auto_pass", "round_end"]
    assert events[-1].data == (4,)  # seat 3 (out) is skipped: seat 4 leads
    assert g.turn == 4 and g.finish == [3, 2]


def test_lead_passes_on_when_the_player_who_went_out_is_passed_by_hand():
    g = playing(["1 8", "9 10", "2", "", "5 6"], turn=2, finish=(3,))
    g.apply(2, play(2))
    assert g.turn == 0  # seat 0's 1 could beat the 2
    events = g.apply(0, PASS)
    assert events[-1].kind == "round_end" and g.turn == 4


# --- rule 7: going out, the end of a hand, the next ranking --------------------------------------
def test_the_hand_ends_the_moment_only_one_player_has_cards():
    g = playing(["3", "9 9 12", "", ""], turn=0, finish=(3, 2))
    events = g.apply(0, play(3))
    assert kinds(events) == ["play", "out", "hand_end", "game_end"]
    assert g.finish == [3, 2, 0, 1] and g.is_over and g.to_act() == ()
    assert events[2].data == (0, 3, 2, 0, 1, 1, 0, 2, 3)  # hand, finishing order, points per seat
    out = g.outcome()
    assert out.scores == (1, 0, 2, 3) and out.winners == (3,) and out.places == (3, 4, 2, 1)
    unchanged(g, 1, play(9), "game_over")


def test_finishing_order_becomes_the_next_ranking():
    g = playing(["3", "9 9 12", "", ""], turn=0, finish=(3, 2), hands_option=2)
    events = g.apply(0, play(3))
    assert "hand_start" in kinds(events) and not g.is_over
    assert g.hand_no == 1 and g.ranking == [3, 2, 0, 1]
    assert g.public_view()["titles"] == ["Lesser Peon", "Greater Peon", "Lesser Dalmuti", "Greater Dalmuti"]
    assert g.public_view()["history"] == [[3, 2, 0, 1]]
    dealt = {e.seat: len(e.data) for e in events if e.kind == "dealt"}
    assert dealt == {0: 20, 1: 20, 2: 20, 3: 20} and sum(g.left) == 80


def test_seats_follow_rank_play_goes_round_in_ranking_order():
    g = playing(["11 4", "10 3", "9 2", "12 5"], turn=3, ranking=[3, 0, 2, 1])
    turns = []
    for code in (12, 11, 9):
        g.apply(g.turn, play(code))
        turns.append(g.turn)
    assert turns == [0, 2, 1]
    events = g.apply(1, play(3))
    # Seat 3 (a 5) and seat 0 (a 4) cannot beat the 3; seat 2's 2 can.
    assert [e.seat for e in events if e.kind == "auto_pass"] == [3, 0] and g.turn == 2


# --- rule 8: hands and points --------------------------------------------------------------------
def test_points_are_n_minus_1_down_to_0_summed_over_the_hands_option():
    g = new(6, hands=3, seed=2)
    rng = random.Random(2)
    while not g.is_over:
        step(g, rng)
    assert len(g.history) == 3 and g.hand_no == 2
    expected = [0] * 6
    for order in g.history:
        assert sorted(order) == list(range(6))
        for place, s in enumerate(order):
            expected[s] += 5 - place
    out = g.outcome()
    assert list(out.scores) == expected == g.scores and sum(expected) == 3 * 15
    assert set(out.winners) == {s for s in range(6) if expected[s] == max(expected)}


def test_options_hands_default_5_low_1_and_pass_locked_or_open():
    assert Dalmuti.read_options(None) == {"hands": 5, "pass": "locked"}
    assert Dalmuti.read_options({"pass": "Open", "hands": "1"}) == {"hands": 1, "pass": "open"}
    with pytest.raises(ValueError):
        Dalmuti.read_options({"hands": 0})
    with pytest.raises(ValueError):
        Dalmuti.read_options({"pass": "sometimes"})
    with pytest.raises(ValueError):
        Dalmuti.create(3)
    with pytest.raises(ValueError):
        Dalmuti.create(9)
    assert Dalmuti.min_players == 4 and Dalmuti.max_players == 8


# --- what each seat may see ----------------------------------------------------------------------
def test_views_show_other_players_only_as_counts():
    hands = ["5 6 6", "1 J J", "7 8", "9 10"]
    g = playing(hands, turn=0)
    for seat in range(4):
        v = g.view(seat)
        json.dumps(v)
        assert v["hand"] == [c.code for c in H(hands[seat])]
        assert v["cards_left"] == [3, 3, 2, 2]
        assert _strings(v) & ALL_CODES == {c.code for c in H(hands[seat])}
    assert _strings(g.public_view()) & ALL_CODES == set()
    assert {"D1", "JJ"} <= g.hidden_from(0) and {"D1", "JJ"} <= g.hidden_from(None)
    assert g.hidden_from(1) & {"D1", "JJ"} == set()


def test_no_view_or_public_event_ever_shows_another_seats_hand():
    for seed in range(12):
        n = 4 + seed % 5
        g = Dalmuti.create(n, {"hands": 2, "pass": ("locked", "open")[seed % 2]}, seed)
        rng = random.Random(seed)
        events = list(g.start_events)
        while True:
            for seat in range(n):
                v = g.view(seat)
                allowed = set(v["hand"]) | set(v["tax_given"]) | set(v["tax_received"])
                if v["current"]:
                    allowed |= set(v["current"]["cards"])
                if "opening_draw" in v:
                    allowed |= {code for rnd in v["opening_draw"] for _, code in rnd}
                assert _strings(v) & ALL_CODES <= allowed
            for e in events:
                cards = [x for x in e.data if isinstance(x, DCard)]
                if e.kind in ("play", "draw"):
                    assert e.to is None
                elif cards:
                    assert e.to is not None and e.kind in ("dealt", "tax_sent", "tax_received", "return_sent",
                                                           "return_received")
            if g.is_over:
                break
            events = step(g, rng)


def _strings(obj) -> set[str]:
    if isinstance(obj, str):
        return set(obj.split())
    if isinstance(obj, dict):
        return set().union(*(_strings(k) | _strings(v) for k, v in obj.items())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(_strings(v) for v in obj)) if obj else set()
    return set()


# --- codes, text, serialisation --------------------------------------------------------------------
def test_action_codes_are_short_and_read_back_exactly():
    g = playing(["3 3 9 J J", "5", "6", "7"], turn=0)
    for a in g.legal_plays(0):
        assert Dalmuti.action_from_code(a.code) == a
    assert play(9, "J").code == "play D9 JJ"
    assert Dalmuti.action_from_code("play JJ D9") == play(9, "J")
    assert Dalmuti.action_from_code("give D3 D7") == Action("give", (CARDS[3], CARDS[7]))
    assert Dalmuti.action_from_code("pass") == PASS


@pytest.mark.parametrize("text,code", [
    ("5 5 5", "play D5 D5 D5"), ("three 5s", "play D5 D5 D5"), ("5x3", "play D5 D5 D5"), ("3 x 5", "play D5 D5 D5"),
    ("2 9 jester", "play D9 D9 JJ"), ("two 9s and a jester", "play D9 D9 JJ"), ("9 9 j", "play D9 D9 JJ"),
    ("play D9 D9 JJ", "play D9 D9 JJ"), ("pass", "pass"), ("PASS", "pass"), ("jester", "play JJ"),
    ("two jesters", "play JJ JJ"), ("pair of 9s", "play D9 D9"), ("5", "play D5"), ("five", "play D5"),
])
def test_people_type_plays_in_many_ways(text, code):
    leading = code != "pass"  # the leader cannot pass: ask a topping player for that
    g = playing(["5 5 5 9 9 J J 2", "4", "6", "7"], turn=0, current="" if leading else "12", by=None if leading else 3)
    assert g.parse_action(0, text).code == code


def test_unreadable_or_illegal_text_is_refused_with_a_reason():
    g = playing(["5 5 5 3 3 3", "4", "6", "7"], turn=0)
    assert g.parse_action(0, "3x3").code == "play D3 D3 D3"
    a = g.parse_action(0, "5 5 5 5")  # read, but not held: apply() says why
    unchanged(g, 0, a, "not_in_hand")
    with pytest.raises(IllegalAction) as e:
        g.parse_action(0, "queen of hearts")
    assert e.value.code == "bad_card"
    with pytest.raises(IllegalAction):
        g.parse_action(1, "4")
    # Digits no person means as a number: "²" passes str.isdigit() and fails int(), 5,000 digits too.
    for odd in ("²", "d²", "5 ²", "9" * 5000, "d" + "1" * 5000):
        with pytest.raises(IllegalAction) as e:
            g.parse_action(0, odd)
        assert e.value.code == "bad_card" and len(e.value.reason) < 200, e.value.reason


def test_tax_and_revolution_answers_are_read_from_text():
    deal = deal_with(5, {4: "12 12 11", 0: "1 2 3 3"})
    g = new(5, deal=deal)
    assert g.parse_action(0, "give 3 3").code == "give D3 D3"
    assert g.parse_action(0, "1, 12").code == "give D1 D12"
    g2 = new(5, deal=deal_with(5, {2: "J J 12 12 11"}), look=True)
    assert g2.parse_action(2, "yes") == Action("revolution")
    with pytest.raises(IllegalAction):
        g2.parse_action(2, "no revolution")


def test_state_round_trips_exactly_through_json_mid_hand():
    g = Dalmuti.create(7, {"hands": 2, "pass": "open"}, seed=9)
    rng = random.Random(9)
    for _ in range(60):
        step(g, rng)
    data = json.loads(json.dumps(g.to_dict()))
    r = Dalmuti.from_dict(data)
    assert r.to_dict() == g.to_dict()
    assert r.view(0) == g.view(0) and r.decision(r.to_act()[0]) == g.decision(g.to_act()[0])
    assert Counter(r.all_cards()) == Counter(DECK)
