"""A turn of Siege from its start to its end (docs/rules.md §5, "Your turn", steps 1 and 4, and
"The end"): the game's state and its creation, the draw of 5 cards on top of any held (the discard
pile shuffled into a new stock when it runs out), whether an attack is possible, the cards no pile
takes now, and the end of a turn (the hand discarded face down) or of the game.  The attack
(attack.py) and the build (build.py) come between; rules.py puts them together as
:class:`~games.siege.rules.Siege`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from engine.core import Action, AnyCard, Event, Game, Options, rng_for, shuffled
from engine.scaffold import EndsOver, started
from engine.words import said
from engine.words import suit as said_suit
from games.siege.cards import (
    _DECK_COUNT,
    ATTACK_PHASE,
    BUILD_PHASE,
    BY_CODE,
    DECK,
    DISTINCT,
    HAND_SIZE,
    OVER,
    SEAT_SUITS,
    SUIT_NAMES,
    Pile,
    SiegeCard,
    _sorted,
)
from games.siege.piles import (
    fits,
    misfit_reason,
)
from games.siege.view_types import LastAttack, SiegeView
from words import N_


class SiegeTurn(EndsOver, Game[SiegeCard, SiegeView]):
    """A game of Siege's state, its creation, and the start and end of every turn."""

    def __init__(self) -> None:  # use create() or from_dict()
        self.players = 4
        self.seed: int | str = 0
        self.options: Options = {}
        self.phase = BUILD_PHASE
        self.turn = 0
        self.turn_no = 0
        self.hands: list[list[SiegeCard]] = [[], [], [], []]
        self.kings: list[list[SiegeCard]] = [[], [], [], []]
        self.houses: list[list[Pile | None]] = [[None, None, None] for _ in range(4)]
        self.stock: list[SiegeCard] = []  # the next card drawn is the LAST one
        self.discard: list[SiegeCard] = []
        self.shuffles = 0
        self.attacked: list[int] = []  # slots (0-based) that fought this turn
        self.last_attack: LastAttack | None = None
        self.winner: int | None = None
        # What players could remember, for sample_world (never shown in a view): the cards each
        # hand was seen to receive in a fight and not seen to give up; the cards seen going into
        # the discard pile since the last reshuffle; and each seat's own face-down discards since then.
        self.seen_in_hand: list[list[SiegeCard]] = [[], [], [], []]
        self.seen_discard: list[SiegeCard] = []
        self.own_discard: list[list[SiegeCard]] = [[], [], [], []]
        self._legal: tuple[Action, ...] | None = None
        self._shown: set[str] | None = None  # codes face up on the table, for hidden_from
        # The action random_action just drew from ``_legal``: legal by construction, so apply
        # need not check it again.  Forgotten with ``_legal`` at every change.
        self._drawn: Action | None = None

    def _touch(self) -> None:
        """Forget what was worked out from the previous state (every change calls this)."""
        self._legal = None
        self._shown = None
        self._drawn = None

    @classmethod
    def create(cls, players: int = 4, options: Options | None = None, seed: int | str = 0,
               deal: Sequence[Sequence[AnyCard | str]] | None = None) -> Self:
        """``deal``: four lists of five cards, the first draw of seats 0..3 in order, optionally
        followed by a fifth list, the rest of the stock in drawing order (then the five lists must
        make the whole deck).  Without the fifth list the remaining cards are shuffled below."""
        g = started(cls, players, options, seed, "Siege has exactly 4 seats (empty seats are played by the computer).")
        if deal is None:
            rnd = rng_for(seed, "deal").random
            g.stock = shuffled(DECK, rnd)
        else:
            g.stock = cls._stock_from_deal(seed, deal)
        events: list[Event] = []
        g._start_turn(0, events)
        g.start_events = events
        return g

    @staticmethod
    def _stock_from_deal(seed: int | str, deal: Sequence[Sequence[AnyCard | str]]) -> list[SiegeCard]:
        try:
            lists = [[BY_CODE[c if isinstance(c, str) else c.code] for c in part] for part in deal]
        except KeyError as e:
            raise ValueError(f"{e.args[0]} is not a Siege card.") from None
        if len(lists) not in (4, 5) or any(len(h) != HAND_SIZE for h in lists[:4]):
            raise ValueError("A Siege deal is four lists of 5 cards (the first draws), and optionally the rest.")
        top = [c for part in lists for c in part]
        left = dict(_DECK_COUNT)
        for c in top:
            left[c] -= 1
            if left[c] < 0:
                raise ValueError(f"The deal holds too many {c.label}.")
        rest = [c for c in DISTINCT for _ in range(left[c])]
        if len(lists) == 5 and rest:
            raise ValueError("With a fifth list, the deal must hold the whole 96-card deck.")
        rnd = rng_for(seed, "deal").random
        rest = shuffled(rest, rnd)
        return rest + top[::-1]

    # ---- the turn -------------------------------------------------------------------------------
    def _draw(self, seat: int, events: list[Event]) -> None:
        # RULES §5.1: 5 cards on top of any already held (the seed: "the player might already have
        # some cards"), not a hand filled up to 5.
        hand = self.hands[seat]
        drawn: list[SiegeCard] = []
        while len(drawn) < HAND_SIZE:
            if not self.stock:
                if not self.discard:
                    break  # every other card is on the table or in hands: the draw stops short
                rnd = rng_for(self.seed, "reshuffle", self.shuffles).random
                self.shuffles += 1
                self.stock = shuffled(self.discard, rnd)
                self.discard = []
                self.seen_discard = []
                self.own_discard = [[], [], [], []]
                events.append(Event("reshuffle", None, (len(self.stock),)))
            c = self.stock.pop()
            hand.append(c)
            drawn.append(c)
        events.append(Event("draw", seat, (len(drawn),)))
        if drawn:
            events.append(Event("drawn", seat, tuple(drawn), seat))

    def _start_turn(self, seat: int, events: list[Event]) -> None:
        self.turn = seat
        self.attacked = []
        self._touch()
        events.append(Event("turn", seat, (self.turn_no // 4 + 1,)))
        self._draw(seat, events)
        self.phase = ATTACK_PHASE if self._can_attack(seat) else BUILD_PHASE

    def _can_attack(self, seat: int) -> bool:
        mine = self.houses[seat]
        if not any(mine[i] is not None and i not in self.attacked for i in range(3)):
            return False
        return any(any(p is not None for p in self.houses[s]) for s in range(4) if s != seat)

    def unplaceable(self, seat: int) -> list[tuple[SiegeCard, str]]:
        """The cards of ``seat``'s hand that no pile takes now (each distinct card once, in hand
        order) with the reason: what each pile it might go on takes instead ("your King pile takes
        only hearts; the Jack pile ① takes only spades"), or that no slot is free for a Queen, Jack
        or Ace.  The same rules as the build moves (:meth:`_check_build`); empty on another seat's
        turn and once the game is over (nothing can be placed then, whatever the card)."""
        if self.phase == OVER or seat != self.turn:
            return []
        own, mine = SEAT_SUITS[seat], self.houses[seat]
        out: list[tuple[SiegeCard, str]] = []
        for c in dict.fromkeys(_sorted(self.hands[seat])):
            if not c.is_number:
                if all(p is not None for p in mine):
                    out.append((c, said(N_("a Queen, Jack or Ace starts a pile in an empty slot, and all three "
                                           "slots hold a pile"))))
                continue
            if c.suit == own or any(p is not None and fits(p, c) for p in mine):
                continue
            clauses: list[str] = [said(N_("your King pile takes only {suits}"), suits=said_suit(own, SUIT_NAMES[own]))]
            clauses += [misfit_reason(p, i) for i, p in enumerate(mine) if p is not None]
            if all(p is None for p in mine):
                clauses.append(said(N_("you have no house pile yet (a Queen, Jack or Ace starts one)")))
            why = clauses[-1]
            for clause in reversed(clauses[:-1]):  # "a; b; c", each language's own separator
                why = said("{first}; {then}", first=clause, then=why)
            out.append((c, why))
        return out

    def round(self) -> int:
        """The current round, from 1."""
        return self.turn_no // 4 + 1

    def _end(self, seat: int) -> list[Event]:
        hand = self.hands[seat]
        events = [Event("end", seat, (len(hand),))]
        if hand:
            events.append(Event("discard", seat, tuple(hand), seat))
        self.discard.extend(hand)
        self.own_discard[seat].extend(hand)
        self.hands[seat] = []
        self.seen_in_hand[seat] = []
        self.turn_no += 1
        self._touch()
        limit = self.options["max_rounds"]
        if limit and self.turn_no >= 4 * limit:
            self._finish(events)
            return events
        self._start_turn((seat + 1) % 4, events)
        return events

    def _finish(self, events: list[Event]) -> None:
        self.phase = OVER
        self._touch()
        if self.winner is not None:
            events.append(Event("win", self.winner, ()))
        events.append(Event("game_end", None, tuple(len(k) for k in self.kings)))
