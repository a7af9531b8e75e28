"""Trump ordering for King of the Hill (docs/rules.md §4), as a value passed in.

Which cards are trumps and how strong a card is depend on the round — the trump rank (the KotH's
rank) and the trump suit (declared during the deal) — so ordering is never a property of a card
alone: it is a :class:`Trump` value handed to every comparison (STYLE.md 6, after shengji's
``Trump`` with ``effective_suit`` and ``compare``).

High to low the trumps are: red joker, black joker, trump-rank cards of the trump suit, trump-rank
cards of the other suits (equal to each other), then A..2 of the trump suit without the trump rank.
All trumps form one suit for following, :data:`TRUMPS`.  Plain suits rank A..2 without the trump
rank.  ``Trump(None, rank)`` is the ordering before a suit is known (during the deal): only jokers
and trump-rank cards are trumps then.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.cards import ALL_CARDS, Card

#: The effective suit of every trump card (not a real suit letter, so it never clashes with one).
TRUMPS = "T"
#: Plain suits in the order a hand is fanned after the trumps: colours alternate.
SUIT_ORDER = "SHCD"

_RED_JOKER, _BLACK_JOKER, _RANK_IN_SUIT, _RANK_OFF_SUIT = 18, 17, 16, 15


class Trump(NamedTuple):
    """The trump suit (``None`` while undeclared) and the trump rank (``"2"`` .. ``"A"``)."""

    suit: str | None
    rank: str

    def table(self) -> dict[Card, tuple[str, int, tuple[int, int, int]]]:
        """``{card: (effective suit, strength, sort key)}`` for all 54 cards, built once per value."""
        t = _TABLES.get(self)
        if t is None:
            t = _TABLES[self] = {c: (self._effective_suit(c), self._strength(c), self._sort_key(c)) for c in ALL_CARDS}
        return t

    def suits(self) -> dict[Card, str]:
        """``{card: effective suit}`` for all 54 cards (the table's first column), built once per value."""
        t = _SUITS.get(self)
        if t is None:
            t = _SUITS[self] = {c: v[0] for c, v in self.table().items()}
        return t

    def suit_sets(self) -> dict[str, frozenset[Card]]:
        """``{effective suit: its cards}`` (of all 54 cards), built once per value."""
        t = _SUIT_SETS.get(self)
        if t is None:
            by: dict[str, set[Card]] = {}
            for c, s in self.suits().items():
                by.setdefault(s, set()).add(c)
            t = _SUIT_SETS[self] = {s: frozenset(cs) for s, cs in by.items()}
        return t

    def is_trump(self, c: Card) -> bool:
        return c.suit == "~" or c.rank == self.rank or c.suit == self.suit

    def effective_suit(self, c: Card) -> str:
        """The suit ``c`` follows as: :data:`TRUMPS` for every trump, else its own suit."""
        return self.table()[c][0]

    def strength(self, c: Card) -> int:
        """How high ``c`` ranks inside its effective suit (equal numbers are equal cards)."""
        return self.table()[c][1]

    def compare(self, a: Card, b: Card) -> int:
        """``1`` if ``a`` is stronger than ``b``, ``-1`` if weaker, ``0`` if equal — or if they are of
        two different plain suits, where neither beats the other (the led suit decides a trick:
        see :meth:`beats`)."""
        t = self.table()
        ea, sa, _ = t[a]
        eb, sb, _ = t[b]
        if ea == eb:
            return (sa > sb) - (sa < sb)
        if ea == TRUMPS:
            return 1
        if eb == TRUMPS:
            return -1
        return 0

    def beats(self, a: Card, b: Card, led: str) -> bool:
        """Whether ``a``, played after ``b``, takes a trick led in effective suit ``led`` from it:
        it must be of the led suit or a trump, and strictly stronger (the first of equals wins)."""
        ea = self.table()[a][0]
        return (ea == led or ea == TRUMPS) and self.compare(a, b) > 0

    def sort_key(self, c: Card) -> tuple[int, int, int]:
        """Trumps first, then the plain suits; strongest first within each."""
        return self.table()[c][2]

    # ---- building the table -----------------------------------------------------------------
    def _effective_suit(self, c: Card) -> str:
        return TRUMPS if self.is_trump(c) else c.suit

    def _strength(self, c: Card) -> int:
        if c.suit == "~":
            return _RED_JOKER if c.rank == "R" else _BLACK_JOKER
        if c.rank == self.rank:
            return _RANK_IN_SUIT if c.suit == self.suit else _RANK_OFF_SUIT
        return c.value

    def _sort_key(self, c: Card) -> tuple[int, int, int]:
        group = 0 if self.is_trump(c) else 1 + SUIT_ORDER.index(c.suit)
        suit_pos = SUIT_ORDER.index(c.suit) if c.suit != "~" else 0
        return (group, -self._strength(c), suit_pos)


# A pure memo: there are at most 5 x 13 orderings.
_TABLES: dict[Trump, dict[Card, tuple[str, int, tuple[int, int, int]]]] = {}
_SUITS: dict[Trump, dict[Card, str]] = {}
_SUIT_SETS: dict[Trump, dict[str, frozenset[Card]]] = {}
