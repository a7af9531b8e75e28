"""Seasons of a server's leaderboard.

A season is named by when a game finished: ``"2026-11"`` for a monthly season, ``"2026-Q4"`` for a
quarterly one, ``"all"`` when the server keeps one board forever.  At a new season every rating
carries over with more uncertainty — openskill's own dynamics: the model adds ``tau`` to sigma in
quadrature before it rates (``sqrt(sigma² + tau²)``); a season applies that widening once, capped at
a newcomer's sigma, so a strong player stays near the top but must play to stay there.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Literal

Period = Literal["month", "quarter", "none"]
PERIODS: tuple[Period, ...] = ("month", "quarter", "none")

#: How far sigma widens at a new season (in the model's units: a newcomer's sigma is 25/3 ≈ 8.33).
SEASON_TAU = 25 / 12


def season_of(finished_at: float, period: Period) -> str:
    """The season a game that finished at ``finished_at`` (Unix seconds, UTC) counts in."""
    if period == "none":
        return "all"
    when = datetime.fromtimestamp(finished_at, UTC)
    if period == "month":
        return f"{when.year:04d}-{when.month:02d}"
    if period == "quarter":
        return f"{when.year:04d}-Q{(when.month - 1) // 3 + 1}"
    raise ValueError(f"unknown season period {period!r}")


def season_start(season: str) -> float:
    """When ``season`` began (Unix seconds, UTC); ``"all"`` began at the epoch."""
    if season == "all":
        return 0.0
    year, rest = season.split("-")
    month = (int(rest[1:]) - 1) * 3 + 1 if rest.startswith("Q") else int(rest)
    return datetime(int(year), month, 1, tzinfo=UTC).timestamp()


def widened(sigma: float, cap: float, tau: float = SEASON_TAU) -> float:
    """A rating's sigma carried into a new season: wider by ``tau`` in quadrature, at most ``cap``."""
    return min(cap, math.sqrt(sigma * sigma + tau * tau))
