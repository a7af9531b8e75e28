"""The pass before a hand of Hearts (docs/rules.md §1, the classic rules): every seat picks 3 cards
at once, and once all four have picked the cards change hands (left, right or across, by the
hand's number; every fourth hand holds).  Then play begins (play.py)."""

from __future__ import annotations

from typing import Final

from engine.cards import Card, mypyc_attr
from engine.core import Action, Event, IllegalAction
from games.hearts.deal import (
    _PASS_OFFSETS,
    PASS,
    PASS_DIRS,
    HeartsDeal,
    _event,
    _index,
    _remove,
)
from words import N_

_PASS_CHOSEN: Final = tuple(Event("pass_chosen", seat, ()) for seat in range(4))
# The exchange's event by ``hand_no % 4`` (PASS_DIRS' order), shared: events are immutable.
_EXCHANGE: Final[tuple[Event, ...]] = tuple(Event("exchange", None, (d,)) for d in PASS_DIRS)
# to_act while passing, by the bit mask of the seats still to choose.
_PENDING: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(s for s in range(4) if mask >> s & 1) for mask in range(16))


# Compiled by mypyc with the rest of Hearts' rules: see the note on the class in rules.py.
@mypyc_attr(allow_interpreted_subclasses=True)
class HeartsPassing(HeartsDeal):
    """The pass of 3 cards."""

    def _pass(self, seat: int, action: Action) -> list[Event]:
        cs: tuple[Card, ...] = action.cards
        if action is not self._drawn or seat != self._drawn_seat:  # what random_action drew is legal
            if self.phase != PASS:
                raise IllegalAction(N_("There is no passing right now."), "wrong_phase")
            if self.pass_choice[seat] is not None:
                raise IllegalAction(N_("You have already chosen your 3 cards."), "already_passed")
            if len(cs) != 3 or len(set(cs)) != 3:
                raise IllegalAction(N_("Choose exactly 3 different cards to pass."), "wrong_count")
            hand = self.hands[seat]
            for c in cs:
                if _index(hand, c) < 0:
                    raise IllegalAction(N_("{card} is not in your hand."), "not_in_hand", card=c)
        self._drawn = None
        self._drawn_seat = -1
        pending = self.pass_choice
        pending[seat] = tuple(cs)
        c0, c1, c2, c3 = pending
        if c0 is None or c1 is None or c2 is None or c3 is None:
            return [_PASS_CHOSEN[seat]]
        # Every seat has chosen.  (Not the list read as tuples: the compiled build checks each item's
        # type where it is read, and reading a seat still choosing would raise there.)
        choice = (c0, c1, c2, c3)
        events = [_PASS_CHOSEN[seat]]
        way = self.hand_no & 3 if self.classic else 3  # pass_dir's place in PASS_DIRS (3: hold)
        off = _PASS_OFFSETS[way]
        hands = self.hands
        passed = self.passed
        received = self.received
        for s in range(4):
            hand = hands[s]
            for c in choice[s]:
                _remove(hand, c)
        for s in range(4):
            to = (s + off) & 3
            give: tuple[Card, ...] = choice[s]
            hands[to].extend(give)
            passed[s] = give
            received[to] = give
            g0, g1, g2 = give[0], give[1], give[2]
            events.append(_event("passed", s, (to, g0, g1, g2), s))
            events.append(_event("received", to, (s, g0, g1, g2), to))
        events.append(_EXCHANGE[way])
        self._begin_play()
        return events
