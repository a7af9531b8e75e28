"""Siege's ``strong`` level: the search hooks (engine/search.py's determinized Monte Carlo; docs/rules.md §5).

Why the first hooks lost to ``normal``: a Siege game runs a dozen rounds or more, so a playout
stopped after two rounds and scored the King pile race alone — and a King pile hardly moves in two
rounds, so almost every playout scored 0 and the search chose on noise.  Every build step was
searched too, swaps and equivalent placings included, which spread the few playouts thin.

Here a playout is short (to the end of the seat's next turn: its own fights, the three rivals'
answers, and what it makes of the cards it won) and ends in an evaluation of where every suit's
cards are, not only the King piles: a card of a seat's suit is worth most on its King pile, then
in its hand (it goes there next turn), then in circulation (the stock and discard pile: anyone may
draw it), least locked in a rival's pile (only a won fight frees it).  A house pile is worth a
little as a shield and a weapon.  The seat's result is its value minus its best rival's: the
game is a race.  Candidates are merged: a card of the seat's suit always goes onto its King pile
(nothing can be better), the slots are ordered by the normal AI's rule (a swap is never searched:
only the normal AI's own swap is kept), starting a pile in one empty slot or another, or with a
queen (an ace) of one suit or another, is one move, and in the attack step ending the turn and
building nothing are one move.

The worlds come from ``Siege.sample_world`` (the seat's knowledge only: the other hands, the stock
and the discard pile dealt again consistently with what it saw; tests/engine/test_hidden_records.py).
"""

from __future__ import annotations

import random

from engine.core import Action
from engine.search import Hooks
from games.siege.rules import SEAT_SUITS, Siege, SiegeCard, pile_score


class SiegeHooks(Hooks):
    """Short playouts (to the end of the seat's next turn) scored by where each suit's cards lie."""

    #: Turns a playout runs past the decision's turn: the three rivals, then the seat once more.
    TURNS = 4
    WIN = 12.0  # a finished King pile: more than any position short of it (at most 9 + 3 × 0.04 × 10)
    ON_KING = 1.0  # a card of the seat's suit on its King pile ...
    IN_HAND = 0.9  # ... in its hand (onto the King pile next turn) ...
    CIRCULATING = 0.25  # ... in the stock or the discard pile ...
    LOCKED = 0.1  # ... in a rival's house pile
    PILE = 0.04  # per point of each of the seat's house piles
    PILE_CAP = 10  # points beyond which a pile is no better a shield

    def searchable(self, state: Siege, seat: int) -> bool:
        return state.phase != "over" and state.to_act() == (seat,)

    def candidates(self, state: Siege, seat: int) -> list[Action]:
        from games.siege.ai import SiegeAI

        legal = list(state.legal(seat))
        king = [a for a in legal if a.kind == "place" and a.args[0] == "king"]
        if king:
            return king[:1]
        default = SiegeAI().choose(state, seat, random.Random(0))  # (it never draws from it)
        out = [a for a in legal if a.kind != "swap"]
        if default.kind == "swap":
            out.insert(0, default)
        # A pile started in one empty slot or another is the same pile (slots swap freely while
        # building), and a Queen or an Ace pile is the same whatever the suit of its queen or ace:
        # one start per kind of pile, the normal AI's when it starts one of that kind.
        starts: dict[SiegeCard | str, Action] = {}
        for a in out:
            if a.kind == "start":
                key = _pile_kind(a.cards[0])
                held = starts.get(key)
                if held is None or a == default or (held != default and a.args[0] > held.args[0]):
                    starts[key] = a
        out = [a for a in out if a.kind != "start" or starts[_pile_kind(a.cards[0])] is a]
        if state.phase == "attack":
            # Ending the turn in the attack step is building nothing: one of the two is searched.
            drop = "build" if default.kind == "end" else "end"
            out = [a for a in out if a.kind != drop]
        return out

    def done(self, start: Siege, now: Siege) -> bool:
        return now.is_over or now.turn_no > start.turn_no + self.TURNS

    def value(self, g: Siege, p: int) -> float:
        suit = SEAT_SUITS[p]
        v = self.ON_KING * len(g.kings[p])
        v += self.IN_HAND * sum(1 for c in g.hands[p] if c.suit == suit)
        v += self.CIRCULATING * sum(1 for c in g.stock if c.suit == suit)
        v += self.CIRCULATING * sum(1 for c in g.discard if c.suit == suit)
        for s in range(4):
            if s == p:
                continue
            for pile in g.houses[s]:
                if pile is not None:
                    v += self.LOCKED * sum(1 for c in pile if c.suit == suit and c.is_number)
        v += self.PILE * sum(min(pile_score(pile), self.PILE_CAP) for pile in g.houses[p] if pile is not None)
        return v

    def utility(self, start: Siege, end: Siege, seat: int) -> float:
        if end.winner is not None:
            return self.WIN if end.winner == seat else -self.WIN
        vals = [self.value(end, p) for p in range(4)]
        return vals[seat] - max(v for p, v in enumerate(vals) if p != seat)


def _pile_kind(special: SiegeCard) -> SiegeCard | str:
    """What a pile started with ``special`` is: a Jack pile by its jack's suit, else its rank."""
    return special if special.rank == "J" else special.rank
