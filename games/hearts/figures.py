"""Hearts' stats figures, counted from the public events of a replay of its log (engine/figures.py
says how every game's figures are kept): moons shot, Q♠ taken and hands played (docs/rules.md §1)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event
from engine.figures import public, zeroed
from words import N_

#: Each figure's name: a msgid of this game's domain (games/hearts/locale/), translated where shown.
HEARTS = {"moons": N_("moons shot"), "queens": N_("Q♠ taken"), "hands": N_("hands played")}


def hearts_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = zeroed(HEARTS, players)
    for e in public(events):
        if e.kind == "hand_end" and len(e.data) > players:
            moon = e.data[players]
            for f in out:
                f["hands"] += 1
            if isinstance(moon, int) and 0 <= moon < players:
                out[moon]["moons"] += 1
        elif e.kind == "trick" and e.seat is not None and any(getattr(c, "code", c) == "QS" for c in e.data[2:]):
            out[e.seat]["queens"] += 1
    return out
