"""The Great Dalmuti's knowledge for the strong level's search (engine/search.py; docs/rules.md §3)."""

from __future__ import annotations

from typing import Any

from engine.search import Hooks


class DalmutiHooks(Hooks):
    """The Great Dalmuti: the points the seat's finishing place scores (n−1 for first out … 0)."""


    def utility(self, start: Any, end: Any, seat: int) -> float:
        return float(end.scores[seat] - start.scores[seat])
