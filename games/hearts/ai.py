"""A Hearts computer player that plays like a careful club player.

It reads only what its seat may know: its own hand, the cards it passed and received, every card
already played (tricks are public, so the ``won`` piles and the current trick), points taken,
scores and the rules.  It never looks at another seat's hand.  No search: a few rules of thumb
that people use, which is enough to beat random play by a wide margin and costs well under a
millisecond a decision.

Passing: get rid of Q♠ (and A♠/K♠) when short of low spades to hide behind, high hearts, and a
short side suit to make a void; keep low cards.  Playing: duck under the winning card; when void,
dump Q♠, then A♠/K♠ while Q♠ is out, then high hearts, then the most dangerous card; take a clean
trick with the highest card when last; never lead into Q♠; lead low from short suits; and when one
opponent has taken every point so far, take a point trick to stop a moon.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from engine.cards import ALL_CARDS, Card, card
from engine.core import AI, Action
from engine.scaffold import your_turn
from games.hearts.rules import Hearts

_DECK: tuple[Card, ...] = ALL_CARDS[:52]
_QS = card("QS")
_QUEEN = 12
_SUITS = "CDHS"
_BY_SUIT = tuple((s, tuple(c for c in _DECK if c.suit == s)) for s in _SUITS)
_PLAY = {c: Action("play", (c,)) for c in _DECK}


def _points(c: Card) -> int:
    if c.suit == "H":
        return 1
    return 13 if c is _QS else 0


class _Knowledge:
    """What one seat knows about the cards, computed once per decision."""

    __slots__ = ("hand", "unseen", "qs_out", "qs_holder", "qs_mine", "void", "seat")

    def __init__(self, state: Hearts, seat: int) -> None:
        self.seat = seat
        self.hand = state.hands[seat]
        self.qs_mine = _QS in self.hand
        gone: set[Card] = set(self.hand)
        for pile in state.won:
            gone.update(pile)
        gone.update(c for _, c in state.trick)
        # Cards still in someone else's hand (including those this seat passed: it knows where
        # they went, but they can still be played against it).
        # One comprehension per suit: this runs in every step of every search playout.
        self.unseen: dict[str, list[int]] = {s: [c.value for c in cs if c not in gone] for s, cs in _BY_SUIT}
        self.qs_out = _QS not in gone
        # The one card whose holder can be known: the Q♠ this seat passed away.
        self.qs_holder: int | None = None
        if self.qs_out and _QS in state.passed[seat]:
            self.qs_holder = (seat + _pass_offset(state)) % 4
        # Suits each seat has shown out of (it did not follow): public, from this hand's tricks.
        self.void: list[set[str]] = [set(), set(), set(), set()]
        for lead, cs in getattr(state, "history", ()):
            led = cs[0].suit
            for i in (1, 2, 3):
                if cs[i].suit != led:
                    self.void[(lead + i) & 3].add(led)
        if state.trick:
            led = state.trick[0][1].suit
            for s, c in state.trick[1:]:
                if c.suit != led:
                    self.void[s].add(led)

    @classmethod
    def kept(cls, state: Hearts, seat: int, played: set[Card], void: list[set[str]]) -> _Knowledge:
        """The same knowledge from counts a playout keeps up to date (:func:`play_out`): ``played``
        holds every card played this hand (the won piles and the trick), ``void`` the suits each
        seat has shown out of."""
        k = cls.__new__(cls)
        k.seat = seat
        hand = k.hand = state.hands[seat]
        k.qs_mine = _QS in hand
        gone = played.union(hand)
        k.unseen = {s: [c.value for c in cs if c not in gone] for s, cs in _BY_SUIT}
        k.qs_out = _QS not in gone
        k.qs_holder = None
        if k.qs_out and _QS in state.passed[seat]:
            k.qs_holder = (seat + _pass_offset(state)) % 4
        k.void = void
        return k

    def void_among(self, suit: str, seats: Iterable[int]) -> bool:
        """Whether any of ``seats`` (other than us) is known to hold no card of ``suit``."""
        return any(suit in self.void[s] for s in seats if s != self.seat)

    @property
    def spade_danger(self) -> bool:
        """Q♠ can still hurt us in spade play: out with someone else, or ours while A♠/K♠ are out
        (leading spades then strips the low spades that shelter it)."""
        if self.qs_out:
            return True
        return self.qs_mine and any(v > _QUEEN for v in self.unseen["S"])

    # The unseen values of a suit are in ascending order (the deck's): counted by bisection.
    def unseen_above(self, c: Card) -> int:
        vs = self.unseen[c.suit]
        return len(vs) - bisect_right(vs, c.value)

    def unseen_below(self, c: Card) -> int:
        return bisect_left(self.unseen[c.suit], c.value)

    def suit_len(self, suit: str) -> int:
        return sum(1 for c in self.hand if c.suit == suit)


def _pass_offset(state: Hearts) -> int:
    return {"left": 1, "right": 3, "across": 2}.get(state.pass_dir, 0)


class HeartsAI(AI[Hearts]):
    """Rule-of-thumb Hearts player: deterministic, always legal, uses only its seat's knowledge."""

    # A seat is treated as shooting the moon once it alone has taken this many points ...
    MOON_POINTS = 14
    # ... or fewer, but late in the hand.
    MOON_LATE_POINTS = 8
    MOON_LATE_TRICK = 7

    def choose(self, state: Hearts, seat: int, rng: random.Random) -> Action:
        d = your_turn(state.decision(seat))
        if d.kind == "pass":
            return Action("pass", tuple(self.choose_pass(d.cards, d.pick)))
        if len(d.actions) == 1:
            return d.actions[0]
        legal = [a.cards[0] for a in d.actions]
        chosen = self.choose_play(state, seat, legal)
        for a in d.actions:
            if a.cards[0] is chosen:
                return a
        raise AssertionError("chose a card outside the legal plays")  # pragma: no cover

    # ---- passing ----------------------------------------------------------------------------
    def choose_pass(self, hand: Sequence[Card], pick: int = 3) -> list[Card]:
        """The ``pick`` cards to pass out of ``hand``."""
        left = list(hand)
        chosen: list[Card] = []
        spades = [c for c in left if c.suit == "S"]
        low_spades = sum(1 for c in spades if c.value < _QUEEN)
        # With three low spades Q♠ can hide until it is safe to dump; with fewer it gets caught.
        covered = low_spades >= 3
        if not covered:
            for c in sorted(spades, key=lambda c: -c.value):
                if c.value >= _QUEEN and len(chosen) < pick:
                    chosen.append(c)
        while len(chosen) < pick:
            slots = pick - len(chosen)
            rest = [c for c in left if c not in chosen]
            best = max(rest, key=lambda c: (self._pass_score(c, rest, slots, covered), c.index))
            chosen.append(best)
        return chosen

    @staticmethod
    def _pass_score(c: Card, hand: list[Card], slots: int, covered: bool) -> float:
        if c.suit == "H":
            # High hearts take tricks full of points; low ones are safe cards to keep.
            return 20 + c.value if c.value >= 11 else c.value + (4 if c.value >= 8 else 0)
        if c.suit == "S":
            if c.value >= _QUEEN:
                return -50 if c is _QS and covered else c.value - 2
            return c.value - 12  # low spades shelter Q♠ from A♠/K♠ (ours or someone else's)
        n = sum(1 for x in hand if x.suit == c.suit)
        score = float(c.value)
        if n <= slots:
            score += 8 - 2 * n  # passing the whole suit leaves a void to discard into
        elif n >= 5:
            score -= 2  # a long side suit has low cards to duck with
        return score

    # ---- playing ----------------------------------------------------------------------------
    def choose_play(self, state: Hearts, seat: int, legal: list[Card], k: _Knowledge | None = None) -> Card:
        """The card to play out of ``legal`` (all of them legal now); ``k``: the seat's knowledge
        when the caller keeps it (:func:`play_out`)."""
        if k is None:
            k = _Knowledge(state, seat)
        threat = self._moon_threat(state, seat)
        if not state.trick:
            return self._lead(state, k, legal, threat)
        led = state.trick[0][1].suit
        if legal[0].suit == led:
            return self._follow(state, k, legal, threat)
        return self._discard(state, k, legal, threat)

    def _moon_threat(self, state: Hearts, seat: int) -> int | None:
        """The opponent who has taken every point so far, once that looks like a moon attempt."""
        pts = state.hand_points
        takers = [s for s in range(4) if pts[s] > 0]
        if len(takers) != 1 or takers[0] == seat:
            return None
        p = pts[takers[0]]
        if p >= self.MOON_POINTS or (p >= self.MOON_LATE_POINTS and state.trick_no >= self.MOON_LATE_TRICK):
            return takers[0]
        return None

    def _lead(self, state: Hearts, k: _Knowledge, legal: list[Card], threat: int | None) -> Card:
        if threat is not None:
            hearts = [c for c in legal if c.suit == "H"]
            if hearts:
                top = max(hearts, key=lambda c: c.value)
                if k.unseen_above(top) == 0:
                    return top  # the boss heart: taking it puts a point with us and the moon is off
        has_alternative = any(c.suit != "H" for c in legal)

        def score(c: Card) -> tuple[float, int]:
            above, below = k.unseen_above(c), k.unseen_below(c)
            s = float(below)  # cards that could duck under it: the more, the likelier we win the trick
            if above == 0:
                # Nobody can beat it: we win the trick and void players dump points on it.
                s += 30 if below else 40
            s += 0.5 * k.suit_len(c.suit)  # leading short suits works towards a void
            if c.suit == "H" and has_alternative:
                s += 6  # no need to draw points out while there are other leads
            if c.suit == "S" and k.qs_out:
                if c.value > _QUEEN:
                    s += 50  # leading A♠/K♠ invites Q♠
                else:
                    s -= 3  # low spades flush Q♠ out of its holder's hand
            elif c.suit == "S" and k.qs_mine and k.spade_danger and c is not _QS:
                s += 8  # our own Q♠ is still at risk: keep the low spades that shelter it
            if c is _QS:
                s += 40
            if k.unseen[c.suit] and k.void_among(c.suit, range(4)):
                # Someone void will throw points on this trick: bad news if we may win it.
                s += 10 if above == 0 else 3
            return (s, c.index)

        return min(legal, key=score)

    def _follow(self, state: Hearts, k: _Knowledge, legal: list[Card], threat: int | None) -> Card:
        trick = state.trick
        win_seat, best = trick[0]
        for s, c in trick[1:]:
            if c.suit == best.suit and c.value > best.value:
                win_seat, best = s, c
        pts = sum(_points(c) for _, c in trick)
        last = len(trick) == 3
        below = [c for c in legal if c.value < best.value]
        above = [c for c in legal if c.value > best.value]
        clean = [c for c in legal if c is not _QS]
        highest = max(clean or legal, key=lambda c: c.value)

        if state.classic and state.trick_no == 0:
            return highest  # no points may fall on the first trick: shed the highest card for free

        if threat is not None and above:
            sure = [c for c in above if c is not _QS and k.unseen_above(c) == 0]
            if (pts or best.suit == "H") and sure:
                return sure[0]  # a sure winner in a point trick ends the moon
            if pts and win_seat == threat:
                return max(above, key=lambda c: (c is not _QS, c.value))

        if last:
            if pts == 0 and any(c is not _QS for c in above):
                return highest  # a clean trick: take it with the card that would be dangerous later
            if below:
                return max(below, key=lambda c: c.value)
            return highest
        if below:
            return max(below, key=lambda c: c.value)  # the highest card that still loses
        # Every card we hold beats the trick so far.
        if all(k.unseen_above(c) == 0 for c in clean or legal):
            return highest  # we win it whatever we play: spend the highest
        if best.suit == "S" and k.qs_out:
            still_to_play = {(trick[0][0] + i) % 4 for i in range(len(trick) + 1, 4)}
            if k.qs_holder is None or k.qs_holder in still_to_play:
                under_q = [c for c in legal if c.value < _QUEEN]
                if under_q:
                    return max(under_q, key=lambda c: c.value)
                return min(legal, key=lambda c: c.value)  # K♠ before A♠: maybe A♠ comes over it
            return highest  # Q♠ cannot land on this trick
        remaining = 3 - len(trick)
        behind = [(trick[0][0] + i) & 3 for i in range(len(trick) + 1, 4)]
        if (pts == 0 and best.suit != "H" and len(k.unseen[best.suit]) >= 3 * remaining + 1
                and not k.void_among(best.suit, behind)):
            return highest  # enough cards left in the suit that nobody is likely void behind us
        return min(clean or legal, key=lambda c: c.value)

    def _discard(self, state: Hearts, k: _Knowledge, legal: list[Card], threat: int | None) -> Card:
        if threat is not None:
            trick = state.trick
            win_seat, best = trick[0]
            for s, c in trick[1:]:
                if c.suit == best.suit and c.value > best.value:
                    win_seat, best = s, c
            if win_seat == threat:
                safe = [c for c in legal if _points(c) == 0]
                if safe:
                    return max(safe, key=lambda c: (self._danger(k, c), c.index))
                return min(legal, key=lambda c: (_points(c), c.value))
        return max(legal, key=lambda c: (self._danger(k, c), c.index))

    @staticmethod
    def _danger(k: _Knowledge, c: Card) -> float:
        """How much ``c`` threatens to cost us if we keep it."""
        if c is _QS:
            return 1000
        if c.suit == "S" and k.qs_out:
            if c.value > _QUEEN:
                return 500 + c.value
            return c.value - 5  # low spades keep us safe from Q♠
        if c.suit == "H" and c.value >= 10:
            return 200 + c.value
        d = float(c.value)
        if c.suit == "H":
            d += 4  # dumping a heart gives a point away
        if not k.unseen[c.suit]:
            # Nobody else holds the suit, so nobody can lead to it: it wins a trick only when we
            # choose to lead it.  A card that can still take someone else's lead goes first.
            return d - 30
        if k.unseen_below(c) == 0:
            d -= 6  # nothing left below it: it can never win a trick of this suit
        if k.suit_len(c.suit) <= 2:
            d += 3  # almost void: finishing the suit opens more discards
        return d


