"""Hidden means hidden in search: a sampled world, the strong AI's figures and the hint depend only
on what the seat knows.

For every game with a search, position A comes from a seeded game and position B is built from
A's ``to_dict`` by hand (never by ``sample_world``), changing only what the seat cannot see: where
the hidden cards are, together with the records that name them (other seats' passes, taxes, pass
choices, the dead hand and buried cards), the other seats' own records, the order of hidden hands
and piles, and the seed (which fixes every deal).  The seat's view is the same; then, for the same
generator, the sampled worlds are equal, and so are the strong AI's move and figures and the hint.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine.core import TABLE, Game
from engine.hints import hint
from engine.search import SearchAI
from tests.engine.test_worlds import move

Perturb = Callable[[dict[str, Any], int, random.Random], dict[str, Any]]

OPTIONS: dict[str, list[dict[str, Any]]] = {
    "hearts": [{"rules": "classic", "target": 40}, {"rules": "mcgill", "target": 30}],
    "tricks": [{"target": 3}],
    "koth": [{"rounds": 2, "ready_round": 0}, {"rounds": 2, "ready_round": 1, "ready_trick": 1}],
    "dalmuti": [{"hands": 2}],
    "siege": [{}],
}
STRONG_PLAYOUTS = {"hearts": 24, "tricks": 24, "koth": 16, "dalmuti": 24, "siege": 8}


def _swap_codes(records: list[list[str]], x: str, y: str) -> None:
    """Exchange one ``x`` and one ``y`` wherever they appear in ``records`` (lists changed in place)."""
    for r in records:
        for i, c in enumerate(r):
            if c == x:
                r[i] = y
            elif c == y:
                r[i] = x


# ---- one "perturb hidden" per game: edits a to_dict copy, touching nothing the seat knows ---------

_HEARTS_OFFSET = {"left": 1, "right": 3, "across": 2, "hold": 0}


def _hearts(d: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    classic = d["options"]["rules"] == "classic"
    off = _HEARTS_OFFSET[("left", "right", "across", "hold")[d["hand_no"] % 4] if classic else "hold"]
    others = [s for s in range(4) if s != seat]
    known = set(d["passed"][seat])  # the seat's own pass: it knows who holds those
    # Every record of the other seats: their hands, pass choices, passes, and what they received.
    records = [d["hands"][s] for s in others]
    records += [d["pass_choice"][s] for s in others if d["pass_choice"][s] is not None]
    records += [d["passed"][s] for s in others] + [d["received"][s] for s in others]
    for _ in range(3):
        a, b = rng.sample(others, 2)
        xs = [c for c in d["hands"][a] if c not in known]
        ys = [c for c in d["hands"][b] if c not in known]
        if xs and ys:
            _swap_codes(records, rng.choice(xs), rng.choice(ys))
    if d["phase"] != "pass" and off:
        # A pass the seat never saw: another of the cards its receiver holds.
        for s in others:
            to = (s + off) % 4
            if to == seat or not d["passed"][s]:
                continue
            new = [c for c in d["hands"][to] if c not in d["passed"][s] and c not in known]
            if new:
                old = rng.choice(d["passed"][s])
                z = rng.choice(new)
                for r in (d["passed"][s], d["received"][to], d["pass_choice"][s] or []):
                    r[r.index(old)] = z
    if d["phase"] == "pass":
        for s in others:
            if d["pass_choice"][s] is not None:
                d["pass_choice"][s] = rng.sample(d["hands"][s], 3)
    for s in others:
        rng.shuffle(d["hands"][s])
    return d


def _tricks(d: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    others = [s for s in range(4) if s != seat]
    for _ in range(3):
        a, b = rng.sample(others, 2)
        if d["hands"][a] and d["hands"][b]:
            _swap_codes([d["hands"][a], d["hands"][b]], rng.choice(d["hands"][a]), rng.choice(d["hands"][b]))
    for s in others:
        rng.shuffle(d["hands"][s])
    return d


def _dalmuti(d: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    n = d["players"]
    ranking = d["ranking"]
    others = [s for s in range(n) if s != seat and d["hands"][s]]
    for _ in range(3):
        if len(others) < 2:
            break
        a, b = rng.sample(others, 2)
        x, y = rng.choice(d["hands"][a]), rng.choice(d["hands"][b])
        if x != y:
            d["hands"][a][d["hands"][a].index(x)] = y
            d["hands"][b][d["hands"][b].index(y)] = x
    # The taxes of a pair the seat is not in: other cards paid and given back.
    for payer, taker in ((ranking[-1], ranking[0]), (ranking[-2], ranking[1])):
        if seat in (payer, taker):
            continue
        for giver, getter in ((payer, taker), (taker, payer)):
            paid = d["tax_given"][giver]
            if paid:
                i = rng.randrange(len(paid))
                new = rng.choice([c for c in ("D1", "D2", "D7", "D12", "JJ") if c != paid[i]])
                paid[i] = new
                d["tax_received"][getter][i] = new
    if d["phase"] == "look":
        # Who may call a revolution follows the hands.
        d["holder"] = next((s for s in range(n) if d["hands"][s].count("JJ") == 2), None)
    elif d["revolution"] is None and d["holder"] != seat:
        d["holder"] = rng.choice([None, *others])
    for s in others:
        rng.shuffle(d["hands"][s])
    return d


def _koth(d: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    koth = d["koth"]
    shown = d["last_round"] is not None and d["phase"] in ("round_ready", "over")
    named = {c for _, c, _ in d["declarations"]} | ({d["called"]} if d["called"] else set())
    piles = [d["hands"][s] for s in range(4) if s != seat] + [d["stock"]]
    if d["buried"] and seat != koth and not shown:
        piles.append(d["buried"])
    for _ in range(4):
        p, q = rng.sample(range(len(piles)), 2)
        xs = [c for c in piles[p] if c not in named]
        ys = [c for c in piles[q] if c not in named]
        if xs and ys:
            x, y = rng.choice(xs), rng.choice(ys)
            piles[p][piles[p].index(x)] = y
            piles[q][piles[q].index(y)] = x
    taker = d["last_round"]["koth"] if shown else koth
    if seat != taker:
        rng.shuffle(d["dead"])
        if d["phase"] == "bury" and koth is not None:
            d["marked"] = rng.sample(d["hands"][koth], min(3, len(d["hands"][koth])))
    for p in piles:
        rng.shuffle(p)
    return d


def _siege(d: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    others = [s for s in range(4) if s != seat]
    pinned = {c for s in others for c in d["seen_in_hand"][s]} | set(d["seen_discard"]) | set(d["own_discard"][seat])
    piles = [d["hands"][s] for s in others] + [d["stock"], d["discard"]]
    for _ in range(4):
        p, q = rng.sample(range(len(piles)), 2)
        xs = [c for c in piles[p] if c not in pinned]
        ys = [c for c in piles[q] if c not in pinned]
        if xs and ys:
            x, y = rng.choice(xs), rng.choice(ys)
            piles[p][piles[p].index(x)] = y
            piles[q][piles[q].index(y)] = x
    for s in others:
        # What a rival discarded itself: its own memory, not the seat's.
        d["own_discard"][s] = d["discard"][:1]
    for p in piles:
        rng.shuffle(p)
    return d


PERTURB: dict[str, Perturb] = {"hearts": _hearts, "tricks": _tricks, "dalmuti": _dalmuti, "koth": _koth,
                               "siege": _siege}


def test_every_game_with_worlds_has_its_hidden_records_checked() -> None:
    """A game added with a search (or a sample_world) needs its own perturbation here."""
    with_worlds = {n for n, e in engine.games().items()
                   if getattr(e.game, "sample_world", Game.sample_world) is not Game.sample_world}
    assert with_worlds
    assert with_worlds | {n for n, e in engine.games().items() if e.search is not None} <= set(PERTURB)


def perturbed(g: Game, seat: int, rng: random.Random) -> Game:
    """B: ``g`` with only what ``seat`` cannot see changed (checked: the same view)."""
    d = PERTURB[type(g).name](copy.deepcopy(g.to_dict()), seat, rng)
    d["seed"] = f"other{rng.getrandbits(32)}"
    b = type(g).from_dict(d)
    assert b.view(seat) == g.view(seat)
    return b


def positions(name: str, games: int, every: float, limit: int = 400):
    """(state, seed) at random points of seeded games of ``name``."""
    e = engine.get(name)
    ai = e.ai()
    for seed in range(games):
        opts = OPTIONS[name][seed % len(OPTIONS[name])]
        g = e.game.create(e.game.min_players, opts, seed)
        rng = random.Random(seed)
        steps = 0
        while not g.is_over and steps < limit:
            if rng.random() < every:
                yield g, seed
            move(g, rng, ai)
            steps += 1
        if g.is_over:
            yield g, seed


def _hidden_records_differ(a: Game, b: Game) -> bool:
    da, db = a.to_dict(), b.to_dict()
    return any(da[k] != db[k] for k in da if k != "seed")


@pytest.mark.parametrize("name", sorted(PERTURB))
def test_a_sampled_world_depends_only_on_what_the_seat_knows(name: str) -> None:
    checked = differ = 0
    for g, seed in positions(name, 10, 0.12 if name in ("koth", "siege") else 0.3):
        rng = random.Random(seed * 1000 + checked)
        for seat in range(g.players):
            b = perturbed(g, seat, rng)
            differ += _hidden_records_differ(g, b)
            for k in range(3):
                wa = g.sample_world(seat, random.Random(k)).to_dict()
                wb = b.sample_world(seat, random.Random(k)).to_dict()
                assert wa == wb, (name, seat, k)
            checked += 1
    assert checked >= 60
    # The positions really differed in hidden records (not only in the seed) most of the time.
    assert differ >= checked // 2


def _searchable(name: str, g: Game) -> int | None:
    acting = g.to_act()
    if TABLE in acting or len(acting) != 1:
        return None
    seat = acting[0]
    if not engine.get(name).search.searchable(g, seat):
        return None
    d = g.decision(seat)
    return seat if d is not None and not d.pick and len(d.actions) >= 2 else None


def _strong(name: str) -> SearchAI:
    spec = engine.get(name)
    return SearchAI(spec.search, spec.ai(), STRONG_PLAYOUTS[name])


@pytest.mark.parametrize("name", sorted(PERTURB))
def test_the_search_and_the_hint_depend_only_on_what_the_seat_knows(name: str) -> None:
    searched = 0
    for g, seed in positions(name, 6, 0.1 if name in ("koth", "siege") else 0.2):
        seat = _searchable(name, g)
        if seat is None:
            continue
        b = perturbed(g, seat, random.Random(seed + searched))
        ai = _strong(name)
        move_a = ai.choose(g, seat, random.Random(7))
        last_a = dict(ai.last)
        move_b = ai.choose(b, seat, random.Random(7))
        assert move_b == move_a
        assert ai.last == last_a
        playouts = STRONG_PLAYOUTS[name]
        assert hint(b, seat, random.Random(5), playouts=playouts) == hint(g, seat, random.Random(5), playouts=playouts)
        # Counted only where the search compared moves (Tricks may merge every candidate into one).
        searched += last_a.get("worlds", 0) >= 2
        if searched >= 8:
            break
    assert searched >= 3


def _held_after_exchange(g: Game) -> list[set[str]]:
    """Each Hearts seat's cards after this hand's exchange: its hand now and its plays since."""
    held = [{c.code for c in h} for h in g.hands]
    for lead, cs in g.history:
        for i, c in enumerate(cs):
            held[(lead + i) % 4].add(c.code)
    for s, c in g.trick:
        held[s].add(c.code)
    return held


def test_hearts_a_queen_passed_out_of_sight_changes_nothing() -> None:
    """The case an outside check found: another seat passed Q♠ (to a seat other than the searcher),
    and the normal AI playing that seat in the playouts reads its own pass.  Position B (same seed)
    says it passed another card of its receiver's instead; the searcher saw neither pass.  The
    worlds are the same, every pass in them went where the world's cards are, and so the search's
    figures and the hint are the same too."""
    from games.hearts.rules import Hearts

    found = 0
    for seed in range(100):
        g = Hearts.create(4, {"rules": "classic", "target": 200}, seed)
        ai = engine.get("hearts").ai()
        rng = random.Random(seed)
        if g.pass_dir == "hold":
            continue
        while g.trick_no < 1 + seed % 4 or g.trick or g.phase == "pass":
            s = g.to_act()[0]
            g.apply(s, ai.choose(g, s, rng))
        seat = g.turn
        off = _HEARTS_OFFSET[g.pass_dir]
        x = next((s for s in range(4) if s != seat and (s + off) % 4 != seat
                  and any(c.code == "QS" for c in g.passed[s])), None)
        if x is None or not any(c.code == "QS" for h in g.hands for c in h):
            continue
        d = g.to_dict()
        to = (x + off) % 4
        z = next(c for c in d["hands"][to] if c not in d["passed"][x])
        for r in (d["passed"][x], d["received"][to], d["pass_choice"][x]):
            r[r.index("QS")] = z
        b = Hearts.from_dict(d)
        assert b.view(seat) == g.view(seat) and b.passed[x] != g.passed[x]
        for k in range(6):
            w = g.sample_world(seat, random.Random(k))
            assert w.to_dict() == b.sample_world(seat, random.Random(k)).to_dict()
            held = _held_after_exchange(w)
            for s in range(4):
                assert w.pass_choice[s] == w.passed[s] == w.received[(s + off) % 4]
                assert {c.code for c in w.passed[s]} <= held[(s + off) % 4], (seed, k, s)
            assert w.passed[seat] == g.passed[seat] and w.received[seat] == g.received[seat]
        if found < 2:
            strong = _strong("hearts")
            a_move = strong.choose(g, seat, random.Random(3))
            a_last = dict(strong.last)
            assert strong.choose(b, seat, random.Random(3)) == a_move and strong.last == a_last
            assert hint(b, seat, random.Random(4), playouts=24) == hint(g, seat, random.Random(4), playouts=24)
        found += 1
    assert found >= 8


def test_dalmuti_world_taxes_are_the_seats_own_and_its_partners_only() -> None:
    from games.dalmuti.rules import CLOSE_LOOK, Dalmuti

    g = Dalmuti.create(5, {"hands": 1}, 3, ranking=[0, 1, 2, 3, 4])
    g.apply(TABLE, CLOSE_LOOK)
    for giver in (0, 1):  # the Greater, then the Lesser Dalmuti give back their worst
        g.apply(giver, engine.core.Action("give", g.decision(giver).cards[-(2 - giver):]))
    assert all(g.tax_given[s] for s in (0, 1, 3, 4))
    for seat, partner, pair in ((0, 4, (1, 3)), (3, 1, (0, 4)), (2, None, (0, 1, 3, 4))):
        for k in range(5):
            w = g.sample_world(seat, random.Random(k))
            assert w.tax_given[seat] == g.tax_given[seat] and w.tax_received[seat] == g.tax_received[seat]
            if partner is not None:
                assert w.tax_given[partner] == g.tax_given[partner]
                assert w.tax_received[partner] == g.tax_received[partner]
            # A pair the seat was not in: it never saw those cards.
            assert all(w.tax_given[s] == [] and w.tax_received[s] == [] for s in pair)


def test_koth_world_dead_hand_is_the_takers_only() -> None:
    from games.koth.rules import BURY, KingOfTheHill

    found = 0
    for seed in range(6):
        g = KingOfTheHill.create(5, {"rounds": 2, "ready_round": 0}, seed)
        ai = engine.get("koth").ai()
        rng = random.Random(seed)
        while g.phase != BURY:
            move(g, rng, ai)
        koth = g.koth
        for seat in range(5):
            w = g.sample_world(seat, random.Random(seed))
            if seat == koth:
                assert w.dead == g.dead and w.marked == g.marked
            else:
                # Eight of the KotH's cards in the world, none marked.
                assert len(w.dead) == len(g.dead) and not w.marked
                assert all(w.dead.count(c) <= w.hands[koth].count(c) for c in w.dead)
        # Between rounds the dead hand is still known only to whoever took it, the last round's
        # KotH (the hill may have changed hands): any other seat's world says the buried cards.
        g = KingOfTheHill.create(5, {"rounds": 3, "ready_round": 1}, seed)
        while g.last_round is None or g.phase != "round_ready":
            move(g, rng, ai)
        taker = g.last_round["koth"]
        assert sorted(c.code for c in g.dead) != sorted(c.code for c in g.buried)
        for seat in range(5):
            w = g.sample_world(seat, random.Random(seed))
            assert w.dead == (g.dead if seat == taker else g.buried)
        found += 1
    assert found == 6
