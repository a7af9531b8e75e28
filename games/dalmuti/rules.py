"""The Great Dalmuti for 4 to 8 players, exactly as docs/rules.md §3 settles it (seed 002).

An 80-card deck: n copies of each number n = 1..12 (lower is better) and two Jesters (13, wild
beside a numbered card).  The first hand's ranking comes from an opening draw made inside
:meth:`Dalmuti.create`; every later hand is ranked by the previous hand's finishing order.

Phases form a small state machine, one hand after another:

    deal → ``look`` (every hand: a short look at the cards, a table step) → ``tax`` (the Greater
    Dalmuti gives 2 back, then the Lesser Dalmuti 1) → ``play`` → next deal … → ``over``

The look (RULES §3.3) is the same for every hand and every player, so nothing public shows who was
dealt both Jesters: the table (seat ``TABLE``) ends it after ``LOOK_TIMER`` seconds, whatever anyone
does.  The holder of both Jesters is the only seat with a decision meanwhile — an optional
``revolution`` — asked privately.  Declining is saying nothing (there is no "no" action): any
answer would be a move, a new table version and a redraw, which the others could notice.  A called
revolution is public and ends the look at once.

Seats never move: a seat is a player.  "Seats follow rank" is the turn order, which is the ranking
(``ranking[0]`` is the Greater Dalmuti, ``ranking[-1]`` the Greater Peon) read as a circle.

Options: ``hands`` (default 5) and ``pass`` (``locked``: a passer sits out the rest of the round,
the seed's rule; ``open``: a passer may play again when play comes back, the official rule).

Hands are kept as counts per number, so plays are cheap to check and to enumerate; card values are
the 13 interned :class:`DCard` objects.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any

from engine.core import (
    TABLE,
    Action,
    Decision,
    Event,
    Game,
    IllegalAction,
    Option,
    Outcome,
    rng_for,
)
from engine.words import Either, Phrase, echo, said, said_n
from words import N_

JESTER_NUMBER = 13
PLAY_TIMER = 30.0
TAX_TIMER = 60.0
#: The look at the cards that starts every hand (RULES §3.3); the holder of both Jesters may call a
#: revolution meanwhile.  Equal for every hand, whoever holds what.
LOOK_TIMER = 8.0

LOOK, TAX, PLAY, OVER = "look", "tax", "play", "over"

_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


class DCard:
    """One Dalmuti card: a number 1..12, or the Jester (13).  Use :data:`CARDS` or :func:`dcard`,
    never the constructor: there is exactly one object per number, so copies compare equal."""

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

    def __repr__(self) -> str:
        return f"DCard({self.code})"

    def __str__(self) -> str:
        return self.code

    def __reduce__(self) -> tuple:
        return (dcard, (self.code,))


#: The 13 cards by number (index 0 unused): ``CARDS[5]`` is a 5, ``CARDS[13]`` the Jester.
CARDS: tuple[DCard, ...] = (None, *(DCard(n) for n in range(1, 14)))  # type: ignore[arg-type]  # 0 is never read
JESTER = CARDS[JESTER_NUMBER]
_BY_CODE: dict[str, DCard] = {c.code: c for c in CARDS[1:]}

#: The deck as numbers: n copies of n, then two Jesters.
DECK_NUMBERS: tuple[int, ...] = tuple(n for n in range(1, 13) for _ in range(n)) + (JESTER_NUMBER, JESTER_NUMBER)
DECK: tuple[DCard, ...] = tuple(CARDS[n] for n in DECK_NUMBERS)
_FULL_COUNTS = [0] + [n for n in range(1, 13)] + [2]


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


def set_name(number: int, count: int, jesters: int = 0) -> str:
    """``three 5s``, ``two 9s + Jester``, ``a Jester``: how a play reads."""
    if number == JESTER_NUMBER:
        return "a Jester" if count == 1 else "two Jesters"
    naturals = count - jesters
    base = f"a {number}" if naturals == 1 else f"{_NUMBER_WORDS[naturals - 1]} {number}s"
    if jesters:
        base += " + Jester" if jesters == 1 else " + two Jesters"
    return base


# Every play that can exist, built once: (number, naturals, jesters) -> Action, and back.  Actions are
# immutable values, so legal-move lists and the random player share these objects.
_PLAYS: dict[tuple[int, int, int], Action] = {}
for _m in range(1, 13):
    for _a in range(1, _m + 1):
        for _b in range(3):
            _PLAYS[(_m, _a, _b)] = Action("play", (CARDS[_m],) * _a + (JESTER,) * _b)
_PLAYS[(JESTER_NUMBER, 0, 1)] = Action("play", (JESTER,))
_PLAYS[(JESTER_NUMBER, 0, 2)] = Action("play", (JESTER, JESTER))
_SPEC: dict[Action, tuple[int, int, int]] = {a: k for k, a in _PLAYS.items()}
# The canonical actions live as long as the module, so no other live object can share their id().
_SPEC_BY_ID: dict[int, tuple[int, int, int]] = {id(a): k for k, a in _PLAYS.items()}
PASS_ACTION = Action("pass")
REVOLT = Action("revolution")
#: The table's action that ends the look (then taxes, unless a revolution was called).
CLOSE_LOOK = Action("close")
# _LEAD[m][c][j]: the leads with number m holding c of them and j Jesters; _TOP[m][c][j][k]: the plays
# of exactly k cards of m.  Built once, so enumerating legal plays is a few list extensions.
_LEAD = [[[tuple(_PLAYS[(m, a, b)] for a in range(1, min(c, m) + 1) for b in range(j + 1)) if m < 13 else ()
           for j in range(3)] for c in range(13)] for m in range(13)]
_TOP = [[[[tuple(_PLAYS[(m, a, k - a)] for a in range(max(1, k - j), min(c, k, m) + 1)) if 0 < m < 13 else ()
            for k in range(15)] for j in range(3)] for c in range(13)] for m in range(13)]
# Events are immutable, so the ones a hand repeats most are built once and shared.
_PLAY_EVENT = [{a: Event("play", s, a.cards) for a in _PLAYS.values()} for s in range(8)]
_PASS_EVENT = [Event("pass", s, ()) for s in range(8)]
_AUTO_PASS = [Event("auto_pass", s, ()) for s in range(8)]
_JESTERS_ALONE = ((), (_PLAYS[(JESTER_NUMBER, 0, 1)],),
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
    base = said_n("a {number}", "{n} {number}s", count - jesters, number=number)
    if not jesters:
        return said_n(base.msgid, base.plural or "", count - jesters, english=english, number=number)
    return said(N_("{set} + Jester") if jesters == 1 else N_("{set} + two Jesters"), english=english, set=base)


def play_set(action: Action) -> tuple[int, int, int]:
    """``(number, count, jesters)`` of a play, as :func:`describe` reads it."""
    m, a, b = _SPEC[action] if action in _SPEC else _spec_of(action.cards, strict=True)  # type: ignore[misc]
    return m, a + b, b


def describe(action: Action) -> str:
    """How a play reads: ``three 5s``, ``two 9s + Jester``."""
    m, a, b = _SPEC[action] if action in _SPEC else _spec_of(action.cards, strict=True)  # type: ignore[misc]
    return set_name(m, a + b, b)


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


def _counts_of(cs: Iterable[Any]) -> list[int]:
    counts = [0] * 14
    for c in cs:
        counts[c.number] += 1
    return counts


def _expand(counts: Sequence[int]) -> list[DCard]:
    out: list[DCard] = []
    for n in range(1, 14):
        if counts[n]:
            out.extend((CARDS[n],) * counts[n])
    return out


def _codes(counts: Sequence[int]) -> list[str]:
    return [c.code for c in _expand(counts)]


def _best_cards(counts: Sequence[int], k: int) -> list[DCard]:
    """The ``k`` best cards of a hand for taxes: lowest numbers, Jesters counting as 13."""
    return _expand(counts)[:k]


class Dalmuti(Game):
    name = "dalmuti"
    title = "The Great Dalmuti"
    # RULES §3: 4 to 8 (the seed says 5 to 8; the published game allows 4).
    min_players = 4
    max_players = 8
    options_spec = (
        Option("hands", 5, low=1, high=50, help="how many hands the game lasts"),
        Option("pass", "locked", ("locked", "open"),
               help="locked: a passer sits out the rest of the round · open: a passer may play again"),
    )
    short_options = ({"hands": 1}, {"hands": 1, "pass": "open"})
    summary = "Climb from Peon to Dalmuti: beat the last play with as many cards of a lower number; first out wins."
    rules_text = (
        "**The Great Dalmuti** — 4 to 8 players, 80 cards: twelve 12s, eleven 11s … one 1, "
        "and two Jesters. Lower numbers are better.\n"
        "• The first hand's ranks come from a draw (lowest card = Greater Dalmuti); later hands are "
        "ranked by the order players went out. Play goes round in rank order.\n"
        "• Taxes: the Greater Peon hands their 2 best cards to the Greater Dalmuti, who gives back any "
        "2; the Lesser Peon gives 1 best card to the Lesser Dalmuti, who gives back any 1. Every hand "
        "starts with a short look at the cards: a player dealt both Jesters may call a revolution "
        "then (no taxes; if it is the Greater Peon, the ranking is reversed too), or keep quiet — "
        "nobody learns who could have.\n"
        "• The leader plays any set of one number (Jesters are wild beside a numbered card; alone "
        "they count as 13). Each next player plays as many cards of a lower number, or passes "
        "(a passer sits out the round unless the table uses open passing). When everyone else has "
        "passed, the last player to play leads again.\n"
        "• Empty your hand to go out. Each hand scores n−1 points for first out down to 0 for last; "
        "most points after the last hand wins."
    )

    # ---- creation ---------------------------------------------------------------------------
    def __init__(self) -> None:  # use create() or from_dict()
        self.players = 5
        self.seed: int | str = 0
        self.options: dict[str, Any] = {}
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

    @classmethod
    def create(
        cls,
        players: int = 5,
        options: dict[str, Any] | None = None,
        seed: int | str = 0,
        deal: Sequence[Sequence[Any]] | None = None,
        *,
        ranking: Sequence[int] | None = None,
    ) -> Dalmuti:
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
        deck = sorted(DECK_NUMBERS, key=lambda _: rnd())
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
        self._legal = None
        events.append(Event("hand_start", None, (self.hand_no, *order)))
        for s in range(n):
            events.append(Event("dealt", s, tuple(_expand(self.counts[s])), s))
        # RULES §3.3: every hand starts with the same look; the holder of both Jesters (if anyone)
        # may call a revolution during it.  Nothing public says whether there is a holder.
        self.holder = next((s for s in range(n) if self.counts[s][JESTER_NUMBER] == 2), None)
        self.phase = LOOK

    # ---- taxes --------------------------------------------------------------------------------
    def _greater_tax(self, events: list[Event]) -> None:
        """RULES §3.4, first step: the Greater Peon's 2 best cards go to the Greater Dalmuti, who
        then chooses 2 to give back."""
        self._pay_tax(self.ranking[-1], self.ranking[0], 2, events)
        self.tax_step = 1
        self.phase = TAX

    def _lesser_tax(self, events: list[Event]) -> None:
        self._pay_tax(self.ranking[-2], self.ranking[1], 1, events)
        self.tax_step = 2
        self.phase = TAX

    def _pay_tax(self, peon: int, dalmuti: int, k: int, events: list[Event]) -> None:
        paid = _best_cards(self.counts[peon], k)
        self._transfer(peon, dalmuti, paid)
        events.append(Event("tax", peon, (dalmuti, k)))
        # The cards are private: only the two players involved see them, each in their own event.
        events.append(Event("tax_sent", peon, (dalmuti, *paid), peon))
        events.append(Event("tax_received", dalmuti, (peon, *paid), dalmuti))

    def _transfer(self, giver: int, taker: int, cs: Sequence[DCard]) -> None:
        g, t = self.counts[giver], self.counts[taker]
        for c in cs:
            g[c.number] -= 1
            t[c.number] += 1
        k = len(cs)
        self.left[giver] -= k
        self.left[taker] += k
        codes = [c.code for c in cs]
        self.tax_given[giver].extend(codes)
        self.tax_received[taker].extend(codes)

    def _tax_parties(self) -> tuple[int, int, int]:
        """(giver, receiver, count) of the tax return waited for now."""
        if self.tax_step == 1:
            return self.ranking[0], self.ranking[-1], 2
        return self.ranking[1], self.ranking[-2], 1

    def _begin_play(self) -> None:
        self.phase = PLAY
        self.tax_step = 0
        self.leader = self.turn = self.ranking[0]  # the Greater Dalmuti leads the first round
        self._legal = None

    # ---- turns ------------------------------------------------------------------------------
    def table_timer(self) -> tuple[float, Action] | None:
        return (LOOK_TIMER, CLOSE_LOOK) if self.phase == LOOK else None

    def to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == PLAY:
            return (self.turn,)  # type: ignore[return-value]
        if phase == TAX:
            return (self._tax_parties()[0],)
        if phase == LOOK:
            # The holder's move is optional (the table ends the look), so the runtime neither names
            # nor pings nor hurries anyone while TABLE is here.
            return (TABLE,) if self.holder is None else (self.holder, TABLE)
        return ()

    def legal_plays(self, seat: int) -> list[Action]:
        """Every legal play of ``seat`` (plus ``pass`` when topping); empty when not their turn."""
        if self.phase != PLAY or seat != self.turn:
            return []
        # Asked for twice per move (choosing, then the decision menu): cache until the state changes.
        cached = self._legal
        if cached is None:
            self._legal = cached = self._compute_legal(seat)
        return cached

    def _compute_legal(self, seat: int) -> list[Action]:
        h = self.counts[seat]
        j = h[JESTER_NUMBER]
        out: list[Action] = []
        cur = self.cur_num
        if not cur:
            lead = _LEAD
            for m in range(1, 13):
                c = h[m]
                if c:
                    out.extend(lead[m][c][j])
            if j:
                out.extend(_JESTERS_ALONE[j])
            return out
        top = _TOP
        k = self.cur_k
        for m in range(1, cur):  # a lower number; cur is at most 13, so m stays a number
            c = h[m]
            if c:
                out.extend(top[m][c][j][k])
        out.append(PASS_ACTION)
        return out

    def decision(self, seat: int) -> Decision | None:
        phase = self.phase
        if seat == TABLE:
            if phase != LOOK:
                return None
            return Decision(TABLE, "close", (CLOSE_LOOK,), timer=LOOK_TIMER, prompt="End the look at the cards.")
        if phase == PLAY:
            if seat != self.turn:
                return None
            if self.cur_num:
                what = describe(self.cur_action)  # type: ignore[arg-type]
                prompt = f"Beat {what}: play {self.cur_k} card(s) of a lower number, or pass."
            else:
                prompt = "Lead any set of cards of one number (Jesters are wild beside a number)."
            return Decision(seat, "play", tuple(self.legal_plays(seat)), timer=PLAY_TIMER, prompt=prompt)
        if phase == TAX:
            giver, taker, k = self._tax_parties()
            if seat != giver:
                return None
            return Decision(seat, "give", pick=k, cards=tuple(_expand(self.counts[seat])), timer=TAX_TIMER,
                            prompt=f"Choose {k} card(s) to give back to seat {taker + 1} (any you like).")
        if phase == LOOK and seat == self.holder:
            greater = seat == self.ranking[-1]
            what = ("a greater revolution (the ranking reverses, no taxes)" if greater
                    else "a revolution (no taxes this hand)")
            return Decision(seat, "revolution", (REVOLT,), timer=LOOK_TIMER,
                            prompt=f"You hold both Jesters: call {what} before the look ends, or keep quiet "
                                   "and taxes are paid as usual (nobody learns you could have).")
        return None

    def legal_actions(self, seat: int) -> list[Action]:
        d = self.decision(seat)
        if d is not None and d.pick:
            # The same number several times is one choice, not one per copy.
            return [Action(d.kind, combo) for combo in dict.fromkeys(combinations(d.cards, d.pick))]
        return super().legal_actions(seat)

    def random_action(self, seat: int, rng: random.Random) -> Action:
        if self.phase == PLAY and seat == self.turn:
            legal = self._legal
            if legal is None:
                self._legal = legal = self._compute_legal(seat)
            return legal[int(rng.random() * len(legal))]
        if self.phase == TAX and seat == self._tax_parties()[0]:
            k = self._tax_parties()[2]
            chosen = sorted(rng.sample(_expand(self.counts[seat]), k), key=lambda c: c.number)
            return Action("give", tuple(chosen))
        return super().random_action(seat, rng)

    # ---- reading what people type -------------------------------------------------------------
    @classmethod
    def action_from_code(cls, code: str) -> Action:
        tokens = code.split()
        if not tokens:
            raise IllegalAction(N_("An empty action means nothing."), "bad_code")
        cs: list[DCard] = []
        args: list[str] = []
        for tok in tokens[1:]:
            c = _BY_CODE.get(tok)
            if c is not None and not args:
                cs.append(c)
            else:
                args.append(tok)
        a = Action(tokens[0], tuple(cs), tuple(args))
        if a.kind == "play" and not args:
            spec = _spec_of(a.cards, strict=False)
            if spec is not None:
                return _PLAYS[spec]
        return a

    def parse_action(self, seat: int, text: str) -> Action:
        """Reads ``5 5 5``, ``three 5s``, ``5x3``, ``2 9 jester``, ``two 9s and a jester``,
        ``play D9 D9 JJ``, ``pass``; ``give 3 7`` / ``3 7`` for taxes; ``yes``/``no`` (or
        ``revolution``/``no revolution``) for a revolution."""
        d = self.decision(seat)
        if d is None:
            raise IllegalAction(N_("You have nothing to decide right now."), "not_your_turn")
        t = " ".join(text.strip().lower().replace("_", " ").split())
        if d.kind == "revolution":
            if t in ("revolution", "yes", "y", "call", "revolt", "greater revolution", "call revolution"):
                return REVOLT
            if t in ("no revolution", "no", "n", "decline", "skip", "pass", "no revolt"):
                # Declining is keeping quiet: a move would show the others that someone could call.
                raise IllegalAction(N_("No need to answer: keep quiet and taxes are paid as usual when the look "
                                       "ends."), "nothing_to_do")
            raise IllegalAction(N_("Type `revolution` to call a revolution, or keep quiet to pay the taxes as usual."),
                                "bad_action")
        if t in ("pass", "p", "no", "skip"):
            if d.kind == "play":
                return PASS_ACTION
            # Taxes cannot be skipped: say what is owed rather than "I can't read 'pass'".
            raise IllegalAction(said_n("Taxes come first: give back {n} card of your choice, e.g. `give {example}`.",
                                       "Taxes come first: give back {n} cards of your choice, e.g. `give {example}`.",
                                       d.pick, example=" ".join(["3", "7", "9"][:d.pick])), "wrong_phase")
        for word in (d.kind, "play", "give", "tax"):
            if t == word:
                raise IllegalAction(N_("Say which cards, e.g. `5 5 5`, `three 5s` or `2 9 jester`."), "bad_card")
            if t.startswith(word + " "):
                t = t[len(word) + 1:]
                break
        tiers = _readings(t)
        if not tiers:
            raise IllegalAction(
                N_("I can't read {text} as cards (try `5 5 5`, `three 5s`, `5x3` or `2 9 jester`)."),
                "bad_card", text=repr(echo(text.strip())))
        legal = set(d.actions) if d.kind == "play" else None
        for tier in tiers:
            actions = [self._as_action(d.kind, r) for r in tier]
            if legal is not None:
                good = list(dict.fromkeys(a for a in actions if a in legal))
            else:
                good = list(dict.fromkeys(a for a in actions if _fits(self.counts[seat], a.cards)))
            if len(good) == 1:
                return good[0]
            if len(good) > 1:
                options = Either(f"`{' '.join(c.label for c in a.cards)}`" for a in good)
                raise IllegalAction(N_("Did you mean {options}? Type the cards one by one."), "ambiguous",
                                    options=options)
        return self._as_action(d.kind, tiers[0][0])  # not legal: apply() says why

    @staticmethod
    def _as_action(kind: str, numbers: list[int]) -> Action:
        cs = tuple(CARDS[n] for n in sorted(numbers))
        if kind == "play":
            spec = _spec_of(cs, strict=False)
            if spec is not None:
                return _PLAYS[spec]
        return Action(kind, cs)

    # ---- applying actions -------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> list[Event]:
        phase = self.phase
        kind = action.kind
        if phase == PLAY and 0 <= seat < self.players:  # the hot path first
            if kind == "play":
                return self._play(seat, action)
            if kind == "pass":
                return self._pass(seat)
        if phase == OVER:
            raise IllegalAction(N_("The game is over."), "game_over")
        if seat == TABLE:
            if phase != LOOK or action != CLOSE_LOOK:
                raise IllegalAction(N_("The table has nothing to do right now."), "not_your_turn")
            return self._close_look()
        if not 0 <= seat < self.players:
            raise IllegalAction(N_("There is no such seat."), "bad_seat")
        if phase == TAX:
            if kind == "give":
                return self._give(seat, action)
        elif phase == LOOK:
            if kind == "revolution" and not action.cards and not action.args:
                return self._revolution(seat)
        if kind == "close":
            raise IllegalAction(N_("The table does that by itself."), "not_your_turn")
        if kind in ("play", "pass", "give", "revolution"):
            raise IllegalAction(said(N_("That is not possible now: {phase}."), english=f"You cannot "
                                     f"{kind.replace('_', ' ')} now: {self._phase_words()}.",
                                     phase=said(self._phase_words())), "wrong_phase")
        raise IllegalAction(N_("'{kind}' is not a Dalmuti action."), "bad_action", kind=kind)

    def _phase_words(self) -> str:
        if self.phase == LOOK:
            return N_("everyone is looking at their cards")
        if self.phase == TAX:
            return N_("taxes are being paid")
        return N_("the cards are being played")

    def _close_look(self) -> list[Event]:
        """The look is over and nobody called a revolution: taxes (RULES §3.4).  The same for
        every hand, so it says nothing about who held what."""
        events: list[Event] = []
        self._greater_tax(events)
        return events

    def _revolution(self, seat: int) -> list[Event]:
        if seat != self.holder:
            raise IllegalAction(N_("Only a player holding both Jesters may call a revolution."), "not_your_turn")
        events: list[Event] = []
        if seat == self.ranking[-1]:
            # A greater revolution: the whole ranking reverses (and so does the order of play).
            self.revolution = "greater"
            events.append(Event("revolution", seat, ("greater",)))
            self._set_ranking(self.ranking[::-1])
            events.append(Event("ranking", None, tuple(self.ranking)))
        else:
            self.revolution = "revolution"
            events.append(Event("revolution", seat, ("plain",)))
        events.append(Event("taxes_skipped", None, ()))
        self._begin_play()
        return events

    def _give(self, seat: int, action: Action) -> list[Event]:
        giver, taker, k = self._tax_parties()
        if seat != giver:
            raise IllegalAction(N_("It is not your turn to give cards back."), "not_your_turn")
        cs = _read_cards(action)
        if len(cs) != k:
            raise IllegalAction(said_n("Give back exactly {n} card.", "Give back exactly {n} cards.", k), "wrong_count")
        if not _fits(self.counts[seat], cs):
            raise IllegalAction(N_("You can only give back cards from your hand."), "not_in_hand")
        cs = tuple(sorted(cs, key=lambda c: c.number))
        self._transfer(seat, taker, cs)
        events = [
            Event("tax_return", seat, (taker, k)),
            Event("return_sent", seat, (taker, *cs), seat),
            Event("return_received", taker, (seat, *cs), taker),
        ]
        if self.tax_step == 1:
            self._lesser_tax(events)
        else:
            self._begin_play()
        return events

    def _pass(self, seat: int) -> list[Event]:
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        if not self.cur_num:
            raise IllegalAction(N_("You lead this round: play any set of one number (the leader cannot pass)."),
                                "must_lead")
        self.passed[seat] = True
        self._legal = None
        events = [_PASS_EVENT[seat]]
        self._advance(seat, events)
        return events

    def _play(self, seat: int, action: Action) -> list[Event]:
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        # The engine's own Action objects are found by identity, which is cheaper than hashing them.
        spec = _SPEC_BY_ID.get(id(action)) or _SPEC.get(action)
        if spec is None:
            spec = _spec_of(_read_cards(action), strict=True)
            action = _PLAYS[spec]  # type: ignore[index]
        m, a, b = spec  # type: ignore[misc]
        h = self.counts[seat]
        if h[m] < a or h[JESTER_NUMBER] < b:
            raise IllegalAction(N_("You do not hold {set}."), "not_in_hand", set=said_set(m, a + b, b))
        k = a + b
        cur = self.cur_num
        if cur:
            if k != self.cur_k:
                raise IllegalAction(said_n("Play exactly {n} card to beat {play}, or pass.",
                                           "Play exactly {n} cards to beat {play}, or pass.", self.cur_k,
                                           play=said_set(*play_set(self.cur_action))),  # type: ignore[arg-type]
                                    "wrong_count")
            if m >= cur:
                if m == JESTER_NUMBER:
                    raise IllegalAction(N_("Jesters on their own count as 13 and cannot beat anything."), "too_weak")
                raise IllegalAction(N_("You need a lower number than {number} (lower numbers are better).")
                                    if cur < 13 else
                                    N_("You need a lower number than the Jesters (lower numbers are better)."),
                                    "too_weak", number=cur)
        # Validated: from here on nothing can fail.
        h[m] -= a
        h[JESTER_NUMBER] -= b
        pile = self.pile
        pile[m] += a
        pile[JESTER_NUMBER] += b
        left = self.left[seat] - k
        self.left[seat] = left
        self.cur_num, self.cur_k, self.cur_action, self.cur_by = m, k, action, seat
        self.passed[seat] = False
        self._legal = None
        events = [_PLAY_EVENT[seat][action]]
        if not left:
            self.finish.append(seat)
            self.active -= 1
            events.append(Event("out", seat, (len(self.finish),)))
            if self.active == 1:
                self._end_hand(events)
                return events
        self._advance(seat, events)
        return events

    def _advance(self, seat: int, events: list[Event]) -> None:
        """Turn to the next player who may still answer the play to beat; players with no legal
        play pass automatically (RULES §3.5).  When the walk comes back to the last player to play,
        everyone else has passed: the round ends (§3.6)."""
        order, left, passed = self.ranking, self.left, self.passed
        n = self.players
        owner = self.cur_by
        locked = self.locked
        counts, cur, k = self.counts, self.cur_num, self.cur_k
        i = self.pos[seat]
        while True:
            i += 1
            if i == n:
                i = 0
            s = order[i]
            if s == owner:
                self._end_round(events)
                return
            if not left[s] or (locked and passed[s]):
                continue
            if cur > 1:
                h = counts[s]
                most = max(h[1:cur])
                if most and most + h[JESTER_NUMBER] >= k:
                    self.turn = s
                    return
            passed[s] = True
            events.append(_AUTO_PASS[s])

    def _end_round(self, events: list[Event]) -> None:
        owner = self.cur_by
        lead = owner
        if not self.left[owner]:
            # §3.6: the last player to play has gone out, so the lead passes on in order.
            order, i, n = self.ranking, self.pos[owner], self.players
            while True:
                i = i + 1 if i + 1 < n else 0
                lead = order[i]
                if self.left[lead]:
                    break
        events.append(Event("round_end", owner, (lead,)))
        self.cur_num = self.cur_k = 0
        self.cur_action = None
        self.cur_by = -1
        self.passed = [False] * self.players
        self.leader = self.turn = lead
        self._legal = None

    def _end_hand(self, events: list[Event]) -> None:
        """§3.7: the hand ends as soon as only one player holds cards; finishing order scores
        n−1 … 0 (§3.8) and becomes the next hand's ranking."""
        last = next(s for s in self.ranking if self.left[s])
        self.finish.append(last)
        n = self.players
        for place, s in enumerate(self.finish):
            self.scores[s] += n - 1 - place
        order = list(self.finish)
        self.history.append(order)
        self.turn = None
        self._legal = None
        events.append(Event("hand_end", None, (self.hand_no, *order, *self.scores)))
        if len(self.history) >= self.options["hands"]:
            self.phase = OVER
            self.cur_num = self.cur_k = 0
            self.cur_action = None
            self.cur_by = -1
            events.append(Event("game_end", None, tuple(self.scores)))
            return
        self.hand_no += 1
        self._start_hand(order, None, events)

    # ---- views ------------------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        n = self.players
        place: list[int | None] = [None] * n
        for i, s in enumerate(self.finish):
            place[s] = i + 1
        cur = None
        if self.cur_action is not None:
            m, a, b = _SPEC[self.cur_action]
            cur = {"cards": [c.code for c in self.cur_action.cards], "number": m, "count": a + b,
                   "jesters": b, "by": self.cur_by}
        tax = None
        if self.phase == TAX:
            giver, taker, k = self._tax_parties()
            tax = {"giver": giver, "receiver": taker, "count": k}
        v: dict[str, Any] = {
            "game": "dalmuti",
            "pass": self.options["pass"],
            "hands": self.options["hands"],
            "phase": self.phase,
            "hand_no": self.hand_no,
            "players": n,
            "ranking": list(self.ranking),
            "positions": list(self.pos),
            "titles": [title_of(self.pos[s], n) for s in range(n)],
            "turn": self.turn,
            "leader": self.leader,
            "current": cur,
            "cards_left": list(self.left),
            # Cards played this hand per number (index 13: Jesters): announced as they are played.
            "played": list(self.pile),
            "passed": list(self.passed),
            "out": place,
            "finish_order": list(self.finish),
            "scores": list(self.scores),
            "history": [list(h) for h in self.history],
            # Only a called revolution is public (RULES §3.3): who holds both Jesters otherwise is not.
            "revolution": self.revolution,
            "revolution_holder": self.holder if self.revolution in ("revolution", "greater") else None,
            "tax": tax,
        }
        if self.hand_no == 0 and self.draw:
            v["opening_draw"] = [[[s, CARDS[x].code] for s, x in rnd] for rnd in self.draw]
        return v

    def view(self, seat: int) -> dict[str, Any]:
        v = self.public_view()
        v["seat"] = seat
        v["hand"] = _codes(self.counts[seat])
        v["tax_given"] = list(self.tax_given[seat])
        v["tax_received"] = list(self.tax_received[seat])
        return v

    def hidden_from(self, seat: int | None) -> set[str]:
        """Copies of a number are alike, so a code is hidden only while no copy of it can be shown
        to ``seat``: held by others only, not played, not in the seat's own hand or taxes, and not
        an opening draw still on show."""
        held = [0] * 14
        for s in range(self.players):
            if s != seat:
                h = self.counts[s]
                for x in range(1, 14):
                    held[x] += h[x]
        hidden = {CARDS[x].code for x in range(1, 14) if held[x] and not self.pile[x]}
        if seat is not None:
            hidden.difference_update(_codes(self.counts[seat]))
            hidden.difference_update(self.tax_given[seat])
            hidden.difference_update(self.tax_received[seat])
        if self.hand_no == 0:
            hidden.difference_update(CARDS[x].code for rnd in self.draw for _, x in rnd)
        return hidden

    def all_cards(self) -> list[DCard]:  # type: ignore[override]
        out = [c for h in self.counts for c in _expand(h)]
        out.extend(_expand(self.pile))
        return out

    # ---- the end ----------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> Outcome | None:
        if self.phase != OVER:
            return None
        return Outcome.ranked(self.scores)

    # ---- serialisation ----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "dalmuti",
            "seed": self.seed,
            "options": dict(self.options),
            "players": self.players,
            "hand_no": self.hand_no,
            "phase": self.phase,
            "ranking": list(self.ranking),
            "hands": [_codes(h) for h in self.counts],
            "pile": _codes(self.pile),
            "turn": self.turn,
            "leader": self.leader,
            "current": None if self.cur_action is None else {
                "cards": [c.code for c in self.cur_action.cards], "by": self.cur_by},
            "passed": list(self.passed),
            "finish": list(self.finish),
            "scores": list(self.scores),
            "history": [list(h) for h in self.history],
            "revolution": self.revolution,
            "holder": self.holder,
            "tax_step": self.tax_step,
            "tax_given": [list(x) for x in self.tax_given],
            "tax_received": [list(x) for x in self.tax_received],
            "draw": [[[s, x] for s, x in rnd] for rnd in self.draw],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Dalmuti:
        g = cls()
        g.seed = data["seed"]
        g.options = cls.read_options(data["options"])
        g.locked = g.options["pass"] == "locked"
        g.players = n = data["players"]
        g.hand_no = data["hand_no"]
        g.phase = data["phase"]
        g._set_ranking(list(data["ranking"]))
        g.counts = [_counts_of(dcard(c) for c in h) for h in data["hands"]]
        g.left = [sum(h) for h in g.counts]
        g.active = sum(1 for x in g.left if x)
        g.pile = _counts_of(dcard(c) for c in data["pile"])
        g.turn = data["turn"]
        g.leader = data["leader"]
        cur = data["current"]
        if cur is None:
            g.cur_num = g.cur_k = 0
            g.cur_action = None
            g.cur_by = -1
        else:
            spec = _spec_of(tuple(dcard(c) for c in cur["cards"]), strict=True)
            g.cur_action = _PLAYS[spec]  # type: ignore[index]
            g.cur_num, g.cur_k, g.cur_by = spec[0], spec[1] + spec[2], cur["by"]  # type: ignore[index]
        g.passed = list(data["passed"])
        g.finish = list(data["finish"])
        g.scores = list(data["scores"])
        g.history = [list(h) for h in data["history"]]
        g.revolution = data["revolution"]
        g.holder = data["holder"]
        g.tax_step = data["tax_step"]
        g.tax_given = [list(x) for x in data["tax_given"]]
        g.tax_received = [list(x) for x in data["tax_received"]]
        g.draw = [[(s, x) for s, x in rnd] for rnd in data["draw"]]
        if len(g.counts) != n or len(g.scores) != n:
            raise ValueError("A Dalmuti state needs one hand and one score per seat.")
        return g


    # ---- search (see engine/worlds.py) ----------------------------------------------------------
    def copy(self) -> Dalmuti:
        g = Dalmuti.__new__(Dalmuti)
        d = self.__dict__.copy()
        g.__dict__ = d
        d["ranking"] = self.ranking[:]
        d["pos"] = self.pos[:]
        d["counts"] = [h[:] for h in self.counts]
        d["left"] = self.left[:]
        d["pile"] = self.pile[:]
        d["passed"] = self.passed[:]
        d["finish"] = self.finish[:]
        d["scores"] = self.scores[:]
        d["history"] = self.history[:]
        d["tax_given"] = [t[:] for t in self.tax_given]
        d["tax_received"] = [t[:] for t in self.tax_received]
        d["start_events"] = []
        d["_legal"] = None
        return g

    def knowledge(self, seat: int) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
        """What ``seat`` can tell about the other hands beyond their sizes, as bounds on how many
        copies of a number a seat holds now: ``(at_least, at_most)``, keyed by ``(seat, number)``.

        * Taxes it paid: the receiver got them, so still holds them unless it gave the same number
          back or someone played that number since (plays are public, who played them is not
          kept, so any played copy may have been one of them).
        * Taxes it received: they were the payer's best cards, so the payer had nothing better
          than the worst of them left, apart from what ``seat`` gave back.
        * A called revolution: the caller was dealt both Jesters and holds those not played yet.

        Auto-passes and the plays of a round are not kept in the state, so no inference is drawn
        from them: a looser but never wrong picture."""
        at_least: dict[tuple[int, int], int] = {}
        at_most: dict[tuple[int, int], int] = {}
        n = self.players
        partner = {0: self.ranking[-1], 1: self.ranking[-2], n - 2: self.ranking[1], n - 1: self.ranking[0]}
        p = partner.get(self.pos[seat])
        paid = [dcard(c).number for c in self.tax_given[seat]]
        got = [dcard(c).number for c in self.tax_received[seat]]
        if p is not None and p != seat and self.pos[seat] >= n - 2 and paid:
            for x in set(paid):
                k = paid.count(x) - got.count(x) - self.pile[x]
                if k > 0:
                    at_least[(p, x)] = k
        if p is not None and p != seat and self.pos[seat] <= 1 and got:
            # ``got`` were the payer's best; it may hold a better number only if it was given one back.
            for x in range(1, max(got)):
                at_most[(p, x)] = paid.count(x)
        if self.revolution in ("revolution", "greater") and self.holder is not None and self.holder != seat:
            k = 2 - self.pile[JESTER_NUMBER]
            if k > 0:
                at_least[(self.holder, JESTER_NUMBER)] = k
        return at_least, at_most

    def sample_world(self, seat: int, rng: Any) -> Dalmuti:
        """A full state ``seat`` cannot tell from this one (same view): the other hands dealt again
        at random with their sizes kept, consistently with :meth:`knowledge`; a fresh seed, so
        later deals are unknown too.  Who holds both Jesters during the look is whoever does in
        the world (it is private)."""
        from engine.worlds import deal_constrained, fresh_seed

        w = self.copy()
        w.seed = fresh_seed(rng)
        w.tax_given, w.tax_received = self._known_taxes(seat)
        if self.revolution not in ("revolution", "greater"):
            w.holder = None  # nobody can tell who was dealt both Jesters (during the look: see below)
        others = [s for s in range(self.players) if s != seat and self.left[s]]
        if self.phase == OVER or not others:
            return w
        bit = {s: 1 << i for i, s in enumerate(others)}
        every = (1 << len(others)) - 1
        at_least, at_most = self.knowledge(seat)
        pool: list[DCard] = []
        allowed: list[int] = []
        for x in range(1, 14):
            copies = sum(self.counts[s][x] for s in others)
            if not copies:
                continue
            masks: list[int] = []
            for (s, y), k in at_least.items():
                if y == x and s in bit:
                    masks.extend([bit[s]] * k)
            # "At most u copies with s" is "at least copies - u elsewhere": copies are alike.
            for (s, y), u in at_most.items():
                if y == x and s in bit:
                    need = copies - u - sum(1 for m in masks if not m & bit[s])
                    masks.extend([every & ~bit[s]] * max(0, need))
            masks = masks[:copies] + [every] * (copies - len(masks))
            pool.extend([CARDS[x]] * copies)
            allowed.extend(masks)
        dealt = deal_constrained(pool, allowed, [self.left[s] for s in others], rng)
        for s, cs in zip(others, dealt, strict=True):
            w.counts[s] = _counts_of(cs)
        if self.phase == LOOK:
            w.holder = next((s for s in range(self.players) if w.counts[s][JESTER_NUMBER] == 2), None)
        w._legal = None
        return w

    def _known_taxes(self, seat: int) -> tuple[list[list[str]], list[list[str]]]:
        """This hand's tax records as ``seat`` knows them: its own, and its partner's (what one of a
        paying pair gave, the other received); the other pair's taxes it never saw are left empty
        (nothing reads them but their own seats' knowledge, and the search never asks it)."""
        n = self.players
        given: list[list[str]] = [[] for _ in range(n)]
        got: list[list[str]] = [[] for _ in range(n)]
        given[seat] = self.tax_given[seat][:]
        got[seat] = self.tax_received[seat][:]
        if self.ranking:
            partner = {0: self.ranking[-1], 1: self.ranking[-2], n - 2: self.ranking[1], n - 1: self.ranking[0]}
            p = partner.get(self.pos[seat])
            if p is not None and p != seat:
                given[p] = got[seat][:]
                got[p] = given[seat][:]
        return given, got


