"""Why some of a person's cards cannot be played now: the cards no action of their decision uses,
and the engine's own refusal for one of them (``engine.core.refusal``, asked on a copy of the
state), remembered per table and version so a redraw does not ask again.
"""

from __future__ import annotations

import weakref

from engine.core import Game, refusal
from tables.live import SeatView
from tables.table import Table


def unplayable(sv: SeatView) -> list[str]:
    """Codes of the person's cards that no action of their decision uses (a card-by-card choice
    only: a pick offers its own cards)."""
    d, hand = sv.decision, (sv.view or {}).get("hand") or []
    if d is None or d.pick or not d.actions or not hand or d.kind not in RESTRICTED_KINDS:
        return []
    if any(a.kind != d.kind and a.cards for a in d.actions):
        return []  # cards used in several kinds of move (one turn): none is "unplayable" as such
    used = {c.code for a in d.actions for c in a.cards}
    return [code for code in dict.fromkeys(hand) if code not in used]


#: Decisions where a card may be unplayable for a reason worth a line (a turn may mix kinds).
RESTRICTED_KINDS = frozenset({"play", "call"})

# table -> (its state, its version, {(seat, card): the reason}) when a hand was last drawn: asked
# once per version, seat and card.  One entry a table (the engine changes a state in place; a table
# restored after a failed write has a new state object and may repeat a version), gone with the
# table: no game state outlives its table here (issue 35: 512 states were kept).
_WHY: weakref.WeakKeyDictionary[Table, tuple[Game, int, dict[tuple[int, str], str | None]]] = \
    weakref.WeakKeyDictionary()


def restriction(sv: SeatView) -> str | None:
    """The engine's reason why the person's unplayable cards cannot be played, asked about one of
    them on a copy of the state (the refusal it would give); ``None`` when every card is playable."""
    cards = unplayable(sv)
    table, d = sv.table, sv.decision
    if not cards or table.state is None or d is None:
        return None
    entry = _WHY.get(table)
    if entry is None or entry[0] is not table.state or entry[1] != table.version:
        entry = (table.state, table.version, {})
        _WHY[table] = entry
    key = (sv.seat, cards[0])
    if key in entry[2]:
        return entry[2][key]
    try:
        # The game reads the code (its own cards: a D8 is not the 8♦); the engine's refusal,
        # whether it comes from reading or from applying, is the reason.
        refused = refusal(table.state, sv.seat, f"{d.kind} {cards[0]}")
    except Exception:
        refused = None
    why = None if refused is None else refused.phrase
    entry[2][key] = why
    return why
