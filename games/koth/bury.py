"""The bury of a round of King of the Hill (docs/rules.md §4, step 6): the King, holding the dead
hand, buries 8 cards, at once or by marking them across several menus (the marks are private and
kept in the state).  The call follows (call.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.cards import Card
from engine.core import Action, Event, IllegalAction
from engine.words import said_n
from games.koth.cards import (
    CALL,
    DEAD,
    MARK,
)
from games.koth.deal import KothDeal
from words import N_


class KothBury(KothDeal):
    """The King's bury of 8 cards."""

    def unmarked(self, seat: int) -> list[Card]:
        """The cards of ``seat``'s hand not marked for the bury (a card held twice and marked once
        is here once)."""
        rest = list(self.hands[seat])
        if seat == self.koth:
            for c in self.marked:
                rest.remove(c)
        return rest

    def _bury(self, seat: int, action: Action) -> list[Event]:
        """Three codes, all of kind ``bury``:

        * ``bury`` + 8 cards: bury those at once (the AI, random playouts, ``/play``, and every log
          written before marking existed);
        * ``bury C1 … Cn mark`` (0 <= n <= 8): the KotH's marked cards become exactly these — the
          choice built up across several menus, kept in the state so it survives a restart; no event,
          nothing public;
        * ``bury`` alone: bury exactly the 8 marked cards.

        Marking is a ``bury`` with an argument rather than an action kind of its own because the
        decision stays one "choose 8 of 28" pick (``Decision.pick``): the runtime offers a person
        every action of the pick's kind and nothing else (``Runtime._check_offered``), random
        playouts and timeouts keep burying at once, and one clock (``clock_key``) covers all the
        steps.  A whole set per step (not one card) makes a menu's choice one atomic step that reads
        the same whichever menu it came from."""
        if seat != self.koth:
            raise IllegalAction(N_("Only the King buries cards."), "not_your_turn")
        cs = action.cards
        if action.args == (MARK,):
            if len(cs) > DEAD:
                raise IllegalAction(said_n("You can mark at most {n} card to bury: unmark some first.",
                                          "You can mark at most {n} cards to bury: unmark some first.", DEAD),
                                    "too_many")
            self._check_held(seat, cs)
            key = self._order
            self.marked = sorted(cs, key=lambda c: (key[c][2], c.index))
            return []
        if not cs and not action.args:
            if len(self.marked) != DEAD:
                raise IllegalAction(said_n("Mark {n} card to bury first ({marked} marked so far).",
                                           "Mark {n} cards to bury first ({marked} marked so far).", DEAD,
                                           marked=len(self.marked)),
                                    "wrong_count")
            cs = tuple(self.marked)
        elif len(cs) != DEAD or action.args:
            raise IllegalAction(said_n("Bury exactly {n} card.", "Bury exactly {n} cards.", DEAD), "wrong_count")
        self._check_held(seat, cs)
        hand = self.hands[seat]
        for c in cs:
            hand.remove(c)
        self.buried = list(cs)
        self.marked = []
        self.phase = CALL
        return [Event("buried", seat, ())]

    def _check_held(self, seat: int, cs: Sequence[Card]) -> None:
        have = Counter(self.hands[seat])
        for c, n in Counter(cs).items():
            if have[c] < n:
                raise IllegalAction(N_("You don't hold two {card}.") if n == 2 else N_("You don't hold that {card}."),
                                    "not_in_hand", card=c)
