"""Play ahead (issue 34, docs/rules.md "Play ahead"): in a trick game a person may choose their card
before their turn; it is played the moment their turn comes if it is still legal, else dropped
with a word to them alone, and they choose as usual.

Which games offer it comes from each game's folder (``GameSpec.play_ahead``); a table may turn it
off (``Table.play_ahead``, the table option ``ahead``).  The picks live in the table's
:class:`~tables.live.Live` (``picks``), by seat, one per seat (choosing again replaces it), in
memory only: a restart drops them (the person chooses again, or waits for their turn).  A pick is
forgotten when the hand ends, when the AI plays the seat (it left, or missed its turns), and when
the person plays or cancels.

Hidden means hidden: choosing, changing or cancelling a pick changes nothing of the table — not
its version, its log, its deadlines, anyone's decision or signal — so nothing anyone else sees,
and no timing, can differ until the card is played.  It is played by ``Turns._ahead_move``, which
:meth:`tables.turns.Turns.reschedule` starts when the turn comes, as a click made at that moment
would be: the person's own move in the log (not the AI's), no new ping for them afterwards (the
acting person is never pinged), the AI's pause counted from it.  Only that person's own view is
signalled (the card played, or the word that it was dropped).
"""

from __future__ import annotations

from engine.core import Action, IllegalAction, View
from tables.live import Picks, TableError
from tables.table import Phase, Table
from words import N_

NOT_OFFERED = N_("Choosing a card before your turn is off at this table.")
NOT_NOW = N_("You can choose a card ahead only while cards are being played.")
NOT_IN_HAND = N_("That card is not in your hand any more.")


def offered(t: Table) -> bool:
    """Whether the table plays ahead: its game says it may (its folder's ``GameSpec``) and the
    table did not turn it off."""
    return bool(t.spec.play_ahead and getattr(t, "play_ahead", True))


def may_choose(t: Table, seat: int, view: View | None = None) -> bool:
    """Whether ``seat``'s person may choose a card ahead now: a running trick game that plays ahead,
    cards being played, a person's seat (not the AI's) whose turn it is not.  ``view``: the seat's
    view, when the caller has it already."""
    state = t.state
    if not offered(t) or t.phase != Phase.RUNNING or state is None or state.is_over:
        return False
    if not 0 <= seat < len(t.seats) or t.seats[seat].auto or seat in state.to_act():
        return False
    return (view if view is not None else state.view(seat)).get("phase") == "play"


def choose(t: Table, picks: Picks, seat: int, code: str) -> None:
    """Keep ``code`` (a card's play, as its button names it) as ``seat``'s pick, replacing any; a
    refusal (:class:`TableError`, nothing changed) when it cannot be chosen."""
    if not offered(t):
        raise TableError(NOT_OFFERED, "ahead_off")
    if not may_choose(t, seat):
        raise TableError(NOT_NOW, "ahead_not_now")
    state = t.state
    assert state is not None
    try:
        action = state.action_from_code(code)
    except Exception:
        raise TableError(NOT_IN_HAND, "ahead_not_in_hand") from None
    hand = state.view(seat).get("hand") or ()
    if action.kind != "play" or len(action.cards) != 1 or action.args or action.cards[0].code not in hand:
        raise TableError(NOT_IN_HAND, "ahead_not_in_hand")
    picks.chosen[seat] = action.code
    picks.dropped.pop(seat, None)


def sweep(t: Table, picks: Picks) -> None:
    """Forget the picks of seats the AI plays now, and a dropped pick's word once that turn is over."""
    state = t.state
    acting = set(state.to_act()) if state is not None and t.phase == Phase.RUNNING else set()
    for s in [s for s in picks.chosen if not 0 <= s < len(t.seats) or t.seats[s].auto or not offered(t)]:
        del picks.chosen[s]
    for s in [s for s in picks.dropped if s not in acting or t.seats[s].auto]:
        del picks.dropped[s]


def due(t: Table, picks: Picks) -> list[int]:
    """The seats whose turn came with a pick waiting."""
    state = t.state
    if state is None or t.phase != Phase.RUNNING or not picks.chosen:
        return []
    acting = state.to_act()
    return [s for s in sorted(picks.chosen) if s in acting and not t.seats[s].auto]


def action_of(t: Table, seat: int, code: str) -> Action:
    """The pick as the seat's move now; :class:`IllegalAction` when it is not one (the person must
    follow the suit led, say)."""
    state = t.state
    assert state is not None
    action = state.parse_action(seat, code)
    decision = state.decision(seat)
    if decision is None or (action not in decision.actions and action.code not in {a.code for a in decision.actions}):
        raise IllegalAction(N_("That is not something you can do right now."), "not_offered")
    return action