def equivalent_runs(state: Hearts, seat: int, ai: HeartsAI | None = None) -> list[Action]:
    """``seat``'s legal plays less the ones equivalent to another (the search's candidates): of
    cards of a suit with only the seat's own cards and cards gone in earlier tricks between them,
    one (``ai``'s choice when it is among them, else the lowest).  Q♠ is a run of its own."""
    d = state.decision(seat)
    if d is None:
        return []
    if d.kind != "play" or len(d.actions) <= 1:
        return list(d.actions)
    legal = [a.cards[0] for a in d.actions]
    pick = (ai or HeartsAI()).choose_play(state, seat, legal)
    filled = dict.fromkeys(_SUITS, 0)  # values that separate nothing: the seat's or played before
    for c in state.hands[seat]:
        filled[c.suit] |= 1 << c.value
    for _, cs in state.history:
        for c in cs:
            filled[c.suit] |= 1 << c.value
    runs: list[list[Card]] = []
    for c in sorted(legal, key=lambda c: (c.suit, c.value)):
        run = runs[-1] if runs else None
        if run is not None and run[-1].suit == c.suit and c is not _QS and run[-1] is not _QS:
            lo = run[-1].value + 1
            between = ((1 << c.value) - 1) >> lo << lo
            if between & ~filled[c.suit] == 0:
                run.append(c)
                continue
        runs.append([c])
    keep = {pick if pick in run else run[0] for run in runs}
    return [a for a in d.actions if a.cards[0] in keep]


