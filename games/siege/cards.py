"""Siege's cards and actions (docs/rules.md §5): the 96-card deck (A to Q of the four suits and four
suitless blank cards of each rank) as immutable, interned :class:`SiegeCard` values, reading a card
from what a player types, the suit each seat owns, and every action built once (start, place, swap,
attack, build, end) with the steps' names and the turn's timer.  What a pile takes and scores is
piles.py; the turn's steps build on both: turn.py, attack.py, build.py."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.core import Action, IllegalAction
from engine.words import echo, said
from words import N_

# ---- cards -------------------------------------------------------------------------------------
RANKS = "A23456789TJQ"
SUITS = "HSDCX"  # X: blank
SEAT_SUITS = "HSDC"  # seat 0 owns hearts, 1 spades, 2 diamonds, 3 clubs
SUIT_SYMBOLS = {"H": "♥", "S": "♠", "D": "♦", "C": "♣", "X": "▫"}
SUIT_NAMES = {"H": "hearts", "S": "spades", "D": "diamonds", "C": "clubs", "X": "blank"}
RANK_NAMES = {
    "A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
    "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen",
}
PILE_KINDS = {"Q": "queen", "J": "jack", "A": "ace"}
KING_PILE = 9  # a whole King pile, the 2 to 10 of its suit: it wins at once


class SiegeCard:
    """One Siege card.  Interned: use :func:`siege_card` or :data:`BY_CODE`, never the constructor."""

    __slots__ = ("rank", "suit", "code", "value", "index", "is_number")

    rank: str
    suit: str
    code: str
    value: int
    index: int
    is_number: bool

    def __init__(self, rank: str, suit: str, index: int) -> None:
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "code", rank + suit)
        object.__setattr__(self, "value", RANKS.index(rank) + 1)  # A=1, 2..10, J=11, Q=12
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "is_number", rank in "23456789T")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __repr__(self) -> str:
        return f"SiegeCard({self.code})"

    def __str__(self) -> str:
        return self.code

    def __reduce__(self) -> tuple:
        return (siege_card, (self.code,))

    @property
    def label(self) -> str:
        """As people read it: ``Q♠``, ``10♥``, ``blank 5`` (a blank has no suit symbol to show)."""
        rank = "10" if self.rank == "T" else self.rank
        return f"blank {rank}" if self.suit == "X" else rank + SUIT_SYMBOLS[self.suit]

    @property
    def name(self) -> str:
        """Long form: ``queen of spades``, ``blank five``."""
        if self.suit == "X":
            return f"blank {RANK_NAMES[self.rank]}"
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"


BY_CODE: dict[str, SiegeCard] = {}
for _s_i, _s in enumerate(SUITS):
    for _r_i, _r in enumerate(RANKS):
        BY_CODE[_r + _s] = SiegeCard(_r, _s, _s_i * 12 + _r_i)
#: The 60 distinct cards (48 suited, 12 blank ranks), by index.
DISTINCT: tuple[SiegeCard, ...] = tuple(sorted(BY_CODE.values(), key=lambda c: c.index))
#: The 96-card deck in a fixed order: each suited card once, each blank four times.
DECK: tuple[SiegeCard, ...] = tuple(c for c in DISTINCT if c.suit != "X") + tuple(
    c for c in DISTINCT if c.suit == "X" for _ in range(4))
_DECK_COUNT = {c: DECK.count(c) for c in DISTINCT}

_SYMBOLS_TO_LETTER = {"♥": "h", "♡": "h", "♠": "s", "♤": "s", "♦": "d", "♢": "d", "♣": "c", "♧": "c",
                      "▫": "x", "□": "x", "◻": "x", "⬜": "x"}
_WORD_RANK = {v: k for k, v in RANK_NAMES.items()}
_WORD_RANK.update({"10": "T", "1": "A", "t": "T", "a": "A", "j": "J", "q": "Q"})
_WORD_SUIT = {v: k for k, v in SUIT_NAMES.items()}
_WORD_SUIT.update({n[:-1]: k for k, n in SUIT_NAMES.items() if n.endswith("s")})
_WORD_SUIT.update({"h": "H", "s": "S", "d": "D", "c": "C", "x": "X", "b": "X", "blanks": "X"})
_COMPACT = re.compile(r"^(10|[2-9tjqa1])([hsdcxb])$|^([hsdcxb])(10|[2-9tjqa1])$")


class SiegeCardError(ValueError):
    """Text that cannot be read as a Siege card."""


def siege_card(text: str) -> SiegeCard:
    """Read one card forgivingly: ``5H``, ``5h``, ``5♥``, ``10h``, ``TH``, ``5X``, ``5▫``, ``5 blank``,
    ``blank 5``, ``five of hearts``.  Raises :class:`SiegeCardError` with a readable reason."""
    found = BY_CODE.get(text)
    if found is not None:
        return found
    t = text.strip().lower()
    for sym, letter in _SYMBOLS_TO_LETTER.items():
        t = t.replace(sym, letter)
    t = t.replace("\ufe0f", "")
    words = [w for w in re.split(r"[\s_]+", t) if w and w != "of"]
    pairs: list[tuple[str, str]] = []
    m = _COMPACT.match("".join(words))
    if m:
        pairs.append((m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3)))
    elif len(words) == 2:
        pairs += [(words[0], words[1]), (words[1], words[0])]
    for rank_w, suit_w in pairs:
        rank = _WORD_RANK.get(rank_w, rank_w.upper() if rank_w.upper() in RANKS else None)
        suit = _WORD_SUIT.get(suit_w)
        if rank and suit:
            return BY_CODE[rank + suit]
    if "king" in words or re.match(r"^(k[hsdcxb]|[hsdcxb]k)$", "".join(words)):
        raise SiegeCardError(N_("Siege has no kings: each player's King pile stands in for them."))
    raise SiegeCardError(said(N_("I can't read {text} as a Siege card (try 5H, 10♥, QS or blank 5)."),
                              text=repr(echo(text.strip()))))


def siege_cards(text: str) -> tuple[SiegeCard, ...]:
    """Cards separated by spaces; ``blank 5`` (a blank's label) is one card."""
    words, out = text.split(), []
    while words:
        word = words.pop(0)
        if word.lower() == "blank" and words:
            word += " " + words.pop(0)
        out.append(siege_card(word))
    return tuple(out)


# ---- actions -----------------------------------------------------------------------------------
SLOT_ARGS = ("1", "2", "3")
KING = "king"
END = Action("end")
BUILD = Action("build")
START: dict[tuple[SiegeCard, int], Action] = {
    (c, i): Action("start", (c,), (SLOT_ARGS[i],)) for c in DISTINCT if not c.is_number for i in range(3)}
PLACE: dict[tuple[SiegeCard, int], Action] = {
    (c, i): Action("place", (c,), (SLOT_ARGS[i],)) for c in DISTINCT if c.is_number for i in range(3)}
PLACE_KING: dict[SiegeCard, Action] = {c: Action("place", (c,), (KING,)) for c in DISTINCT if c.is_number}
SWAP: dict[tuple[int, int], Action] = {(i, j): Action("swap", (), (SLOT_ARGS[i], SLOT_ARGS[j]))
                                       for i in range(3) for j in range(i + 1, 3)}
ATTACK: dict[tuple[int, int], Action] = {(i, s): Action("attack", (), (SLOT_ARGS[i], str(s + 1)))
                                         for i in range(3) for s in range(4)}
KINDS = ("attack", "build", "start", "place", "swap", "end")

TURN_TIMER = 90.0
ATTACK_PHASE, BUILD_PHASE, OVER = "attack", "build", "over"
HAND_SIZE = 5

_SORT = {c: (SUITS.index(c.suit), c.value) for c in DISTINCT}


def _sorted(cs: Sequence[SiegeCard]) -> list[SiegeCard]:
    return sorted(cs, key=_SORT.__getitem__)


def _codes(cs: Sequence[SiegeCard]) -> list[str]:
    return [c.code for c in cs]


def _read(codes: Sequence[str]) -> list[SiegeCard]:
    return [BY_CODE[c] for c in codes]


_END_WORDS = ("end", "done", "pass", "stop", "finish")
_END_FILLER = {"turn", "my", "the", "please", "now", "it", "here", "thanks", "pls", "plz", "!", "."}


def _slot_arg(text: str) -> int:
    if text not in SLOT_ARGS:
        raise IllegalAction(N_("There is no slot {text}: house slots are 1, 2 and 3."), "bad_slot",
                            text=repr(echo(text)))
    return SLOT_ARGS.index(text)


Pile = list[SiegeCard]
