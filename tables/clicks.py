"""What a click on a hand view names, and whether the view it came from still stands.

The one place for these rules: the Discord layer reads a component's custom id (table, version,
action code or chosen cards) and answers; what the click means and whether it is out of date are
decided here, over a :class:`~tables.table.Table` (pure: no I/O, nothing awaited), and by the
runtime with the same :func:`stale` rule.

A click carries the table version its view was drawn at.  It stands while what that view offered
has not changed since: the seat's decision (the runtime's ``Live.since``), or, for the part menus
and **Clear** of a pick over many cards, the seat's marking (:func:`marking_since`).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import CardError, card
from engine.core import Action
from tables.live import TableError
from tables.table import Phase, Table
from words import N_

MARK = "mark"  # the argument that makes a pick's action a step of the choice (``bury 5H mark``)
OUT_OF_DATE = "That menu is out of date; open your hand again with **My hand**."


def stale(t: Table, version: int, since: int) -> bool:
    """Whether a view drawn at table ``version`` is out of date: drawn at a version the table never
    had (newer than its own), or before ``since``, the version since which what it offered stands."""
    return version > t.version or version < since


def is_mark(code: str, kind: str) -> bool:
    """Whether a logged action code is a marking step of a ``kind`` pick (``bury 5H 9S mark``)."""
    words = code.split()
    return len(words) >= 2 and words[0] == kind and words[-1] == MARK


def marking_since(table: Table, seat: int, kind: str) -> int:
    """The table version since which ``seat`` has done nothing but mark cards for its ``kind`` pick
    (nobody else has moved): part menus drawn at that version or later still stand."""
    for e in reversed(getattr(table, "log", None) or ()):
        if e.seat != seat or not is_mark(e.code, kind):
            return int(e.seq)
    return 0


def action_named(table: Table, user_id: int, code: str) -> str | Action:
    """The legal action a button or menu names by its code (the engine's own value, whatever its
    cards are); the code itself when it names none now (the runtime then says why)."""
    seat = table.seat_of(user_id)
    if seat is None or table.state is None or table.phase != Phase.RUNNING:
        return code
    decision = table.state.decision(seat)
    for a in decision.actions if decision is not None else ():
        if a.code == code:
            return a
    return code


def picked(table: Table, user_id: int, kind: str, codes: Sequence[str]) -> Action:
    """The action chosen in a card menu, from the chosen cards' codes, read as the decision's own
    cards; for a decision with explicit actions (two cards for a pair lead) the legal action with
    exactly those cards."""
    seat = table.seat_of(user_id)
    decision = table.state.decision(seat) if seat is not None and table.state is not None else None
    if decision is not None and decision.kind == kind:
        objs = {c.code: c for c in decision.cards}
        for a in decision.actions:
            objs.update((c.code, c) for c in a.cards)
        if all(code in objs for code in codes):
            chosen = tuple(objs[code] for code in codes)
            if not decision.pick:
                want = sorted(codes)
                for a in decision.actions:
                    if sorted(c.code for c in a.cards) == want:
                        return a
            return Action(kind, chosen)
    try:
        return Action(kind, tuple(card(code) for code in codes))
    except CardError:
        # Not a card of this decision: the menu is from an earlier view (or another table).
        raise TableError(OUT_OF_DATE) from None


def chooser(table: Table, user_id: int, version: int, kind: str, marking: bool = False) -> int:
    """The seat of a click on a part menu or OK / Clear, refused when the view it came from is out
    of date.  ``marking`` (a part menu, Clear): it still stands while the seat has done nothing but
    mark cards since it was drawn."""
    seat = table.seat_of(user_id)
    if seat is None:
        raise TableError(N_("You are not seated at this table."))
    decision = table.state.decision(seat) if table.phase == Phase.RUNNING and table.state is not None else None
    out_of_date = (decision is None or decision.kind != kind or not decision.pick
                   or stale(table, version, marking_since(table, seat, kind) if marking else 0)
                   or table.state is None or "marked" not in table.state.view(seat))
    if out_of_date:
        raise TableError(OUT_OF_DATE)
    return seat


def moved_since(table: Table, user_id: int, version: int) -> bool:
    """Whether the person made a move of their own after ``version`` (a double click)."""
    seat = table.seat_of(user_id)
    for e in reversed(table.log):
        if e.seq <= version:
            return False
        if e.seat == seat and not e.auto:
            return True
    return False
