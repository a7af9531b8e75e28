"""Tricks for four players, exactly as docs/rules.md §2 settles it (seed 004).

52 cards, 13 each, follow suit, the highest card of the led suit wins, 1 point per trick, no trumps.

The order of a hand.  Seats sit 0, 1, 2, 3 and play always goes round in seat order.  Hand ``h``
(counted from 0) has the order ``h % 4, h % 4 + 1, ...`` (mod 4): its *first player* is seat
``h % 4``, who leads the first trick.  So after each hand the first player becomes the last and the
second becomes the first, as the seed's README says.  The winner of a trick leads the next one,
and the others follow in seat order from the leader.  Every point goes straight into the running
score, so the protocol can report the winner's running total after each trick.

The game ends after the hand (complete or abandoned) at whose end some score is at least the
option ``target`` (default 1000, as in the seed); the highest score wins, ties share first place.

The bad-card rule is for program players only.  The runtime (``tables.programs.arena``) applies the action
``bad`` for the program whose turn it is when it answered with something that is not a legal card,
did not answer in time, or exited: that player loses 100 points, a public ``bad_card`` event is
emitted, the hand is abandoned (its tricks already won keep their points) and a fresh hand is
dealt.  An abandoned hand counts as a hand: the hand number advances and the order rotates.
``bad`` is accepted by :meth:`Tricks.apply` but never listed in :meth:`Tricks.decision`, so
:meth:`~engine.core.Game.random_action`, the AI and every button made from the decision never pick
it, and :meth:`Tricks.parse_action` never reads it from what a person typed: people are never
penalised, an illegal card from them is refused and they choose again.  Its action code is
``bad`` followed by a short text (what the program sent, or why it sent nothing): ``bad floober``.

Phases: ``play`` → ``over``; a new hand is dealt inside the action that ends the previous one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.cards import ALL_CARDS, Card, CardError, card, four_hands_of_thirteen, sort_key
from engine.core import (
    Action,
    Decision,
    Event,
    Game,
    IllegalAction,
    Option,
    Options,
    Outcome,
    Saved,
    TrickTaken,
    rng_for,
    shuffled,
)
from engine.scaffold import EndsOver, copied, restored, saved, started
from games.tricks.view_types import TricksView
from words import N_

DECK: tuple[Card, ...] = ALL_CARDS[:52]
PLAY: dict[Card, Action] = {c: Action("play", (c,)) for c in DECK}
BAD = "bad"
BAD_CARD_PENALTY = 100
#: How much of a bad answer the public event keeps: enough to see what went wrong, no more.
BAD_TEXT_MAX = 40
PLAY_TIMER = 30.0

PLAY_PHASE, OVER = "play", "over"

_SORT_POS = {c: sort_key(c) for c in DECK}
_SUIT_CARDS = {s: tuple(c for c in DECK if c.suit == s) for s in "CDHS"}
_PLAY_EVENTS = [{c: Event("play", seat, (c,)) for c in DECK} for seat in range(4)]
_sorted = lambda cs: sorted(cs, key=_SORT_POS.__getitem__)  # noqa: E731


def order_of_hand(hand_no: int) -> tuple[int, int, int, int]:
    """The seats in the order of hand ``hand_no``, first player first."""
    f = hand_no % 4
    return (f, (f + 1) % 4, (f + 2) % 4, (f + 3) % 4)


def clean_bad_text(text: str) -> str:
    """What a bad answer said, made safe to show and to carry in one action code: printable, one
    line, no protocol separators, short."""
    out = "".join(ch if ch.isprintable() and ch != "|" else "?" for ch in " ".join(text.split()))
    return out[:BAD_TEXT_MAX]


class Tricks(EndsOver, Game[Card, TricksView]):
    name = "tricks"
    title = "Tricks"
    min_players = max_players = 4
    options_spec = (
        Option("target", 1000, low=1, high=100_000,
               help="the game ends after the hand in which someone reaches it (1000 is for program contests)"),
    )
    # Someone takes at least 4 of a hand's 13 tricks, so these end after the first hand.
    short_options = ({"target": 4}, {"target": 1})
    summary = "Win tricks: 1 point each, follow suit, no trumps; highest score at the target wins."
    rules_text = (
        "**Tricks** — 4 players, 13 cards each, ace high, no trumps.\n"
        "• Follow the led suit if you can; otherwise play anything.\n"
        "• The highest card of the led suit wins the trick (1 point) and leads the next.\n"
        "• After each hand the lead moves one place round the table: whoever led a hand plays last in "
        "the next.\n"
        "• Scores add up across hands; the game ends after the hand in which someone reaches the "
        "target. Highest score wins."
    )

    # ---- creation ---------------------------------------------------------------------------
    def __init__(self) -> None:  # use create() or from_dict()
        self.players = 4
        self.seed: int | str = 0
        self.options: Options = {}
        self.hand_no = 0
        self.phase = PLAY_PHASE
        self.hands: list[list[Card]] = [[], [], [], []]
        self.trick: list[tuple[int, Card]] = []
        self.trick_no = 0
        self.leader = 0
        self.turn: int | None = 0
        # This hand's finished tricks as (leader, winner, cards in play order): public, and what a
        # player who counts cards remembers.
        self.history: list[tuple[int, int, tuple[Card, ...]]] = []
        self.scores = [0, 0, 0, 0]
        self.bad_cards = [0, 0, 0, 0]
        self._legal: list[Card] | None = None

    @classmethod
    def create(cls, players: int = 4, options: Options | None = None, seed: int | str = 0,
               deal: Sequence[Sequence[Card]] | None = None) -> Tricks:
        g = started(cls, players, options, seed, "Tricks needs exactly 4 players.")
        hands = None if deal is None else four_hands_of_thirteen(deal, "Tricks")
        events: list[Event] = []
        g.start_events = events
        g._start_hand(hands, events)
        return g

    def _deal(self) -> list[list[Card]]:
        # One generator per hand number, so an abandoned hand's replacement is a fresh deal.
        rnd = rng_for(self.seed, "deal", self.hand_no).random
        deck = shuffled(DECK, rnd)
        return [deck[0::4], deck[1::4], deck[2::4], deck[3::4]]

    @property
    def order(self) -> tuple[int, int, int, int]:
        """This hand's order of seats, first player (the first trick's leader) first."""
        return order_of_hand(self.hand_no)

    @property
    def target(self) -> int:
        return self.options["target"]

    def _start_hand(self, hands: list[list[Card]] | None, events: list[Event]) -> None:
        self.hands = hands if hands is not None else self._deal()
        self.trick = []
        self.trick_no = 0
        self.history = []
        self._legal = None
        self.phase = PLAY_PHASE
        self.leader = self.turn = self.hand_no % 4
        events.extend(self.opening_events())

    def opening_events(self) -> list[Event]:
        """The events that open the current hand: ``deal``, the four private ``dealt`` and the first
        ``trick_start``.  :meth:`create` has nobody to hand them to, so a runtime that speaks to
        the players (the arena) asks for them once after creating the game."""
        if self.trick_no or self.trick or self.phase != PLAY_PHASE:
            raise ValueError("The hand has already begun.")
        events = [Event("deal", None, (self.hand_no, *self.order))]
        for s in range(4):
            events.append(Event("dealt", s, tuple(self.hands[s]), s))
        events.append(self._trick_start())
        return events

    def _trick_start(self) -> Event:
        lead = self.leader
        return Event("trick_start", lead, (self.trick_no, lead, (lead + 1) % 4, (lead + 2) % 4, (lead + 3) % 4))

    # ---- turns ------------------------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        turn = self.turn
        return (turn,) if turn is not None and self.phase == PLAY_PHASE else ()

    def legal_plays(self, seat: int) -> list[Card]:
        """Cards ``seat`` may play now (empty when it is not their turn)."""
        if self.phase != PLAY_PHASE or seat != self.turn:
            return []
        cached = self._legal
        if cached is None:
            hand = self.hands[seat]
            if self.trick:
                led = self.trick[0][1].suit
                cached = [c for c in hand if c.suit == led] or list(hand)
            else:
                cached = list(hand)
            self._legal = cached
        return cached

    def decision(self, seat: int) -> Decision | None:
        if self.phase != PLAY_PHASE or seat != self.turn:
            return None
        # ``bad`` is deliberately absent: it is the runtime's penalty for a program, not a choice.
        return Decision(seat, "play", tuple(PLAY[c] for c in self.legal_plays(seat)),
                        timer=PLAY_TIMER, prompt="Play a card.")

    def random_action(self, seat: int, rng: random.Random) -> Action:
        legal = self.legal_plays(seat)
        if not legal:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        return PLAY[legal[int(rng.random() * len(legal))]]

    def parse_action(self, seat: int, text: str) -> Action:
        if self.phase != PLAY_PHASE or seat != self.turn:
            raise IllegalAction(N_("You have nothing to decide right now."), "not_your_turn")
        t = text.strip()
        if t.lower().startswith("play "):
            t = t[5:]
        try:
            return PLAY[card(t)]
        except (CardError, KeyError) as e:  # (a joker is a card, but not one of this deck)
            raise IllegalAction(e.phrase if isinstance(e, CardError) else N_("Tricks has no jokers."),
                                "bad_card") from None

    # ---- applying actions -------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> list[Event]:
        if self.phase == OVER:
            raise IllegalAction(N_("The game is over."), "game_over")
        if not 0 <= seat < 4:
            raise IllegalAction(N_("There is no such seat."), "bad_seat")
        kind = action.kind
        if kind == "play":
            return self._play(seat, action)
        if kind == BAD:
            return self._bad(seat, action)
        raise IllegalAction(N_("'{kind}' is not a Tricks action."), "bad_action", kind=kind)

    def _play(self, seat: int, action: Action) -> list[Event]:
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        cs = action.cards
        if len(cs) != 1 or action.args:
            raise IllegalAction(N_("Play exactly one card."), "wrong_count")
        c = cs[0]
        legal = self._legal
        if legal is None:
            legal = self.legal_plays(seat)
        if c not in legal:
            if c not in self.hands[seat]:
                raise IllegalAction(N_("{card} is not in your hand."), "not_in_hand", card=c)
            first = self.trick[0][1]
            raise IllegalAction(N_("You must follow suit ({card} was led)."), "must_follow", card=first)
        # Validated: from here on nothing can fail.
        self.hands[seat].remove(c)
        self._legal = None
        trick = self.trick
        trick.append((seat, c))
        events = [_PLAY_EVENTS[seat][c]]
        if len(trick) < 4:
            self.turn = (seat + 1) & 3
            return events
        (s0, c0), (s1, c1), (s2, c2), (s3, c3) = trick
        led = c0.suit
        winner, best = s0, c0
        if c1.suit == led and c1.value > best.value:
            winner, best = s1, c1
        if c2.suit == led and c2.value > best.value:
            winner, best = s2, c2
        if c3.suit == led and c3.value > best.value:
            winner, best = s3, c3
        self.scores[winner] += 1
        events.append(Event("trick", winner, (self.trick_no, self.scores[winner], c0, c1, c2, c3)))
        self.history.append((s0, winner, (c0, c1, c2, c3)))
        self.trick = []
        self.trick_no += 1
        self.leader = self.turn = winner
        if self.trick_no == 13:
            self._end_hand(events, abandoned=False)
        else:
            events.append(self._trick_start())
        return events

    @classmethod
    def trick_taken(cls, cards: Sequence[Card], leader: int = 0) -> TrickTaken:
        """Who takes a full trick of ``cards`` in play order led by seat ``leader`` (the highest
        card of the suit led; no trumps), with which card; a trick is worth 1 point.  ``_play``
        scores with the same rule unrolled (the hot path of every playout)."""
        best, taker = cards[0], 0
        for i, c in enumerate(cards):
            if c.suit == best.suit and c.value > best.value:
                best, taker = c, i
        return TrickTaken((leader + taker) % 4, best, 1)

    def _bad(self, seat: int, action: Action) -> list[Event]:
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        what = clean_bad_text(" ".join([c.code for c in action.cards] + list(action.args)))
        self.scores[seat] -= BAD_CARD_PENALTY
        self.bad_cards[seat] += 1
        events = [Event("bad_card", seat, (what, self.scores[seat]))]
        self._end_hand(events, abandoned=True)
        return events

    def hand_tricks(self) -> list[int]:
        """Tricks each seat has taken in the current hand."""
        won = [0, 0, 0, 0]
        for _, w, _ in self.history:
            won[w] += 1
        return won

    def _end_hand(self, events: list[Event], abandoned: bool) -> None:
        events.append(Event("hand_end", None, (self.hand_no, int(abandoned), *self.hand_tricks(), *self.scores)))
        if max(self.scores) >= self.target:
            self.phase = OVER
            self.turn = None
            self._legal = None
            events.append(Event("game_end", None, tuple(self.scores)))
            return
        self.hand_no += 1
        self._start_hand(None, events)

    # ---- views ------------------------------------------------------------------------------
    def public_view(self) -> TricksView:
        last = self.history[-1] if self.history else None
        return {
            "game": "tricks",
            "target": self.target,
            "phase": self.phase,
            "hand_no": self.hand_no,
            "order": list(self.order),
            "scores": list(self.scores),
            "hand_tricks": self.hand_tricks(),
            "trick_no": self.trick_no,
            "trick": [[s, c.code] for s, c in self.trick],
            "leader": self.leader,
            "turn": self.turn,
            "cards_left": [len(h) for h in self.hands],
            "bad_cards": list(self.bad_cards),
            "last_trick": None if last is None else {
                "cards": [[(last[0] + i) % 4, c.code] for i, c in enumerate(last[2])],
                "winner": last[1], "points": 1},
        }

    def view(self, seat: int) -> TricksView:
        v = self.public_view()
        v["seat"] = seat
        v["hand"] = [c.code for c in _sorted(self.hands[seat])]
        return v

    def hidden_from(self, seat: int | None) -> set[str]:
        return {c.code for s in range(4) if s != seat for c in self.hands[s]}

    def all_cards(self) -> list[Card]:
        out = [c for h in self.hands for c in h]
        out.extend(c for _, c in self.trick)
        out.extend(c for _, _, cs in self.history for c in cs)
        return out

    # ---- the end ----------------------------------------------------------------------------
    def final_outcome(self) -> Outcome:
        return Outcome.ranked(self.scores)

    # ---- serialisation ----------------------------------------------------------------------
    def to_dict(self) -> Saved:
        return saved(
            self,
            hand_no=self.hand_no,
            phase=self.phase,
            hands=[[c.code for c in h] for h in self.hands],
            trick=[[s, c.code] for s, c in self.trick],
            trick_no=self.trick_no,
            leader=self.leader,
            turn=self.turn,
            history=[[lead, win, [c.code for c in cs]] for lead, win, cs in self.history],
            scores=list(self.scores),
            bad_cards=list(self.bad_cards))

    @classmethod
    def from_dict(cls, data: Saved) -> Tricks:
        g = restored(cls, data)
        g.hand_no = data["hand_no"]
        g.phase = data["phase"]
        g.hands = [[card(c) for c in h] for h in data["hands"]]
        g.trick = [(s, card(c)) for s, c in data["trick"]]
        g.trick_no = data["trick_no"]
        g.leader = data["leader"]
        g.turn = data["turn"]
        g.history = [(lead, win, tuple(card(c) for c in cs)) for lead, win, cs in data["history"]]
        g.scores = list(data["scores"])
        g.bad_cards = list(data["bad_cards"])
        return g

    # ---- search -----------------------------------------------------------------------------
    def copy(self) -> Tricks:
        return copied(self, ("trick", "history", "scores", "bad_cards"), ("hands",), ("_legal",))

    def knowledge(self, seat: int) -> list[set[Card]]:
        """For each seat, the cards it may still hold as ``seat`` can tell: unseen cards, less the
        suits it has shown out of."""
        unseen = set(DECK)
        unseen.difference_update(self.hands[seat])
        for _, _, cs in self.history:
            unseen.difference_update(cs)
        unseen.difference_update(c for _, c in self.trick)
        may = [set(unseen) for _ in range(4)]
        may[seat] = set(self.hands[seat])
        tricks = [(lead, cs) for lead, _, cs in self.history]
        if self.trick:
            tricks.append((self.trick[0][0], tuple(c for _, c in self.trick)))
        for lead, cs in tricks:
            led = cs[0].suit
            for i, c in enumerate(cs):
                if i and c.suit != led:
                    may[(lead + i) & 3] -= {x for x in DECK if x.suit == led}
        return may

    def likely(self, seat: int) -> list[set[Card]]:
        """:meth:`knowledge` narrowed by what sound play shows, from the public plays alone.

        With every trick worth a point to its taker and no trumps, a card of the led suit that
        cannot take the trick is best the lowest one held (a higher card never takes fewer tricks
        later), and the last to play, who sees the whole trick, takes it when it can and with the
        cheapest card that does.  So a follower that played under the best card on the table holds
        no lower card of the suit; the last player, if it played under, holds none that would have
        won either, and if it won, none between the card it beat and the card it won with.  A
        person may play otherwise: :meth:`sample_world` falls back to :meth:`knowledge` when these
        reads admit no deal."""
        may = self.knowledge(seat)
        tricks = [(lead, cs) for lead, _, cs in self.history]
        if self.trick:
            tricks.append((self.trick[0][0], tuple(c for _, c in self.trick)))
        for lead, cs in tricks:
            led = cs[0].suit
            best = cs[0].value
            for i in range(1, len(cs)):
                c = cs[i]
                if c.suit != led:
                    continue
                s = (lead + i) & 3
                if c.value < best:
                    # Under the best card: nothing lower held (and, last to play, nothing that won).
                    may[s] -= {x for x in _SUIT_CARDS[led] if x.value < c.value or (i == 3 and x.value > best)}
                else:
                    if i == 3:
                        may[s] -= {x for x in _SUIT_CARDS[led] if best < x.value < c.value}
                    best = c.value
        may[seat] = set(self.hands[seat])
        return may

    def sample_world(self, seat: int, rng: random.Random) -> Tricks:
        """A full state ``seat`` cannot tell from this one (same view): the other hands dealt again
        at random, respecting the voids shown and the reads of :meth:`likely` (only the voids when
        the reads admit no deal); a fresh seed, so later deals are unknown too."""
        from engine.worlds import NoWorld, deal_constrained, fresh_seed

        w = self.copy()
        w.seed = fresh_seed(rng)
        others = [s for s in range(4) if s != seat]
        pool = sorted((c for s in others for c in self.hands[s]), key=lambda c: c.index)
        sizes = [len(self.hands[s]) for s in others]
        try:
            may = self.likely(seat)
            allowed = [sum(1 << i for i, s in enumerate(others) if c in may[s]) for c in pool]
            dealt = deal_constrained(pool, allowed, sizes, rng, tries=2)
        except NoWorld:
            may = self.knowledge(seat)
            allowed = [sum(1 << i for i, s in enumerate(others) if c in may[s]) for c in pool]
            dealt = deal_constrained(pool, allowed, sizes, rng)
        for i, s in enumerate(others):
            w.hands[s] = dealt[i]
        return w
