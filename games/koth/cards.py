"""King of the Hill's cards, phases and actions (docs/rules.md §4): two 54-card decks (108 cards), 20
cards a hand and 8 to the dead hand, the phases' names and timers, the actions built once (every
declaration, call and play is an immutable value shared by legal-move lists), and the points a
card is worth.  The phases build on these: deal.py, bury.py, call.py, play.py."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card, deck
from engine.core import Action, Event

PLAYERS = 5
HAND = 20
DEAD = 8
DEALT = PLAYERS * HAND
DECK: tuple[Card, ...] = tuple(deck(jokers=True, copies=2))
RANKS = "23456789TJQKA"
ACE = 14
SUITS = "CDHS"
SUIT_WORDS = {"c": "C", "club": "C", "clubs": "C", "♣": "C", "d": "D", "diamond": "D", "diamonds": "D", "♦": "D",
              "h": "H", "heart": "H", "hearts": "H", "♥": "H", "s": "S", "spade": "S", "spades": "S", "♠": "S"}
LATE_WINDOW = 3.0
SUIT_TIMER = 5.0
BURY_TIMER = 60.0
CALL_TIMER = 15.0
PLAY_TIMER = 10.0
DEFEND_BELOW = 80  # a challenge score under this is a successful defence

ROUND_READY, DEAL, LATE, SUIT, BURY, CALL, TRICK_READY, PLAY, OVER = (
    "round_ready", "deal", "late", "suit", "bury", "call", "trick_ready", "play", "over")

#: The word that makes a ``bury`` action a step of the choice rather than the bury itself.
MARK = "mark"
CONFIRM_BURY = Action("bury")

DEAL_ACTION = Action("deal")
CLOSE_ACTION = Action("close")
READY_ACTION = Action("ready")
_READY_ONLY = (READY_ACTION,)
SUIT_ACTIONS = {s: Action("suit", (), (s,)) for s in SUITS}
_DISTINCT = sorted(set(DECK), key=lambda c: c.index)
_DECLARE_ONE = {c: Action("declare", (c,)) for c in _DISTINCT}
_DECLARE_TWO = {c: Action("declare", (c, c)) for c in _DISTINCT}
_CALL = {c: Action("call", (c,)) for c in _DISTINCT}
#: The call's timeout move (RULES §4.6): no card called, the KotH defends alone.  Not offered.
CALL_NOBODY = Action("call", (), ("nobody",))
_DEALT_EVENTS = [{c: Event("dealt", s, (c,), s) for c in _DISTINCT} for s in range(PLAYERS)]
_POINTS = {c: (5 if c.rank == "5" else 10 if c.rank in "TK" else 0) for c in _DISTINCT}
# Play actions are immutable values, so each distinct one is built once.
_PLAYS: dict[tuple[Card, ...], Action] = {}

# Which actions belong to which phases, so a wrong one gets "not now" rather than "unknown".
_KINDS = {"ready", "deal", "close", "declare", "suit", "bury", "call", "play"}


def points_of(cs: Sequence[Card]) -> int:
    """Points in ``cs``: 5s count 5, tens and kings 10 (200 in the double deck)."""
    return sum(map(_POINTS.__getitem__, cs))


def rank_char(rank: int) -> str:
    return RANKS[rank - 2]


def _play_action(cs: tuple[Card, ...]) -> Action:
    a = _PLAYS.get(cs)
    if a is None:
        a = _PLAYS[cs] = Action("play", cs)
    return a


# Every play that can exist, built once (legal plays are lists of these; see play.py): a single,
# an identical pair, and two different cards (both orders give the one action, cards in index order).
_ONE = {c: _play_action((c,)) for c in _DISTINCT}
_TWO = {c: _play_action((c, c)) for c in _DISTINCT}
_COMBO = {a: {b: _play_action((a, b) if a.index < b.index else (b, a)) for b in _DISTINCT if b is not a}
          for a in _DISTINCT}
# The play events of those actions, per seat, keyed by the action's identity (the actions above
# live as long as the module, so no other object shares their id()): cheaper than hashing it.
_PLAY_EVENTS = [{id(a): Event("play", s, a.cards) for a in _PLAYS.values()} for s in range(PLAYERS)]
#: ``to_act()`` of one seat, built once.
_SEAT_ALONE = tuple((s,) for s in range(PLAYERS))


def _canon(cs: Sequence[Card]) -> tuple[Card, ...]:
    """Two cards in one fixed order, so ``play 3H 5H`` and ``play 5H 3H`` are the same play."""
    if len(cs) == 2 and cs[0].index > cs[1].index:
        return (cs[1], cs[0])
    return tuple(cs)


def _distinct(cs: Sequence[Card]) -> list[Card]:
    return list(dict.fromkeys(cs))


def _pairs_in(cs: Sequence[Card]) -> list[Card]:
    seen: set[Card] = set()
    out: list[Card] = []
    for c in cs:
        if c in seen:
            out.append(c)
        else:
            seen.add(c)
    return out
