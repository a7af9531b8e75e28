"""Hearts' knowledge for the strong level's search (engine/search.py): a hand's result is the points
it cost the seat (docs/rules.md §1), so fewer is better."""

from __future__ import annotations

from typing import Any

from engine.search import Hooks


class HeartsHooks(Hooks):

    def utility(self, start: Any, end: Any, seat: int) -> float:
        return -float(end.scores[seat] - start.scores[seat])
