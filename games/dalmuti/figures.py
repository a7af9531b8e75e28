"""The Great Dalmuti's stats figures, counted from the public events of a replay of its log (engine/figures.py
says how every game's figures are kept; docs/rules.md §3)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event
from engine.figures import hand_totals, public, zeroed
from words import N_

#: Each figure's name: a msgid of this game's domain (games/dalmuti/locale/), translated where shown.
DALMUTI = {"firsts": N_("hands finished first"), "revolutions": N_("revolutions called"), "hands": N_("hands played")}


def dalmuti_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = zeroed(DALMUTI, players)
    for e in public(events):
        if e.kind == "hand_end" and len(e.data) > 1:
            first = e.data[1]  # (hand_no, finishing order..., scores...)
            for f in out:
                f["hands"] += 1
            if isinstance(first, int) and 0 <= first < players:
                out[first]["firsts"] += 1
        elif e.kind == "revolution" and e.seat is not None and 0 <= e.seat < players:
            out[e.seat]["revolutions"] += 1
    return out


def dalmuti_hand_holders(events: Sequence[Event], players: int) -> list[list[int]]:
    """Each finished hand's ranking at its deal: the seat that held the Greater Dalmuti's cards, the
    Lesser Dalmuti's, … the Greater Peon's (the deal goes by rank, §3.2; duplicate deals compare by it)."""
    out: list[list[int]] = []
    order: list[int] | None = None
    for e in events:
        if e.to is not None:
            continue
        if e.kind == "hand_start" and len(e.data) == players + 1:
            order = [int(s) for s in e.data[1:]]
        elif e.kind == "hand_end" and order is not None:
            out.append(order)
            order = None
    return out


def dalmuti_hand_scores(events: Sequence[Event], players: int) -> list[list[float]]:
    """Each finished hand's points by rank at its deal (see :func:`dalmuti_hand_holders`)."""
    by_seat = hand_totals(events, players)
    return [[row[s] for s in order] for row, order in zip(by_seat, dalmuti_hand_holders(events, players),
                                                          strict=False)]
