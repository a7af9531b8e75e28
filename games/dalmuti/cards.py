"""The Great Dalmuti's cards and the sets they make (docs/rules.md §3): the 80-card deck (n copies of
each number n = 1..12, lower is better, and two Jesters, wild beside a numbered card), reading a
card, the ranking's titles, every play that can exist (built once, so legal plays are a few list
extensions) and how a set reads.  Hands are kept as counts per number; the helpers here turn counts
into cards and back.  The phases of a hand build on these: deal.py, taxes.py, play.py.  Compiled
with mypyc along with them (tools/native.py), so the module constants are Final."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Literal, overload

from engine.core import Action, Event, IllegalAction
from engine.words import Phrase, echo, said, said_n
from words import N_

JESTER_NUMBER: Final = 13
PLAY_TIMER: Final = 30.0
TAX_TIMER: Final = 60.0
#: The look at the cards that starts every hand (RULES §3.3); the holder of both Jesters may call a
#: revolution meanwhile.  Equal for every hand, whoever holds what.
LOOK_TIMER: Final = 8.0

LOOK: Final = "look"
TAX: Final = "tax"
PLAY: Final = "play"
OVER: Final = "over"

_NUMBER_WORDS: Final[tuple[str, ...]] = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


class DCard:
    """One Dalmuti card: a number 1..12, or the Jester (13).  Use :data:`CARDS` or :func:`dcard`,
    never the constructor: there is exactly one object per number, so copies compare equal.

    Compiled with mypyc (tools/native.py), it is a native class whose attributes compiled code reads
    directly; its ``__setattr__``/``__delattr__`` keep it immutable either way (``__slots__`` matter
    only to the pure build), like engine/cards.py's Card."""

    __slots__ = ("number", "code", "label", "name", "index", "value")

    number: int
    code: str
    label: str
    name: str
    index: int
    value: int

    def __init__(self, number: int) -> None:
        jester = number == JESTER_NUMBER
        # "D5", not "5": a bare number in a view could be a count, a seat or a score.
        object.__setattr__(self, "number", number)
        object.__setattr__(self, "code", "JJ" if jester else f"D{number}")
        object.__setattr__(self, "label", "Jester" if jester else str(number))
        object.__setattr__(self, "name", "jester" if jester else _NUMBER_WORDS[number - 1])
        object.__setattr__(self, "index", number - 1)
        object.__setattr__(self, "value", number)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("cards are immutable")

    def __repr__(self) -> str:
        return f"DCard({self.code})"

    def __str__(self) -> str:
        return self.code

    def __reduce__(self) -> tuple:
        return (dcard, (self.code,))


#: The 13 cards by number (index 0 unused): ``CARDS[5]`` is a 5, ``CARDS[13]`` the Jester.
CARDS: Final[tuple[DCard, ...]] = (None, *(DCard(n) for n in range(1, 14)))  # type: ignore[arg-type]  # 0 is never read
JESTER: Final = CARDS[JESTER_NUMBER]
_BY_CODE: Final[dict[str, DCard]] = {c.code: c for c in CARDS[1:]}

#: The deck as numbers: n copies of n, then two Jesters.
DECK_NUMBERS: Final[tuple[int, ...]] = tuple(n for n in range(1, 13) for _ in range(n)) + (JESTER_NUMBER, JESTER_NUMBER)
DECK: Final[tuple[DCard, ...]] = tuple(CARDS[n] for n in DECK_NUMBERS)
_FULL_COUNTS: Final = [0] + [n for n in range(1, 13)] + [2]


class DCardError(ValueError):
    """Raised when text cannot be read as a Dalmuti card."""


def dcard(text: str) -> DCard:
    """Read one card: ``D5``, ``5``, ``five``, ``JJ``, ``jester``, ``J``."""
    found = _BY_CODE.get(text)
    if found is not None:
        return found
    n = _card_number(text.strip().lower())
    if n is None:
        raise DCardError(f"I can't read {echo(text.strip())!r} as a Dalmuti card (try 5, D5 or jester).")
    return CARDS[n]


def _card_number(t: str) -> int | None:
    if not t.isascii() or len(t) > 12:  # "²" passes isdigit() and fails int(); so do 5,000 digits
        return None
    if t in ("jj", "j", "jester", "jesters", "joker", "jokers", "d13", "13"):
        return JESTER_NUMBER
    if t.startswith("d") and t[1:].isdigit():
        t = t[1:]
    if t.isdigit() and 1 <= int(t) <= 12:
        return int(t)
    if t in _NUMBER_WORDS:
        return _NUMBER_WORDS.index(t) + 1
    return None


def title_of(position: int, players: int) -> str:
    """The title of the ``position``-th player of the ranking (0 = best)."""
    if position == 0:
        return "Greater Dalmuti"
    if position == players - 1:
        return "Greater Peon"
    if position == 1:
        return "Lesser Dalmuti"
    if position == players - 2:
        return "Lesser Peon"
    return "Merchant"


