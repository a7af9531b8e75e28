"""The build step of a Siege turn (docs/rules.md §5, "Your turn", step 3): a Queen, Jack or Ace
starts a pile in an empty slot, a number card goes onto the King pile (the player's own suit; all
nine win at once) or onto a house pile that takes it, and two slots may be swapped.  Each move is
checked in full before it changes anything."""

from __future__ import annotations

from collections.abc import Callable

from engine.core import Action, Event, IllegalAction
from engine.words import said
from engine.words import suit as said_suit
from games.siege.attack import SiegeAttack
from games.siege.cards import (
    BY_CODE,
    KING,
    KING_PILE,
    SEAT_SUITS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    SiegeCard,
    _slot_arg,
)
from games.siege.piles import (
    fits,
    pile_score,
    why_not_fits,
)
from words import N_


class SiegeBuild(SiegeAttack):
    """Starting, placing and swapping piles."""

    def _card_of(self, action: Action) -> SiegeCard:
        if len(action.cards) != 1:
            raise IllegalAction(N_("Name exactly one card."), "wrong_count")
        c = action.cards[0]
        found = BY_CODE.get(getattr(c, "code", ""))
        if found is None:
            raise IllegalAction(N_("{card} is not a Siege card."), "bad_card", card=str(c))
        return found

    def _check_build(self, seat: int, action: Action) -> Callable[[], list[Event]]:
        """Validate a start/place/swap; return the function that carries it out."""
        kind, args = action.kind, action.args
        mine = self.houses[seat]
        if kind == "swap":
            if len(args) != 2:
                raise IllegalAction(N_("Name two slots to swap, e.g. swap 1 3."), "bad_args")
            i, j = _slot_arg(args[0]), _slot_arg(args[1])
            if i == j:
                raise IllegalAction(N_("Name two different slots."), "bad_slot")
            if mine[i] is None and mine[j] is None:
                raise IllegalAction(N_("Both slots are empty: there is nothing to swap."), "empty_slot")
            return lambda: self._do_swap(seat, i, j)
        c = self._card_of(action)
        if c not in self.hands[seat]:
            raise IllegalAction(N_("{card} is not in your hand."), "not_in_hand", card=c)
        if len(args) != 1:
            raise IllegalAction(N_("Say where the card goes: king or a slot 1-3."), "bad_args")
        if kind == "start":
            if c.is_number:
                raise IllegalAction(N_("Only a Queen, Jack or Ace starts a house pile."), "not_special")
            if args[0] == KING:
                what = {"Q": said(N_("A Queen")), "J": said(N_("A Jack")), "A": said(N_("An Ace"))}.get(c.rank, c.label)
                raise IllegalAction(
                    N_("{what} starts a house pile in an empty slot (1, 2 or 3), e.g. `start {code} 1`; "
                       "your King pile takes only number cards of your suit."), "not_number", what=what, code=c.code)
            i = _slot_arg(args[0])
            if mine[i] is not None:
                raise IllegalAction(N_("Slot {slot} already holds a pile."), "slot_taken", slot=i + 1)
            return lambda: self._do_start(seat, c, i)
        # place
        if not c.is_number:
            raise IllegalAction(N_("{card} is not a number card: a Queen, Jack or Ace starts a pile."), "not_number",
                                card=c)
        if args[0] == KING:
            own = SEAT_SUITS[seat]
            if c.suit != own:
                raise IllegalAction(
                    N_("Your King pile takes only {suits} ({symbol})."), "wrong_suit",
                    suits=said_suit(own, SUIT_NAMES[own]), symbol=SUIT_SYMBOLS[own])
            return lambda: self._do_place_king(seat, c)
        i = _slot_arg(args[0])
        p = mine[i]
        if p is None:
            raise IllegalAction(N_("Slot {slot} is empty: start a pile there with a Q, J or A first."), "empty_slot",
                                slot=i + 1)
        if not fits(p, c):
            raise IllegalAction(why_not_fits(p, c), "does_not_fit")
        return lambda: self._do_place(seat, c, i)

    def _do_swap(self, seat: int, i: int, j: int) -> list[Event]:
        mine = self.houses[seat]
        mine[i], mine[j] = mine[j], mine[i]
        self._touch()
        return [Event("swap", seat, (i + 1, j + 1))]

    def _left_hand(self, seat: int, c: SiegeCard) -> None:
        self.hands[seat].remove(c)
        seen = self.seen_in_hand[seat]
        if c in seen:
            # A copy everyone saw arrive, or one drawn in secret: either way one fewer is known.
            seen.remove(c)

    def _do_start(self, seat: int, c: SiegeCard, i: int) -> list[Event]:
        self._left_hand(seat, c)
        self.houses[seat][i] = [c]
        self._touch()
        return [Event("start", seat, (c, i + 1))]

    def _do_place(self, seat: int, c: SiegeCard, i: int) -> list[Event]:
        self._left_hand(seat, c)
        p = self.houses[seat][i]
        assert p is not None  # _check_build found a pile in slot i
        p.append(c)
        self._touch()
        return [Event("place", seat, (c, i + 1, pile_score(p)))]

    def _do_place_king(self, seat: int, c: SiegeCard) -> list[Event]:
        self._left_hand(seat, c)
        king = self.kings[seat]
        king.append(c)
        self._touch()
        events = [Event("place", seat, (c, KING, len(king)))]
        if len(king) == KING_PILE:
            self.winner = seat
            self._finish(events)
        return events
