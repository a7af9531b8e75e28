"""Duplicate scoring against the field or par, and the leaderboard's seasons (tables/nights/)."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from tables.history.ratings import SIGMA
from tables.nights.duplicate import against_field
from tables.nights.seasons import season_of, season_start, widened


def test_against_the_field_when_the_lowest_score_wins() -> None:
    # Two tables played the same two deals; board = (deal, hand).  Hand-computed: on (1, 0) Ann took
    # 3 and Bea 13 on the same cards: Ann +10, Bea -10.  On (1, 1) Cy 0 vs Dee 6: Cy +6, Dee -6.
    # On (2, 0) Ann 26 vs Bea 20: Ann -6, Bea +6.
    boards = {(1, 0): {1: 3, 2: 13}, (1, 1): {3: 0, 4: 6}, (2, 0): {1: 26, 2: 20}}
    assert against_field(boards, lowest_wins=True) == {1: 4.0, 2: -4.0, 3: 6.0, 4: -6.0}
    # Where more is better the signs turn round.
    assert against_field(boards, lowest_wins=False) == {1: -4.0, 2: 4.0, 3: -6.0, 4: 6.0}


def test_against_the_mean_of_everyone_else_on_the_board() -> None:
    assert against_field({"b": {1: 4, 2: 6, 3: 11}}, lowest_wins=False) == {1: -4.5, 2: -1.5, 3: 6.0}


def test_against_par() -> None:
    boards = {(1, 0): {1: 5}, (1, 1): {2: 9}}
    par = {(1, 0): 8.0, (1, 1): 9.0}
    assert against_field(boards, lowest_wins=True, par=par) == {1: 3.0, 2: 0.0}
    # A board nobody else held and without par compares with nothing.
    assert against_field({(1, 0): {1: 5}}, lowest_wins=True) == {1: 0.0}


def _at(*args: int) -> float:
    return datetime(*args, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(("when", "period", "season"), [
    (_at(2026, 11, 30, 23, 59), "month", "2026-11"), (_at(2026, 12, 1), "month", "2026-12"),
    (_at(2026, 9, 30, 23), "quarter", "2026-Q3"), (_at(2026, 10, 1), "quarter", "2026-Q4"),
    (_at(2026, 1, 1), "none", "all")])
def test_a_game_counts_in_the_season_it_finished_in(when: float, period: str, season: str) -> None:
    assert season_of(when, period) == season  # type: ignore[arg-type]
    assert season_start(season) <= when


def test_season_starts() -> None:
    assert season_start("2026-Q4") == _at(2026, 10, 1)
    assert season_start("2026-02") == _at(2026, 2, 1)
    assert season_start("all") == 0.0


def test_a_new_season_widens_sigma_but_never_past_a_newcomers() -> None:
    assert math.isclose(widened(3.0, SIGMA, tau=4.0), 5.0)
    assert widened(SIGMA - 0.1, SIGMA) == SIGMA
    assert widened(2.0, SIGMA) > 2.0
