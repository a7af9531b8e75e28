"""A Tricks computer player: a sound follower that counts cards.

Every trick is worth a point and there are no trumps, so the player wants as many tricks as it can
get, as cheaply as it can get them.  It reads only what its seat may know: its own hand, the tricks
of this hand (who led, who played what, who won), the cards on the table and the scores.  From
the tricks it keeps two counts: the cards of each suit still out (in someone else's hand), and
which players have shown out of a suit (failed to follow, so hold none of it).

* Following suit: take the trick with the cheapest card that is sure to hold it (no higher card is
  out with a player still to play), or that is likely to (each higher card out is with a player
  still to play with the odds of the hand sizes); otherwise play the lowest card and keep the high
  ones for later.
* Unable to follow: nothing can win, so throw the card least likely ever to take a trick: never a
  boss (the highest card still out of its suit), preferably a low card of a short suit.
* Leading: cash a boss (it wins whatever the others hold, since nothing trumps it), from the suit
  where it draws most cards out; with no boss, lead low from the longest suit so that its higher
  cards become bosses.  Early in the hand, with a long suit to set up (four or more, its boss not
  held, at least four of it still out) and a boss in another suit, it leads low from the long suit
  first and keeps the bosses: a boss stays a winner however long it waits, and it is the way back
  to the lead to run the long suit once it is set up.  Cashing the bosses first gives the lead
  away with nothing left to regain it (the search level found this; an arena of this player in one
  seat against the previous one in the others, over the same 1,000 deals: +0.12 ± 0.03 tricks a hand).
"""

from __future__ import annotations

import random

from engine.cards import ALL_CARDS, Card
from engine.core import AI, Action
from engine.scaffold import your_turn
from games.tricks.rules import Tricks

_DECK: tuple[Card, ...] = ALL_CARDS[:52]
_PLAY: dict[Card, Action] = {c: Action("play", (c,)) for c in _DECK}
_SUITS = "CDHS"


class _Knowledge:
    """What one seat knows about the cards, computed once per decision."""

    __slots__ = ("seat", "hand", "outm", "minem", "void", "sizes")

    def __init__(self, state: Tricks, seat: int) -> None:
        self.seat = seat
        self.hand = state.hands[seat]
        seen: set[Card] = set(self.hand)
        self.void: list[set[str]] = [set() for _ in range(4)]  # suits each seat has shown out of
        plays = 0
        for leader, _, cs in state.history:
            led = cs[0].suit
            for i, c in enumerate(cs):
                seen.add(c)
                if c.suit != led:
                    self.void[(leader + i) % 4].add(led)
            plays += 1
        played_now = set()
        if state.trick:
            led = state.trick[0][1].suit
            for s, c in state.trick:
                seen.add(c)
                played_now.add(s)
                if c.suit != led:
                    self.void[s].add(led)
        # The cards of each suit still in other players' hands, as a bit mask of their values
        # (bit ``v`` for value ``v``): counting the higher ones is a shift and a bit count.
        self.outm: dict[str, int] = dict.fromkeys(_SUITS, 0)
        for c in _DECK:
            if c not in seen:
                self.outm[c.suit] |= 1 << c.value
        self.minem: dict[str, int] = dict.fromkeys(_SUITS, 0)  # the seat's own cards, the same way
        for c in self.hand:
            self.minem[c.suit] |= 1 << c.value
        # Everyone holds 13 minus the tricks played, minus one more if they have played to this one.
        self.sizes = [13 - plays - (1 if s in played_now else 0) for s in range(4)]

    @classmethod
    def counted(cls, seat: int, hand: list[Card], outm: dict[str, int], minem: dict[str, int],
                void: list[set[str]], sizes: list[int]) -> _Knowledge:
        """The same knowledge from counts kept up to date play by play (see :func:`play_out`)."""
        k = cls.__new__(cls)
        k.seat, k.hand, k.outm, k.minem, k.void, k.sizes = seat, hand, outm, minem, void, sizes
        return k

    def higher_out(self, c: Card) -> int:
        return (self.outm[c.suit] >> (c.value + 1)).bit_count()

    def out_count(self, suit: str) -> int:
        return self.outm[suit].bit_count()

    def is_boss(self, c: Card) -> bool:
        return not self.outm[c.suit] >> (c.value + 1)

    def mine_count(self, suit: str) -> int:
        return self.minem[suit].bit_count()

    def top_mine(self, suit: str) -> int:
        """The value of the seat's highest card of ``suit`` (it holds one)."""
        return self.minem[suit].bit_length() - 1


