"""Tricks' stats figures, counted from the public events of a replay of its log (engine/figures.py
says how every game's figures are kept; docs/rules.md §2)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event
from words import N_

#: Each figure's name: a msgid of this game's domain (games/tricks/locale/), translated where shown.
TRICKS = {"tricks": N_("tricks won"), "bad_cards": N_("bad cards")}


def tricks_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"tricks": 0, "bad_cards": 0} for _ in range(players)]
    for e in events:
        if e.to is None and e.seat is not None and 0 <= e.seat < players:
            if e.kind == "trick":
                out[e.seat]["tricks"] += 1
            elif e.kind == "bad_card":
                out[e.seat]["bad_cards"] += 1
    return out
