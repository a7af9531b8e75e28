"""The deal of a round of King of the Hill (docs/rules.md §4, steps 1 and 3-5): the game's state and its
creation, the start of each round, the live deal one card at a time (a table step), the
declarations of trumps made with trump-rank cards during it and the late window after it, the
King's choice of a suit when nobody declared (or the random fallback), and the King taking the dead
hand.  The bury follows (bury.py); rules.py puts the phases together as
:class:`~games.koth.rules.KingOfTheHill`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Self

from engine.cards import Card
from engine.core import Action, Decision, Event, Game, IllegalAction, Options, rng_for, shuffled
from engine.scaffold import EndsOver, started
from games.koth.cards import (
    _DEALT_EVENTS,
    _DECLARE_ONE,
    _DECLARE_TWO,
    _DISTINCT,
    BURY,
    DEAD,
    DEAL,
    DEALT,
    DECK,
    HAND,
    LATE,
    LATE_WINDOW,
    PLAYERS,
    ROUND_READY,
    SUIT,
    SUITS,
    _distinct,
    _pairs_in,
    rank_char,
)
from games.koth.trump import Trump
from games.koth.view_types import KothView
from words import N_


class KothDeal(EndsOver, Game[Card, KothView]):
    """A game of King of the Hill's state, its creation, and the deal with its declarations."""

    def __init__(self) -> None:  # use create() or from_dict()
        self.players = PLAYERS
        self.seed: int | str = 0
        self.options: Options = {}
        self.ranks = [2] * PLAYERS
        self.round_no = 1
        self.start = 0
        self.koth: int | None = None
        self.phase = ROUND_READY
        self.ready = [False] * PLAYERS
        self.stock: list[Card] = []  # undealt cards, the next one last; the final 8 are the dead hand
        self.deal_count = 0
        self.hands: list[list[Card]] = [[] for _ in range(PLAYERS)]
        self.declared: tuple[int, Card, int] | None = None
        self.declarations: list[tuple[int, Card, int]] = []
        self.trump = Trump(None, "2")
        self.trump_how: str | None = None
        self.dead: list[Card] = []  # the 8 cards the KotH took
        self.marked: list[Card] = []  # the KotH's bury choice so far (private), in hand order
        self.buried: list[Card] = []
        self.called: Card | None = None
        self.called_seen = 0
        self.teammate: int | None = None
        self.call_done = False
        self.trick: list[tuple[int, tuple[Card, ...]]] = []
        self.trick_no = 0
        self.leader: int | None = None
        self.turn: int | None = None
        self.taken: list[list[Card]] = [[] for _ in range(PLAYERS)]
        self.points = [0] * PLAYERS
        self.last_trick: tuple[int, int, tuple[tuple[int, tuple[Card, ...]], ...]] | None = None
        # This round's finished tricks, each as its plays [(seat, cards), ...] lead first: public,
        # and what sample_world reads voids from.
        self.history: list[tuple[tuple[int, tuple[Card, ...]], ...]] = []
        self.last_round: dict[str, Any] | None = None
        self.winners: list[int] = []
        self._reset_derived()

    def _reset_derived(self) -> None:
        # Derived from the hands, kept incrementally because the deal is the hot path.
        self._order = self.trump.table()
        self._suit = self.trump.suits()  # card -> effective suit
        self._suit_sets = self.trump.suit_sets()  # effective suit -> its cards
        self._tr: list[list[Card]] = [[] for _ in range(PLAYERS)]  # trump-rank cards held, per seat
        self._pairs = [0] * PLAYERS  # identical trump-rank pairs held, per seat
        # to_act() during the deal and the late window (the declarers, then the table): asked for
        # before every dealt card, changed only by a trump-rank card or a declaration.
        self._acting: tuple[int, ...] | None = None
        # The legal plays of the seat to play, as the shared actions of cards.py (_ONE, _TWO, _COMBO),
        # and (built only when asked for) their cards and the set of their ids.
        self._legal: list[Action] | None = None
        self._legal_plays: list[tuple[Card, ...]] | None = None
        self._legal_set: set[int] | None = None
        self._play_decision: Decision | None = None
        # The play random_action just drew from ``_legal``: legal by construction, so _play need not
        # check it again.  Forgotten with ``_legal``.
        self._drawn: Action | None = None
        if self.phase in (DEAL, LATE):
            for s in range(PLAYERS):
                for c in self.hands[s]:
                    self._count_rank_card(s, c)

    @classmethod
    def create(cls, players: int = PLAYERS, options: Options | None = None, seed: int | str = 0,
               deal: Sequence[Sequence[Card]] | None = None) -> Self:
        """``deal``: five lists of 20 cards in the order each seat receives them, optionally a sixth
        list of the 8 dead-hand cards (else the rest of the double deck); it replaces round 1's
        shuffle, the dealing order (from the starting player) is kept."""
        g = started(cls, players, options, seed, "King of the Hill needs exactly 5 players.")
        g.start = rng_for(seed, "start").randrange(PLAYERS)
        g.stock = cls._stock_from(deal, g.start) if deal is not None else g._shuffled(1)
        if g.options["ready_round"] > 0:
            g.phase = ROUND_READY
        else:
            events: list[Event] = []
            g.start_events = events
            g._begin_round(events)
        return g

    @staticmethod
    def _stock_from(deal: Sequence[Sequence[Card]], start: int) -> list[Card]:
        hands = [list(h) for h in deal]
        if len(hands) not in (PLAYERS, PLAYERS + 1) or any(len(h) != HAND for h in hands[:PLAYERS]):
            raise ValueError("A King of the Hill deal is 5 hands of 20 cards (and optionally the 8-card dead hand).")
        rest = Counter(DECK)
        rest.subtract(c for h in hands for c in h)
        if any(n < 0 for n in rest.values()):
            raise ValueError("A King of the Hill deal must come out of two 54-card decks.")
        if len(hands) == PLAYERS:
            hands.append([c for c in _DISTINCT for _ in range(rest[c])])
        if len(hands[PLAYERS]) != DEAD or any(n for n in (rest - Counter(hands[PLAYERS])).values()):
            raise ValueError("A King of the Hill deal must use all 108 cards of two 54-card decks.")
        order = [hands[(start + i) % PLAYERS][i // PLAYERS] for i in range(DEALT)] + hands[PLAYERS]
        return order[::-1]

    def _shuffled(self, round_no: int) -> list[Card]:
        # Sorting by random keys is a uniform shuffle, and faster than Random.shuffle.
        rnd = rng_for(self.seed, "deal", round_no).random
        return shuffled(DECK, rnd)

    def _begin_round(self, events: list[Event]) -> None:
        if len(self.stock) != len(DECK):
            self.stock = self._shuffled(self.round_no)
        if self.koth is not None:
            self.start = self.koth
        rank = rank_char(self.ranks[self.koth]) if self.koth is not None else "2"
        self.phase = DEAL
        self.ready = [False] * PLAYERS
        self.deal_count = 0
        self.hands = [[] for _ in range(PLAYERS)]
        self.declared = None
        self.declarations = []
        self.trump = Trump(None, rank)
        self.trump_how = None
        self.dead = []
        self.marked = []
        self.buried = []
        self.called = None
        self.called_seen = 0
        self.teammate = None
        self.call_done = False
        self.trick = []
        self.trick_no = 0
        self.leader = self.turn = None
        self.taken = [[] for _ in range(PLAYERS)]
        self.points = [0] * PLAYERS
        self.last_trick = None
        self.history = []
        self._reset_derived()
        events.append(Event("round", self.start, (self.round_no, rank, -1 if self.koth is None else self.koth)))

    def _declarers(self) -> tuple[int, ...]:
        """The seats that may declare now (the deal and the late window)."""
        d = self.declared
        if d is None:
            return tuple(s for s in range(PLAYERS) if self._tr[s])
        if d[2] == 1:
            return tuple(s for s in range(PLAYERS) if self._pairs[s])
        return ()

    def declare_options(self, seat: int) -> list[Action]:
        """The declarations ``seat`` may make now (empty outside the deal and the late window)."""
        if self.phase not in (DEAL, LATE) or not 0 <= seat < PLAYERS:
            return []
        d = self.declared
        if d is not None and d[2] == 2:
            return []
        tr = sorted(self._tr[seat], key=lambda c: c.index)
        out = [_DECLARE_ONE[c] for c in _distinct(tr)] if d is None else []
        out.extend(_DECLARE_TWO[c] for c in _pairs_in(tr))
        return out

    def _declare_timer(self) -> float:
        return DEALT * float(self.options["deal_rate"]) + LATE_WINDOW

    def sorted_hand(self, seat: int) -> list[Card]:
        key = self._order
        return sorted(self.hands[seat], key=lambda c: (key[c][2], c.index))

    def _deal(self) -> list[Event]:
        c = self.stock.pop()
        n = self.deal_count
        s = (self.start + n) % PLAYERS
        self.hands[s].append(c)
        self.deal_count = n = n + 1
        if c.rank == self.trump.rank:
            self._count_rank_card(s, c)
        if n == DEALT:
            self.phase = LATE
        return [_DEALT_EVENTS[s][c]]

    def _count_rank_card(self, seat: int, c: Card) -> None:
        if c.rank != self.trump.rank or c.suit == "~":
            return
        tr = self._tr[seat]
        if c in tr:
            self._pairs[seat] += 1
        tr.append(c)
        self._acting = None

    def _declare(self, seat: int, action: Action) -> list[Event]:
        cs = action.cards
        rank = self.trump.rank
        if len(cs) not in (1, 2) or (len(cs) == 2 and cs[0] is not cs[1]) or action.args:
            raise IllegalAction(N_("Declare with one trump-rank card or an identical pair of them."), "bad_declare")
        c = cs[0]
        if c.suit == "~":
            raise IllegalAction(N_("Jokers cannot declare."), "bad_declare")
        if c.rank != rank:
            raise IllegalAction(N_("Only a {rank} can declare trumps this round."), "bad_declare", rank=rank)
        if self.hands[seat].count(c) < len(cs):
            raise IllegalAction(N_("You don't hold {cards}."), "not_in_hand", cards=tuple(cs))
        d = self.declared
        if d is not None and d[2] == 2:
            raise IllegalAction(N_("A declared pair is final."), "declared_final")
        if d is not None and len(cs) == 1:
            raise IllegalAction(N_("Trumps are declared: only an identical pair of trump-rank cards can override."),
                                "need_pair")
        self.declared = (seat, c, len(cs))
        self.declarations.append(self.declared)
        self._acting = None
        return [Event("declare", seat, tuple(cs))]

    def _close_late(self) -> list[Event]:
        events: list[Event] = []
        d = self.declared
        if d is not None:
            if self.koth is None:
                self.koth = d[0]  # round 1: the final declaration makes the KotH
            self._set_trump(d[1].suit, "declared", events)
        elif self.koth is None:
            rng = rng_for(self.seed, "fallback", self.round_no)
            suit = rng.choice(SUITS)
            self.koth = rng.randrange(PLAYERS)
            self._set_trump(suit, "random", events)
        else:
            self.phase = SUIT
            events.append(Event("suit_choice", self.koth, ()))
        return events

    def _choose_suit(self, seat: int, action: Action) -> list[Event]:
        if seat != self.koth:
            raise IllegalAction(N_("Only the King chooses the trump suit."), "not_your_turn")
        if action.cards or len(action.args) != 1 or action.args[0].upper() not in SUITS:
            raise IllegalAction(N_("Choose one suit: C, D, H or S."), "bad_suit")
        events: list[Event] = []
        self._set_trump(action.args[0].upper(), "chosen", events)
        return events

    def _close_suit(self) -> list[Event]:
        events: list[Event] = []
        self._set_trump(rng_for(self.seed, "fallback", self.round_no).choice(SUITS), "random", events)
        return events

    def _set_trump(self, suit: str, how: str, events: list[Event]) -> None:
        koth = self.koth
        assert koth is not None
        self.trump = Trump(suit, self.trump.rank)
        self.trump_how = how
        self._order = self.trump.table()
        self._suit = self.trump.suits()
        self._suit_sets = self.trump.suit_sets()
        events.append(Event("trump", koth, (suit, self.trump.rank, how)))
        # The KotH takes the dead hand.
        self.dead = self.stock[::-1]
        self.stock = []
        self.hands[koth].extend(self.dead)
        events.append(Event("dead_hand", koth, tuple(self.dead), koth))
        self.phase = BURY
