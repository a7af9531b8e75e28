"""The look at the cards and the taxes that start every hand of The Great Dalmuti (docs/rules.md
§3.3-3.4): the table ends the look; the holder of both Jesters may call a revolution meanwhile (no
taxes, and a greater one reverses the ranking); otherwise the Greater Peon's 2 best cards go to the
Greater Dalmuti, who gives back any 2, then the Lesser Peon's best card to the Lesser Dalmuti, who
gives back any 1.  Then the play begins (play.py)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import mypyc_attr
from engine.core import Action, Event, IllegalAction
from engine.words import said_n
from games.dalmuti.cards import PLAY, TAX, DCard, _best_cards, _fits, _read_cards
from games.dalmuti.deal import DalmutiDeal
from words import N_


# Compiled by mypyc with the rest of Dalmuti's rules: see the note on the class in rules.py.
@mypyc_attr(allow_interpreted_subclasses=True)
class DalmutiTaxes(DalmutiDeal):
    """The look at the cards, a revolution, and the taxes paid and given back."""

    def _greater_tax(self, events: list[Event]) -> None:
        """RULES §3.4, first step: the Greater Peon's 2 best cards go to the Greater Dalmuti, who
        then chooses 2 to give back."""
        self._pay_tax(self.ranking[-1], self.ranking[0], 2, events)
        self.tax_step = 1
        self.phase = TAX

    def _lesser_tax(self, events: list[Event]) -> None:
        self._pay_tax(self.ranking[-2], self.ranking[1], 1, events)
        self.tax_step = 2
        self.phase = TAX

    def _pay_tax(self, peon: int, dalmuti: int, k: int, events: list[Event]) -> None:
        paid = _best_cards(self.counts[peon], k)
        self._transfer(peon, dalmuti, paid)
        events.append(Event("tax", peon, (dalmuti, k)))
        # The cards are private: only the two players involved see them, each in their own event.
        events.append(Event("tax_sent", peon, (dalmuti, *paid), peon))
        events.append(Event("tax_received", dalmuti, (peon, *paid), dalmuti))

    def _transfer(self, giver: int, taker: int, cs: Sequence[DCard]) -> None:
        g, t = self.counts[giver], self.counts[taker]
        for c in cs:
            g[c.number] -= 1
            t[c.number] += 1
        k = len(cs)
        self.left[giver] -= k
        self.left[taker] += k
        codes = [c.code for c in cs]
        self.tax_given[giver].extend(codes)
        self.tax_received[taker].extend(codes)

    def _tax_parties(self) -> tuple[int, int, int]:
        """(giver, receiver, count) of the tax return waited for now."""
        if self.tax_step == 1:
            return self.ranking[0], self.ranking[-1], 2
        return self.ranking[1], self.ranking[-2], 1

    def _begin_play(self) -> None:
        self.phase = PLAY
        self.tax_step = 0
        self.leader = self.turn = self.ranking[0]  # the Greater Dalmuti leads the first round
        self._legal = None

    def _close_look(self) -> list[Event]:
        """The look is over and nobody called a revolution: taxes (RULES §3.4).  The same for
        every hand, so it says nothing about who held what."""
        events: list[Event] = []
        self._greater_tax(events)
        return events

    def _revolution(self, seat: int) -> list[Event]:
        if seat != self.holder:
            raise IllegalAction(N_("Only a player holding both Jesters may call a revolution."), "not_your_turn")
        events: list[Event] = []
        if seat == self.ranking[-1]:
            # A greater revolution: the whole ranking reverses (and so does the order of play).
            self.revolution = "greater"
            events.append(Event("revolution", seat, ("greater",)))
            self._set_ranking(self.ranking[::-1])
            events.append(Event("ranking", None, tuple(self.ranking)))
        else:
            self.revolution = "revolution"
            events.append(Event("revolution", seat, ("plain",)))
        events.append(Event("taxes_skipped", None, ()))
        self._begin_play()
        return events

    def _give(self, seat: int, action: Action) -> list[Event]:
        giver, taker, k = self._tax_parties()
        if seat != giver:
            raise IllegalAction(N_("It is not your turn to give cards back."), "not_your_turn")
        if action is self._drawn:
            cs = action.cards  # drawn by random_action from this hand, as many as owed, in order
        else:
            cs = _read_cards(action)
            if len(cs) != k:
                raise IllegalAction(said_n("Give back exactly {n} card.", "Give back exactly {n} cards.", k),
                                    "wrong_count")
            if not _fits(self.counts[seat], cs):
                raise IllegalAction(N_("You can only give back cards from your hand."), "not_in_hand")
            cs = tuple(sorted(cs, key=lambda c: c.number))
        self._drawn = None
        self._transfer(seat, taker, cs)
        events = [
            Event("tax_return", seat, (taker, k)),
            Event("return_sent", seat, (taker, *cs), seat),
            Event("return_received", taker, (seat, *cs), taker),
        ]
        if self.tax_step == 1:
            self._lesser_tax(events)
        else:
            self._begin_play()
        return events
