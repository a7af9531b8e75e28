"""What bench/ai.py measures of a King of the Hill round (engine/measure.py)."""

from __future__ import annotations

from typing import Any


def challenge_result(start: Any, end: Any, seat: int) -> float:
    """The round's challenge score as the seat's side sees it: + for the challengers, − for the
    defenders (higher is better for the seat)."""
    lr = end.last_round
    score = float(lr["challenge_score"])
    return -score if seat in lr["defenders"] else score
