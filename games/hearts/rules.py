"""Hearts for four players, exactly as docs/rules.md §1 settles it.

Rule sets: ``classic`` (pass 3 cards left/right/across/hold, 2♣ opens, no points on the first
trick, hearts must be broken) and ``mcgill`` (the seed: no passing, the 2♣ holder leads any card,
no restrictions).  Options ``target`` (default 100) and ``moon`` (``others_plus_26`` or
``shooter_minus_26``).

Phases form a small state machine: ``pass`` → ``play`` → (next hand: ``pass`` or ``play``) … →
``over``.  Passing is simultaneous: every seat picks 3 cards, and the exchange happens once all
four have picked.

The phases live in their own modules, each a class the next one extends: deal.py (the deck, the
state and the deal), passing.py (the pass of 3 cards) and play.py (the tricks and the scoring);
this module puts them together as :class:`Hearts` (turns, decisions, applying an action, views,
saving and the search's hooks) and is the one other modules import: it re-exports the names they
use.  All four are compiled together with mypyc (tools/native.py).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

from engine.cards import Card, card, mypyc_attr
from engine.core import Action, Decision, Event, Game, IllegalAction, Option, Options, Outcome, Saved
from games.hearts.deal import (
    _PASS_OFFSET,
    DECK,
    OVER,
    PASS,
    PASS_TIMER,
    PLAY,
    PLAY_PHASE,
    PLAY_TIMER,
    QUEEN_SPADES,
    TWO_CLUBS,
    _index,
    _no_draw,
    _sorted,
    _take,
    _tuple_new,
)
from games.hearts.deal import PASS_DIRS as PASS_DIRS
from games.hearts.passing import _PENDING
from games.hearts.play import (
    _PLAY_AT,
    _PLAY_EVENTS,
    _SEAT_CARD,
    _SEAT_TUPLES,
    HEARTS,
    HeartsPlay,
)
from games.hearts.play import points_of as points_of
from games.hearts.view_types import HeartsView
from words import N_


# Hearts is compiled by mypyc with engine/cards.py (tools/build.py; search plays it most), and a compiled
# ("native") class cannot inherit from an interpreted one: so it (with the phases' classes it
# extends, compiled with it) implements the Game interface itself, is registered as a virtual
# subclass of Game at the end of this module, and its few uses of Game's shared code call it
# explicitly.  Interpreted subclasses stay allowed (tests use them);
# being native, the class itself cannot be monkeypatched.
@mypyc_attr(allow_interpreted_subclasses=True)
class Hearts(HeartsPlay):
    name: ClassVar[str] = "hearts"
    title: ClassVar[str] = "Hearts"
    min_players: ClassVar[int] = 4
    max_players: ClassVar[int] = 4
    options_spec: ClassVar[tuple[Option, ...]] = (
        Option("rules", "classic", ("classic", "mcgill"),
               help="classic: pass 3, 2♣ opens, hearts must break · mcgill: the seed's, no passing"),
        Option("target", 100, low=1, high=1000, help="the game ends when someone reaches it"),
        Option("moon", "others_plus_26", ("others_plus_26", "shooter_minus_26"),
               help="shooting the moon: everyone else +26, or the shooter −26"),
    )
    short_options: ClassVar[tuple[Options, ...]] = (
        {"rules": "classic", "target": 1},
        {"rules": "mcgill", "target": 1},
        {"rules": "classic", "target": 1, "moon": "shooter_minus_26"},
    )
    summary: ClassVar[str] = "Avoid hearts (1 each) and Q♠ (13); lowest score when someone reaches the target wins."
    rules_text: ClassVar[str] = (
        "**Hearts** — 4 players, 13 cards each, ace high.\n"
        "• The holder of 2♣ leads the first trick. Follow suit if you can; the highest card of the "
        "led suit wins and leads next.\n"
        "• Each heart you take scores 1, Q♠ scores 13.\n"
        "• Take all 13 hearts and Q♠ to shoot the moon: you score 0, everyone else +26.\n"
        "• The game ends after the hand in which someone reaches the target; lowest score wins.\n"
        "**Rule sets** (option `rules`):\n"
        "• `classic` (default): before each hand pass 3 cards — left, right, across, then hold; the "
        "first lead must be 2♣; no hearts or Q♠ on the first trick (unless you hold nothing else); "
        "hearts cannot be led until one has been played (unless you hold only hearts).\n"
        "• `mcgill`: no passing; the 2♣ holder leads any card; no first-trick limits and no "
        "hearts-broken rule."
    )

    @classmethod
    def action_from_code(cls, code: str) -> Action:
        return Action.parse(code)

    # ---- turns ------------------------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        turn = self.turn  # an int during play: narrowed, compiled code indexes with it unboxed
        if turn is not None and self.phase == PLAY_PHASE:
            return _SEAT_TUPLES[turn]
        if self.phase == PASS:
            choice = self.pass_choice
            return _PENDING[(choice[0] is None) | (choice[1] is None) << 1 | (choice[2] is None) << 2
                            | (choice[3] is None) << 3]
        return ()

    def decision(self, seat: int) -> Decision | None:
        if self.phase == PLAY_PHASE:
            if seat != self.turn:
                return None
            return Decision(seat, "play", tuple([PLAY[c] for c in self._legal_now(seat)]),
                            timer=PLAY_TIMER, prompt="Play a card.")
        if self.phase == PASS and self.pass_choice[seat] is None:
            to = self.pass_target(seat, self.pass_dir)
            return Decision(seat, "pass", pick=3, cards=tuple(_sorted(self.hands[seat])),
                            timer=PASS_TIMER, prompt=f"Choose 3 cards to pass {self.pass_dir} (to seat {to + 1}).")
        return None

    def random_action(self, seat: int, rng: random.Random) -> Action:
        turn = self.turn  # narrowed to an int, compiled code compares it unboxed
        if turn is not None and seat == turn and self.phase == PLAY_PHASE:
            # The same draw as picking from legal_plays(seat), without copying the list.
            split = self._legal
            trick = self.trick
            if rng is not self._rng:
                self._rng = rng
                self._rnd = rng.random
            if split is not None and trick:
                legal = split[seat * 4 + trick[0][1].suit_index] or self._legal_now(seat)  # following suit, inlined
            elif split is not None and self.classic and not self.hearts_broken and self.trick_no:
                # A lead before hearts broke (classic rules): with hearts and other cards in hand,
                # the legal cards are the hand's other cards; the one drawn is found in the hand
                # without building their list (what _legal_now returns, the same draw).
                hand = self.hands[seat]
                others = len(hand) - len(split[seat * 4 + HEARTS])
                if others and others < len(hand):
                    r0: float = self._rnd()
                    k = int(r0 * float(others))
                    for c in hand:
                        if c.suit_index != HEARTS:
                            if not k:
                                a = self._drawn = _PLAY_AT[c.index]
                                self._drawn_seat = seat
                                return a
                            k -= 1
                legal = hand
            else:
                legal = self._legal_now(seat)
            r: float = self._rnd()
            n = float(len(legal))  # r * n: the float product that r * len(legal) computes, unboxed
            a = self._drawn = _PLAY_AT[legal[int(r * n)].index]
            self._drawn_seat = seat
            return a
        if self.phase == PASS and self.pass_choice[seat] is None:
            # Three uniform draws without replacement: the bench's hot path, so no Decision built.
            # The hand is not copied: each draw's position among the cards left is mapped back to
            # the hand's (what popping the earlier draws from a copy would have picked).
            if rng is not self._rng:
                self._rng = rng
                self._rnd = rng.random
            h = self.hands[seat]
            left = len(h)
            r1: float = self._rnd()
            i1 = int(r1 * float(left))
            r2: float = self._rnd()
            i2 = int(r2 * float(left - 1))
            if i2 >= i1:
                i2 += 1
            r3: float = self._rnd()
            i3 = int(r3 * float(left - 2))
            if i3 >= (i1 if i1 < i2 else i2):
                i3 += 1
            if i3 >= (i2 if i1 < i2 else i1):
                i3 += 1
            a = self._drawn = _tuple_new(Action, ("pass", (h[i1], h[i2], h[i3]), ()))
            self._drawn_seat = seat
            return a
        return Game.random_action(self, seat, rng)

    def legal_actions(self, seat: int) -> list[Action]:
        return Game.legal_actions(self, seat)

    def table_timer(self) -> tuple[float, Action] | None:
        return None

    def timeout_action(self, seat: int) -> Action | None:
        return None

    def parse_action(self, seat: int, text: str) -> Action:
        if self.phase == PASS:
            t = text.strip()
            return Game.parse_action(self, seat, t[4:] if t.lower().startswith("pass") else t)
        if self.phase == PLAY_PHASE and seat == self.turn:
            t = text.strip()
            if t.lower().startswith("play "):
                t = t[5:]
            from engine.cards import CardError

            try:
                return PLAY[card(t)]
            except CardError as e:
                raise IllegalAction(e.phrase, "bad_card") from None
            except KeyError:
                raise IllegalAction(N_("Hearts has no jokers."), "bad_card") from None
        return Game.parse_action(self, seat, text)

    # ---- applying actions -------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> list[Event]:
        # The hot path first (search and the bench spend most of their time here): a card in turn,
        # that random_action just drew or that is legal, and that does not finish the trick.
        # Everything else takes the checked path, which names what is wrong, or finishes the trick.
        turn = self.turn  # narrowed to an int, compiled code compares it unboxed
        if turn is not None and seat == turn and self.phase == PLAY_PHASE:
            split = self._legal
            c: Card  # typed, so compiled code reads its attributes directly (Action.cards holds Any)
            if action is self._drawn and split is not None:
                c = action.cards[0]
            elif (action.kind == "play" and len(action.cards) == 1
                  and _index(self._legal_now(seat), action.cards[0]) >= 0):
                c = action.cards[0]
                split = self._legal
                if split is None:  # never: _legal_now has split the hands (this tells the compiler)
                    split = self._split()
            else:
                return self._apply_checked(seat, action)
            trick: list[Any] = self.trick  # Any: see _SEAT_CARD
            i = c.index
            if len(trick) < 3 and (self.hearts_broken or c.suit_index != HEARTS):
                _take(self.hands[seat], split[seat * 4 + c.suit_index], c)
                self._drawn = None
                trick.append(_SEAT_CARD[seat * 52 + i])
                self.turn = (seat + 1) & 3
                return [_PLAY_EVENTS[seat * 52 + i]]
            return self._play_legal(seat, c)
        return self._apply_checked(seat, action)

    def _apply_checked(self, seat: int, action: Action) -> list[Event]:
        kind = action.kind
        if kind == "play" and self.phase == PLAY_PHASE:
            return self._play(seat, action)  # refuses unknown seats as "not your turn"
        if self.phase == OVER:
            raise IllegalAction(N_("The game is over."), "game_over")
        if not 0 <= seat < 4:
            raise IllegalAction(N_("There is no such seat."), "bad_seat")
        if kind == "play":
            return self._play(seat, action)
        if kind == "pass":
            return self._pass(seat, action)
        raise IllegalAction(N_("'{kind}' is not a Hearts action."), "bad_action", kind=kind)

    # ---- views ------------------------------------------------------------------------------
    def public_view(self) -> HeartsView:
        lt = self.last_trick
        return {
            "game": "hearts",
            "rules": self.options["rules"],
            "target": self.options["target"],
            "phase": self.phase,
            "hand_no": self.hand_no,
            "pass_dir": self.pass_dir,
            "scores": list(self.scores),
            "hand_points": list(self.hand_points),
            "trick_no": self.trick_no,
            "trick": [[s, c.code] for s, c in self.trick],
            "leader": self.leader,
            "turn": self.turn,
            "hearts_broken": self.hearts_broken,
            "cards_left": [len(h) for h in self.hands],
            "passed": [p is not None for p in self.pass_choice] if self.phase == PASS else [True] * 4,
            "last_trick": None if lt is None else {
                "cards": [[s, c.code] for s, c in lt[2]], "winner": lt[0], "points": lt[1]},
        }

    def view(self, seat: int) -> HeartsView:
        v = self.public_view()
        v["seat"] = seat
        v["hand"] = [c.code for c in _sorted(self.hands[seat])]
        choice = self.pass_choice[seat] if self.phase == PASS else None
        v["passing"] = [c.code for c in (choice or self.passed[seat])]
        v["received"] = [c.code for c in self.received[seat]]
        return v

    def hidden_from(self, seat: int | None) -> set[str]:
        hidden: set[str] = set()
        for s in range(4):
            if s != seat:
                hidden.update(c.code for c in self.hands[s])
        if seat is not None:
            # You know where the cards you passed went.
            hidden.difference_update(c.code for c in self.passed[seat])
        return hidden

    def all_cards(self) -> list[Card]:
        out = [c for h in self.hands for c in h]
        out.extend(c for _, c in self.trick)
        out.extend(c for w in self.won for c in w)
        return out

    # ---- the end ----------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> Outcome | None:
        if self.phase != OVER:
            return None
        return Outcome.ranked(self.scores, lowest_wins=True)

    # ---- serialisation ----------------------------------------------------------------------
    def to_dict(self) -> Saved:
        def cs(x: Sequence[Card]) -> list[str]:
            return [c.code for c in x]

        return {
            "game": "hearts",
            "seed": self.seed,
            "options": dict(self.options),
            "hand_no": self.hand_no,
            "phase": self.phase,
            "hands": [cs(h) for h in self.hands],
            "pass_choice": [None if p is None else cs(p) for p in self.pass_choice],
            "passed": [cs(p) for p in self.passed],
            "received": [cs(p) for p in self.received],
            "trick": [[s, c.code] for s, c in self.trick],
            "trick_no": self.trick_no,
            "leader": self.leader,
            "turn": self.turn,
            "hearts_broken": self.hearts_broken,
            "won": [cs(w) for w in self.won],
            "hand_points": list(self.hand_points),
            "scores": list(self.scores),
            "last_trick": None if self.last_trick is None else [
                self.last_trick[0], self.last_trick[1], [[s, c.code] for s, c in self.last_trick[2]]],
            "history": [[lead, cs(t)] for lead, t in self.history],
        }

    @classmethod
    def from_dict(cls, data: Saved) -> Hearts:
        def cs(x: Sequence[str]) -> list[Card]:
            return [card(c) for c in x]

        g = cls()
        g.seed = data["seed"]
        g.options = cls.read_options(data["options"])
        g.classic = g.options["rules"] == "classic"
        g.hand_no = data["hand_no"]
        g.phase = data["phase"]
        g.hands = [cs(h) for h in data["hands"]]
        g.pass_choice = [None if p is None else tuple(cs(p)) for p in data["pass_choice"]]
        g.passed = [tuple(cs(p)) for p in data["passed"]]
        g.received = [tuple(cs(p)) for p in data["received"]]
        g.trick = [(s, card(c)) for s, c in data["trick"]]
        g.trick_no = data["trick_no"]
        g.leader = data["leader"]
        g.turn = data["turn"]
        g.hearts_broken = data["hearts_broken"]
        g.won = [cs(w) for w in data["won"]]
        g.hand_points = list(data["hand_points"])
        g.scores = list(data["scores"])
        lt = data["last_trick"]
        g.last_trick = None if lt is None else (lt[0], lt[1], tuple((s, card(c)) for s, c in lt[2]))
        # Snapshots written before the history existed have none: sample_world then infers less.
        g.history = [(lead, tuple(cs(t))) for lead, t in data.get("history", ())]
        return g

    # ---- search -----------------------------------------------------------------------------
    def copy(self) -> Hearts:
        # Attribute by attribute (a compiled class has no __dict__ to copy): keep in step with __init__.
        g = type(self).__new__(type(self))
        g.players = self.players
        g.seed = self.seed
        g.options = self.options
        g.start_events = []
        g.classic = self.classic
        g.hand_no = self.hand_no
        g.phase = self.phase
        g.hands = [h[:] for h in self.hands]
        g.pass_choice = self.pass_choice[:]
        g.passed = self.passed[:]
        g.received = self.received[:]
        g.trick = self.trick[:]
        g.trick_no = self.trick_no
        g.leader = self.leader
        g.turn = self.turn
        g.hearts_broken = self.hearts_broken
        g.won = [w[:] for w in self.won]
        g.hand_points = self.hand_points[:]
        g.scores = self.scores[:]
        g._last = self._last  # last_trick, shared: its pieces are never changed once taken
        g._last_cards = self._last_cards
        g._last_winner = self._last_winner
        g._last_points = self._last_points
        g.history = self.history[:]
        split = self._legal
        g._legal = None if split is None else [suited[:] for suited in split]
        g._drawn = None
        g._drawn_seat = -1
        g._rng = None
        g._rnd = _no_draw
        return g

    def knowledge(self, seat: int) -> tuple[list[set[Card]], list[list[Card]]]:
        """What ``seat`` can tell about the other hands: for each seat, the cards it may still hold
        (from the plays: a seat that did not follow is void; in classic rules a heart led before
        hearts broke, or a heart or Q♠ thrown on the first trick, means nothing else was held), and
        the cards it certainly holds (the ones ``seat`` passed it, not yet played)."""
        unseen = set(DECK)
        unseen.difference_update(self.hands[seat])
        for pile in self.won:
            unseen.difference_update(pile)
        unseen.difference_update(c for _, c in self.trick)
        may = [set(unseen) for _ in range(4)]
        may[seat] = set(self.hands[seat])
        hearts = {c for c in DECK if c.suit == "H"}
        suits = {s: {c for c in DECK if c.suit == s} for s in "CDHS"}
        broken = False
        tricks = [(lead, t) for lead, t in self.history]
        if self.trick:
            tricks.append((self.trick[0][0], tuple(c for _, c in self.trick)))
        for k, (lead, t) in enumerate(tricks):
            led = t[0].suit
            if self.classic and k > 0 and led == "H" and not broken:
                may[lead] &= hearts  # a heart led before hearts broke: only hearts were held
            for i, c in enumerate(t):
                p = (lead + i) & 3
                if i and c.suit != led:
                    may[p] -= suits[led]
                    if self.classic and k == 0 and (c.suit == "H" or c is QUEEN_SPADES):
                        may[p] &= hearts | {QUEEN_SPADES}  # points on the first trick: nothing clean held
                if c.suit == "H":
                    broken = True
        if self.phase == PLAY_PHASE and TWO_CLUBS in unseen:
            # The 2♣ holder leads the first trick (and in McGill rules may keep 2♣ for later).
            first = self.history[0][0] if self.history else self.leader
            for s in range(4):
                if s != first:
                    may[s].discard(TWO_CLUBS)
        sure: list[list[Card]] = [[], [], [], []]
        if self.phase == PLAY_PHASE and self.passed[seat]:
            to = (seat + _PASS_OFFSET[self.pass_dir]) % 4
            sure[to] = [c for c in self.passed[seat] if c in unseen]
        return may, sure

    def sample_world(self, seat: int, rng: random.Random) -> Hearts:
        """A full state ``seat`` cannot tell from this one (same view), the other hands dealt again
        at random consistently with what ``seat`` knows (see :meth:`knowledge`), and the passes
        it did not see chosen again consistently with that deal (see :meth:`_world_passes`); a
        fresh seed, so the world's later deals are unknown too.  Nothing hidden is copied: the
        world depends only on what the seat knows and on ``rng``."""
        from engine.worlds import deal_constrained, fresh_seed

        w = self.copy()
        w.seed = fresh_seed(rng)
        if self.phase != OVER:
            may, sure = self.knowledge(seat)
            others = [s for s in range(4) if s != seat]
            fixed = {c for s in others for c in sure[s]}
            pool = sorted((c for s in others for c in self.hands[s] if c not in fixed), key=lambda c: c.index)
            capacity = [len(self.hands[s]) - len(sure[s]) for s in others]
            allowed = [sum(1 << i for i, s in enumerate(others) if c in may[s]) for c in pool]
            dealt = deal_constrained(pool, allowed, capacity, rng)
            for i, s in enumerate(others):
                w.hands[s] = sure[s] + dealt[i]
                if self.phase == PASS and self.pass_choice[s] is not None:
                    w.pass_choice[s] = tuple(rng.sample(w.hands[s], 3))
            w._legal = None  # the per-suit split is rebuilt from the new hands when needed
        self._world_passes(w, seat, rng)
        return w

    def _world_passes(self, w: Hearts, seat: int, rng: random.Random) -> None:
        """This hand's passes in the world ``w`` (its hands already dealt): ``seat``'s own pass and
        the one it received as they were; every other pass, which ``seat`` never saw, drawn again
        as 3 of the cards its receiver held after the exchange in ``w`` (its hand now and its plays
        since), so that the normal AI playing that seat in a playout knows where its own passed
        cards went in this world, not in the real one."""
        passed: list[tuple[Card, ...]] = [(), (), (), ()]
        received: list[tuple[Card, ...]] = [(), (), (), ()]
        passed[seat] = self.passed[seat]
        received[seat] = self.received[seat]
        if self.phase != PASS and self.pass_dir != "hold":
            off = _PASS_OFFSET[self.pass_dir]
            held: list[list[Card]] = [w.hands[s][:] for s in range(4)]
            for lead, cs in self.history:
                for i, c in enumerate(cs):
                    held[(lead + i) & 3].append(c)
            for s, c in self.trick:
                held[s].append(c)
            for s in range(4):
                to = (s + off) & 3
                if s == seat or to == seat:
                    give = passed[s] if s == seat else received[seat]
                else:
                    cands = sorted(held[to], key=lambda c: c.index)
                    give = tuple(rng.sample(cands, min(3, len(cands))))
                passed[s] = give
                received[to] = give
            # After the exchange every seat's choice is what it passed (as in _pass).
            w.pass_choice = [passed[0], passed[1], passed[2], passed[3]]
        elif self.phase != PASS:
            w.pass_choice = [None, None, None, None]
        w.passed = passed
        w.received = received

Game.register(Hearts)