class TricksAI(AI[Tricks]):
    """Deterministic card-counting follower; always legal, uses only its seat's knowledge."""

    #: Take a trick with a card that is not sure to win it once its chance is at least this.
    TAKE_CHANCE = 0.5
    #: Setting up a long suit before cashing bosses: only with more cards than this in hand, a suit
    #: at least this long, and at least this many of it still out (else there is nothing to set up).
    SETUP_CARDS, SETUP_LENGTH, SETUP_OUT = 8, 4, 4

    def choose(self, state: Tricks, seat: int, rng: random.Random) -> Action:
        legal = your_turn(state.legal_plays(seat))
        if len(legal) == 1:
            return _PLAY[legal[0]]
        return _PLAY[self.choose_card(state, seat, legal)]

    def choose_card(self, state: Tricks, seat: int, legal: list[Card]) -> Card:
        """The card to play out of ``legal`` (all of them legal now)."""
        return self.decide(state, _Knowledge(state, seat), legal)

    def decide(self, state: Tricks, k: _Knowledge, legal: list[Card]) -> Card:
        """The card to play out of ``legal`` given what the seat knows (``k``)."""
        if not state.trick:
            return self._lead(k, legal)
        led = state.trick[0][1].suit
        if legal[0].suit == led:
            return self._follow(state, k, legal)
        return self._discard(k, legal)

    # ---- following --------------------------------------------------------------------------
    def _follow(self, state: Tricks, k: _Knowledge, legal: list[Card]) -> Card:
        trick = state.trick
        suit = trick[0][1].suit
        best = max((c for _, c in trick if c.suit == suit), key=lambda c: c.value)
        lowest = min(legal, key=lambda c: c.value)
        beats = sorted((c for c in legal if c.value > best.value), key=lambda c: c.value)
        if not beats:
            return lowest
        # Players still to play who may hold the suit: only they can overtake us.
        after = [(trick[0][0] + i) % 4 for i in range(len(trick) + 1, 4)]
        threats = [s for s in after if suit not in k.void[s] and k.sizes[s] > 0]
        if not threats:
            return beats[0]
        holders = [s for s in range(4) if s != k.seat and suit not in k.void[s]]
        pool = sum(k.sizes[s] for s in holders)
        # The chance that one given card still out is with a player still to play, by hand sizes.
        p_after = sum(k.sizes[s] for s in threats) / pool if pool else 0.0
        for c in beats:
            higher = k.higher_out(c)
            if (1.0 - p_after) ** higher >= self.TAKE_CHANCE:
                return c
        return lowest

    # ---- discarding -------------------------------------------------------------------------
    def _discard(self, k: _Knowledge, legal: list[Card]) -> Card:
        def keep(c: Card) -> tuple[float, int]:
            higher = k.higher_out(c)
            value = 100.0 if higher == 0 else -float(higher)
            # A long suit's low cards may take the last tricks once the others run out of it.
            value += 0.5 * k.mine_count(c.suit)
            return (value, c.value)

        return min(legal, key=keep)

    # ---- leading ----------------------------------------------------------------------------
    def _lead(self, k: _Knowledge, legal: list[Card]) -> Card:
        others = [s for s in range(4) if s != k.seat]
        bosses = [c for c in legal if k.is_boss(c)]
        setup = self._setup_suit(k, legal, bosses) if bosses else None
        if setup is not None:
            return min((c for c in legal if c.suit == setup), key=lambda c: c.value)
        if bosses:
            def draw(c: Card) -> tuple[int, int, int]:
                # Players who will have to follow, and so give up cards of the suit.
                followers = sum(1 for s in others if c.suit not in k.void[s] and k.sizes[s] > 0)
                return (min(followers, k.out_count(c.suit)), k.mine_count(c.suit), -c.value)

            return max(bosses, key=draw)

        def length(c: Card) -> tuple[int, int, int]:
            top = k.top_mine(c.suit)
            return (k.mine_count(c.suit), -(k.outm[c.suit] >> (top + 1)).bit_count(), -c.value)

        suit = max(legal, key=length).suit
        return min((c for c in legal if c.suit == suit), key=lambda c: c.value)

    def _setup_suit(self, k: _Knowledge, legal: list[Card], bosses: list[Card]) -> str | None:
        """The long suit to lead low from before cashing ``bosses``, or ``None`` (cash now)."""
        if len(k.hand) <= self.SETUP_CARDS:
            return None
        others = [c for c in legal if not k.is_boss(c)]
        if not others:
            return None
        suit = max(others, key=lambda c: (k.mine_count(c.suit), -c.value)).suit
        if k.mine_count(suit) < self.SETUP_LENGTH or k.out_count(suit) < self.SETUP_OUT:
            return None
        # A boss in another suit is the way back to the lead once the long suit is set up.
        if not any(b.suit != suit for b in bosses):
            return None
        return suit


