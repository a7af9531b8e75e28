"""King of the Hill's stats figures, counted from the public events of a replay of its log (engine/figures.py
says how every game's figures are kept; docs/rules.md §4)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event
from words import N_

#: Each figure's name: a msgid of this game's domain (games/koth/locale/), translated where shown.
KOTH = {"rounds_as_koth": N_("rounds as the King"), "defences": N_("hills held"), "teammate": N_("rounds as teammate")}


def koth_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"rounds_as_koth": 0, "defences": 0, "teammate": 0} for _ in range(players)]
    for e in events:
        # hand_end: seat = the KotH; data = (round, teammate or -1, challenge score, ...)
        if e.to is None and e.kind == "hand_end" and e.seat is not None and 0 <= e.seat < players:
            out[e.seat]["rounds_as_koth"] += 1
            mate, score = e.data[1], e.data[2]
            if isinstance(score, int) and score < 80:
                out[e.seat]["defences"] += 1
            if isinstance(mate, int) and 0 <= mate < players and mate != e.seat:
                out[mate]["teammate"] += 1
    return out
