"""Swiss pairing and standings for tournaments of tables of more than two (rules: docs/rules.md,
"Tournaments"; code: tables/nights/swiss.py)."""

from __future__ import annotations

import itertools
import random

import pytest

from tables.nights.swiss import Seat, met, pair, standings, table_points, table_sizes


def test_points_count_the_seats_beaten_and_half_the_ties() -> None:
    seats = [Seat(1, 1), Seat(2, 2), Seat(None, 2), Seat(3, 4)]
    assert table_points(seats) == {1: 3.0, 2: 1.5, 3: 0.0}


def test_an_absent_person_earns_nothing_and_the_others_are_scored_as_usual() -> None:
    seats = [Seat(1, 1, present=False), Seat(2, 2), Seat(3, 3), Seat(4, 4)]
    assert table_points(seats) == {1: 0.0, 2: 2.0, 3: 1.0, 4: 0.0}


@pytest.mark.parametrize(("people", "seats", "sizes"), [
    (10, 4, [4, 3, 3]), (8, 4, [4, 4]), (9, 4, [3, 3, 3]), (5, 4, [3, 2]), (3, 4, [3]), (13, 5, [5, 4, 4])])
def test_tables_are_as_even_as_the_numbers_allow(people: int, seats: int, sizes: list[int]) -> None:
    assert table_sizes(people, seats) == sizes


def test_standings_break_ties_by_opposition_then_wins_then_share_the_place() -> None:
    # Round 1: 1 beats 2, 3 beats 4 (two tables of two).  Round 2: 1 beats 3, 2 beats 4.
    r1 = [[Seat(1, 1), Seat(2, 2)], [Seat(3, 1), Seat(4, 2)]]
    r2 = [[Seat(1, 1), Seat(3, 2)], [Seat(2, 1), Seat(4, 2)]]
    board = standings([1, 2, 3, 4], r1 + r2)
    assert [(s.player, s.points) for s in board] == [(1, 2.0), (2, 1.0), (3, 1.0), (4, 0.0)]
    # 2 and 3 have one point each; 3 sat with 1 (2 points) and 4 (0) = 2; 2 sat with 1 and 4 = 2:
    # equal opposition and one win each, so they share second place.
    assert [s.place for s in board] == [1, 2, 2, 4]
    # With 4 having beaten 2 instead, 3's opposition (1 + 4) beats 2's: 3 is placed ahead alone.
    r2b = [[Seat(1, 1), Seat(3, 2)], [Seat(4, 1), Seat(2, 2)]]
    board = standings([1, 2, 3, 4], r1 + r2b)
    assert [(s.player, s.points, s.place) for s in board][:2] == [(1, 2.0, 1), (3, 1.0, 2)]


def _repeats(tables: list[list[int]], history: dict[frozenset[int], int]) -> int:
    return sum(history.get(frozenset(p), 0) for t in tables for p in itertools.combinations(t, 2))


def _fewest_repeats(people: list[int], sizes: list[int], history: dict[frozenset[int], int]) -> int:
    """Every seating of ``people`` at tables of ``sizes``, by brute force: the fewest repeats."""
    best = None

    def go(left: list[int], remaining: list[int], so_far: int) -> None:
        nonlocal best
        if not left:
            best = so_far if best is None else min(best, so_far)
            return
        head, rest = left[0], left[1:]
        for size in set(remaining):
            others = remaining.copy()
            others.remove(size)
            for mates in itertools.combinations(rest, size - 1):
                table = [head, *mates]
                go([p for p in rest if p not in mates], others, so_far + _repeats([table], history))

    go(people, sizes, 0)
    assert best is not None
    return best


@pytest.mark.parametrize("seed", range(6))
def test_ten_people_three_rounds_meet_again_only_when_unavoidable(seed: int) -> None:
    rng = random.Random(seed)
    people = list(range(1, 11))
    rng.shuffle(people)
    played: list[list[Seat]] = []
    for _ in range(3):
        order = [s.player for s in standings(people, played)] if played else people
        history = met(played)
        tables = pair(order, 4, history)
        assert sorted(len(t) for t in tables) == [3, 3, 4]
        assert sorted(p for t in tables for p in t) == sorted(people)
        assert _repeats(tables, history) == _fewest_repeats(order, [4, 3, 3], history)
        for t in tables:  # a random finishing order at each table (an AI fills a short one)
            places = list(range(1, 5))
            rng.shuffle(places)
            played.append([Seat(p, places[i]) for i, p in enumerate(t)] + [Seat(None, places[-1])] * (4 - len(t)))


def test_without_repeats_at_stake_people_sit_with_their_neighbours_in_the_standings() -> None:
    assert pair(list(range(8)), 4) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    # 0..3 all met already: two of them at each table is the fewest repeats (one pair a table),
    # and among those seatings the neighbours in the standings sit together.
    history = {frozenset(p): 1 for p in itertools.combinations(range(4), 2)}
    tables = pair(list(range(8)), 4, history)
    assert _repeats(tables, history) == _fewest_repeats(list(range(8)), [4, 4], history) == 2
    assert tables == [[0, 1, 4, 5], [2, 3, 6, 7]]
