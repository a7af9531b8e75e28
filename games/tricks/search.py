"""Tricks' knowledge for the strong level's search (engine/search.py; docs/rules.md §2)."""

from __future__ import annotations

from engine.core import AI, Action
from engine.search import Hooks
from games.tricks.rules import Tricks


class TricksHooks(Hooks):

    def candidates(self, state: Tricks, seat: int) -> list[Action]:
        """One card of each run of equivalent ones: two cards of a suit with nothing between them
        but the seat's own cards and cards gone in earlier tricks take the same tricks whichever is
        played (a card on the table now still counts between them: it may beat one and not the
        other).  Fewer candidates, more worlds for the same playouts.  A run is played by the
        normal player's card when it is in the run, else by its lowest."""
        from games.tricks.ai import equivalent_runs

        return equivalent_runs(state, seat)

    def playout(self, start: Tricks, x: Tricks, seat: int, base: AI) -> float | None:
        """The normal player's playout with its counts kept play by play (same moves, cheaper)."""
        from games.tricks.ai import TricksAI, play_out

        return self.own_playout(start, x, seat, base, TricksAI, play_out)

    def utility(self, start: Tricks, end: Tricks, seat: int) -> float:
        return float(end.scores[seat] - start.scores[seat])
