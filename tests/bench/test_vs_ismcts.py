"""bench/vs_ismcts.py's parts that need no open_spiel (it is installed only for that bench, in a venv
of its own): the card numbering shared with OpenSpiel's Hearts, the margin of a deal and its
interval, and the sentence the bench prints when open_spiel is missing."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from bench.vs_ismcts import deal_margin, from_openspiel, interval95, to_openspiel
from engine.cards import card
from games.hearts.deal import DECK
from tests.bench.test_benches import ROOT


def test_cards_translate_both_ways_as_openspiel_numbers_them() -> None:
    # OpenSpiel's Hearts: rank × 4 + suit, ranks 2…A as 0…12, suits ♣ ♦ ♥ ♠ as 0…3.
    assert to_openspiel(card("2C")) == 0
    assert to_openspiel(card("2S")) == 3
    assert to_openspiel(card("3C")) == 4
    assert to_openspiel(card("QS")) == 43
    assert to_openspiel(card("AS")) == 51
    assert sorted(to_openspiel(c) for c in DECK) == list(range(52))
    assert all(from_openspiel(to_openspiel(c)) is c for c in DECK)


def test_a_deals_margin_is_the_other_sides_points_minus_ours_per_seat_hand() -> None:
    # Hand 1: we hold seats 0 and 2 and take 0 + 3; hand 2: seats 1 and 3, taking 13 + 0.
    points = [[0.0, 10.0, 3.0, 13.0], [4.0, 13.0, 9.0, 0.0]]
    ours = [[0, 2], [1, 3]]
    assert deal_margin(points, ours) == pytest.approx((10 + 13 + 4 + 9) / 4 - (0 + 3 + 13 + 0) / 4)


def test_interval_is_the_normal_95_percent_half_width() -> None:
    xs = [1.0, 3.0, 5.0, 7.0]
    sd = math.sqrt(sum((x - 4.0) ** 2 for x in xs) / 3)
    assert interval95(xs) == pytest.approx(1.96 * sd / 2)
    assert math.isnan(interval95([2.0]))


def test_the_bench_says_open_spiel_is_missing_instead_of_a_traceback() -> None:
    # Hidden even where it is installed: a None in sys.modules makes its import fail.
    run = ("import runpy, sys; sys.modules['pyspiel'] = None; sys.argv = ['vs_ismcts.py', '--hands', '2']; "
           "runpy.run_path('bench/vs_ismcts.py', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", run], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "open_spiel is not installed" in done.stderr and "Traceback" not in done.stderr
