"""The deal of every hand of The Great Dalmuti (docs/rules.md §3.1-3.2): the opening draw that
ranks the first hand, the game's state, its creation, and dealing all 80 cards one at a time from
the Greater Dalmuti on.  Every hand then starts with the look at the cards (taxes.py) and is played
out (play.py); rules.py puts the phases together as :class:`~games.dalmuti.rules.Dalmuti`.  Compiled
with mypyc with the other phases and cards.py (tools/native.py)."""

from __future__ import annotations

import random
from _random import Random as _Generator
from collections.abc import Callable, Sequence
from hashlib import sha512
from math import ceil, log
from typing import ClassVar, Final, Self

from engine.cards import mypyc_attr
from engine.core import Action, AnyCard, Event, Game, Options, shuffled
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

_tuple_new: Final = tuple.__new__


def _event(kind: str, seat: int | None, data: tuple, to: int | None = None) -> Event:
    """``Event(kind, seat, data, to)`` without the named tuple's Python-level constructor."""
    return _tuple_new(Event, (kind, seat, data, to))


def _generator(text: str) -> _Generator:
    """``rng_for``'s generator for ``text`` (its parts joined by ``/``: ``"7/deal/0"``), the same
    numbers, seeded without random.Random's Python-level __init__ and seed: a string seed is the
    integer of its bytes followed by their SHA-512 digest (random.Random.seed, version 2), and the
    C generator's ``random`` and ``getrandbits`` are the ones random.Random inherits."""
    b = text.encode()
    return _Generator(int.from_bytes(b + sha512(b).digest(), "big"))


def _below(gen: _Generator, n: int) -> int:
    """random.Random._randbelow(n) (its getrandbits way) from the C generator."""
    bits = n.bit_length()
    r: int = gen.getrandbits(bits)
    while r >= n:
        r = gen.getrandbits(bits)
    return r


def _sample(gen: _Generator, k: int) -> list[int]:
    """``random.Random.sample(DECK_NUMBERS, k)`` as a random.Random in the generator's state
    draws it (the same two ways, chosen the same way), without its Python-level calls."""
    population = DECK_NUMBERS
    n = len(population)
    setsize = 21
    if k > 5:
        setsize += 4 ** ceil(log(k * 3, 4))
    out: list[int] = []
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            j = _below(gen, n - i)
            out.append(pool[j])
            pool[j] = pool[n - i - 1]
    else:
        selected: set[int] = set()
        for _ in range(k):
            j = _below(gen, n)
            while j in selected:
                j = _below(gen, n)
            selected.add(j)
            out.append(population[j])
    return out


def opening_draw(players: int, rng: random.Random | _Generator) -> tuple[list[list[tuple[int, int]]], list[int]]:
    """RULES §3.1: every player draws a card from the full deck; the lowest draw is the Greater
    Dalmuti, and so on.  A Jester draws worst (13).  Players who tie draw again among themselves
    (from a full deck again), as often as needed.  Returns the draw rounds ``[[(seat, number),
    ...], ...]`` in the order they were made, and the ranking (seats, best first).  ``rng`` is a
    random.Random (its ``sample`` draws), or create's C generator (the same draws, cheaper)."""
    rounds: list[list[tuple[int, int]]] = []
    return rounds, _resolve(list(range(players)), rng, rounds)


def _resolve(group: list[int], rng: random.Random | _Generator, rounds: list[list[tuple[int, int]]]) -> list[int]:
    """The ranking of ``group`` by a draw, ties drawn again among themselves (opening_draw)."""
    drawn = rng.sample(DECK_NUMBERS, len(group)) if isinstance(rng, random.Random) else _sample(rng, len(group))
    rounds.append(list(zip(group, drawn, strict=True)))
    by_number: dict[int, list[int]] = {}
    for s, v in zip(group, drawn, strict=True):
        by_number.setdefault(v, []).append(s)
    out: list[int] = []
    for v in sorted(by_number):
        tied = by_number[v]
        out.extend(tied if len(tied) == 1 else _resolve(tied, rng, rounds))
    return out


# Game's own read_options, called with Dalmuti as the class (see the note on the class in rules.py).
_READ_OPTIONS: Callable[[type, Options | None], Options] = Game.__dict__["read_options"].__func__


# Compiled by mypyc with the rest of Dalmuti's rules: see the note on the class in rules.py.
@mypyc_attr(allow_interpreted_subclasses=True)
class DalmutiDeal:
    """A game of Dalmuti's state, its creation and the deal of each hand."""

    title: ClassVar[str] = "The Great Dalmuti"
    # RULES §3: 4 to 8 (the seed says 5 to 8; the published game allows 4).
    min_players: ClassVar[int] = 4
    max_players: ClassVar[int] = 8

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
    def read_options(cls, given: Options | None) -> Options:
        return _READ_OPTIONS(cls, given)

    @classmethod
    def create(
        cls,
        players: int = 5,
        options: Options | None = None,
        seed: int | str = 0,
        deal: Sequence[Sequence[AnyCard | str]] | None = None,
        *,
        ranking: Sequence[int] | None = None,
    ) -> Self:
        """A new game.  ``deal`` (one card list per seat, together the 80-card deck; sizes free, for
        tests) replaces the first shuffle; ``ranking`` (seats, Greater Dalmuti first) replaces the
        opening draw."""
        if not cls.min_players <= players <= cls.max_players:
            raise ValueError("The Great Dalmuti needs 4 to 8 players.")
        g = cls()
        g.players = players
        g.seed = seed
        g.options = cls.read_options(options)
        g.locked = g.options["pass"] == "locked"
        g.scores = [0] * players
        events: list[Event] = []
        if ranking is not None:
            order = list(ranking)
            if sorted(order) != list(range(players)):
                raise ValueError("A ranking lists every seat once.")
        else:
            # rng_for(seed, "draw")'s draws
            g.draw, order = opening_draw(players, _generator(f"{seed}/draw"))
            for i, rnd in enumerate(g.draw):
                for s, v in rnd:
                    events.append(_event("draw", s, (CARDS[v], i)))
        events.append(_event("ranking", None, tuple(order)))
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
        rnd = _generator(f"{self.seed}/deal/{self.hand_no}").random  # rng_for(seed, "deal", hand_no)'s
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
        events.append(_event("hand_start", None, (self.hand_no, *order)))
        for s in range(n):
            events.append(_event("dealt", s, tuple(_expand(self.counts[s])), s))
        # RULES §3.3: every hand starts with the same look; the holder of both Jesters (if anyone)
        # may call a revolution during it.  Nothing public says whether there is a holder.
        self.holder = next((s for s in range(n) if self.counts[s][JESTER_NUMBER] == 2), None)
        self.phase = LOOK
