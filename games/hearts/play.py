"""The play of a hand of Hearts and its scoring (docs/rules.md §1): the cards a seat may play
(follow suit; with the classic rules 2♣ opens, no points on the first trick, and hearts are led
only once broken), a play, who takes a trick and its points (a heart 1, Q♠ 13), and the end of a
hand: shooting the moon, the scores, and the end of the game at the target."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from engine.cards import Card, mypyc_attr
from engine.core import Action, Event, IllegalAction, TrickTaken
from engine.words import said
from games.hearts.deal import (
    DECK,
    OVER,
    PLAY,
    PLAY_PHASE,
    QUEEN_SPADES,
    TWO_CLUBS,
    _event,
    _index,
    _remove,
    _take,
)
from games.hearts.passing import HeartsPassing
from words import N_


def points_of(c: Card) -> int:
    if c.suit == "H":
        return 1
    return 13 if c is QUEEN_SPADES else 0


# Tables indexed by ``card.index`` (0..51, suit by suit in C D H S order: the suit's number is
# ``suit_index``), or by ``seat * 52 + card.index``: a list read, cheaper than a dict lookup.
HEARTS: Final = 2  # the suit number of hearts
_POINTS: Final[list[int]] = [points_of(c) for c in DECK]
_PLAY_AT: Final[list[Action]] = [PLAY[c] for c in DECK]
# Events are immutable, so the 208 possible "seat played card" events are built once and shared.
_PLAY_EVENTS: Final[list[Event]] = [Event("play", seat, (c,)) for seat in range(4) for c in DECK]
# The trick's (seat, card) pairs, shared for the same reason.  Typed Any: compiled code copies a
# ``tuple[int, Card]`` read from a list into a new tuple when it stores it again.
_SEAT_CARD: Final[list[Any]] = [(seat, c) for seat in range(4) for c in DECK]
_HEARTS_BROKEN: Final[tuple[Event, ...]] = tuple(Event("hearts_broken", seat, ()) for seat in range(4))
# What to_act returns during play: asked before every move, so shared rather than built.
_SEAT_TUPLES: Final[tuple[tuple[int, ...], ...]] = ((0,), (1,), (2,), (3,))
_ONLY_TWO_CLUBS: Final = [TWO_CLUBS]


# Compiled by mypyc with the rest of Hearts' rules: see the note on the class in rules.py.
@mypyc_attr(allow_interpreted_subclasses=True)
class HeartsPlay(HeartsPassing):
    """The tricks of a hand and its score."""

    @classmethod
    def trick_taken(cls, cards: Sequence[Card], leader: int = 0) -> TrickTaken:
        """Who takes a full trick of ``cards`` in play order led by seat ``leader`` (the highest
        card of the suit led), with which card, for how many points.  Play itself scores a trick
        with the same rule unrolled (``_play_legal``: the hot path of every playout)."""
        best = cards[0]
        taker = 0
        for i in range(1, len(cards)):
            c = cards[i]
            if c.suit == best.suit and c.value > best.value:
                best = c
                taker = i
        points = 0
        for c in cards:
            points += _POINTS[c.index]
        return TrickTaken((leader + taker) % 4, best, points)

    def legal_plays(self, seat: int) -> list[Card]:
        """Cards ``seat`` may play now, in hand order (empty when it is not their turn)."""
        if self.phase != PLAY_PHASE or seat != self.turn:
            return []
        return list(self._legal_now(seat))

    def _legal_now(self, seat: int) -> list[Card]:
        """The cards the seat to play may play.  Often one of the state's own lists (the hand, or
        the split's list of the suit led), so callers read it and never change or keep it."""
        split = self._legal
        if split is None:
            split = self._split()
        hand = self.hands[seat]
        trick = self.trick
        if not trick:
            if not self.classic:
                return hand
            if self.trick_no == 0:
                return _ONLY_TWO_CLUBS
            if self.hearts_broken:
                return hand
            hearts = len(split[seat * 4 + HEARTS])
            if hearts and hearts < len(hand):
                return [c for c in hand if c.suit_index != HEARTS]
            return hand
        follow = split[seat * 4 + trick[0][1].suit_index]
        if follow:
            return follow
        if self.classic and self.trick_no == 0:
            clean = [c for c in hand if c.suit_index != HEARTS and c is not QUEEN_SPADES]
            return clean or hand
        return hand

    def _play(self, seat: int, action: Action) -> list[Event]:
        if self.phase != PLAY_PHASE:
            raise IllegalAction(N_("Cards are being passed; play starts once everyone has passed."), "wrong_phase")
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        cs: tuple[Card, ...] = action.cards
        if len(cs) != 1:
            raise IllegalAction(N_("Play exactly one card."), "wrong_count")
        c = cs[0]
        if _index(self._legal_now(seat), c) < 0:
            if _index(self.hands[seat], c) < 0:
                raise IllegalAction(N_("{card} is not in your hand."), "not_in_hand", card=c)
            raise IllegalAction(self._why_illegal(seat, c), "illegal_card")
        return self._play_legal(seat, c)

    def _play_legal(self, seat: int, c: Card) -> list[Event]:
        """Carry out a play already validated: from here on nothing can fail."""
        i = c.index
        split = self._legal
        if split is None:
            _remove(self.hands[seat], c)
            split = self._split()
        else:
            _take(self.hands[seat], split[seat * 4 + c.suit_index], c)
        self._drawn = None
        trick = self.trick
        shared: list[Any] = trick  # see _SEAT_CARD
        shared.append(_SEAT_CARD[seat * 52 + i])
        played = _PLAY_EVENTS[seat * 52 + i]
        broke = not self.hearts_broken and c.suit_index == HEARTS
        if broke:
            self.hearts_broken = True
        if len(trick) < 4:
            self.turn = (seat + 1) & 3
            return [played, _HEARTS_BROKEN[seat]] if broke else [played]
        # Each pair read as a typed tuple (its items taken out directly; unpacking the list's pairs
        # would make compiled code build an iterator over each).
        p0: tuple[int, Card] = trick[0]
        p1: tuple[int, Card] = trick[1]
        p2: tuple[int, Card] = trick[2]
        p3: tuple[int, Card] = trick[3]
        s0, c0 = p0[0], p0[1]
        s1, c1 = p1[0], p1[1]
        s2, c2 = p2[0], p2[1]
        s3, c3 = p3[0], p3[1]
        led = c0.suit_index
        winner, best = s0, c0.value
        if c1.suit_index == led and c1.value > best:
            winner, best = s1, c1.value
        if c2.suit_index == led and c2.value > best:
            winner, best = s2, c2.value
        if c3.suit_index == led and c3.value > best:
            winner = s3
        pts = _POINTS[c0.index] + _POINTS[c1.index] + _POINTS[c2.index] + _POINTS[c3.index]
        cards4: tuple[Card, ...] = (c0, c1, c2, c3)  # one tuple object, shared (not rebuilt per use)
        self.won[winner].extend(cards4)
        self.hand_points[winner] += pts
        trick_no = self.trick_no
        taken = _event("trick", winner, (trick_no, pts, c0, c1, c2, c3))
        # The events' list made at its length (not grown by appends: each growth reallocates).
        events = [played, _HEARTS_BROKEN[seat], taken] if broke else [played, taken]
        self._last_cards = trick  # last_trick, made when read
        self._last_winner = winner
        self._last_points = pts
        self.history.append((s0, cards4))
        self.trick = []
        self.trick_no = trick_no + 1
        self.leader = self.turn = winner
        if trick_no == 12:
            self._end_hand(events)
        return events

    def _why_illegal(self, seat: int, c: Card) -> str:
        if not self.trick:
            if self.classic and self.trick_no == 0:
                return N_("The first trick must be opened with 2♣.")
            return N_("Hearts have not been broken yet, so you cannot lead a heart.")
        led = self.trick[0][1]
        if any(h.suit == led.suit for h in self.hands[seat]):
            return said(N_("You must follow suit ({card} was led)."), card=led)
        return N_("No hearts or Q♠ on the first trick while you hold anything else.")

    def _end_hand(self, events: list[Event]) -> None:
        pts = list(self.hand_points)
        moon = -1
        for s in range(4):
            if pts[s] == 26:
                moon = s
        if moon >= 0:
            if self.options["moon"] == "others_plus_26":
                pts = [0 if s == moon else 26 for s in range(4)]
            else:
                pts = [-26 if s == moon else 0 for s in range(4)]
        for s in range(4):
            self.scores[s] += pts[s]
        scores = self.scores
        events.append(_event("hand_end", None, (pts[0], pts[1], pts[2], pts[3], moon,
                                                scores[0], scores[1], scores[2], scores[3])))
        if max(scores) >= self.options["target"]:
            self.phase = OVER
            self.turn = None
            events.append(_event("game_end", None, (scores[0], scores[1], scores[2], scores[3])))
            return
        self.hand_no += 1
        self._start_hand(None, events)