def _fits(counts: Sequence[int], cs: Sequence[Any]) -> bool:
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


# ---- the forgiving text reader ------------------------------------------------------------------
_COUNT_WORDS = {"single": 1, "a": 1, "an": 1, "one": 1, "pair": 2, "double": 2, "triple": 3, "both": 2}
_COUNT_WORDS.update({w: i + 1 for i, w in enumerate(_NUMBER_WORDS)})
_PLURALS = {w + "s": i + 1 for i, w in enumerate(_NUMBER_WORDS)}
_PLURALS.update({"sixes": 6})
_FILLER = {"and", "plus", "with", "of", "&", "+", ","}


def _readings(text: str) -> list[list[list[int]]]:
    """The ways to read ``text`` as a multiset of card numbers (13 = Jester), in tiers: the caller
    takes the one legal reading of the first tier that has one, and asks when a tier has two.
    ``5 5 5`` is read card by card first; ``2 9 jester`` (not a set card by card) then as two 9s
    and a Jester; ``5x3`` is read as three 5s and as five 3s alike."""
    t = text.replace(",", " , ").replace("+", " + ").replace("×", "x")
    t = re.sub(r"(\d)\s*[x*]\s*(\d)", r"\1 x \2", t)
    tokens = [tok for tok in t.split() if tok not in _FILLER]
    if not tokens:
        return []
    if len(tokens) == 3 and tokens[1] in ("x", "*"):
        a, b = _card_number(tokens[0]), _card_number(tokens[2])
        if a is None or b is None:
            return []
        return [[[number] * count for number, count in ((a, b), (b, a)) if 1 <= count <= 12]]
    tiers: list[list[list[int]]] = []
    # A plural ("5s", "jesters") means counting, so the card-by-card reading does not apply.
    if not any(_is_plural(tok) for tok in tokens):
        literal = [_card_number(tok) for tok in tokens]
        if all(x is not None for x in literal):
            tiers.append([literal])  # type: ignore[list-item]
    counted = _counted(tokens)
    if counted is not None and all(counted not in tier for tier in tiers):
        tiers.append([counted])
    return tiers


def _is_plural(tok: str) -> bool:
    return tok in _PLURALS or tok in ("jesters", "jokers") or (
        tok.endswith("s") and tok.rstrip("s").rstrip("'").isdigit())


def _counted(tokens: list[str]) -> list[int] | None:
    """``three 5s``, ``2 9 jester``, ``two 9s a jester``: a count, then what is counted."""
    out: list[int] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        count = None
        if i + 1 < len(tokens):
            count = _COUNT_WORDS.get(tok)
            if count is None and tok.isdigit() and 1 <= int(tok) <= 12:
                count = int(tok)
        if count is not None:
            what = _item(tokens[i + 1])
            if what is None:
                return None
            out.extend([what] * count)
            i += 2
            continue
        what = _item(tok)
        if what is None:
            return None
        out.append(what)
        i += 1
    return out


def _item(tok: str) -> int | None:
    if tok in _PLURALS:
        return _PLURALS[tok]
    for suffix in ("'s", "s"):
        if tok.endswith(suffix) and tok[: -len(suffix)].isdigit():
            tok = tok[: -len(suffix)]
            break
    return _card_number(tok)
