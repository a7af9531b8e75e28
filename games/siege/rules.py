"""Siege (seed 001, the "OOP card game") for four seats, exactly as docs/rules.md §5 settles it.

Each seat owns a suit (seat 0 ♥, 1 ♠, 2 ♦, 3 ♣) and a King pile that takes the number cards 2..10
of that suit; holding all nine wins at once.  Three house slots hold Queen, Jack and Ace piles that
attack and defend.  The deck is 96 cards: A..Q of the four suits (no kings) and four suitless blank
cards of each rank A..Q.  Blanks are not wild.

Cards are Siege's own immutable, interned values (:class:`SiegeCard`): suited cards use the usual
codes (``5H``, ``TH``, ``QS``, ``AC``), blanks the suffix ``X`` (``5X``, label ``blank 5``).  Four blanks
share each code, so codes are not unique in this game.

A turn is a small state machine: the draw of 5 (on top of any cards already held, RULES §5.1) is
automatic when the turn starts, then
``attack`` (optional; skipped when no attack is possible) → ``build`` → the next seat's turn, or
``over``.  Action codes (slots are 1..3, slot 1 being the one next to the King pile; the rival in
``attack`` is a seat NUMBER 1..4 as shown to people, i.e. seat index + 1):

* ``attack 1 3`` — your slot-1 pile attacks seat 3's pile nearest their King pile.
* ``build`` — no (more) attacks this turn.  Building directly (start/place/swap) during the attack
  step also ends the attacks.
* ``start QH 2`` — a Q, J or A from hand starts a pile in empty slot 2.
* ``place 5H king`` / ``place 5H 1`` — a number card onto your King pile or house pile 1.
* ``swap 1 3`` — exchange two slots (build step only; one may be empty).
* ``end`` — discard your hand (face down) and pass the turn.  Always legal.

Rulings the original rules leave open, written down in docs/rules.md §5: an Ace pile's straight may grow at either
end (a straight is a set of consecutive numbers); every fight empties the attacking slot (a winning
attacker is discarded, a losing one broken up), which is what makes "once per pile per turn" hold;
when stock and discard pile are both empty, the draw stops short; the cards discarded at the end of
a turn are face down (only their number is shown).  Table option ``max_rounds`` (default 0 =
unlimited) ends the game after that many full rounds, ranked by King pile progress (ties share).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from engine.core import (
    Action,
    Decision,
    Event,
    Game,
    IllegalAction,
    Option,
    Outcome,
    rng_for,
)
from engine.words import Either, echo, said
from engine.words import suit as said_suit
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


def pile_kind(pile: Sequence[SiegeCard]) -> str:
    return PILE_KINDS[pile[0].rank]


def pile_score(pile: Sequence[SiegeCard]) -> int:
    """A house pile's score (the special card is ``pile[0]``)."""
    n = len(pile) - 1
    r = pile[0].rank
    if r == "Q":
        return 2 * n
    if r == "A" and any(c.value == 2 for c in pile[1:]):
        return n + 1  # the ace counts too once the straight reaches down to 2
    return n


def fits(pile: Sequence[SiegeCard], c: SiegeCard) -> bool:
    """Whether number card ``c`` may be added to house ``pile`` (docs/rules.md §5, step 3)."""
    r = pile[0].rank
    if r == "J":
        return c.suit == pile[0].suit
    v = c.value
    if r == "Q":
        counts: dict[int, int] = {}
        for x in pile[1:]:
            counts[x.value] = counts.get(x.value, 0) + 1
        # More of a number already there is always fine; a new number waits until every number is paired.
        return v in counts or all(n >= 2 for n in counts.values())
    if len(pile) == 1:
        return True
    vals = [x.value for x in pile[1:]]
    return v == min(vals) - 1 or v == max(vals) + 1


def _fit_rule(slot: int, pile: Sequence[SiegeCard]) -> tuple[int, str, frozenset[int] | None]:
    """:func:`fits` for ``pile`` in ``slot`` as data: (slot, the suit a Jack pile takes or "",
    the numbers it takes or ``None`` for any)."""
    r = pile[0].rank
    if r == "J":
        return slot, pile[0].suit, None
    if r == "Q":
        counts: dict[int, int] = {}
        for x in pile[1:]:
            counts[x.value] = counts.get(x.value, 0) + 1
        return slot, "", None if all(n >= 2 for n in counts.values()) else frozenset(counts)
    if len(pile) == 1:
        return slot, "", None
    vals = [x.value for x in pile[1:]]
    return slot, "", frozenset((min(vals) - 1, max(vals) + 1))


