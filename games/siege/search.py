"""Siege's knowledge for the strong level's search (engine/search.py; docs/rules.md §5)."""

from __future__ import annotations

from typing import Any

from engine.search import Hooks
from games.siege.rules import KING_PILE


class SiegeHooks(Hooks):
    """Siege: a game runs to dozens of rounds, so a playout stops after ``HORIZON`` rounds and
    scores the seat's King pile race: its lead over the best rival (a win or a loss counts as the
    whole race)."""

    HORIZON = 2  # rounds (four turns each) a playout looks ahead
    WIN = float(KING_PILE)  # a finished King pile: the whole race of lead

    def searchable(self, state: Any, seat: int) -> bool:
        return state.phase != "over" and state.to_act() == (seat,)

    def done(self, start: Any, now: Any) -> bool:
        return now.is_over or now.turn_no >= start.turn_no + 4 * self.HORIZON

    def utility(self, start: Any, end: Any, seat: int) -> float:
        if end.winner is not None:
            return self.WIN if end.winner == seat else -self.WIN
        kings = [len(k) for k in end.kings]
        return float(kings[seat] - max(k for s, k in enumerate(kings) if s != seat))
