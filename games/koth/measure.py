"""What bench/ai.py measures of a King of the Hill round (engine/measure.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from games.koth.rules import KingOfTheHill


def challenge_result(start: KingOfTheHill, end: KingOfTheHill, seat: int) -> float:
    """The round's challenge score as the seat's side sees it: + for the challengers, − for the
    defenders (higher is better for the seat)."""
    lr = end.last_round
    assert lr is not None  # the round is over
    score = float(lr["challenge_score"])
    return -score if seat in lr["defenders"] else score