def why_not_fits(pile: Sequence[SiegeCard], c: SiegeCard) -> str:
    r = pile[0].rank
    if r == "J":
        what = (said(N_("blank number cards")) if pile[0].suit == "X"
                else said_suit(pile[0].suit, SUIT_NAMES[pile[0].suit]))
        return said(N_("A {card} Jack pile takes only {what}."), card=pile[0], what=what)
    if r == "Q":
        single = sorted({x.label[:-1] for x in pile[1:] if sum(1 for y in pile[1:] if y.value == x.value) < 2})
        return said(N_("A Queen pile takes a new number only once every number in it is paired "
                       "(pair the {numbers} first)."), numbers=", ".join(single))
    return said(N_("An Ace pile must stay a straight: {card} does not extend it at either end."), card=c)


def defending_slot(piles: Sequence[object | None]) -> int | None:
    """The slot (0-based) whose pile defends a seat: the one nearest its King pile, or ``None``
    when it has no house pile (``piles`` may be the state's piles or a view's)."""
    return next((k for k in range(len(piles)) if piles[k] is not None), None)


def attacker_wins(attack_score: int, defend_score: int) -> bool:
    """A fight's verdict: the higher score wins, a tie goes to the defender."""
    return attack_score > defend_score


def misfit_reason(pile: Sequence[SiegeCard], slot: int) -> str:
    """Why house ``pile`` in ``slot`` (0-based) does not take a number card that does not
    :func:`fits` it, in a clause short enough to list with the other piles' ("the Jack pile ①
    takes only spades")."""
    r, mark = pile[0].rank, "①②③"[slot]
    if r == "J":
        what = (said(N_("blank cards")) if pile[0].suit == "X"
                else said_suit(pile[0].suit, SUIT_NAMES[pile[0].suit]))
        return said(N_("the Jack pile {mark} takes only {what}"), mark=mark, what=what)
    if r == "Q":
        single = sorted({x.value for x in pile[1:] if sum(1 for y in pile[1:] if y.value == x.value) < 2})
        english = (f"the Queen pile {mark} takes a new number only once every number in it is paired "
                   f"(pair the {' and the '.join(str(v) for v in single)} first)")
        return said(N_("the Queen pile {mark} takes a new number only once every number in it is paired "
                       "(pair the {numbers} first)"), english=english, mark=mark, numbers=tuple(single))
    vals = [x.value for x in pile[1:]] or [pile[0].value]
    ends = [v for v in (min(vals) - 1, max(vals) + 1) if 2 <= v <= 10]
    if not ends:
        return said(N_("the Ace pile {mark} is a full straight"), mark=mark)
    english = f"the Ace pile {mark} grows only with " + " or ".join(("an " if v == 8 else "a ") + str(v) for v in ends)
    return said(N_("the Ace pile {mark} grows only with {numbers}"), english=english, mark=mark, numbers=Either(ends))


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


