"""The deal of every hand of Hearts (docs/rules.md §1): the 52-card deck and the actions and events
built once from it, the game's state and its creation with its options, the shuffle and the deal
of 13 cards each, the direction of the hand's pass (left, right, across, hold), and the start of
play (the 2♣ holder leads).  Hearts' rules are compiled with mypyc (tools/native.py), so the module
constants are Final.  The pass (passing.py) and the play (play.py) build on this; rules.py puts
the phases together as :class:`~games.hearts.rules.Hearts`."""

from __future__ import annotations

from _random import Random as _Generator
from collections.abc import Callable, Hashable, Sequence
from hashlib import sha512
from typing import Any, Final, Self

from engine.cards import ALL_CARDS, Card, card, four_hands_of_thirteen, mypyc_attr, sort_key
from engine.core import Action, Event, Game, Options

# Module constants are Final: compiled code then reads them directly, not from the module's dict.
# Constant tuples are typed ``tuple[X, ...]``: a fixed-length tuple type would make compiled code
# keep them unboxed and build a new tuple object at every use.
TWO_CLUBS: Final = card("2C")
QUEEN_SPADES: Final = card("QS")
DECK: Final[tuple[Card, ...]] = ALL_CARDS[:52]
PLAY: Final[dict[Card, Action]] = {c: Action("play", (c,)) for c in DECK}
PASS_DIRS: Final[tuple[str, ...]] = ("left", "right", "across", "hold")
_PASS_OFFSET: Final = {"left": 1, "right": 3, "across": 2, "hold": 0}
# The seat each seat passes to, by ``hand_no % 4`` (left, right, across, hold: PASS_DIRS' order).
_PASS_OFFSETS: Final[tuple[int, ...]] = (1, 3, 2, 0)
PASS_TIMER: Final = 60.0
PLAY_TIMER: Final = 30.0

PASS: Final = "pass"
PLAY_PHASE: Final = "play"
OVER: Final = "over"

_SORT_POS: Final = {c: sort_key(c) for c in DECK}


def _index(cs: list[Card], c: Card) -> int:
    """Where card ``c`` is in ``cs`` (-1 if absent), by identity: cards are interned, and ``in``,
    ``index`` and ``remove`` would make a rich comparison for every other card they pass over."""
    i = 0
    for x in cs:
        if x is c:
            return i
        i += 1
    return -1


def _remove(cs: list[Card], c: Card) -> None:
    """``cs.remove(c)``, by identity (see _index)."""
    i = 0
    for x in cs:
        if x is c:
            cs.pop(i)
            return
        i += 1
    raise ValueError(f"{c} is not in the list")


def _take(hand: list[Card], suited: list[Card], c: Card) -> None:
    """A card played: out of the hand and out of the split's list of its suit (one call, not two:
    the pure build pays for every call)."""
    i = 0
    for x in hand:
        if x is c:
            hand.pop(i)
            break
        i += 1
    i = 0
    for x in suited:
        if x is c:
            suited.pop(i)
            return
        i += 1


_tuple_new: Final = tuple.__new__


def _event(kind: str, seat: int | None, data: tuple, to: int | None = None) -> Event:
    """``Event(kind, seat, data, to)`` without the named tuple's Python-level constructor."""
    return _tuple_new(Event, (kind, seat, data, to))


def _no_draw() -> float:
    raise RuntimeError("no generator yet")  # never called: random_action sets _rnd with _rng


def _deal_generator(seed: int | str, hand_no: int) -> _Generator:
    """``rng_for(seed, "deal", hand_no)``'s generator (the same seed, so the same numbers), seeded
    without random.Random's Python-level __init__ and seed: a string seed is the integer of its bytes
    followed by their SHA-512 digest (random.Random.seed, version 2), and the C generator's
    ``random`` is the one random.Random inherits."""
    text = "/".join((str(seed), "deal", str(hand_no))).encode()
    return _Generator(int.from_bytes(text + sha512(text).digest(), "big"))


# Whether this module runs compiled by mypyc (tools/native.py) or from its source: _deal picks the
# faster of two ways to the same deal.
_COMPILED: Final = not __file__.endswith(".py")

# The first hands' "deal" events, shared (events are immutable): by ``hand_no * 2 + classic``.
_DEAL_EVENTS: Final[list[Event]] = [_event("deal", None, (n >> 1, PASS_DIRS[(n >> 1) % 4] if n & 1 else "hold"))
                                    for n in range(128)]