def is_peon(position: int, players: int) -> bool:
    """Whether the ``position``-th player of the ranking (0 = best) is a Peon, who pays taxes."""
    return position >= players - 2


#: The numbers said with "an" in English (eight, eleven).
_AN: Final = frozenset((8, 11))


def _article(number: int) -> str:
    return "an" if number in _AN else "a"


def set_name(number: int, count: int, jesters: int = 0) -> str:
    """``three 5s``, ``two 9s + Jester``, ``a Jester``: how a play reads."""
    if number == JESTER_NUMBER:
        return "a Jester" if count == 1 else "two Jesters"
    naturals = count - jesters
    base = f"{_article(number)} {number}" if naturals == 1 else f"{_NUMBER_WORDS[naturals - 1]} {number}s"
    if jesters:
        base += " + Jester" if jesters == 1 else " + two Jesters"
    return base


# Every play that can exist, built once: (number, naturals, jesters) -> Action, and back.  Actions are
# immutable values, so legal-move lists and the random player share these objects.
_PLAYS: Final[dict[tuple[int, int, int], Action]] = {}
for _m in range(1, 13):
    for _a in range(1, _m + 1):
        for _b in range(3):
            _PLAYS[(_m, _a, _b)] = Action("play", (CARDS[_m],) * _a + (JESTER,) * _b)
_PLAYS[(JESTER_NUMBER, 0, 1)] = Action("play", (JESTER,))
_PLAYS[(JESTER_NUMBER, 0, 2)] = Action("play", (JESTER, JESTER))
_SPEC: Final[dict[Action, tuple[int, int, int]]] = {a: k for k, a in _PLAYS.items()}
# The canonical actions live as long as the module, so no other live object can share their id().
_SPEC_BY_ID: Final[dict[int, tuple[int, int, int]]] = {id(a): k for k, a in _PLAYS.items()}
PASS_ACTION: Final = Action("pass")
REVOLT: Final = Action("revolution")
#: The table's action that ends the look (then taxes, unless a revolution was called).
CLOSE_LOOK: Final = Action("close")
# _LEAD[m][c][j]: the leads with number m holding c of them and j Jesters; _TOP[m][c][j][k]: the plays
# of exactly k cards of m.  Built once, so enumerating legal plays is a few list extensions.
_LEAD: Final[list[list[list[tuple[Action, ...]]]]] = [
    [[tuple(_PLAYS[(m, a, b)] for a in range(1, min(c, m) + 1) for b in range(j + 1)) if m < 13 else ()
     for j in range(3)] for c in range(13)] for m in range(13)]
_TOP: Final[list[list[list[list[tuple[Action, ...]]]]]] = [
    [[[tuple(_PLAYS[(m, a, k - a)] for a in range(max(1, k - j), min(c, k, m) + 1)) if 0 < m < 13 else ()
      for k in range(15)] for j in range(3)] for c in range(13)] for m in range(13)]
# Events are immutable, so the ones a hand repeats most are built once and shared.
# _PLAY_EVENT[seat][id(action)]: keyed by the canonical action's identity (see _SPEC_BY_ID), which
# is cheaper than hashing the action.
_PLAY_EVENT: Final[list[dict[int, Event]]] = [
    {id(a): Event("play", s, a.cards) for a in _PLAYS.values()} for s in range(8)]
# _PLAY_INFO[id(action)]: (number, naturals, jesters, cards, the play's event by seat) of a canonical play.
_PLAY_INFO: Final[dict[int, tuple[int, int, int, int, list[Event]]]] = {
    id(a): (m, na, b, na + b, [_PLAY_EVENT[s][id(a)] for s in range(8)])
    for (m, na, b), a in _PLAYS.items()}
# _ROUND_END[owner][leader]: the event of a round's end.
_ROUND_END: Final[list[list[Event]]] = [[Event("round_end", o, (lead,)) for lead in range(8)] for o in range(8)]
_PASS_EVENT: Final[list[Event]] = [Event("pass", s, ()) for s in range(8)]
#: ``to_act()`` of one seat, built once.
_SEAT_ALONE: Final[tuple[tuple[int, ...], ...]] = tuple((s,) for s in range(8))
_CLOSE_ONLY: Final[tuple[Action, ...]] = (CLOSE_LOOK,)
_REVOLT_ONLY: Final[tuple[Action, ...]] = (REVOLT,)
_AUTO_PASS: Final[list[Event]] = [Event("auto_pass", s, ()) for s in range(8)]
_JESTERS_ALONE: Final[tuple[tuple[Action, ...], ...]] = ((), (_PLAYS[(JESTER_NUMBER, 0, 1)],),
                  (_PLAYS[(JESTER_NUMBER, 0, 1)], _PLAYS[(JESTER_NUMBER, 0, 2)]))


