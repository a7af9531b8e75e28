"""A tournament's state machine (tables/nights/tournament.py): sign-ups, rounds seated by the Swiss
rule, results, standings, absent people, and a restart from its stored form at any point."""

from __future__ import annotations

import json
import random

import pytest

from tables.nights.swiss import met
from tables.nights.tournament import Tournament, TournamentError


def new(players: int = 10, rounds: int = 3) -> Tournament:
    t = Tournament("t1", "hearts", 4, rounds, organiser=1, seed=5)
    for p in range(1, players + 1):
        t.join(p)
    return t


def play_round(t: Tournament, rng: random.Random, restore: bool = False) -> Tournament:
    opening = t.to_open()
    for n, _ in opening:
        t.opened(n, f"r{t.round_no}t{n}")
    if restore:
        t = Tournament.from_dict(json.loads(json.dumps(t.to_dict())))
    for n, people in opening:
        places = list(range(1, len(people) + 1))
        rng.shuffle(places)
        t.finished(f"r{t.round_no}t{n}", places)
    return t


def test_sign_ups_and_who_may_start() -> None:
    t = Tournament("t1", "hearts", 4, 3, organiser=1, seed=5)
    t.join(1)
    with pytest.raises(TournamentError, match="signed up already"):
        t.join(1)
    with pytest.raises(TournamentError, match="at least 2"):
        t.start(by=1)
    t.join(2)
    with pytest.raises(TournamentError, match="Only the organiser"):
        t.start(by=2)
    t.leave(2)
    t.join(2)
    t.start(by=1)
    with pytest.raises(TournamentError, match="sign-ups are closed"):
        t.join(3)


@pytest.mark.parametrize("restore", [False, True])
def test_ten_people_three_rounds_from_first_seating_to_final_standings(restore: bool) -> None:
    rng = random.Random(3)
    t = new()
    first = t.start(by=1)
    assert sorted(len([p for p in table if p is not None]) for table in first.tables) == [3, 3, 4]
    assert sorted(p for table in first.tables for p in table if p is not None) == list(range(1, 11))
    for _ in range(3):
        assert t.state == "running"
        t = play_round(t, rng, restore)
    assert t.state == "finished" and t.round_no == 3 and t.to_open() == []
    board = t.standings()
    assert len(board) == 10 and board[0].points >= board[-1].points
    # Every point handed out is one seat beaten (half a tie): 4-seat tables give 6 each round.
    assert sum(s.points for s in board) == pytest.approx(
        sum(sum(1 for o in res if o.place > s.place) for res in t.finished_tables() for s in res
            if s.player is not None))
    assert max(met(t.finished_tables()).values()) <= 2


def test_an_absent_person_earns_nothing_that_round_and_a_second_report_counts_once() -> None:
    t = new(players=4, rounds=2)
    t.start(by=1)
    (n, people), = t.to_open()
    t.opened(n, "a")
    first = 0  # four people at a four-seat table: no AI seat
    places = [1, 2, 3, 4]
    nxt = t.finished("a", places, absent=[first])
    assert nxt is not None and t.round_no == 2
    assert t.finished("a", places) is None  # told again after a restart: nothing changes
    points = {s.player: s.points for s in t.standings()}
    assert points[people[0]] == 0.0 and points[people[1]] == 2.0


def test_a_short_field_is_filled_by_ai_seats() -> None:
    t = new(players=3, rounds=1)
    r = t.start(by=1)
    assert len(r.tables) == 1 and r.tables[0].count(None) == 1
