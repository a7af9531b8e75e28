"""Why some of a person's cards cannot be played now: the cards no action of their decision uses,
and the engine's own refusal for one of them (``engine.core.refusal``, asked on a copy of the
state), remembered per state so a redraw does not ask again.
"""

from __future__ import annotations

from engine.core import Game, refusal
from tables.live import SeatView


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

# (id of the state, version, seat, card) -> (the state, the reason): asked once per state and card,
# the state kept with its answer so a recycled id can never hit (test tables share ids and versions).
_WHY: dict[tuple[int, int, int, str], tuple[Game, str | None]] = {}


def restriction(sv: SeatView) -> str | None:
    """The engine's reason why the person's unplayable cards cannot be played, asked about one of
    them on a copy of the state (the refusal it would give); ``None`` when every card is playable."""
    cards = unplayable(sv)
    table, d = sv.table, sv.decision
    if not cards or table.state is None or d is None:
        return None
    key = (id(table.state), table.version, sv.seat, cards[0])
    hit = _WHY.get(key)
    if hit is not None and hit[0] is table.state:
        return hit[1]
    try:
        # The game reads the code (its own cards: a D8 is not the 8♦); the engine's refusal,
        # whether it comes from reading or from applying, is the reason.
        refused = refusal(table.state, sv.seat, f"{d.kind} {cards[0]}")
    except Exception:
        refused = None
    why = None if refused is None else refused.phrase
    if len(_WHY) > 512:
        _WHY.clear()
    _WHY[key] = (table.state, why)
    return why