def play_out(state: Hearts, ai: HeartsAI | None = None) -> None:
    """Play the current hand of the full state ``state`` (a sampled world, in a search) to its end
    with ``ai`` (the normal player by default) in every seat: the search's playouts.

    The same moves as asking ``ai.choose`` at every turn, only cheaper: the cards played and the
    suits each seat has shown out of are kept up to date play by play instead of being recounted
    from the won piles and the hand's history at each decision, and no :class:`Decision` is built
    (tests/engine/test_hearts_ai.py compares the two move by move)."""
    ai = ai or HeartsAI()
    hand_no = state.hand_no
    played: set[Card] = set()
    for pile in state.won:
        played.update(pile)
    void: list[set[str]] = [set(), set(), set(), set()]
    for lead, cs in state.history:
        led = cs[0].suit
        for i in (1, 2, 3):
            if cs[i].suit != led:
                void[(lead + i) & 3].add(led)
    for _, c in state.trick:
        played.add(c)
    if state.trick:
        led = state.trick[0][1].suit
        for s, c in state.trick[1:]:
            if c.suit != led:
                void[s].add(led)
    while state.phase == "play" and state.hand_no == hand_no:
        turn = state.turn
        assert turn is not None
        s = turn
        legal = state.legal_plays(s)
        c = legal[0] if len(legal) == 1 else ai.choose_play(state, s, legal, _Knowledge.kept(state, s, played, void))
        trick = state.trick
        if trick and c.suit != trick[0][1].suit:
            void[s].add(trick[0][1].suit)
        played.add(c)
        state.apply(s, _PLAY[c])
