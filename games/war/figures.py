"""War's stats figures: the battles each seat won, counted from the events."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event
from words import N_

#: Each figure's name: a msgid of this game's domain (games/war/locale/), translated where shown.
BATTLES = {"battles": N_("battles won")}


def battles(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"battles": 0} for _ in range(players)]
    for e in events:
        if e.to is None and e.kind == "trick" and e.seat is not None and 0 <= e.seat < players:
            out[e.seat]["battles"] += 1
    return out
