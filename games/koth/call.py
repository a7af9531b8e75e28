"""The call of a round of King of the Hill (docs/rules.md §4, step 7): the King calls a card
(or lets the time pass and defends alone); whoever plays the copy that counts joins the King as a
secret teammate, revealed by that play.  The tricks follow (play.py)."""

from __future__ import annotations

from engine.cards import Card
from engine.core import Action, Event, IllegalAction
from games.koth.bury import KothBury
from games.koth.cards import (
    _CALL,
    _DISTINCT,
    CALL_NOBODY,
    PLAY,
    PLAYERS,
    TRICK_READY,
)
from games.koth.trump import Trump
from words import N_

# A pure memo of KothCall._call_actions: at most 5 x 13 trumps.
_CALLS: dict[Trump, tuple[Action, ...]] = {}


class KothCall(KothBury):
    """The called card and the teammate it makes."""

    def callable(self) -> list[Card]:
        """Cards the King may call: any but jokers and trump-rank cards, in display order."""
        key = self._order
        return sorted((c for c in _DISTINCT if c.suit != "~" and c.rank != self.trump.rank),
                      key=lambda c: key[c][2])

    def _call_actions(self) -> tuple[Action, ...]:
        """The call decision's actions: a call of each card of :meth:`callable`, built once per trump."""
        acts = _CALLS.get(self.trump)
        if acts is None:
            acts = _CALLS[self.trump] = tuple(_CALL[c] for c in self.callable())
        return acts

    def _call(self, seat: int, action: Action) -> list[Event]:
        if seat != self.koth:
            raise IllegalAction(N_("Only the King calls a card."), "not_your_turn")
        cs = action.cards
        if action == CALL_NOBODY:
            # The 15 s passed without a call: nobody is enlisted, the KotH defends alone (§4.6).
            self.called = None
            self.call_done = True
            self.leader = seat
            events = [Event("call", seat, ())]
            self._before_trick()
            return events
        if len(cs) != 1 or action.args:
            raise IllegalAction(N_("Call exactly one card."), "wrong_count")
        c = cs[0]
        if c.suit == "~":
            raise IllegalAction(N_("You can't call a joker."), "bad_call")
        if c.rank == self.trump.rank:
            raise IllegalAction(N_("You can't call a trump-rank card ({rank})."), "bad_call", rank=self.trump.rank)
        self.called = c
        self.leader = seat
        events = [Event("call", seat, (c,))]
        self._before_trick()
        return events

    def _before_trick(self) -> None:
        self._legal = self._legal_plays = self._legal_set = self._play_decision = self._drawn = None
        if self.options["ready_trick"] > 0:
            self.phase = TRICK_READY
            self.ready = [False] * PLAYERS
            self.turn = None
        else:
            self.phase = PLAY
            self.turn = self.leader

    def _count_called(self, seat: int, copies: int, events: list[Event]) -> None:
        # The copy that counts (option called_copy) decides: its player joins, unless that is the
        # KotH, who then defends alone (docs/rules.md §4, step 7); a pair of it counts as two copies.
        need = 1 if self.options["called_copy"] == "first" else 2
        self.called_seen += copies
        if self.called_seen < need:
            return
        self.call_done = True
        if seat == self.koth:
            events.append(Event("alone", seat, (self.called,)))
        else:
            self.teammate = seat
            events.append(Event("teammate", seat, (self.called,)))
