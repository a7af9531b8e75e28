"""The Great Dalmuti computer player: always legal, far better than chance, and sensible in the
positions climbing-game players recognise (dump the worst set, top cheaply, keep Jesters, pass
rather than break a set, go out when it can, give back the worst cards, revolt as a Peon)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import engine
from engine.core import TABLE
from games.dalmuti.ai import DalmutiAI
from games.dalmuti.rules import DECK, Dalmuti, dcard


def H(text: str) -> list:
    return [dcard(t) for t in text.split()]


def playing(hands: list[str], turn: int, current: str = "", by: int | None = None,
            ranking: list[int] | None = None) -> Dalmuti:
    """A mid-hand state with the given hands; every other card has been played."""
    n = len(hands)
    d = Dalmuti.create(n, {"hands": 1}, seed=1, ranking=ranking or list(range(n))).to_dict()
    held = [H(h) for h in hands]
    cur = H(current)
    left = Counter(DECK)
    for c in [c for h in held for c in h]:
        left[c] -= 1
        assert left[c] >= 0
    d.update(phase="play", hands=[[c.code for c in h] for h in held],
             pile=[c.code for c in sorted(left.elements(), key=lambda c: c.number)],
             turn=turn, leader=by if current else turn,
             current={"cards": [c.code for c in cur], "by": by} if current else None,
             passed=[False] * n, finish=[], tax_step=0, revolution=None, holder=None,
             tax_given=[[] for _ in range(n)], tax_received=[[] for _ in range(n)])
    return Dalmuti.from_dict(d)


def choose(g: Dalmuti, seat: int) -> str:
    return DalmutiAI().choose(g, seat, random.Random(0)).code


# ---- legality, determinism, strength -----------------------------------------------------------
def table_step(g: Dalmuti, ai: DalmutiAI, rng: random.Random) -> bool:
    """As the runtime does during the look: the holder's optional move if the AI wants one, else the
    table ends the look.  False when the table is not acting."""
    if TABLE not in g.to_act():
        return False
    for s in g.to_act():
        if s != TABLE:
            a = ai.choose_optional(g, s, rng)
            if a is not None:
                g.apply(s, a)
                return True
    g.apply(TABLE, g.decision(TABLE).actions[0])
    return True


def test_registered_as_the_dalmuti_ai() -> None:
    assert engine.get("dalmuti").ai is DalmutiAI


@pytest.mark.parametrize("mode", ["locked", "open"])
def test_always_legal_with_4_to_8_players(mode: str) -> None:
    ai = DalmutiAI()
    hands = 0
    for seed in range(40):
        n = 4 + seed % 5
        g = Dalmuti.create(n, {"hands": 2, "pass": mode}, seed)
        rng = random.Random(seed)
        while not g.is_over:
            if table_step(g, ai, rng):
                continue
            (seat,) = g.to_act()
            d = g.decision(seat)
            a = ai.choose(g, seat, rng)
            if d.pick:
                assert a.kind == d.kind and len(a.cards) == d.pick
                assert not Counter(a.cards) - Counter(d.cards)
            else:
                assert a in d.actions
            g.apply(seat, a)  # raises IllegalAction if the engine disagrees
        hands += len(g.history)
    assert hands == 80


def test_deterministic() -> None:
    def run(seed: int) -> list[str]:
        g = Dalmuti.create(6, {"hands": 2}, seed)
        rng = random.Random(seed)
        log = []
        while not g.is_over:
            if table_step(g, DalmutiAI(), rng):
                log.append(g.to_dict()["phase"])
                continue
            (seat,) = g.to_act()
            a = DalmutiAI().choose(g, seat, rng)
            log.append(a.code)
            g.apply(seat, a)
        return log

    assert run(5) == run(5)


def test_beats_random_players_on_average_finishing_place() -> None:
    ai = DalmutiAI()
    ai_places: list[float] = []
    random_places: list[float] = []
    for seed in range(150):
        n = 4 + seed % 5
        me = seed % n
        g = Dalmuti.create(n, {"hands": 1, "pass": ("locked", "open")[seed % 2]}, seed)
        rng = random.Random(seed)
        while not g.is_over:
            if table_step(g, ai, rng):
                continue
            (seat,) = g.to_act()
            g.apply(seat, ai.choose(g, seat, rng) if seat == me else g.random_action(seat, rng))
        for place, s in enumerate(g.history[0]):
            (ai_places if s == me else random_places).append(place / (n - 1))  # 0 first, 1 last
    ai_mean = sum(ai_places) / len(ai_places)
    random_mean = sum(random_places) / len(random_places)
    assert ai_mean < 0.3 < random_mean, (ai_mean, random_mean)


def test_uses_only_what_its_seat_may_see() -> None:
    # The same view for seat 0, with the other hands shuffled between seats 1..3 (same sizes).
    a = playing(["12 12 7 3", "1 2 2 5", "6 6 9", "11 11 10"], turn=0)
    b = playing(["12 12 7 3", "10 11 11 6", "2 5 6", "9 2 1"], turn=0)
    assert a.view(0) == b.view(0)
    assert choose(a, 0) == choose(b, 0)


# ---- leading --------------------------------------------------------------------------------------
def test_leads_its_worst_set_whole_and_keeps_the_jesters() -> None:
    g = playing(["2 5 5 11 11 11 J", "3", "4", "6"], turn=0)
    assert choose(g, 0) == "play D11 D11 D11"


def test_goes_out_when_one_play_empties_the_hand() -> None:
    g = playing(["7 7 J", "3", "4", "6"], turn=0)
    assert choose(g, 0) == "play D7 D7 JJ"
    g = playing(["8 8 J", "3", "4", "6"], turn=0, current="10 10 10", by=1)
    assert choose(g, 0) == "play D8 D8 JJ"


def test_with_two_sets_left_leads_the_unbeatable_one_first() -> None:
    # Nobody else can hold a 1 (it is seat 0's), so the single 1 wins the round and the 12s go out next.
    g = playing(["1 12 12", "3 3", "4 4", "6 6"], turn=0)
    assert choose(g, 0) == "play D1"


# ---- topping --------------------------------------------------------------------------------------
def test_tops_with_the_smallest_sufficient_improvement() -> None:
    g = playing(["2 2 5 5 8 8 11", "3", "4", "6 6"], turn=0, current="9 9", by=3)
    assert choose(g, 0) == "play D8 D8"


def test_passes_rather_than_break_a_set_it_needs() -> None:
    g = playing(["3 3 3 5 5 5 7 7 7 12", "4 4 9", "6 9 10", "6 6 10"], turn=0, current="8 8", by=3)
    assert choose(g, 0) == "pass"


def test_breaks_a_cheap_set_or_spends_jesters_late() -> None:
    g = playing(["10 10 10 4 4 4 5 5 5 6 6 6", "7 7 7", "8 8 8", "9 9 9"], turn=0, current="11 11", by=3)
    assert choose(g, 0) == "play D10 D10"  # tens are cheap: breaking them costs little
    g = playing(["4 4 4 J", "3 3 3", "2 2", "6 6"], turn=0, current="9 9", by=3)
    assert choose(g, 0) == "play D4 D4"  # late: break the set rather than let the round go


# ---- taxes and revolution -------------------------------------------------------------------------
def test_gives_back_its_worst_cards_and_keeps_jesters() -> None:
    assert [c.code for c in DalmutiAI.choose_return(H("1 2 2 9 12 J"), 2)] == ["D9", "D12"]
    assert [c.code for c in DalmutiAI.choose_return(H("3 J J"), 2)] == ["D3", "JJ"]


def test_tax_return_through_the_game() -> None:
    rest = Counter(DECK)
    fixed = {4: H("12 12 11"), 0: H("1 2 3 10")}
    for h in fixed.values():
        rest.subtract(h)
    pool = sorted(rest.elements(), key=lambda c: c.number)
    deal = [fixed.get(s, []) for s in range(5)]
    for i, c in enumerate(pool):
        deal[1 + i % 3].append(c)
    g = Dalmuti.create(5, {}, seed=1, deal=deal, ranking=[0, 1, 2, 3, 4])
    g.apply(TABLE, g.decision(TABLE).actions[0])  # the look at the cards ends
    assert g.to_act() == (0,) and g.decision(0).pick == 2
    assert choose(g, 0) == "give D11 D12"


@pytest.mark.parametrize("holder,expected", [(4, "revolution"), (3, "revolution"), (0, None), (2, None)])
def test_calls_a_revolution_when_it_would_pay_taxes_else_keeps_quiet(holder: int, expected: str | None) -> None:
    rest = Counter(DECK)
    mine = H("J J 12 12")
    rest.subtract(mine)
    others = [s for s in range(5) if s != holder]
    deal = [mine if s == holder else [] for s in range(5)]
    for i, c in enumerate(sorted(rest.elements(), key=lambda c: c.number)):
        deal[others[i % 4]].append(c)
    g = Dalmuti.create(5, {}, seed=1, deal=deal, ranking=[0, 1, 2, 3, 4])
    assert g.to_act() == (holder, TABLE)
    chosen = DalmutiAI().choose_optional(g, holder, random.Random(0))
    assert (chosen.code if chosen is not None else None) == expected
    assert chosen is None or chosen in g.decision(holder).actions
    assert all(DalmutiAI().choose_optional(g, s, random.Random(0)) is None for s in range(5) if s != holder)
