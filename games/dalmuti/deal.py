"""The deal of every hand of The Great Dalmuti (docs/rules.md §3.1-3.2): the opening draw that
ranks the first hand, the game's state, its creation, and dealing all 80 cards one at a time from
the Greater Dalmuti on.  Every hand then starts with the look at the cards (taxes.py) and is played
out (play.py); rules.py puts the phases together as :class:`~games.dalmuti.rules.Dalmuti`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Self

from engine.core import Action, AnyCard, Event, Game, Options, rng_for, shuffled
from engine.scaffold import started
from games.dalmuti.cards import (
    _FULL_COUNTS,
    CARDS,
    DECK_NUMBERS,
    JESTER_NUMBER,
    LOOK,
    PLAY,
    DCard,
    _counts_of,
    _expand,
    dcard,
)
from games.dalmuti.view_types import DalmutiView


def opening_draw(players: int, rng: random.Random) -> tuple[list[list[tuple[int, int]]], list[int]]:
    """RULES §3.1: every player draws a card from the full deck; the lowest draw is the Greater
    Dalmuti, and so on.  A Jester draws worst (13).  Players who tie draw again among themselves
    (from a full deck again), as often as needed.  Returns the draw rounds ``[[(seat, number),
    ...], ...]`` in the order they were made, and the ranking (seats, best first)."""
    rounds: list[list[tuple[int, int]]] = []

    def resolve(group: list[int]) -> list[int]:
        drawn = rng.sample(DECK_NUMBERS, len(group))
        rounds.append(list(zip(group, drawn, strict=True)))
        by_number: dict[int, list[int]] = {}
        for s, v in zip(group, drawn, strict=True):
            by_number.setdefault(v, []).append(s)
        out: list[int] = []
        for v in sorted(by_number):
            tied = by_number[v]
            out.extend(tied if len(tied) == 1 else resolve(tied))
        return out

    return rounds, resolve(list(range(players)))



class DalmutiDeal(Game[DCard, DalmutiView]):
    """A game of Dalmuti's state, its creation and the deal of each hand."""

    # ---- creation ---------------------------------------------------------------------------
    def __init__(self) -> None:  # use create() or from_dict()
        self.players = 5
        self.seed: int | str = 0
        self.options: Options = {}
        self.locked = True
        self.hand_no = 0
        self.phase = PLAY
        self.ranking: list[int] = []  # seats, Greater Dalmuti first: also the order of play
        self.pos: list[int] = []  # seat -> position in the ranking
        self.counts: list[list[int]] = []  # seat -> count per number (index 13: Jesters)
        self.left: list[int] = []  # cards in each hand
        self.pile = [0] * 14  # cards played this hand
        self.turn: int | None = None
        self.leader: int | None = None
        self.cur_num = 0  # the play to beat: 0 when the leader has not played yet
        self.cur_k = 0
        self.cur_action: Action | None = None
        self.cur_by = -1
        self.passed: list[bool] = []
        self.finish: list[int] = []  # seats in the order they went out this hand
        self.active = 0  # players still holding cards
        self.scores: list[int] = []
        self.history: list[list[int]] = []  # finishing order of every finished hand
        self.revolution: str | None = None  # None, "revolution", "greater" (a called one: public)
        self.holder: int | None = None  # the seat dealt both Jesters: private, never in a view
        self.tax_step = 0  # 1: the Greater Dalmuti gives back 2; 2: the Lesser Dalmuti gives back 1
        self.tax_given: list[list[str]] = []
        self.tax_received: list[list[str]] = []
        self.draw: list[list[tuple[int, int]]] = []  # the opening draw's rounds
        #: The events of create() (the opening draw, the deal, an automatic tax): create returns the
        #: state, not events, so they wait here for whoever wants to show them.
        self.start_events: list[Event] = []
        self._legal: list[Action] | None = None
        # The give random_action just drew (cards of the giver's hand, as many as owed, in order):
        # _give carries it out unchecked.  Forgotten at the give.
        self._drawn: Action | None = None

    @classmethod
    def create(cls, players: int = 5, options: Options | None = None, seed: int | str = 0,
               deal: Sequence[Sequence[AnyCard | str]] | None = None, *, ranking: Sequence[int] | None = None) -> Self:
        """A new game.  ``deal`` (one card list per seat, together the 80-card deck; sizes free, for
        tests) replaces the first shuffle; ``ranking`` (seats, Greater Dalmuti first) replaces the
        opening draw."""
        g = started(cls, players, options, seed, "The Great Dalmuti needs 4 to 8 players.")
        g.players = players
        g.locked = g.options["pass"] == "locked"
        g.scores = [0] * players
        events: list[Event] = []
        if ranking is not None:
            order = list(ranking)
            if sorted(order) != list(range(players)):
                raise ValueError("A ranking lists every seat once.")
        else:
            g.draw, order = opening_draw(players, rng_for(seed, "draw"))
            for i, rnd in enumerate(g.draw):
                for s, v in rnd:
                    events.append(Event("draw", s, (CARDS[v], i)))
        events.append(Event("ranking", None, tuple(order)))
        hands = None
        if deal is not None:
            hands = [_counts_of(dcard(str(c)) if not isinstance(c, DCard) else c for c in h) for h in deal]
            if len(hands) != players or [sum(x[n] for x in hands) for n in range(14)] != _FULL_COUNTS:
                raise ValueError("A Dalmuti deal is one hand per seat that together make the 80-card deck.")
        g._start_hand(order, hands, events)
        g.start_events = events
        return g

    def _deal(self, order: list[int]) -> list[list[int]]:
        """RULES §3.2: all 80 cards, one at a time, starting with the Greater Dalmuti."""
        rnd = rng_for(self.seed, "deal", self.hand_no).random
        # Sorting by random keys is a uniform shuffle, and faster than Random.shuffle.
        deck = shuffled(DECK_NUMBERS, rnd)
        n = self.players
        hands = [[0] * 14 for _ in range(n)]
        for p, seat in enumerate(order):
            h = hands[seat]
            for v in deck[p::n]:
                h[v] += 1
        return hands

    def _set_ranking(self, order: list[int]) -> None:
        self.ranking = order
        pos = [0] * self.players
        for i, s in enumerate(order):
            pos[s] = i
        self.pos = pos

    def _start_hand(self, order: list[int], hands: list[list[int]] | None, events: list[Event]) -> None:
        n = self.players
        self._set_ranking(order)
        self.counts = hands if hands is not None else self._deal(order)
        self.left = [sum(h) for h in self.counts]
        self.pile = [0] * 14
        self.passed = [False] * n
        self.finish = []
        self.active = sum(1 for x in self.left if x)
        self.turn = self.leader = None
        self.cur_num = self.cur_k = 0
        self.cur_action = None
        self.cur_by = -1
        self.tax_given = [[] for _ in range(n)]
        self.tax_received = [[] for _ in range(n)]
        self.tax_step = 0
        self.revolution = None
        self.holder = None
        self._legal = self._drawn = None
        events.append(Event("hand_start", None, (self.hand_no, *order)))
        for s in range(n):
            events.append(Event("dealt", s, tuple(_expand(self.counts[s])), s))
        # RULES §3.3: every hand starts with the same look; the holder of both Jesters (if anyone)
        # may call a revolution during it.  Nothing public says whether there is a holder.
        self.holder = next((s for s in range(n) if self.counts[s][JESTER_NUMBER] == 2), None)
        self.phase = LOOK