def play_out(state: Tricks, ai: TricksAI | None = None) -> None:
    """Play the current hand of the full state ``state`` (a sampled world, in a search) to its end
    with ``ai`` (the normal player by default) in every seat: the search's playouts.

    The same moves as asking ``ai.choose`` at every turn, only cheaper: instead of recounting each
    decision's knowledge from the hand's history, the counts are kept up to date play by play.  In
    a full state the cards a seat has not seen are exactly those the other seats hold, and who has
    shown out of a suit is public, so the counts are the very ones :class:`_Knowledge` would find
    (tests/engine/test_tricks_ai.py compares the two move by move)."""
    ai = ai or TricksAI()
    hand_no = state.hand_no
    void: list[set[str]] = [set() for _ in range(4)]
    for leader, _, cs in state.history:
        led = cs[0].suit
        for i, c in enumerate(cs):
            if c.suit != led:
                void[(leader + i) & 3].add(led)
    if state.trick:
        led = state.trick[0][1].suit
        for s, c in state.trick:
            if c.suit != led:
                void[s].add(led)
    held = [dict.fromkeys(_SUITS, 0) for _ in range(4)]
    for s, hand in enumerate(state.hands):
        for c in hand:
            held[s][c.suit] |= 1 << c.value
    # Every card not yet played, by suit: what a seat has not seen is this less its own hand.
    rem = {su: held[0][su] | held[1][su] | held[2][su] | held[3][su] for su in _SUITS}
    hands = state.hands
    while state.phase == "play" and state.hand_no == hand_no:
        turn = state.turn
        assert turn is not None  # in play, someone's turn
        s = turn
        legal = state.legal_plays(s)
        if len(legal) == 1:
            c = legal[0]
        else:
            mine = held[s]
            outm = {su: rem[su] & ~mine[su] for su in _SUITS}
            k = _Knowledge.counted(s, hands[s], outm, mine, void, [len(h) for h in hands])
            c = ai.decide(state, k, legal)
        if state.trick:
            led = state.trick[0][1].suit
            if c.suit != led:
                void[s].add(led)
        bit = 1 << c.value
        held[s][c.suit] ^= bit
        rem[c.suit] ^= bit
        state.apply(s, _PLAY[c])


def equivalent_runs(state: Tricks, seat: int, ai: TricksAI | None = None) -> list[Action]:
    """``seat``'s legal plays less the ones equivalent to another: of cards of a suit with only the
    seat's own cards and cards gone in earlier tricks between them, one (``ai``'s choice when it is
    among them, else the lowest).  Uses only what the seat sees: its hand and the finished tricks."""
    legal = state.legal_plays(seat)
    if len(legal) <= 1:
        return [_PLAY[c] for c in legal]
    pick = (ai or TricksAI()).choose_card(state, seat, legal)
    filled = dict.fromkeys(_SUITS, 0)  # values that separate nothing: the seat's or played before
    for c in state.hands[seat]:
        filled[c.suit] |= 1 << c.value
    for _, _, cs in state.history:
        for c in cs:
            filled[c.suit] |= 1 << c.value
    runs: list[list[Card]] = []
    for c in sorted(legal, key=lambda c: (c.suit, c.value)):
        run = runs[-1] if runs else None
        if run is not None and run[-1].suit == c.suit:
            between = ((1 << c.value) - 1) >> (run[-1].value + 1) << (run[-1].value + 1)
            if between & ~filled[c.suit] == 0:
                run.append(c)
                continue
        runs.append([c])
    keep = {pick if pick in run else run[0] for run in runs}
    return [_PLAY[c] for c in legal if c in keep]
