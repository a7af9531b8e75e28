"""What a replay shows of Tricks (engine/replays.py): the trick being played, or the one just taken."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event, Game, View
from engine.replays import Group, Position, ReplayHooks, trick_position, trick_table


class TricksReplay(ReplayHooks):
    def table(self, state: Game, pv: View, views: Sequence[View], events: Sequence[Event]) -> list[Group]:
        return trick_table(pv, events)

    def position(self, pv: View, events: Sequence[Event], leads: int) -> Position:
        return trick_position(pv, events, int(pv.get("hand_no") or 0) + 1, self.unit)
