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

The phases live in their own modules, each a class the next one extends: cards.py (the deck, the
sets and their words), deal.py (the opening draw, the state and the deal), taxes.py (the look, a
revolution and the taxes), play.py (the play of a hand) and reading.py (what players type); this
module puts them together as :class:`Dalmuti` (turns, decisions, applying an action, views,
saving and the search's hooks) and is the one other modules import: it re-exports the names they
use.  All five (cards.py too) are compiled together with mypyc (tools/native.py).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations
from operator import attrgetter
from typing import ClassVar

from engine.cards import mypyc_attr
from engine.core import (
    TABLE,
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
)
from engine.words import Either, echo, said, said_n
from games.dalmuti.cards import (
    _BY_CODE,
    _CLOSE_ONLY,
    _PLAYS,
    _REVOLT_ONLY,
    _SEAT_ALONE,
    _SPEC,
    _codes,
    _counts_of,
    _expand,
    _fits,
    _spec_of,
)
from games.dalmuti.cards import CARDS as CARDS
from games.dalmuti.cards import CLOSE_LOOK as CLOSE_LOOK
from games.dalmuti.cards import DECK as DECK
from games.dalmuti.cards import DECK_NUMBERS as DECK_NUMBERS
from games.dalmuti.cards import JESTER as JESTER
from games.dalmuti.cards import JESTER_NUMBER as JESTER_NUMBER
from games.dalmuti.cards import LOOK as LOOK
from games.dalmuti.cards import LOOK_TIMER as LOOK_TIMER
from games.dalmuti.cards import OVER as OVER
from games.dalmuti.cards import PASS_ACTION as PASS_ACTION
from games.dalmuti.cards import PLAY as PLAY
from games.dalmuti.cards import PLAY_TIMER as PLAY_TIMER
from games.dalmuti.cards import REVOLT as REVOLT
from games.dalmuti.cards import TAX as TAX
from games.dalmuti.cards import TAX_TIMER as TAX_TIMER
from games.dalmuti.cards import DCard as DCard
from games.dalmuti.cards import DCardError as DCardError
from games.dalmuti.cards import dcard as dcard
from games.dalmuti.cards import describe as describe
from games.dalmuti.cards import is_peon as is_peon
from games.dalmuti.cards import play_set as play_set
from games.dalmuti.cards import play_spec as play_spec
from games.dalmuti.cards import said_set as said_set
from games.dalmuti.cards import set_name as set_name
from games.dalmuti.cards import title_of as title_of
from games.dalmuti.deal import opening_draw as opening_draw
from games.dalmuti.play import DalmutiPlay
from games.dalmuti.reading import _readings
from games.dalmuti.view_types import CurrentPlay, DalmutiView, Tax
from words import N_

_number = attrgetter("number")

# Dalmuti is compiled by mypyc with its phases and cards (tools/native.py; search plays it most), and
# a compiled ("native") class cannot inherit from an interpreted one: so it (with the phases' classes
# it extends, compiled with it) implements the Game interface itself, is registered as a virtual
# subclass of Game at the end of this module, and its few uses of Game's shared code call it
# explicitly (as Hearts does).  Interpreted subclasses stay allowed; being native, the class itself
# cannot be monkeypatched.  Its title and table sizes are deal.py's (create checks them).
@mypyc_attr(allow_interpreted_subclasses=True)
class Dalmuti(DalmutiPlay):
    name: ClassVar[str] = "dalmuti"
    options_spec: ClassVar[tuple[Option, ...]] = (
        Option("hands", 5, low=1, high=50, help="how many hands the game lasts"),
        Option("pass", "locked", ("locked", "open"),
               help="locked: a passer sits out the rest of the round · open: a passer may play again"),
    )
    short_options: ClassVar[tuple[Options, ...]] = ({"hands": 1}, {"hands": 1, "pass": "open"})
    summary: ClassVar[str] = ("Climb from Peon to Dalmuti: beat the last play with as many cards of a lower number; "
                              "first out wins.")
    rules_text: ClassVar[str] = (
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

    # ---- turns ------------------------------------------------------------------------------
    def table_timer(self) -> tuple[float, Action] | None:
        return (LOOK_TIMER, CLOSE_LOOK) if self.phase == LOOK else None

    def timeout_action(self, seat: int) -> Action | None:
        return None

    @classmethod
    def trick_taken(cls, cards: Sequence[object], leader: int = 0) -> TrickTaken:
        raise NotImplementedError(f"{cls.title} is not a trick-taking game")

    def to_act(self) -> tuple[int, ...]:
        phase = self.phase
        turn = self.turn
        if phase == PLAY and turn is not None:  # in play, someone's turn
            return _SEAT_ALONE[turn]
        if phase == TAX:
            return (self._tax_parties()[0],)
        if phase == LOOK:
            # The holder's move is optional (the table ends the look), so the runtime neither names
            # nor pings nor hurries anyone while TABLE is here.
            return (TABLE,) if self.holder is None else (self.holder, TABLE)
        return ()

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
                what = describe(self.cur_action)  # type: ignore[arg-type]  # a play to beat (cur_num) has its action
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
        return Game.legal_actions(self, seat)

    def random_action(self, seat: int, rng: random.Random) -> Action:
        phase = self.phase
        if phase == PLAY and seat == self.turn:
            legal = self._legal
            if legal is None:
                self._legal = legal = self._compute_legal(seat)
            return legal[int(rng.random() * len(legal))]
        if phase == TAX:
            giver, _, k = self._tax_parties()
            if seat == giver:
                chosen = sorted(rng.sample(_expand(self.counts[seat]), k), key=_number)
                # Cards of the hand, as many as owed, in order: _give need not check them again.
                a = self._drawn = Action("give", tuple(chosen))
                return a
        elif phase == LOOK:
            # What Game.random_action draws from the decision's one action, without building it.
            if seat == TABLE:
                return rng.choice(_CLOSE_ONLY)  # type: ignore[no-any-return]
            if seat == self.holder:
                return rng.choice(_REVOLT_ONLY)  # type: ignore[no-any-return]
        return Game.random_action(self, seat, rng)

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
            if phase != LOOK or (action is not CLOSE_LOOK and action != CLOSE_LOOK):
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

    # ---- views ------------------------------------------------------------------------------
    def public_view(self) -> DalmutiView:
        n = self.players
        place: list[int | None] = [None] * n
        for i, s in enumerate(self.finish):
            place[s] = i + 1
        cur: CurrentPlay | None = None
        if self.cur_action is not None:
            m, a, b = _SPEC[self.cur_action]
            cur = {"cards": [c.code for c in self.cur_action.cards], "number": m, "count": a + b,
                   "jesters": b, "by": self.cur_by}
        tax: Tax | None = None
        if self.phase == TAX:
            giver, taker, k = self._tax_parties()
            tax = {"giver": giver, "receiver": taker, "count": k}
        v: DalmutiView = {
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

    def view(self, seat: int) -> DalmutiView:
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

    def all_cards(self) -> list[DCard]:
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
    def to_dict(self) -> Saved:
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
    def from_dict(cls, data: Saved) -> Dalmuti:
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
            g.cur_action = _PLAYS[spec]
            g.cur_num, g.cur_k, g.cur_by = spec[0], spec[1] + spec[2], cur["by"]
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
        # Attribute by attribute (a compiled class has no __dict__ to copy): keep in step with
        # DalmutiDeal.__init__.
        g = type(self).__new__(type(self))
        g.players = self.players
        g.seed = self.seed
        g.options = self.options
        g.locked = self.locked
        g.hand_no = self.hand_no
        g.phase = self.phase
        g.ranking = self.ranking[:]
        g.pos = self.pos[:]
        g.counts = [h[:] for h in self.counts]
        g.left = self.left[:]
        g.pile = self.pile[:]
        g.turn = self.turn
        g.leader = self.leader
        g.cur_num = self.cur_num
        g.cur_k = self.cur_k
        g.cur_action = self.cur_action
        g.cur_by = self.cur_by
        g.passed = self.passed[:]
        g.finish = self.finish[:]
        g.active = self.active
        g.scores = self.scores[:]
        g.history = self.history[:]
        g.revolution = self.revolution
        g.holder = self.holder
        g.tax_step = self.tax_step
        g.tax_given = [t[:] for t in self.tax_given]
        g.tax_received = [t[:] for t in self.tax_received]
        g.draw = self.draw
        g.start_events = []
        g._legal = None
        g._drawn = None
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

    def sample_world(self, seat: int, rng: random.Random) -> Dalmuti:
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


Game.register(Dalmuti)
