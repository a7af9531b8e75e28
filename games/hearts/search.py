"""Hearts' knowledge for the strong level's search (engine/search.py): a hand's result is the points
it cost the seat (docs/rules.md §1), so fewer is better."""

from __future__ import annotations

from engine.core import AI, Action
from engine.search import Hooks
from games.hearts.rules import Hearts


class HeartsHooks(Hooks):

    def candidates(self, state: Hearts, seat: int) -> list[Action]:
        """One card of each run of equivalent ones: two cards of a suit with nothing between them
        but the seat's own cards and cards gone in earlier tricks win and lose the same tricks
        whichever is played, and cost the same points (Q♠ is never in a run: it alone costs 13).
        A card on the table now still counts between them (it may beat one and not the other).
        Fewer candidates, more worlds for the same time.  A run is played by the normal player's
        card when it is in the run, else by its lowest.  Only what the seat sees: its hand and the
        finished tricks."""
        from games.hearts.ai import equivalent_runs

        return equivalent_runs(state, seat)

    def playout(self, start: Hearts, x: Hearts, seat: int, base: AI) -> float | None:
        """The normal player's playout with its counts kept play by play (same moves, cheaper)."""
        from games.hearts.ai import HeartsAI, play_out

        return self.own_playout(start, x, seat, base, HeartsAI, play_out)

    def utility(self, start: Hearts, end: Hearts, seat: int) -> float:
        return -float(end.scores[seat] - start.scores[seat])