def play_spec(action: Action) -> tuple[int, int, int] | None:
    """``(number, naturals, jesters)`` of one of the engine's play actions (Jesters alone: number
    13, no naturals); ``None`` for anything else (``pass``)."""
    return _SPEC_BY_ID.get(id(action)) or _SPEC.get(action)


def said_set(number: int, count: int, jesters: int = 0) -> Phrase:
    """:func:`set_name` as a phrase each language says (the screens' own words for a set)."""
    english = set_name(number, count, jesters)
    if number == JESTER_NUMBER:
        return said(N_("a Jester") if count == 1 else N_("two Jesters"), english=english)
    if number in _AN:
        base = said_n("an {number}", "{n} {number}s", count - jesters, number=number)
    else:
        base = said_n("a {number}", "{n} {number}s", count - jesters, number=number)
    if not jesters:
        return said_n(base.msgid, base.plural or "", count - jesters, english=english, number=number)
    return said(N_("{set} + Jester") if jesters == 1 else N_("{set} + two Jesters"), english=english, set=base)


def play_set(action: Action) -> tuple[int, int, int]:
    """``(number, count, jesters)`` of a play, as :func:`describe` reads it."""
    m, a, b = _SPEC[action] if action in _SPEC else _spec_of(action.cards, strict=True)
    return m, a + b, b


def describe(action: Action) -> str:
    """How a play reads: ``three 5s``, ``two 9s + Jester``."""
    m, a, b = _SPEC[action] if action in _SPEC else _spec_of(action.cards, strict=True)
    return set_name(m, a + b, b)


def _counts_of(cs: Iterable[DCard]) -> list[int]:
    counts = [0] * 14
    for c in cs:
        counts[c.number] += 1
    return counts


def _expand(counts: Sequence[int]) -> list[DCard]:
    """The cards of ``counts`` (a count per number, index 13 the Jesters), lowest number first."""
    out: list[DCard] = []
    for run, c in zip(_RUNS, counts[1:], strict=True):
        if c:
            out += run[c]
    return out


# _RUNS[n - 1][c]: c cards of number n, built once (at most 12 of a number in a hand or a pile).
_RUNS: Final[list[list[tuple[DCard, ...]]]] = [[(CARDS[n],) * c for c in range(13)] for n in range(1, 14)]


def _codes(counts: Sequence[int]) -> list[str]:
    return [c.code for c in _expand(counts)]


def _best_cards(counts: Sequence[int], k: int) -> list[DCard]:
    """The ``k`` best cards of a hand for taxes: lowest numbers, Jesters counting as 13."""
    return _expand(counts)[:k]


def _fits(counts: Sequence[int], cs: Sequence[DCard]) -> bool:
    need = _counts_of(cs)
    return all(need[x] <= counts[x] for x in range(1, 14))


def _read_cards(action: Action) -> tuple[DCard, ...]:
    """The action's cards, also when they arrived as words (``Action.parse`` knows only standard
    playing cards, so it leaves ``D5`` among the args)."""
    cs = list(action.cards)
    for c in cs:
        if not isinstance(c, DCard):
            raise IllegalAction(N_("{card} is not a Dalmuti card."), "bad_card", card=str(c))
    for tok in action.args:
        c = _BY_CODE.get(tok.upper()) or _BY_CODE.get(tok)
        if c is None:
            raise IllegalAction(N_("I can't read {text} as a Dalmuti card (codes are D1 … D12 and JJ)."), "bad_card",
                                text=repr(tok))
        cs.append(c)
    return tuple(cs)


@overload
def _spec_of(cs: Sequence[DCard], strict: Literal[True]) -> tuple[int, int, int]: ...
@overload
def _spec_of(cs: Sequence[DCard], strict: bool) -> tuple[int, int, int] | None: ...
def _spec_of(cs: Sequence[DCard], strict: bool) -> tuple[int, int, int] | None:
    """``(number, naturals, jesters)`` of a set; ``None`` (or, when ``strict``, an IllegalAction)
    if it is not one: cards of one number, Jesters wild beside them, or one or two Jesters alone."""
    if not cs:
        if strict:
            raise IllegalAction(N_("Play at least one card."), "wrong_count")
        return None
    numbers = {c.number for c in cs if c.number != JESTER_NUMBER}
    b = sum(1 for c in cs if c.number == JESTER_NUMBER)
    if len(numbers) > 1:
        if strict:
            raise IllegalAction(N_("A play is a set of cards of one number (Jesters may join them)."), "mixed_set")
        return None
    if b > 2:
        if strict:
            raise IllegalAction(N_("There are only two Jesters."), "not_in_hand")
        return None
    if not numbers:
        return (JESTER_NUMBER, 0, b)
    m = numbers.pop()
    a = len(cs) - b
    if a > m:
        if strict:
            raise IllegalAction(said_n("There is only {n} card of {number}.", "There are only {n} cards of {number}.",
                                       m, number=m), "not_in_hand")
        return None
    return (m, a, b)