class Siege(Game):
    name = "siege"
    title = "Siege"
    min_players = 4
    max_players = 4
    options_spec = (
        Option("max_rounds", 0, low=0, high=1000,
               help="0: play until a King pile is complete; otherwise the game also ends after this many "
                    "rounds, ranked by King pile progress"),
    )
    # Random play rarely completes a King pile quickly, so the short sets cap the rounds.
    short_options = ({"max_rounds": 6}, {"max_rounds": 12})
    summary = ("Own a suit; collect its 2 to 10 on your King pile to win. Build Queen, Jack and Ace piles "
               "to attack rivals and take their cards.")
    rules_text = (
        "**Siege** — 4 seats (♥ ♠ ♦ ♣), 96 cards: A to Q of each suit plus four blank cards of each rank "
        "(no kings; blanks are not wild).\n"
        "• Your turn: draw 5 cards, on top of any you hold (cards you won stay in hand).\n"
        "• Attack (optional, before building): one of your house piles against a rival's pile nearest "
        "their King pile. Higher score wins, ties go to the defender; the winner takes the loser's number "
        "cards into hand, the loser's Queen, Jack or Ace is discarded. A winning attacker is discarded too.\n"
        "• Build: start a pile with a Q, J or A in an empty slot (3 slots); add number cards 2 to 10. "
        "King pile: your own suit. Queen: pairs of a number (a new number once all are paired), scores "
        "2 per card. Jack: the jack's suit (blank jack: blanks), 1 per card. Ace: a straight, 1 per card, "
        "+1 for the ace once it holds a 2. Swap two slots any time while building.\n"
        "• End: discard your hand. All nine of your suit on your King pile wins at once."
    )

    # ---- creation -----------------------------------------------------------------------------
    def __init__(self) -> None:  # use create() or from_dict()
        self.players = 4
        self.seed: int | str = 0
        self.options: dict[str, Any] = {}
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
        self.last_attack: dict[str, Any] | None = None
        self.winner: int | None = None
        # What players could remember, for sample_world (never shown in a view): the cards each
        # hand was seen to receive in a fight and not seen to give up; the cards seen going into
        # the discard pile since the last reshuffle; and each seat's own face-down discards since then.
        self.seen_in_hand: list[list[SiegeCard]] = [[], [], [], []]
        self.seen_discard: list[SiegeCard] = []
        self.own_discard: list[list[SiegeCard]] = [[], [], [], []]
        self._legal: tuple[Action, ...] | None = None
        self._shown: set[str] | None = None  # codes face up on the table, for hidden_from

    def _touch(self) -> None:
        """Forget what was worked out from the previous state (every change calls this)."""
        self._legal = None
        self._shown = None

    @classmethod
    def create(
        cls,
        players: int = 4,
        options: dict[str, Any] | None = None,
        seed: int | str = 0,
        deal: Sequence[Sequence[Any]] | None = None,
    ) -> Siege:
        """``deal``: four lists of five cards, the first draw of seats 0..3 in order, optionally
        followed by a fifth list, the rest of the stock in drawing order (then the five lists must
        make the whole deck).  Without the fifth list the remaining cards are shuffled below."""
        if players != 4:
            raise ValueError("Siege has exactly 4 seats (empty seats are played by the computer).")
        g = cls()
        g.seed = seed
        g.options = cls.read_options(options)
        if deal is None:
            rnd = rng_for(seed, "deal").random
            g.stock = sorted(DECK, key=lambda _: rnd())
        else:
            g.stock = cls._stock_from_deal(seed, deal)
        events: list[Event] = []
        g._start_turn(0, events)
        g.start_events = events
        return g

    @staticmethod
    def _stock_from_deal(seed: int | str, deal: Sequence[Sequence[Any]]) -> list[SiegeCard]:
        try:
            lists = [[BY_CODE[getattr(c, "code", c)] for c in part] for part in deal]
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
        rest.sort(key=lambda _: rnd())
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
                self.stock = sorted(self.discard, key=lambda _: rnd())
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

    # ---- decisions ------------------------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        return () if self.phase == OVER else (self.turn,)

    def legal(self, seat: int) -> tuple[Action, ...]:
        """Every legal action of ``seat`` now (empty when it is not their turn)."""
        if self.phase == OVER or seat != self.turn:
            return ()
        cached = self._legal
        if cached is None:
            # Asked for several times per move (deciding, validating, the runtime): kept until a change.
            self._legal = cached = tuple(self._compute_legal(seat))
        return cached

    def _compute_legal(self, seat: int) -> list[Action]:
        out: list[Action] = []
        houses = self.houses
        mine = houses[seat]
        if self.phase == ATTACK_PHASE:
            targets: list[int] = []
            for s in range(4):
                if s != seat:
                    for p in houses[s]:
                        if p is not None:
                            targets.append(s)
                            break
            for i in range(3):
                if mine[i] is not None and i not in self.attacked:
                    out.extend(ATTACK[i, s] for s in targets)
            out.append(BUILD)
        own = SEAT_SUITS[seat]
        seen: set[SiegeCard] = set()
        empty = [i for i in range(3) if mine[i] is None]
        # What each house pile takes, read once per call rather than once per card (``fits``).
        rules = [_fit_rule(i, p) for i, p in enumerate(mine) if p is not None]
        for c in _sorted(self.hands[seat]):
            if c in seen:
                continue
            seen.add(c)
            if not c.is_number:
                for i in empty:
                    out.append(START[c, i])
                continue
            if c.suit == own:
                out.append(PLACE_KING[c])
            v, suit = c.value, c.suit
            for i, rule_suit, values in rules:
                if (suit == rule_suit) if rule_suit else (values is None or v in values):
                    out.append(PLACE[c, i])
        for (i, j), a in SWAP.items():
            if mine[i] is not None or mine[j] is not None:
                out.append(a)
        out.append(END)
        return out

    def decision(self, seat: int) -> Decision | None:
        if self.phase == OVER or seat != self.turn:
            return None
        if self.phase == ATTACK_PHASE:
            prompt = "Attack a rival with one of your house piles, or build, or end your turn."
        else:
            prompt = "Build: start piles, place number cards, swap slots; then end your turn."
        return Decision(seat, self.phase, self.legal(seat), timer=TURN_TIMER, prompt=prompt,
                        clock_key=f"turn {self.turn_no}")

    def random_action(self, seat: int, rng: Any) -> Action:
        legal = self.legal(seat)
        if not legal:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        return legal[int(rng.random() * len(legal))]

    # ---- reading actions ------------------------------------------------------------------------
    @classmethod
    def action_from_code(cls, code: str) -> Action:
        tokens = code.split()
        if not tokens:
            raise IllegalAction(N_("An empty action means nothing."), "bad_code")
        kind = tokens[0]
        if kind in ("start", "place"):
            if len(tokens) < 2 or tokens[1] not in BY_CODE:
                raise IllegalAction(N_("{code} names no Siege card."), "bad_card", code=repr(code))
            return Action(kind, (BY_CODE[tokens[1]],), tuple(tokens[2:]))
        return Action(kind, (), tuple(tokens[1:]))

    def parse_action(self, seat: int, text: str) -> Action:
        """Forgiving: ``attack 1 2``, ``attack 1 ♠``, ``5h king``, ``place 10♥ k``, ``qs 2``,
        ``start blank queen 1``, ``swap 1 3``, ``build``, ``end``, ``done``."""
        if self.decision(seat) is None:
            raise IllegalAction(N_("You have nothing to decide right now."), "not_your_turn")
        t = text.strip()
        for a in self.legal(seat):
            if a.code.lower() == t.lower():
                return a
        words = t.lower().replace(",", " ").split()
        if not words:
            raise IllegalAction(N_("Say what to do: attack, build, start, place, swap or end."), "bad_code")
        head = words[0]
        if head in _END_WORDS:
            if all(w in _END_FILLER for w in words[1:]):
                return END  # "end", "end turn", "end my turn please", "done"
            raise IllegalAction(N_("To end your turn, type `end` (your hand is discarded)."), "bad_code")
        if head == "build" and len(words) == 1:
            return BUILD
        if head == "swap":
            args: tuple[str, ...] = tuple(words[1:])
            if len(args) == 2 and all(a in SLOT_ARGS for a in args) and args[0] > args[1]:
                args = (args[1], args[0])  # a swap reads the same either way round
            return Action("swap", (), args)
        if head == "attack":
            parts = list(words[1:])
            if len(parts) == 2 and not parts[1].isdigit():
                for sym, letter in _SYMBOLS_TO_LETTER.items():
                    parts[1] = parts[1].replace(sym, letter)
                suit = _WORD_SUIT.get(parts[1])
                if suit is not None and suit in SEAT_SUITS:
                    parts[1] = str(SEAT_SUITS.index(suit) + 1)
            return Action("attack", (), tuple(parts))
        kind = head if head in ("start", "place", "play") else None
        rest = words[1:] if kind else words
        # The card may take one to three words ("5h", "5 blank", "five of hearts"); the rest is the target.
        for n in (3, 2, 1):
            if len(rest) < n:
                continue
            try:
                c = siege_card(" ".join(rest[:n]))
            except SiegeCardError:
                continue
            target = rest[n:]
            if not target:
                args = ()
            elif target[0] in ("k", "king", "kingpile", "king-pile"):
                args = (KING,)
            elif target[0] == "slot" and len(target) > 1:
                args = (target[1],)
            else:
                args = (target[0],)
            if kind in (None, "play"):
                kind = "place" if c.is_number else "start"
            if not args:
                options = [a for a in self.legal(seat) if a.kind == kind and a.cards == (c,)]
                if len(options) == 1:
                    return options[0]
                raise IllegalAction(N_("Say where {card} goes (king or a slot 1-3)."), "need_target", card=c)
            return Action(kind, (c,), args)
        if not rest:
            raise IllegalAction(N_("Say which card and where, e.g. `start QH 1` or `place 5H king`."), "bad_code")
        try:
            siege_card(rest[0])
        except SiegeCardError as e:
            raise IllegalAction(e.args[0], "bad_card") from None
        raise IllegalAction(N_("I could not read that move."), "bad_code")  # pragma: no cover

    # ---- applying actions -----------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> list[Event]:
        if self.phase == OVER:
            raise IllegalAction(N_("The game is over."), "game_over")
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        kind = action.kind
        if kind not in KINDS:
            raise IllegalAction(N_("'{kind}' is not a Siege action."), "bad_action", kind=kind)
        if kind == "end":
            return self._end(seat)
        if self.phase == ATTACK_PHASE:
            if kind == "attack":
                return self._attack(seat, action)
            if kind == "build":
                self.phase = BUILD_PHASE
                self._touch()
                return [Event("build", seat, ())]
            # Building ends the attack step: validate first, so a refused move changes nothing.
            do = self._check_build(seat, action)
            self.phase = BUILD_PHASE
            self._touch()
            return [Event("build", seat, ()), *do()]
        if self.phase == BUILD_PHASE:
            if kind == "attack":
                raise IllegalAction(
                    N_("No attack is possible now: attacks open a turn, from house piles that have not "
                       "attacked yet and against rival house piles, and they end once you build."), "wrong_phase")
            if kind == "build":
                raise IllegalAction(N_("You are already building."), "wrong_phase")
            return self._check_build(seat, action)()
        raise IllegalAction(N_("'{kind}' is not possible in the {step} step."), "wrong_phase",  # pragma: no cover
                            kind=kind, step=self.phase)

    def _card_of(self, action: Action) -> SiegeCard:
        if len(action.cards) != 1:
            raise IllegalAction(N_("Name exactly one card."), "wrong_count")
        c = action.cards[0]
        found = BY_CODE.get(getattr(c, "code", ""))
        if found is None:
            raise IllegalAction(N_("{card} is not a Siege card."), "bad_card", card=str(c))
        return found

    def _check_build(self, seat: int, action: Action) -> Any:
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
        p.append(c)  # type: ignore[union-attr]
        self._touch()
        return [Event("place", seat, (c, i + 1, pile_score(p)))]  # type: ignore[arg-type]

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

    def _attack(self, seat: int, action: Action) -> list[Event]:
        args = action.args
        if len(args) != 2:
            raise IllegalAction(N_("Name your pile's slot and the rival's seat, e.g. attack 1 2."), "bad_args")
        i = _slot_arg(args[0])
        if args[1] not in ("1", "2", "3", "4"):
            raise IllegalAction(N_("There is no seat {text}: seats are 1 to 4."), "bad_seat", text=repr(args[1]))
        target = int(args[1]) - 1
        if target == seat:
            raise IllegalAction(N_("You cannot attack yourself."), "self_attack")
        if i in self.attacked:
            raise IllegalAction(N_("The pile in slot {slot} has already attacked this turn."), "already_attacked",
                                slot=i + 1)
        mine = self.houses[seat]
        att = mine[i]
        if att is None:
            raise IllegalAction(N_("Slot {slot} is empty: attack with one of your house piles."), "empty_slot",
                                slot=i + 1)
        theirs = self.houses[target]
        j = defending_slot(theirs)
        if j is None:
            raise IllegalAction(N_("Seat {seat} has no house pile to attack."), "no_target", seat=target + 1)
        dfd: Pile = theirs[j]  # type: ignore[assignment]
        # Validated: from here on nothing can fail.
        a_score, d_score = pile_score(att), pile_score(dfd)
        self.attacked.append(i)
        events = [Event("attack", seat, (i + 1, target, j + 1, a_score, d_score))]
        if attacker_wins(a_score, d_score):
            winner, taken, lost = seat, dfd[1:], [dfd[0], *att]
            theirs[j] = None
        else:
            winner, taken, lost = target, att[1:], [att[0]]
        mine[i] = None  # a winning attacker is discarded, a losing one broken up: either way the slot empties
        self.hands[winner].extend(taken)
        self.seen_in_hand[winner].extend(taken)
        self.discard.extend(lost)
        self.seen_discard.extend(lost)
        events.append(Event("fight", winner, (seat if winner == target else target, *taken)))
        events.append(Event("discarded", None, tuple(lost)))
        self.last_attack = {
            "seat": seat, "slot": i + 1, "target": target, "target_slot": j + 1,
            "attack_score": a_score, "defend_score": d_score, "winner": winner,
            "taken": _codes(taken), "discarded": _codes(lost),
        }
        self._touch()
        if not self._can_attack(seat):
            self.phase = BUILD_PHASE
            events.append(Event("build", seat, ()))
        return events

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

    # ---- views ----------------------------------------------------------------------------------
    def _pile_view(self, p: Pile | None) -> dict[str, Any] | None:
        if p is None:
            return None
        return {"kind": pile_kind(p), "special": p[0].code, "cards": _codes(p[1:]), "score": pile_score(p)}

    def public_view(self) -> dict[str, Any]:
        over = self.phase == OVER
        return {
            "game": "siege",
            "phase": self.phase,
            "turn": None if over else self.turn,
            "turn_no": self.turn_no,
            "round": self.round(),
            "max_rounds": self.options["max_rounds"],
            "suits": list(SEAT_SUITS),
            "scores": [len(k) for k in self.kings],
            "kings": [_codes(_sorted(k)) for k in self.kings],
            "houses": [[self._pile_view(p) for p in h] for h in self.houses],
            "hand_counts": [len(h) for h in self.hands],
            "stock": len(self.stock),
            "discard": len(self.discard),
            "attacked": [i + 1 for i in self.attacked] if not over else [],
            "last_attack": None if self.last_attack is None else dict(self.last_attack),
            "winner": self.winner,
        }

    def view(self, seat: int) -> dict[str, Any]:
        v = self.public_view()
        v["seat"] = seat
        v["suit"] = SEAT_SUITS[seat]
        v["hand"] = _codes(_sorted(self.hands[seat]))
        return v

    def hidden_from(self, seat: int | None) -> set[str]:
        hidden: set[str] = set()
        for s in range(4):
            if s != seat:
                hidden.update(c.code for c in self.hands[s])
        if not hidden:
            return hidden
        # Blank codes repeat: a code shown on the table (or in your own hand) reveals nobody's hand.
        hidden -= self._table_codes()
        if seat is not None:
            hidden.difference_update(c.code for c in self.hands[seat])
        return hidden

    def _table_codes(self) -> set[str]:
        shown = self._shown
        if shown is None:
            shown = {c.code for k in self.kings for c in k}
            shown.update(c.code for h in self.houses for p in h if p is not None for c in p)
            if self.last_attack is not None:
                # Cards taken in a fight were seen by everyone on their way into a hand.
                shown.update(self.last_attack["taken"])
                shown.update(self.last_attack["discarded"])
            self._shown = shown
        return shown

    def all_cards(self) -> list[SiegeCard]:  # type: ignore[override]
        out = [c for h in self.hands for c in h]
        out.extend(c for k in self.kings for c in k)
        out.extend(c for h in self.houses for p in h if p is not None for c in p)
        out.extend(self.stock)
        out.extend(self.discard)
        return out

    # ---- the end --------------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> Outcome | None:
        if self.phase != OVER:
            return None
        return Outcome.ranked([len(k) for k in self.kings])

    # ---- serialisation --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "siege",
            "seed": self.seed,
            "options": dict(self.options),
            "phase": self.phase,
            "turn": self.turn,
            "turn_no": self.turn_no,
            "hands": [_codes(h) for h in self.hands],
            "kings": [_codes(k) for k in self.kings],
            "houses": [[None if p is None else _codes(p) for p in h] for h in self.houses],
            "stock": _codes(self.stock),
            "discard": _codes(self.discard),
            "shuffles": self.shuffles,
            "attacked": list(self.attacked),
            "last_attack": None if self.last_attack is None else {
                k: list(v) if isinstance(v, list) else v for k, v in self.last_attack.items()},
            "winner": self.winner,
            "seen_in_hand": [_codes(h) for h in self.seen_in_hand],
            "seen_discard": _codes(self.seen_discard),
            "own_discard": [_codes(h) for h in self.own_discard],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Siege:
        g = cls()
        g.seed = data["seed"]
        g.options = cls.read_options(data["options"])
        g.phase = data["phase"]
        g.turn = data["turn"]
        g.turn_no = data["turn_no"]
        g.hands = [_read(h) for h in data["hands"]]
        g.kings = [_read(k) for k in data["kings"]]
        g.houses = [[None if p is None else _read(p) for p in h] for h in data["houses"]]
        g.stock = _read(data["stock"])
        g.discard = _read(data["discard"])
        g.shuffles = data["shuffles"]
        g.attacked = list(data["attacked"])
        la = data["last_attack"]
        g.last_attack = None if la is None else {k: list(v) if isinstance(v, list) else v for k, v in la.items()}
        g.winner = data["winner"]
        # Absent from snapshots written before search: sample_world then infers less.
        g.seen_in_hand = [_read(h) for h in data.get("seen_in_hand", [[], [], [], []])]
        g.seen_discard = _read(data.get("seen_discard", []))
        g.own_discard = [_read(h) for h in data.get("own_discard", [[], [], [], []])]
        return g

    # ---- search (see engine/worlds.py) ----------------------------------------------------------
    def copy(self) -> Siege:
        g = Siege.__new__(Siege)
        d = self.__dict__.copy()
        g.__dict__ = d
        d["hands"] = [h[:] for h in self.hands]
        d["kings"] = [k[:] for k in self.kings]
        d["houses"] = [[None if p is None else p[:] for p in h] for h in self.houses]
        d["stock"] = self.stock[:]
        d["discard"] = self.discard[:]
        d["attacked"] = self.attacked[:]
        d["seen_in_hand"] = [h[:] for h in self.seen_in_hand]
        d["seen_discard"] = self.seen_discard[:]
        d["own_discard"] = [h[:] for h in self.own_discard]
        d["_legal"] = d["_shown"] = None
        return g

    def sample_world(self, seat: int, rng: Any) -> Siege:
        """A full state ``seat`` cannot tell from this one (same view): the cards it has not seen
        placed (the other hands, the stock, the discard pile) dealt again at random with every
        holder's size kept, consistently with what it saw — cards a rival was seen to win in a fight
        stay in that rival's hand until seen leaving it (so a rival between turns holds exactly
        those), and the cards seen going into the discard pile since the last reshuffle, or that
        ``seat`` discarded itself, stay there.  The stock is shuffled; a fresh seed, so later
        reshuffles are unknown too."""
        from engine.worlds import deal_constrained, fresh_seed

        w = self.copy()
        w.seed = fresh_seed(rng)
        others = [s for s in range(4) if s != seat]
        capacity = [len(self.hands[s]) for s in others] + [len(self.stock), len(self.discard)]
        stock_h, discard_h = len(others), len(others) + 1
        # In a fixed order: where each hidden card really is (and the real order of the stock) must
        # not show through in the world.
        pool: list[SiegeCard] = sorted([c for s in others for c in self.hands[s]] + self.stock + self.discard,
                                       key=lambda c: c.index)
        every = (1 << len(capacity)) - 1
        allowed = [every] * len(pool)
        where: dict[SiegeCard, list[int]] = {}
        for i, c in enumerate(pool):
            where.setdefault(c, []).append(i)

        def pin(cs: list[SiegeCard], holder: int) -> None:
            for c in cs:
                free = where.get(c)
                if free:
                    allowed[free.pop()] = 1 << holder

        for h, s in enumerate(others):
            pin(self.seen_in_hand[s], h)
        pin(self.seen_discard, discard_h)
        pin(self.own_discard[seat], discard_h)
        dealt = deal_constrained(pool, allowed, capacity, rng)
        for h, s in enumerate(others):
            w.hands[s] = dealt[h]
        rng.shuffle(dealt[stock_h])
        w.stock = dealt[stock_h]
        w.discard = dealt[discard_h]
        # The world's own memory must be true of the world: the rivals' discards are no longer known.
        w.own_discard = [self.own_discard[s][:] if s == seat else [] for s in range(4)]
        w._touch()
        return w
