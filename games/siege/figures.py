"""Siege's stats figures, counted from the public events of a replay of its log (engine/figures.py
says how every game's figures are kept; docs/rules.md §5)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event
from words import N_

#: Each figure's name: a msgid of this game's domain (games/siege/locale/), translated where shown.
SIEGE = {"attacks": N_("attacks made"), "attacks_won": N_("attacks won")}


def siege_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"attacks": 0, "attacks_won": 0} for _ in range(players)]
    attacker: int | None = None
    for e in events:
        if e.to is not None or e.seat is None or not 0 <= e.seat < players:
            continue
        if e.kind == "attack":
            attacker = e.seat
            out[attacker]["attacks"] += 1
        elif e.kind == "fight" and attacker is not None:
            if e.seat == attacker:
                out[attacker]["attacks_won"] += 1
            attacker = None
    return out
