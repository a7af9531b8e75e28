"""The Great Dalmuti's strong level (games/dalmuti/search.py): a playout stops once the searched seat
is out (its place, so its points, are settled), and the search it feeds chooses exactly as one
played to the end of the hand — only sooner, so the level affords more worlds for the same CPU."""

from __future__ import annotations

import random

import engine
from engine.core import TABLE
from engine.search import SearchAI
from games.dalmuti.search import DalmutiHooks
from tests.engine.test_dalmuti_ai import playing, table_step


class FullPlayouts(DalmutiHooks):
    """The same hooks with the engine's own playout, played to the end of the hand."""

    playout = None  # type: ignore[assignment]


def test_a_playout_stops_when_the_seat_goes_out() -> None:
    # Leading its last two cards, seat 0 goes out first: 3 points, whatever the others do after.
    g = playing(["D12 D12", "D5 D6 D7", "D8 D9", "D10 D11 D11"], turn=0)
    out = next(a for a in g.legal_plays(0) if len(a.cards) == 2)
    x = g.copy()
    x.apply(0, out)
    left = list(x.left)
    spec = engine.get("dalmuti")
    assert spec.search.playout(g, x, 0, spec.ai()) == 3.0
    assert x.left == left and not x.is_over  # nothing more was played


def test_a_playout_scores_the_place_the_seat_finishes_in() -> None:
    # Seat 3 cannot beat anything and is out last: 0 points, once the hand has been played out.
    g = playing(["D1", "D2", "D3", "D12 D12"], turn=0)
    x = g.copy()
    x.apply(0, g.legal_plays(0)[0])
    spec = engine.get("dalmuti")
    assert spec.search.playout(g, x, 3, spec.ai()) == 0.0
    assert x.is_over


def test_the_search_chooses_as_with_playouts_played_to_the_end() -> None:
    spec = engine.get("dalmuti")
    cut = SearchAI(spec.search, spec.ai(), 24)
    full = SearchAI(FullPlayouts(), spec.ai(), 24)
    assert isinstance(spec.search, DalmutiHooks) and spec.search.playout is not None
    searched = 0
    for seed in range(2):
        g = spec.game.create(4, {"hands": 1}, 700 + seed)
        normal, rng = spec.ai(), random.Random(seed)
        while not g.is_over:
            if table_step(g, normal, rng):
                continue
            s = g.to_act()[0]
            assert TABLE != s
            if spec.search.searchable(g, s):
                a = cut.choose(g, s, random.Random(seed))
                b = full.choose(g, s, random.Random(seed))
                assert (a, cut.last) == (b, full.last)
                searched += bool(cut.last)
            g.apply(s, normal.choose(g, s, rng))
    assert searched > 10
