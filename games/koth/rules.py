"""King of the Hill for five players, exactly as docs/rules.md §4 settles it (seed 000).

A Finding Friends game: two 54-card decks (108 cards), 20 cards each and 8 to the dead hand; a
trump rank that follows the KotH's rank; trumps declared during a live, timed deal; a dead hand the
KotH takes and buries; a called card that secretly makes a teammate; singles and identical pairs;
ranks climbing from 2 to A over many rounds.  Trump order is a :class:`~games.koth.trump.Trump`
value passed to every comparison.

Phases (an explicit state machine; ``apply`` dispatches on (phase, action))::

    round_ready → deal → late → [suit] → bury → call → ([trick_ready] → play)* → round_ready … → over

* ``round_ready`` / ``trick_ready`` (docs/rules.md §4, step 2): every seat that has not yet said ``ready``
  has a ``ready`` decision whose timer is the option's delay (``ready_round``, default 5 s;
  ``ready_trick``, default 0 s).  A delay of 0 skips the step entirely.
* ``deal``: the table deals one card (``deal``) every ``deal_rate`` seconds, counter-clockwise
  (seat order) from the starting player, 100 cards in all.  Any seat that may declare has a
  ``declare`` decision (``declare 2H``, ``declare 2H 2H``).
* ``late``: the 3 s window for late declarations, closed by the table (``close``).
* ``suit`` (later rounds, nobody declared): the KotH must choose (``suit H``) within 5 s — a
  required move, asked and pinged like any other; at the deadline the runtime's timeout move (the
  AI's choice) stands in for the rules' random suit.
* ``bury``: the KotH has taken the dead hand (28 cards) and buries 8 (``bury`` + 8 cards, 60 s), at
  once or step by step: ``bury 5H 9S mark`` sets the KotH's private *marked* cards (at most 8; ``bury
  mark`` clears them) and ``bury`` alone buries exactly the 8 marked (see :meth:`KingOfTheHill._bury`).
* ``call``: the KotH calls a card (``call AH``: not a joker, not a trump-rank card; 15 s).  When the
  15 s pass, nobody is enlisted (``call nobody``, :meth:`KingOfTheHill.timeout_action`; never
  offered to a person): the KotH defends alone (RULES §4.6, seed step 11).
* ``play``: ``play 5H`` or ``play 5H 5H`` (10 s).

The runtime contract for timed table steps (seat :data:`~engine.core.TABLE` = -1):

1. ``table_timer()`` is not ``None`` exactly when ``TABLE`` is in ``to_act()`` (always last);
   ``decision(TABLE)`` then offers exactly that one action, so ``random_action(TABLE, rng)`` and
   ``apply(TABLE, action)`` work like any seat's, and a random playout needs no runtime.
2. The runtime applies the table's action when its (speed-scaled) delay has run out, counting from
   when the step appeared or from the table's own last action; other seats' moves do not restart
   it (a declaration does not slow the deal).
3. While ``TABLE`` is in ``to_act()``, the other seats' decisions are *optional*: the runtime sets
   no deadline for them and makes no timeout move (the table moves the game on).  An AI seat acts
   only when ``KothAI.choose_optional(state, seat, rng)`` returns an action.  Their ``timer`` is
   for display only (a declaration can come until the late window closes).
4. Seats that act while ``TABLE`` does are simultaneous: any one move may change or remove the
   others' decisions (a declared pair is final), so re-read ``to_act()`` after every move.

Timeouts of the KotH's suit (5 s) and bury (60 s), of a play (10 s) and of a ready (its delay) are
the runtime's: its timeout move (the AI) stands in for the rules' "random on timeout".  The call's
is not: :meth:`KingOfTheHill.timeout_action` names the move for it (nobody enlisted).

Randomness (from ``rng_for(seed, ...)`` only): the round-1 starting player (``"start"``), every
shuffle (``"deal", round``), and the fallbacks with nobody declaring (``"fallback", round``: round 1
draws a suit then a KotH; later rounds a suit when the KotH lets the 5 s pass).

What each seat sees: its hand, sorted by effective suit with trumps first; everyone sees the deal's
progress, every declaration, the trump, the KotH, the called card, the known defenders, the points
taken so far (by seat, and by seats not known to defend), the tricks and every player's rank.  The
8 dead-hand cards go to the King alone (a private ``dead_hand`` event and ``view["dead_hand"]``
while burying, with the cards marked so far in ``view["marked"]``); the buried cards stay private
to the King (``view["buried"]``) until the round is scored.  They are then shown in
``public_view()["last_round"]["dead_hand"]`` while the finished round is on the table (the
``round_ready`` step before the next round, or the end of the game; with ``ready_round`` 0 the next
deal starts at once and hides every code again) — not in an event: the scoring event carries only
numbers, since public events may show only the cards their own action put on the table.

Events (``Event.kind``, ``seat``, ``data``): ``round`` (start, (round, trump_rank, koth or -1));
``dealt`` (seat, (card,), to=seat); ``declare`` (seat, cards); ``trump`` (koth, (suit, rank,
declared|random|chosen)); ``suit_choice`` (koth, ()); ``dead_hand`` (koth, 8 cards, to=koth);
``buried`` (koth, ()); ``call`` (koth, (card,)), or (koth, ()) when the 15 s passed and nobody is
enlisted; ``ready`` (seat, ()); ``play`` (seat, cards);
``teammate`` (seat, (card,)) or ``alone`` (koth, (card,)) when the called copy is played;
``trick`` (winner, (trick_no, points)); ``hand_end`` (koth, (round, teammate or -1,
challenge_score, challenger_points, dead_hand_points, dead_hand_bonus, last_trick_winner,
next_koth, gain, r0..r4)) — one round scored, ranks after it as "2".."A"; ``game_end`` (None,
(r0..r4, *winner seats)).

The phases live in their own modules, each a class the next one extends: cards.py (the decks, the
phases' names and the actions), deal.py (the state, the deal and the declarations), bury.py, call.py,
play.py (the tricks and the scoring) and views.py (what each seat sees); this module puts them
together as :class:`KingOfTheHill` (turns, decisions, applying an action, saving and the search's
hooks) and is the one other modules import: it re-exports the names they use.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.cards import Card, CardError, card
from engine.cards import cards as read_cards
from engine.core import TABLE, Action, Decision, Event, IllegalAction, Option, Saved
from engine.scaffold import copied
from engine.words import said
from games.koth.cards import (
    _KINDS,
    _READY_ONLY,
    _SEAT_ALONE,
    BURY,
    BURY_TIMER,
    CALL,
    CALL_NOBODY,
    CALL_TIMER,
    CLOSE_ACTION,
    DEAD,
    DEAL,
    DEAL_ACTION,
    LATE,
    LATE_WINDOW,
    MARK,
    OVER,
    PLAY,
    PLAY_TIMER,
    PLAYERS,
    ROUND_READY,
    SUIT,
    SUIT_ACTIONS,
    SUIT_TIMER,
    SUIT_WORDS,
    SUITS,
    TRICK_READY,
)
from games.koth.cards import ACE as ACE
from games.koth.cards import CONFIRM_BURY as CONFIRM_BURY
from games.koth.cards import DEALT as DEALT
from games.koth.cards import DECK as DECK
from games.koth.cards import DEFEND_BELOW as DEFEND_BELOW
from games.koth.cards import HAND as HAND
from games.koth.cards import RANKS as RANKS
from games.koth.cards import READY_ACTION as READY_ACTION
from games.koth.cards import points_of as points_of
from games.koth.cards import rank_char as rank_char
from games.koth.play import trick_winner as trick_winner
from games.koth.trump import Trump
from games.koth.views import KothViews
from words import N_

#: What :meth:`KingOfTheHill.copy` copies (``engine.scaffold.copied``): lists, lists of lists, caches reset.
_FLAT = ("ranks", "ready", "stock", "declarations", "dead", "marked", "buried", "trick", "points", "history",
         "winners", "_pairs")
_NESTED = ("hands", "taken", "_tr")
_CACHES = ("_legal", "_legal_plays", "_legal_set", "_play_decision", "_drawn")


class KingOfTheHill(KothViews):
    name = "koth"
    title = "King of the Hill"
    min_players = max_players = 5
    options_spec = (
        Option("rounds", 0, low=0, high=200,
               help="0: play until a King or teammate defends at rank A; otherwise stop after this many "
                    "rounds, highest rank wins"),
        Option("called_copy", "first", ("first", "second"),
               help="which copy of the called card makes its player the King's teammate"),
        Option("dead_hand_multiplier", 2, low=0, high=10,
               help="the dead hand's points count this many times when a challenger takes the last trick"),
        Option("deal_rate", 2, (2, 1, 0.5, 3), help="seconds between dealt cards"),
        Option("ready_round", 5, low=0, high=60, help="seconds before an automatic ready before a round (0: none)"),
        Option("ready_trick", 0, low=0, high=60, help="seconds before an automatic ready before a trick (0: none)"),
    )
    short_options = (
        {"rounds": 1, "deal_rate": 0.5},
        {"rounds": 1, "called_copy": "second", "dead_hand_multiplier": 3, "ready_round": 0},
        {"rounds": 1, "ready_round": 1, "ready_trick": 1, "deal_rate": 1},
    )
    summary = "Five players, two decks: declare trumps during the deal, call a secret teammate, defend the hill."
    rules_text = (
        "**King of the Hill** — 5 players, two decks with jokers (108 cards), 20 each, 8 to the dead hand.\n"
        "• Everyone has a rank from 2 to A. The trump rank is the King's rank (2 in round 1).\n"
        "• Cards are dealt one at a time. Holding a trump-rank card, you may declare its suit as trumps; "
        "after a single only an identical pair overrides it, and a pair is final. Round 1's declarer is the King.\n"
        "• Trumps: red joker, black joker, trump rank in the trump suit, trump rank in other suits "
        "(equal: the first played wins), then the trump suit from A down to 2.\n"
        "• The King takes the dead hand, buries 8 cards and calls a card: whoever first plays it "
        "(option: second copy) secretly joins the defenders.\n"
        "• Lead one card or an identical pair; follow with a pair of the led suit if you can, else as "
        "many cards of the led suit as you have. Highest card (or identical pair) of the led suit or "
        "trumps wins.\n"
        "• 5s score 5, tens and kings 10. Challengers under 80 points: defenders climb 1-3 ranks; "
        "80 or more: the hill changes hands, and from 120 challengers climb 1-3 ranks.\n"
        "• Defend successfully while at rank A to win the game."
    )

    # ---- turns ------------------------------------------------------------------------------
    def table_timer(self) -> tuple[float, Action] | None:
        ph = self.phase
        if ph == DEAL:
            return (float(self.options["deal_rate"]), DEAL_ACTION)
        if ph == LATE:
            return (LATE_WINDOW, CLOSE_ACTION)
        return None

    def timeout_action(self, seat: int) -> Action | None:
        """The move the rules make for ``seat`` when its deadline passes, where it is not the AI's
        choice (RULES §4.9): the call's 15 s passing enlists nobody (§4.6).  ``None``: the AI's."""
        if self.phase == CALL and seat == self.koth:
            return CALL_NOBODY
        return None

    def to_act(self) -> tuple[int, ...]:
        ph = self.phase
        if ph == PLAY:
            return _SEAT_ALONE[self.turn]  # type: ignore[index]  # in play, someone's turn (an int)
        if ph == DEAL or ph == LATE:
            acting = self._acting
            if acting is None:
                acting = self._acting = self._declarers() + (TABLE,)
            return acting
        if ph == SUIT or ph == BURY or ph == CALL:
            return (self.koth,)  # type: ignore[return-value]  # these phases have a King (an int)
        if ph == ROUND_READY or ph == TRICK_READY:
            return tuple(s for s in range(PLAYERS) if not self.ready[s])
        return ()

    def decision(self, seat: int) -> Decision | None:
        ph = self.phase
        if seat == TABLE:
            tt = self.table_timer()
            if tt is None:
                return None
            prompt = {"deal": "Deal the next card.", "close": "Close the window."}[tt[1].kind]
            return Decision(TABLE, tt[1].kind, (tt[1],), timer=tt[0], prompt=prompt)
        if ph == PLAY:
            if seat != self.turn:
                return None
            d = self._play_decision  # asked for again and again until the play: built once
            if d is None:
                d = self._play_decision = Decision(
                    seat, "play", tuple(self.legal_play_actions(seat)), timer=PLAY_TIMER,
                    prompt="Lead a card or an identical pair." if not self.trick else "Follow the lead.")
            return d
        if ph == DEAL or ph == LATE:
            opts = self.declare_options(seat)
            if not opts:
                return None
            return Decision(seat, "declare", tuple(opts), timer=self._declare_timer(),
                            prompt=f"You may declare trumps with a {self.trump.rank} (optional).")
        if not 0 <= seat < PLAYERS:
            return None
        if ph == ROUND_READY or ph == TRICK_READY:
            return None if self.ready[seat] else self._ready_decision(seat)
        if seat != self.koth:
            return None
        if ph == SUIT:
            return Decision(seat, "suit", tuple(SUIT_ACTIONS[s] for s in SUITS), timer=SUIT_TIMER,
                            prompt="Nobody declared: choose the trump suit.")
        if ph == BURY:
            # One clock for the whole bury: marking cards (see _bury) must not restart it.
            return Decision(seat, "bury", pick=DEAD, cards=tuple(self.sorted_hand(seat)), timer=BURY_TIMER,
                            prompt="Bury 8 cards.", clock_key=f"bury {self.round_no}")
        if ph == CALL:
            return Decision(seat, "call", self._call_actions(), timer=CALL_TIMER,
                            prompt="Call a card: whoever plays it joins you.")
        return None

    def random_action(self, seat: int, rng: random.Random) -> Action:
        ph = self.phase
        if ph == PLAY and seat == self.turn:
            legal = self._legal
            if legal is None:
                legal = self._legal = self._compute_legal(seat)
                self._legal_plays = self._legal_set = None
            a = self._drawn = legal[int(rng.random() * len(legal))]
            return a
        if ph == DEAL and seat == TABLE:
            return DEAL_ACTION
        if (ph == DEAL or ph == LATE) and 0 <= seat < PLAYERS:
            # What Game.random_action draws from the decision's actions, without building its prompt.
            opts = self.declare_options(seat)
            if opts:
                return rng.choice(opts)  # type: ignore[no-any-return]
        elif (ph == ROUND_READY or ph == TRICK_READY) and 0 <= seat < PLAYERS and not self.ready[seat]:
            return rng.choice(_READY_ONLY)  # type: ignore[no-any-return]  # as from the decision's one action
        elif ph == CALL and seat == self.koth:
            return rng.choice(self._call_actions())  # type: ignore[no-any-return]
        if ph == BURY and seat == self.koth:
            # Always the bury itself (never a marking step), so it is also a sound move at a
            # timeout: the cards the KotH marked, and random others to make 8.
            if not self.marked:
                return Action("bury", tuple(rng.sample(self.hands[seat], DEAD)))
            rest = self.unmarked(seat)
            return Action("bury", (*self.marked, *rng.sample(rest, DEAD - len(self.marked))))
        return super().random_action(seat, rng)

    def parse_action(self, seat: int, text: str) -> Action:
        t = text.strip().lower()
        if self.phase == SUIT and seat == self.koth:
            word = t[5:].strip() if t.startswith("suit ") else t
            if word in SUIT_WORDS:
                return SUIT_ACTIONS[SUIT_WORDS[word]]
        if self.phase == PLAY and seat == self.turn and t.startswith("play "):
            text = text.strip()[5:]
        if self.phase == BURY and seat == self.koth and t.split()[-1:] == [MARK]:
            words = t.split()[:-1]
            try:
                return Action("bury", read_cards(" ".join(words[1:] if words[:1] == ["bury"] else words)), (MARK,))
            except CardError as e:
                raise IllegalAction(e.phrase, "bad_card") from None
        return super().parse_action(seat, text)

    # ---- applying actions -------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> list[Event]:
        ph = self.phase
        if ph == PLAY and seat == self.turn and action.kind == "play":  # the hot path of every trick
            return self._play(seat, action)
        if action is DEAL_ACTION and ph == DEAL and seat == TABLE:  # the deal's next card: the hot path of every deal
            return self._deal()
        if ph == OVER:
            raise IllegalAction(N_("The game is over."), "game_over")
        kind = action.kind
        if seat == TABLE:
            if ph == DEAL and action is DEAL_ACTION:  # the deal's next card: the hot path of every deal
                return self._deal()
            tt = self.table_timer()
            if ph == SUIT and action == CLOSE_ACTION:
                return self._close_suit()  # logs written while the suit choice was a table step
            if tt is None or action != tt[1]:
                raise IllegalAction(N_("The table has nothing to do right now."), "not_your_turn")
            if kind == "deal":
                return self._deal()
            return self._close_late()
        if not 0 <= seat < PLAYERS:
            raise IllegalAction(N_("There is no such seat."), "bad_seat")
        if kind == "play" and ph == PLAY:
            return self._play(seat, action)
        if kind == "declare" and (ph == DEAL or ph == LATE):
            return self._declare(seat, action)
        if kind == "ready" and (ph == ROUND_READY or ph == TRICK_READY):
            return self._ready(seat, action)
        if kind == "suit" and ph == SUIT:
            return self._choose_suit(seat, action)
        if kind == "bury" and ph == BURY:
            return self._bury(seat, action)
        if kind == "call" and ph == CALL:
            return self._call(seat, action)
        if kind in ("deal", "close"):
            raise IllegalAction(N_("The table does that by itself."), "not_your_turn")
        if kind in _KINDS:
            raise IllegalAction(said(N_("That is not possible now: {phase}."), english=f"You can't {kind} now: "
                                     f"{self._phase_text()}.", phase=said(self._phase_text())), "wrong_phase")
        raise IllegalAction(N_("'{kind}' is not a King of the Hill action."), "bad_action", kind=kind)

    def _phase_text(self) -> str:
        return {
            ROUND_READY: N_("the round has not started yet"), DEAL: N_("the cards are being dealt"),
            LATE: N_("the deal is over and late declarations are open"), SUIT: N_("the King is choosing trumps"),
            BURY: N_("the King is burying 8 cards"), CALL: N_("the King is calling a card"),
            TRICK_READY: N_("everyone is getting ready for the trick"), PLAY: N_("a trick is being played"),
        }[self.phase]

    # ---- serialisation ----------------------------------------------------------------------
    def to_dict(self) -> Saved:
        def cs(x: Sequence[Card]) -> list[str]:
            return [c.code for c in x]

        def plays(x: Sequence[tuple[int, tuple[Card, ...]]]) -> list[list[int | list[str]]]:
            return [[s, cs(p)] for s, p in x]

        lt = self.last_trick
        return {
            "game": "koth",
            "seed": self.seed,
            "options": dict(self.options),
            "ranks": list(self.ranks),
            "round_no": self.round_no,
            "start": self.start,
            "koth": self.koth,
            "phase": self.phase,
            "ready": list(self.ready),
            "stock": cs(self.stock),
            "deal_count": self.deal_count,
            "hands": [cs(h) for h in self.hands],
            "declared": None if self.declared is None else [self.declared[0], self.declared[1].code, self.declared[2]],
            "declarations": [[s, c.code, n] for s, c, n in self.declarations],
            "trump": [self.trump.suit, self.trump.rank],
            "trump_how": self.trump_how,
            "dead": cs(self.dead),
            "marked": cs(self.marked),
            "buried": cs(self.buried),
            "called": None if self.called is None else self.called.code,
            "called_seen": self.called_seen,
            "teammate": self.teammate,
            "call_done": self.call_done,
            "trick": plays(self.trick),
            "trick_no": self.trick_no,
            "leader": self.leader,
            "turn": self.turn,
            "taken": [cs(t) for t in self.taken],
            "points": list(self.points),
            "last_trick": None if lt is None else [lt[0], lt[1], plays(lt[2])],
            "last_round": None if self.last_round is None else dict(self.last_round),
            "winners": list(self.winners),
            "history": [plays(t) for t in self.history],
        }

    @classmethod
    def from_dict(cls, data: Saved) -> KingOfTheHill:
        def cs(x: Sequence[str]) -> list[Card]:
            return [card(c) for c in x]

        def plays(x: Sequence[Any]) -> list[tuple[int, tuple[Card, ...]]]:
            return [(s, tuple(cs(p))) for s, p in x]

        g = cls()
        g.seed = data["seed"]
        g.options = cls.read_options(data["options"])
        g.ranks = list(data["ranks"])
        g.round_no = data["round_no"]
        g.start = data["start"]
        g.koth = data["koth"]
        g.phase = data["phase"]
        g.ready = list(data["ready"])
        g.stock = cs(data["stock"])
        g.deal_count = data["deal_count"]
        g.hands = [cs(h) for h in data["hands"]]
        d = data["declared"]
        g.declared = None if d is None else (d[0], card(d[1]), d[2])
        g.declarations = [(s, card(c), n) for s, c, n in data["declarations"]]
        g.trump = Trump(data["trump"][0], data["trump"][1])
        g.trump_how = data["trump_how"]
        g.dead = cs(data["dead"])
        g.marked = cs(data.get("marked", ()))  # absent from snapshots written before marking existed
        g.buried = cs(data["buried"])
        g.called = None if data["called"] is None else card(data["called"])
        g.called_seen = data["called_seen"]
        g.teammate = data["teammate"]
        g.call_done = data["call_done"]
        g.trick = plays(data["trick"])
        g.trick_no = data["trick_no"]
        g.leader = data["leader"]
        g.turn = data["turn"]
        g.taken = [cs(t) for t in data["taken"]]
        g.points = list(data["points"])
        lt = data["last_trick"]
        g.last_trick = None if lt is None else (lt[0], lt[1], tuple(plays(lt[2])))
        g.last_round = None if data["last_round"] is None else dict(data["last_round"])
        g.winners = list(data["winners"])
        # Absent from snapshots written before search: sample_world then infers less.
        g.history = [tuple(plays(t)) for t in data.get("history", ())]
        g._reset_derived()
        return g

    # ---- search (see engine/worlds.py) ----------------------------------------------------------
    def copy(self) -> KingOfTheHill:
        return copied(self, _FLAT, _NESTED, _CACHES)

    def sample_world(self, seat: int, rng: random.Random) -> KingOfTheHill:
        """A full state ``seat`` cannot tell from this one (same view): every card it has not seen
        (other hands, the stock, the buried cards unless it is the KotH) dealt again at random,
        consistently with what it knows — declared trump-rank cards stay with their declarer until
        played (or, for the KotH, possibly buried); a seat that played fewer cards of the led suit
        than were led holds none of it; a seat that answered a pair lead with two unpaired cards of
        the suit holds no pair of it, nor another copy of those cards.  A fresh seed, so later deals
        are unknown too."""
        from engine.worlds import deal_constrained, fresh_seed

        w = self.copy()
        w.seed = fresh_seed(rng)
        if self.phase == OVER:
            self._world_dead(w, seat, rng)
            return w
        order = self._order
        others = [s for s in range(PLAYERS) if s != seat]
        holders: list[tuple[str, int]] = [("hand", s) for s in others]
        capacity = [len(self.hands[s]) for s in others]
        pool: list[Card] = [c for s in others for c in self.hands[s]]
        if self.stock:
            holders.append(("stock", -1))
            capacity.append(len(self.stock))
            pool.extend(self.stock)
        buried_hidden = bool(self.buried) and seat != self.koth and not self._finished_round_shown()
        if buried_hidden:
            holders.append(("buried", -1))
            capacity.append(len(self.buried))
            pool.extend(self.buried)
        if not pool:
            self._world_dead(w, seat, rng)
            return w
        pool.sort(key=lambda c: c.index)
        hand_bit = {s: 1 << i for i, s in enumerate(others)}
        every = (1 << len(holders)) - 1
        void: dict[int, set[str]] = {s: set() for s in others}
        nopair: dict[int, set[str]] = {s: set() for s in others}
        barred: dict[int, set[Card]] = {s: set() for s in others}
        tricks = list(self.history) + ([tuple(self.trick)] if self.trick else [])
        for k, t in enumerate(tricks):
            lead = t[0][1]
            led = order[lead[0]][0]
            for p, cs in t[1:]:
                if p == seat:
                    continue
                n = sum(1 for c in cs if order[c][0] == led)
                if n < len(lead):
                    void[p].add(led)
                elif len(lead) == 2 and cs[0] is not cs[1]:
                    nopair[p].add(led)
                    # Another copy of a card it played from the suit then or later would have made
                    # a pair it had to play.
                    for later in tricks[k:]:
                        for q, qs in later:
                            if q == p:
                                barred[p].update(c for c in qs if order[c][0] == led)
        # Declared cards: the declarer showed them, so holds them until played (or buried).
        need: dict[tuple[int, Card], int] = {}
        for s, c, n in self.declarations:
            if s != seat:
                need[(s, c)] = max(need.get((s, c), 0), n)
        played_by: dict[tuple[int, Card], int] = {}
        for t in tricks:
            for p, cs in t:
                for c in cs:
                    played_by[(p, c)] = played_by.get((p, c), 0) + 1
        forced: dict[Card, list[int]] = {}
        for (s, c), n in need.items():
            left = n - played_by.get((s, c), 0)
            if left > 0:
                mask = hand_bit[s]
                if buried_hidden and s == self.koth:
                    mask |= 1 << holders.index(("buried", -1))
                forced.setdefault(c, []).extend([mask] * left)
        allowed: list[int] = []
        for c in pool:
            fm = forced.get(c)
            if fm:
                allowed.append(fm.pop())
                continue
            m = every
            suit = order[c][0]
            for s in others:
                if suit in void[s] or c in barred[s]:
                    m &= ~hand_bit[s]
            allowed.append(m)
        ok = None
        if any(nopair.values()):
            seat_of = {i: s for i, (kind, s) in enumerate(holders) if kind == "hand"}

            def ok(h: int, c: Card, dealt: list) -> bool:
                s = seat_of.get(h)
                return s is None or order[c][0] not in nopair[s] or c not in dealt

        dealt = deal_constrained(pool, allowed, capacity, rng, ok)
        for (kind, s), got in zip(holders, dealt, strict=True):
            if kind == "hand":
                w.hands[s] = got
            elif kind == "stock":
                rng.shuffle(got)
                w.stock = got
            else:
                w.buried = got
        self._world_dead(w, seat, rng)
        w._reset_derived()
        return w

    def _world_dead(self, w: KingOfTheHill, seat: int, rng: random.Random) -> None:
        """The dead hand in the world ``w`` (its cards dealt): known only to the seat that took
        it, which between rounds is the last round's KotH (it may have lost the hill since); for
        any other seat, during the bury 8 of the KotH's cards in ``w``, later what was buried."""
        taker = self.koth
        if self.last_round is not None and self._finished_round_shown():
            taker = self.last_round["koth"]
        if seat == taker or self.koth is None:
            return
        if self.phase == BURY:
            w.dead = rng.sample(w.hands[self.koth], DEAD)
            w.marked = []
        elif self.dead:
            w.dead = list(w.buried)
