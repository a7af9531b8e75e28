"""Standard playing cards: text codes, a forgiving parser and a symbol formatter.

Codes follow docs/rules.md (*Cards and options at every table*): rank then suit, ranks ``2 3 4 5 6 7
8 9 T J Q K A``, suits ``C D H S``, jokers ``~B`` (black) and ``~R`` (red). Cards are interned:
there is exactly one object per code, so identity, equality and hashing are cheap and two copies
from a double deck compare equal.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from engine.words import Phrase, echo, said
from words import N_

_T = TypeVar("_T")  # (mypyc_attr's fallback below)

try:
    # The compiled rules' classes (the modules a game's COMPILED names) import it from here.
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure-Python engine needs no build tools
    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[_T], _T]:  # mypy_extensions' own signature
        return lambda cls: cls

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANK_NAMES = {
    "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight",
    "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace",
}


class CardError(ValueError):
    """Raised when text cannot be read as a card; :attr:`phrase` says why, in any language."""

    @property
    def phrase(self) -> Phrase:
        said_ = self.args[0] if self.args else ""
        return said_ if isinstance(said_, Phrase) else said(str(said_))


class Card:
    """One playing card.  Use :func:`card` or the module constants, never the constructor.

    This module is compiled with mypyc along with a game's rules (tools/native.py): Card is then a native
    class, whose attributes compiled code reads directly; its ``__setattr__``/``__delattr__`` keep
    it immutable either way (``__slots__`` matter only to the pure build)."""

    __slots__ = ("rank", "suit", "code", "value", "index", "suit_index")

    rank: str
    suit: str
    code: str
    value: int
    index: int
    #: The suit's number, its place in ``SUITS`` (``index // 13``; 4 for the jokers): what games
    #: index their per-suit tables with, read without a division.
    suit_index: int

    def __init__(self, rank: str, suit: str, value: int, index: int) -> None:
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "code", rank + suit if suit != "~" else "~" + rank)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "suit_index", index // 13)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("cards are immutable")

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __str__(self) -> str:
        return self.code

    def __reduce__(self) -> tuple:
        return (card, (self.code,))

    @property
    def label(self) -> str:
        """The card as people read it: ``Q♠``, ``10♥``, ``Red joker``."""
        if self.suit == "~":
            return "Red joker" if self.rank == "R" else "Black joker"
        return ("10" if self.rank == "T" else self.rank) + SUIT_SYMBOLS[self.suit]

    @property
    def name(self) -> str:
        """Long form for autocomplete and screen readers: ``queen of spades``."""
        if self.suit == "~":
            return self.label.lower()
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"


_BY_CODE: dict[str, Card] = {}
for _s_i, _s in enumerate(SUITS):
    for _r_i, _r in enumerate(RANKS):
        _c = Card(_r, _s, _r_i + 2, _s_i * 13 + _r_i)
        _BY_CODE[_c.code] = _c
BLACK_JOKER = Card("B", "~", 15, 52)
RED_JOKER = Card("R", "~", 16, 53)
_BY_CODE[BLACK_JOKER.code] = BLACK_JOKER
_BY_CODE[RED_JOKER.code] = RED_JOKER

#: All 54 distinct cards, by index (0..51 the suits in ``SUITS`` order, 52/53 the jokers).
ALL_CARDS: tuple[Card, ...] = tuple(sorted(_BY_CODE.values(), key=lambda c: c.index))

_SYMBOL_TO_SUIT = {v: k for k, v in SUIT_SYMBOLS.items()}
_SYMBOL_TO_SUIT.update({"♧": "C", "♢": "D", "♡": "H", "♤": "S"})
_WORD_RANKS = {v: k for k, v in RANK_NAMES.items()}
_WORD_RANKS.update({"10": "T", "ace": "A", "king": "K", "queen": "Q", "jack": "J"})
_WORD_SUITS = {v: k for k, v in SUIT_NAMES.items()}
_WORD_SUITS.update({n[:-1]: k for k, n in SUIT_NAMES.items()})  # "heart", "spade", ...
_WORD_SUITS.update({"c": "C", "d": "D", "h": "H", "s": "S"})

_COMPACT = re.compile(r"^(10|[2-9tjqka])([cdhs])$|^([cdhs])(10|[2-9tjqka])$")
_WORDS = re.compile(r"^([a-z0-9]+)\s*(?:of\s+)?([a-z]+)$")


def card(text: str) -> Card:
    """Read one card, forgivingly: ``QS``, ``qs``, ``Q♠``, ``10h``, ``Th``, ``10♥``,
    ``ten of hearts``, ``~R``, ``red joker``.  Raises :class:`CardError` with a readable reason."""
    found = _BY_CODE.get(text)
    if found is not None:
        return found
    t = text.strip().lower()
    for sym, suit in _SYMBOL_TO_SUIT.items():
        t = t.replace(sym, suit.lower())
    t = t.replace("\ufe0f", "").replace(" ", "") if len(t) <= 5 else t
    if t in ("~b", "bj", "blackjoker", "black joker", "joker(b)", "smalljoker", "small joker"):
        return BLACK_JOKER
    if t in ("~r", "rj", "redjoker", "red joker", "joker(r)", "bigjoker", "big joker"):
        return RED_JOKER
    m = _COMPACT.match(t)
    if m:
        rank, suit = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        rank = "T" if rank == "10" else rank.upper()
        return _BY_CODE[rank + suit.upper()]
    w = _WORDS.match(t)
    if w:
        word_rank = _WORD_RANKS.get(w.group(1)) or (w.group(1).upper() if w.group(1).upper() in RANKS else None)
        word_suit = _WORD_SUITS.get(w.group(2))
        if word_rank and word_suit:
            return _BY_CODE[word_rank + word_suit]
    raise CardError(said(N_("I can't read {text} as a card (try QS, 10h or queen of spades)."),
                         text=repr(echo(text.strip()))))


def cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Read several cards separated by spaces or commas (``"2c 3d, Q♠"``)."""
    if isinstance(text, str):
        t = text.strip()
        # "ten of hearts, queen of spades": split on commas first when words are used.
        parts = [p for p in re.split(r"\s*,\s*", t) if p] if "," in t else None
        if parts is None:
            parts = _split_words(t)
        return tuple(card(p) for p in parts)
    return tuple(card(p) for p in text)


