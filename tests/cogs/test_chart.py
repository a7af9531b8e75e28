"""The end-of-game picture: a pure function from a finished game's record to PNG bytes, for every
game, the same bytes every time; the running scores follow the hands; nothing for an unfinished game."""

from __future__ import annotations

import dataclasses
import io

import pytest
from PIL import Image

from cogs.pictures.chart import score_chart, score_series
from tests import wargame
from tests.cogs.chartgames import finished_record


@pytest.fixture(autouse=True)
def _throwaway_games():
    """Every registered game is drawn, and War too: a game registered through its specs alone."""
    with wargame.registered():
        yield


@pytest.mark.parametrize("game", wargame.every_game())
def test_every_game_draws_its_running_scores(game: str) -> None:
    record = finished_record(game)
    s = score_series(record)
    assert s is not None and s.names == record.names
    assert len(s.points) >= 2 and all(len(p) == record.players for p in s.points)
    state, _ = record.replay()
    outcome = state.outcome()
    assert s.winners == outcome.winners
    png = score_chart(record)
    assert png is not None and png == score_chart(record)  # deterministic
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.size == (800, 420) and len(png) < 1024 * 1024


def test_hearts_points_are_the_totals_after_each_hand() -> None:
    record = finished_record("hearts")
    _, events = record.replay()
    n = record.players
    totals = [list(map(float, e.data[n + 1: 2 * n + 1])) for e in events if e.kind == "hand_end"]
    s = score_series(record)
    assert s.points[0] == [0.0] * n and s.points[1:] == totals and s.lower_is_better


def test_a_game_that_did_not_finish_has_no_picture() -> None:
    record = finished_record("tricks")
    unfinished = dataclasses.replace(record, log=record.log[: len(record.log) // 2])
    assert score_chart(unfinished) is None


def test_different_games_give_different_pictures() -> None:
    a, b = finished_record("hearts", seed=3), finished_record("hearts", seed=4)
    assert score_chart(a) != score_chart(b)