_sorted = lambda cs: sorted(cs, key=_SORT_POS.__getitem__)  # noqa: E731
# Game's own read_options, called with Hearts as the class (see the note on the class in rules.py).
_READ_OPTIONS: Callable[[type, Options | None], Options] = Game.__dict__["read_options"].__func__
_OPTIONS_READ: Final[dict[tuple[type, tuple[tuple[str, Hashable], ...]], Options]] = {}


# Compiled by mypyc with the rest of Hearts' rules: see the note on the class in rules.py.
@mypyc_attr(allow_interpreted_subclasses=True)
class HeartsDeal:
    """A game of Hearts' state, its creation, and the deal of each hand."""

    # ---- creation ---------------------------------------------------------------------------
    def __init__(self) -> None:  # use create() or from_dict()
        self.players = 4
        self.seed: int | str = 0
        self.options: Options = {}
        self.start_events: list[Event] = []  # what create() emitted (Game.start_events)
        self.classic = True
        self.hand_no = 0
        self.phase = PASS
        self.hands: list[list[Card]] = [[], [], [], []]
        self.pass_choice: list[tuple[Card, ...] | None] = [None] * 4
        self.passed: list[tuple[Card, ...]] = [(), (), (), ()]
        self.received: list[tuple[Card, ...]] = [(), (), (), ()]
        self.trick: list[tuple[int, Card]] = []
        self.trick_no = 0
        self.leader = 0
        self.turn: int | None = None
        self.hearts_broken = False
        self.won: list[list[Card]] = [[], [], [], []]
        self.hand_points = [0, 0, 0, 0]
        self.scores = [0, 0, 0, 0]
        # The last finished trick as (winner, points, its (seat, card) pairs): see last_trick.
        self._last: tuple[int, int, tuple[tuple[int, Card], ...]] | None = None
        # A trick just taken, not yet made into ``_last`` (its list, which play replaced by a new
        # one and never changes again, its winner and its points): made when last_trick is read.
        self._last_cards: list[Any] | None = None
        self._last_winner = 0
        self._last_points = 0
        # This hand's finished tricks as (leader, cards in play order): public, and what a player
        # who watched the table remembers (who showed out of a suit, for sample_world).
        self.history: list[tuple[int, tuple[Card, ...]]] = []
        # Derived from ``hands`` to make moves cheap (see _split): each seat's hand split by suit,
        # in hand order.  The engine keeps it in step with every move; code that edits ``hands``
        # directly (tests, sample_world) sets it to None and it is rebuilt when next needed.
        self._legal: list[list[Card]] | None = None
        # The action random_action just drew for seat ``_drawn_seat``: legal by construction, so
        # apply need not check it again.  Cleared by every change and by copy().
        self._drawn: Action | None = None
        self._drawn_seat = -1
        # The generator random_action last drew from, and its bound ``random``: looked up once, not at
        # every draw (a random.Random's method is found through its instance dict first).
        self._rng: Any = None
        self._rnd: Callable[[], float] = _no_draw

    @property
    def last_trick(self) -> tuple[int, int, tuple[tuple[int, Card], ...]] | None:
        """The last finished trick of this hand as (winner, points, its (seat, card) pairs in play
        order), None before the first.  Made when read: play keeps the pieces (issue 35)."""
        cards = self._last_cards
        if cards is not None:
            self._last = (self._last_winner, self._last_points, tuple(cards))
            self._last_cards = None
        return self._last

    @last_trick.setter
    def last_trick(self, value: tuple[int, int, tuple[tuple[int, Card], ...]] | None) -> None:
        self._last = value
        self._last_cards = None

    @classmethod
    def read_options(cls, given: Options | None) -> Options:
        # Games are created with the same few option sets over and over (tables, search, the
        # bench): what each reads as is remembered (a few dozen at most), and a copy returned.
        try:
            key = (cls, tuple(given.items()) if given else ())
            known = _OPTIONS_READ.get(key)
        except (TypeError, AttributeError):  # an unhashable value, or not a dict: not remembered
            return _READ_OPTIONS(cls, given)
        if known is None:
            known = _READ_OPTIONS(cls, given)  # raises for bad options: those are not remembered
            if len(_OPTIONS_READ) < 64:
                _OPTIONS_READ[key] = known
        return dict(known)

    @classmethod
    def create(
        cls,
        players: int = 4,
        options: Options | None = None,
        seed: int | str = 0,
        deal: Sequence[Sequence[Card]] | None = None,
    ) -> Self:
        if players != 4:
            raise ValueError("Hearts needs exactly 4 players.")
        g = cls()
        g.seed = seed
        g.options = cls.read_options(options)
        g.classic = g.options["rules"] == "classic"
        hands = None if deal is None else four_hands_of_thirteen(deal, "Hearts")
        g._start_hand(hands, g.start_events)
        return g

    def _deal(self) -> list[list[Card]]:
        # Sorting by random keys is a uniform shuffle, and twice as fast as Random.shuffle.  (The
        # deal of every stored game depends on this exact procedure: keep it.)
        # ``sorted(DECK, key=lambda _: rnd())`` draws the keys in deck order and sorts stably: the
        # same as drawing them first and sorting the positions (which saves 52 calls of a key
        # function; tests/engine/test_native.py checks the deals are the same).
        generator = _deal_generator(self.seed, self.hand_no)
        if _COMPILED:
            # Compiled, a sort of small integers without a key function is cheaper: each key's top
            # 24 bits, times 64, plus the card's place.  While no two of those top bits are equal
            # they order the cards as the whole keys do; on a tie (about one deal in 12,000) the
            # deal is drawn again the way below, from a generator seeded again.  The keys' words
            # come in one call: random() makes a key of two 32-bit words, the first one's top 27
            # bits over 2**27 then the second's top 26, so the key's top 24 bits are the first
            # word's top 24; getrandbits gives the same words, the first one the lowest.
            words = generator.getrandbits(3328).to_bytes(416, "little")
            order = [(words[8 * j + 1] | words[8 * j + 2] << 8 | words[8 * j + 3] << 16) << 6 | j
                     for j in range(52)]
            order.sort()
            deck: list[Card] = []
            last = -1
            for v in order:
                if v >> 6 == last:
                    break
                last = v >> 6
                deck.append(DECK[v & 63])
            else:
                return [deck[0::4], deck[1::4], deck[2::4], deck[3::4]]
            generator = _deal_generator(self.seed, self.hand_no)
        rnd = generator.random
        keys = [rnd() for _ in DECK]
        deck = [DECK[i] for i in sorted(range(52), key=keys.__getitem__)]
        return [deck[0::4], deck[1::4], deck[2::4], deck[3::4]]

    @property
    def pass_dir(self) -> str:
        return PASS_DIRS[self.hand_no % 4] if self.classic else "hold"

    @staticmethod
    def pass_target(seat: int, direction: str) -> int:
        """The seat that ``seat`` passes to in ``direction`` (a view's ``pass_dir``; ``hold``: itself)."""
        return (seat + _PASS_OFFSET[direction]) % 4

    @staticmethod
    def pass_source(seat: int, direction: str) -> int:
        """The seat that passes to ``seat`` in ``direction``."""
        return (seat - _PASS_OFFSET[direction]) % 4

    def _start_hand(self, hands: list[list[Card]] | None, events: list[Event]) -> None:
        self.hands = hands = hands if hands is not None else self._deal()
        self._legal = None  # split when play begins: passing changes the hands first
        self._drawn = None
        self._drawn_seat = -1
        self.pass_choice = [None] * 4
        self.passed = [(), (), (), ()]
        self.received = [(), (), (), ()]
        self.trick = []
        self.trick_no = 0
        self.hearts_broken = False
        self.won = [[], [], [], []]
        self.hand_points = [0, 0, 0, 0]
        self.last_trick = None
        self.history = []
        pass_dir = self.pass_dir
        hand_no = self.hand_no
        deal = _DEAL_EVENTS[hand_no << 1 | self.classic] if hand_no < 64 else _event("deal", None, (hand_no, pass_dir))
        events += (deal,
                   _event("dealt", 0, tuple(hands[0]), 0), _event("dealt", 1, tuple(hands[1]), 1),
                   _event("dealt", 2, tuple(hands[2]), 2), _event("dealt", 3, tuple(hands[3]), 3))
        if pass_dir == "hold":
            self._begin_play()
        else:
            self.phase = PASS
            self.turn = None

    def _begin_play(self) -> None:
        self._legal = None
        self._drawn = None
        self._drawn_seat = -1
        self.phase = PLAY_PHASE
        hands = self.hands
        leader = 0
        while _index(hands[leader], TWO_CLUBS) < 0:
            leader += 1
        self.leader = leader
        self.turn = leader

    def _split(self) -> list[list[Card]]:
        """Rebuild the per-suit split of every hand from ``hands`` (kept as ``_legal``): one flat
        list of 16, seat by seat, each seat's cards of each suit by suit number
        (``card.suit_index``) in hand order: seat ``s``'s suit ``n`` is ``split[s * 4 + n]``."""
        split: list[list[Card]] = [[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], []]
        base = 0
        for hand in self.hands:
            for c in hand:
                split[base + c.suit_index].append(c)
            base += 4
        self._legal = split
        return split