def _split_words(t: str) -> list[str]:
    tokens = t.split()
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        low = tok.lower()
        if i + 2 < len(tokens) and tokens[i + 1].lower() == "of":
            out.append(" ".join(tokens[i : i + 3]))
            i += 3
        elif low in ("red", "black", "big", "small") and i + 1 < len(tokens) and tokens[i + 1].lower() == "joker":
            out.append(tok + " joker")
            i += 2
        else:
            out.append(tok)
            i += 1
    return out


def codes(cs: Iterable[Card]) -> str:
    return " ".join(c.code for c in cs)


def labels(cs: Iterable[Card]) -> str:
    return " ".join(c.label for c in cs)


def deck(jokers: bool = False, copies: int = 1) -> list[Card]:
    """A fresh, ordered deck: 52 cards, optionally with the two jokers, optionally doubled."""
    one = list(ALL_CARDS[:52]) + ([BLACK_JOKER, RED_JOKER] if jokers else [])
    return one * copies


def four_hands_of_thirteen(deal: Iterable[Iterable[Card]], title: str) -> list[list[Card]]:
    """A given 52-card deal of a four-player game as four hand lists, or ``ValueError`` naming the game."""
    hands = [list(h) for h in deal]
    if len(hands) != 4 or any(len(h) != 13 for h in hands) or sorted(
        c.index for h in hands for c in h
    ) != list(range(52)):
        raise ValueError(f"A {title} deal is 4 hands of 13 that make one 52-card deck.")
    return hands


def shuffled(cs: list[Card], rng: random.Random) -> list[Card]:
    out = list(cs)
    rng.shuffle(out)
    return out


def sort_key(c: Card, suit_order: str = "CDSH") -> tuple[int, int]:
    """Sort by suit (in the given order), then by rank — how players fan a hand of cards."""
    return (suit_order.find(c.suit) if c.suit != "~" else 9, c.value)
