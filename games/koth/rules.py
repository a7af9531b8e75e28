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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from engine.cards import Card, CardError, card, deck
from engine.cards import cards as read_cards
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
from engine.words import said, said_n, suit
from games.koth.trump import TRUMPS, Trump
from words import N_

PLAYERS = 5
HAND = 20
DEAD = 8
DEALT = PLAYERS * HAND
DECK: tuple[Card, ...] = tuple(deck(jokers=True, copies=2))
RANKS = "23456789TJQKA"
ACE = 14
SUITS = "CDHS"
SUIT_WORDS = {"c": "C", "club": "C", "clubs": "C", "♣": "C", "d": "D", "diamond": "D", "diamonds": "D", "♦": "D",
              "h": "H", "heart": "H", "hearts": "H", "♥": "H", "s": "S", "spade": "S", "spades": "S", "♠": "S"}
LATE_WINDOW = 3.0
SUIT_TIMER = 5.0
BURY_TIMER = 60.0
CALL_TIMER = 15.0
PLAY_TIMER = 10.0
DEFEND_BELOW = 80  # a challenge score under this is a successful defence

ROUND_READY, DEAL, LATE, SUIT, BURY, CALL, TRICK_READY, PLAY, OVER = (
    "round_ready", "deal", "late", "suit", "bury", "call", "trick_ready", "play", "over")

#: The word that makes a ``bury`` action a step of the choice rather than the bury itself.
MARK = "mark"
CONFIRM_BURY = Action("bury")

DEAL_ACTION = Action("deal")
CLOSE_ACTION = Action("close")
READY_ACTION = Action("ready")
SUIT_ACTIONS = {s: Action("suit", (), (s,)) for s in SUITS}
_DISTINCT = sorted(set(DECK), key=lambda c: c.index)
_DECLARE_ONE = {c: Action("declare", (c,)) for c in _DISTINCT}
_DECLARE_TWO = {c: Action("declare", (c, c)) for c in _DISTINCT}
_CALL = {c: Action("call", (c,)) for c in _DISTINCT}
#: The call's timeout move (RULES §4.6): no card called, the KotH defends alone.  Not offered.
CALL_NOBODY = Action("call", (), ("nobody",))
_DEALT_EVENTS = [{c: Event("dealt", s, (c,), s) for c in _DISTINCT} for s in range(PLAYERS)]
_POINTS = {c: (5 if c.rank == "5" else 10 if c.rank in "TK" else 0) for c in _DISTINCT}
# Play actions are immutable values, so each distinct one is built once.
_PLAYS: dict[tuple[Card, ...], Action] = {}

# Which actions belong to which phases, so a wrong one gets "not now" rather than "unknown".
_KINDS = {"ready", "deal", "close", "declare", "suit", "bury", "call", "play"}


def points_of(cs: Sequence[Card]) -> int:
    """Points in ``cs``: 5s count 5, tens and kings 10 (200 in the double deck)."""
    return sum(_POINTS[c] for c in cs)


def rank_char(rank: int) -> str:
    return RANKS[rank - 2]


def _play_action(cs: tuple[Card, ...]) -> Action:
    a = _PLAYS.get(cs)
    if a is None:
        a = _PLAYS[cs] = Action("play", cs)
    return a


def _canon(cs: Sequence[Card]) -> tuple[Card, ...]:
    """Two cards in one fixed order, so ``play 3H 5H`` and ``play 5H 3H`` are the same play."""
    if len(cs) == 2 and cs[0].index > cs[1].index:
        return (cs[1], cs[0])
    return tuple(cs)


def _distinct(cs: Sequence[Card]) -> list[Card]:
    return list(dict.fromkeys(cs))


def _pairs_in(cs: Sequence[Card]) -> list[Card]:
    seen: set[Card] = set()
    out: list[Card] = []
    for c in cs:
        if c in seen:
            out.append(c)
        else:
            seen.add(c)
    return out


def trick_winner(trump: Trump, trick: Sequence[tuple[int, tuple[Card, ...]]]) -> int:
    """The seat winning ``trick`` (``[(seat, cards), ...]``, the lead first) so far (docs/rules.md §4, step 9):
    the highest single, or identical pair, of the led suit or of trumps; of equal plays the first."""
    order = trump.table()
    lead = trick[0][1]
    pair = len(lead) == 2
    winner = trick[0][0]
    best_suit, best = order[lead[0]][:2]
    for s, p in trick[1:]:
        if pair and p[0] is not p[1]:
            continue  # only an identical pair can win a pair lead
        suit, strength = order[p[0]][:2]
        if suit == best_suit:
            if strength > best:  # strictly: of equal plays the first wins
                winner, best = s, strength
        elif suit == TRUMPS:  # a trump over the led plain suit
            winner, best_suit, best = s, suit, strength
    return winner


class KingOfTheHill(Game):
    name = "koth"
    title = "King of the Hill"
    min_players = 5
    max_players = 5
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

    # ---- creation ---------------------------------------------------------------------------
    def __init__(self) -> None:  # use create() or from_dict()
        self.players = PLAYERS
        self.seed: int | str = 0
        self.options: dict[str, Any] = {}
        self.ranks = [2] * PLAYERS
        self.round_no = 1
        self.start = 0
        self.koth: int | None = None
        self.phase = ROUND_READY
        self.ready = [False] * PLAYERS
        self.stock: list[Card] = []  # undealt cards, the next one last; the final 8 are the dead hand
        self.deal_count = 0
        self.hands: list[list[Card]] = [[] for _ in range(PLAYERS)]
        self.declared: tuple[int, Card, int] | None = None
        self.declarations: list[tuple[int, Card, int]] = []
        self.trump = Trump(None, "2")
        self.trump_how: str | None = None
        self.dead: list[Card] = []  # the 8 cards the KotH took
        self.marked: list[Card] = []  # the KotH's bury choice so far (private), in hand order
        self.buried: list[Card] = []
        self.called: Card | None = None
        self.called_seen = 0
        self.teammate: int | None = None
        self.call_done = False
        self.trick: list[tuple[int, tuple[Card, ...]]] = []
        self.trick_no = 0
        self.leader: int | None = None
        self.turn: int | None = None
        self.taken: list[list[Card]] = [[] for _ in range(PLAYERS)]
        self.points = [0] * PLAYERS
        self.last_trick: tuple[int, int, tuple[tuple[int, tuple[Card, ...]], ...]] | None = None
        # This round's finished tricks, each as its plays [(seat, cards), ...] lead first: public,
        # and what sample_world reads voids from.
        self.history: list[tuple[tuple[int, tuple[Card, ...]], ...]] = []
        self.last_round: dict[str, Any] | None = None
        self.winners: list[int] = []
        self._reset_derived()

    def _reset_derived(self) -> None:
        # Derived from the hands, kept incrementally because the deal is the hot path.
        self._order = self.trump.table()
        self._tr: list[list[Card]] = [[] for _ in range(PLAYERS)]  # trump-rank cards held, per seat
        self._pairs = [0] * PLAYERS  # identical trump-rank pairs held, per seat
        self._legal: list[tuple[Card, ...]] | None = None
        self._legal_set: set[tuple[Card, ...]] | None = None
        self._play_decision: Decision | None = None
        if self.phase in (DEAL, LATE):
            for s in range(PLAYERS):
                for c in self.hands[s]:
                    self._count_rank_card(s, c)

    @classmethod
    def create(
        cls,
        players: int = PLAYERS,
        options: dict[str, Any] | None = None,
        seed: int | str = 0,
        deal: Sequence[Sequence[Card]] | None = None,
    ) -> KingOfTheHill:
        """``deal``: five lists of 20 cards in the order each seat receives them, optionally a sixth
        list of the 8 dead-hand cards (else the rest of the double deck); it replaces round 1's
        shuffle, the dealing order (from the starting player) is kept."""
        if players != PLAYERS:
            raise ValueError("King of the Hill needs exactly 5 players.")
        g = cls()
        g.seed = seed
        g.options = cls.read_options(options)
        g.start = rng_for(seed, "start").randrange(PLAYERS)
        g.stock = cls._stock_from(deal, g.start) if deal is not None else g._shuffled(1)
        if g.options["ready_round"] > 0:
            g.phase = ROUND_READY
        else:
            events: list[Event] = []
            g.start_events = events
            g._begin_round(events)
        return g

    @staticmethod
    def _stock_from(deal: Sequence[Sequence[Card]], start: int) -> list[Card]:
        hands = [list(h) for h in deal]
        if len(hands) not in (PLAYERS, PLAYERS + 1) or any(len(h) != HAND for h in hands[:PLAYERS]):
            raise ValueError("A King of the Hill deal is 5 hands of 20 cards (and optionally the 8-card dead hand).")
        rest = Counter(DECK)
        rest.subtract(c for h in hands for c in h)
        if any(n < 0 for n in rest.values()):
            raise ValueError("A King of the Hill deal must come out of two 54-card decks.")
        if len(hands) == PLAYERS:
            hands.append([c for c in _DISTINCT for _ in range(rest[c])])
        if len(hands[PLAYERS]) != DEAD or any(n for n in (rest - Counter(hands[PLAYERS])).values()):
            raise ValueError("A King of the Hill deal must use all 108 cards of two 54-card decks.")
        order = [hands[(start + i) % PLAYERS][i // PLAYERS] for i in range(DEALT)] + hands[PLAYERS]
        return order[::-1]

    def _shuffled(self, round_no: int) -> list[Card]:
        # Sorting by random keys is a uniform shuffle, and faster than Random.shuffle.
        rnd = rng_for(self.seed, "deal", round_no).random
        return sorted(DECK, key=lambda _: rnd())

    def _begin_round(self, events: list[Event]) -> None:
        if len(self.stock) != len(DECK):
            self.stock = self._shuffled(self.round_no)
        if self.koth is not None:
            self.start = self.koth
        rank = rank_char(self.ranks[self.koth]) if self.koth is not None else "2"
        self.phase = DEAL
        self.ready = [False] * PLAYERS
        self.deal_count = 0
        self.hands = [[] for _ in range(PLAYERS)]
        self.declared = None
        self.declarations = []
        self.trump = Trump(None, rank)
        self.trump_how = None
        self.dead = []
        self.marked = []
        self.buried = []
        self.called = None
        self.called_seen = 0
        self.teammate = None
        self.call_done = False
        self.trick = []
        self.trick_no = 0
        self.leader = self.turn = None
        self.taken = [[] for _ in range(PLAYERS)]
        self.points = [0] * PLAYERS
        self.last_trick = None
        self.history = []
        self._reset_derived()
        events.append(Event("round", self.start, (self.round_no, rank, -1 if self.koth is None else self.koth)))

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
            return (self.turn,)  # type: ignore[return-value]
        if ph == DEAL or ph == LATE:
            return self._declarers() + (TABLE,)
        if ph == SUIT or ph == BURY or ph == CALL:
            return (self.koth,)  # type: ignore[return-value]
        if ph == ROUND_READY or ph == TRICK_READY:
            return tuple(s for s in range(PLAYERS) if not self.ready[s])
        return ()

    def _declarers(self) -> tuple[int, ...]:
        d = self.declared
        if d is None:
            return tuple(s for s in range(PLAYERS) if self._tr[s])
        if d[2] == 1:
            return tuple(s for s in range(PLAYERS) if self._pairs[s])
        return ()

    def declare_options(self, seat: int) -> list[Action]:
        """The declarations ``seat`` may make now (empty outside the deal and the late window)."""
        if self.phase not in (DEAL, LATE) or not 0 <= seat < PLAYERS:
            return []
        d = self.declared
        if d is not None and d[2] == 2:
            return []
        tr = sorted(self._tr[seat], key=lambda c: c.index)
        out = [_DECLARE_ONE[c] for c in _distinct(tr)] if d is None else []
        out.extend(_DECLARE_TWO[c] for c in _pairs_in(tr))
        return out

    def _declare_timer(self) -> float:
        return DEALT * float(self.options["deal_rate"]) + LATE_WINDOW

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
                    seat, "play", tuple(_play_action(p) for p in self.legal_plays(seat)), timer=PLAY_TIMER,
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
            return Decision(seat, "call", tuple(_CALL[c] for c in self.callable()), timer=CALL_TIMER,
                            prompt="Call a card: whoever plays it joins you.")
        return None

    def _ready_decision(self, seat: int) -> Decision:
        delay = self.options["ready_round" if self.phase == ROUND_READY else "ready_trick"]
        return Decision(seat, "ready", (READY_ACTION,), timer=float(delay),
                        prompt="Ready for the next round?" if self.phase == ROUND_READY else "Ready for the trick?")

    def callable(self) -> list[Card]:
        """Cards the King may call: any but jokers and trump-rank cards, in display order."""
        key = self._order
        return sorted((c for c in _DISTINCT if c.suit != "~" and c.rank != self.trump.rank),
                      key=lambda c: key[c][2])

    def sorted_hand(self, seat: int) -> list[Card]:
        key = self._order
        return sorted(self.hands[seat], key=lambda c: (key[c][2], c.index))

    def legal_plays(self, seat: int) -> list[tuple[Card, ...]]:
        """Every distinct play ``seat`` may make now (cards of a two-card play in index order)."""
        if self.phase != PLAY or seat != self.turn:
            return []
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal(seat)
            self._legal_set = set(legal)
        return legal

    def _compute_legal(self, seat: int) -> list[tuple[Card, ...]]:
        hand = self.hands[seat]
        order = self._order
        if not self.trick:
            return [(c,) for c in _distinct(hand)] + [(c, c) for c in _pairs_in(hand)]
        lead = self.trick[0][1]
        led = order[lead[0]][0]
        suited = [c for c in hand if order[c][0] == led]
        if len(lead) == 1:
            return [(c,) for c in _distinct(suited or hand)]
        pairs = _pairs_in(suited)
        if pairs:
            return [(c, c) for c in pairs]
        if len(suited) >= 2:
            return [_canon(p) for p in combinations(suited, 2)]  # no pairs among them: all distinct
        if len(suited) == 1:
            one = suited[0]
            return [_canon((one, c)) for c in _distinct(hand) if c is not one]
        # Void in the led suit: any two cards.
        distinct = _distinct(hand)
        return [_canon(p) for p in combinations(distinct, 2)] + [(c, c) for c in _pairs_in(hand)]

    def random_action(self, seat: int, rng: Any) -> Action:
        ph = self.phase
        if ph == PLAY and seat == self.turn:
            legal = self.legal_plays(seat)
            return _play_action(legal[int(rng.random() * len(legal))])
        if ph == DEAL and seat == TABLE:
            return DEAL_ACTION
        if ph == BURY and seat == self.koth:
            # Always the bury itself (never a marking step), so it is also a sound move at a
            # timeout: the cards the KotH marked, and random others to make 8.
            if not self.marked:
                return Action("bury", tuple(rng.sample(self.hands[seat], DEAD)))
            rest = self.unmarked(seat)
            return Action("bury", (*self.marked, *rng.sample(rest, DEAD - len(self.marked))))
        return super().random_action(seat, rng)

    def unmarked(self, seat: int) -> list[Card]:
        """The cards of ``seat``'s hand not marked for the bury (a card held twice and marked once
        is here once)."""
        rest = list(self.hands[seat])
        if seat == self.koth:
            for c in self.marked:
                rest.remove(c)
        return rest

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
        if ph == OVER:
            raise IllegalAction(N_("The game is over."), "game_over")
        kind = action.kind
        if seat == TABLE:
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

    def _ready(self, seat: int, action: Action) -> list[Event]:
        if self.ready[seat]:
            raise IllegalAction(N_("You are already ready."), "already_ready")
        if action.cards or action.args:
            raise IllegalAction(N_("Just say ready."), "bad_action")
        self.ready[seat] = True
        events = [Event("ready", seat, ())]
        if all(self.ready):
            if self.phase == ROUND_READY:
                self._begin_round(events)
            else:
                self.phase = PLAY
                self.turn = self.leader
        return events

    def _deal(self) -> list[Event]:
        c = self.stock.pop()
        s = (self.start + self.deal_count) % PLAYERS
        self.hands[s].append(c)
        self.deal_count += 1
        if c.rank == self.trump.rank:
            self._count_rank_card(s, c)
        if self.deal_count == DEALT:
            self.phase = LATE
        return [_DEALT_EVENTS[s][c]]

    def _count_rank_card(self, seat: int, c: Card) -> None:
        if c.rank != self.trump.rank or c.suit == "~":
            return
        tr = self._tr[seat]
        if c in tr:
            self._pairs[seat] += 1
        tr.append(c)

    def _declare(self, seat: int, action: Action) -> list[Event]:
        cs = action.cards
        rank = self.trump.rank
        if len(cs) not in (1, 2) or (len(cs) == 2 and cs[0] is not cs[1]) or action.args:
            raise IllegalAction(N_("Declare with one trump-rank card or an identical pair of them."), "bad_declare")
        c = cs[0]
        if c.suit == "~":
            raise IllegalAction(N_("Jokers cannot declare."), "bad_declare")
        if c.rank != rank:
            raise IllegalAction(N_("Only a {rank} can declare trumps this round."), "bad_declare", rank=rank)
        if self.hands[seat].count(c) < len(cs):
            raise IllegalAction(N_("You don't hold {cards}."), "not_in_hand", cards=tuple(cs))
        d = self.declared
        if d is not None and d[2] == 2:
            raise IllegalAction(N_("A declared pair is final."), "declared_final")
        if d is not None and len(cs) == 1:
            raise IllegalAction(N_("Trumps are declared: only an identical pair of trump-rank cards can override."),
                                "need_pair")
        self.declared = (seat, c, len(cs))
        self.declarations.append(self.declared)
        return [Event("declare", seat, tuple(cs))]

    def _close_late(self) -> list[Event]:
        events: list[Event] = []
        d = self.declared
        if d is not None:
            if self.koth is None:
                self.koth = d[0]  # round 1: the final declaration makes the KotH
            self._set_trump(d[1].suit, "declared", events)
        elif self.koth is None:
            rng = rng_for(self.seed, "fallback", self.round_no)
            suit = rng.choice(SUITS)
            self.koth = rng.randrange(PLAYERS)
            self._set_trump(suit, "random", events)
        else:
            self.phase = SUIT
            events.append(Event("suit_choice", self.koth, ()))
        return events

    def _choose_suit(self, seat: int, action: Action) -> list[Event]:
        if seat != self.koth:
            raise IllegalAction(N_("Only the King chooses the trump suit."), "not_your_turn")
        if action.cards or len(action.args) != 1 or action.args[0].upper() not in SUITS:
            raise IllegalAction(N_("Choose one suit: C, D, H or S."), "bad_suit")
        events: list[Event] = []
        self._set_trump(action.args[0].upper(), "chosen", events)
        return events

    def _close_suit(self) -> list[Event]:
        events: list[Event] = []
        self._set_trump(rng_for(self.seed, "fallback", self.round_no).choice(SUITS), "random", events)
        return events

    def _set_trump(self, suit: str, how: str, events: list[Event]) -> None:
        koth = self.koth
        assert koth is not None
        self.trump = Trump(suit, self.trump.rank)
        self.trump_how = how
        self._order = self.trump.table()
        events.append(Event("trump", koth, (suit, self.trump.rank, how)))
        # The KotH takes the dead hand.
        self.dead = self.stock[::-1]
        self.stock = []
        self.hands[koth].extend(self.dead)
        events.append(Event("dead_hand", koth, tuple(self.dead), koth))
        self.phase = BURY

    def _bury(self, seat: int, action: Action) -> list[Event]:
        """Three codes, all of kind ``bury``:

        * ``bury`` + 8 cards: bury those at once (the AI, random playouts, ``/play``, and every log
          written before marking existed);
        * ``bury C1 … Cn mark`` (0 <= n <= 8): the KotH's marked cards become exactly these — the
          choice built up across several menus, kept in the state so it survives a restart; no event,
          nothing public;
        * ``bury`` alone: bury exactly the 8 marked cards.

        Marking is a ``bury`` with an argument rather than an action kind of its own because the
        decision stays one "choose 8 of 28" pick (``Decision.pick``): the runtime offers a person
        every action of the pick's kind and nothing else (``Runtime._check_offered``), random
        playouts and timeouts keep burying at once, and one clock (``clock_key``) covers all the
        steps.  A whole set per step (not one card) makes a menu's choice one atomic step that reads
        the same whichever menu it came from."""
        if seat != self.koth:
            raise IllegalAction(N_("Only the King buries cards."), "not_your_turn")
        cs = action.cards
        if action.args == (MARK,):
            if len(cs) > DEAD:
                raise IllegalAction(said_n("You can mark at most {n} card to bury: unmark some first.",
                                          "You can mark at most {n} cards to bury: unmark some first.", DEAD),
                                    "too_many")
            self._check_held(seat, cs)
            key = self._order
            self.marked = sorted(cs, key=lambda c: (key[c][2], c.index))
            return []
        if not cs and not action.args:
            if len(self.marked) != DEAD:
                raise IllegalAction(said_n("Mark {n} card to bury first ({marked} marked so far).",
                                           "Mark {n} cards to bury first ({marked} marked so far).", DEAD,
                                           marked=len(self.marked)),
                                    "wrong_count")
            cs = tuple(self.marked)
        elif len(cs) != DEAD or action.args:
            raise IllegalAction(said_n("Bury exactly {n} card.", "Bury exactly {n} cards.", DEAD), "wrong_count")
        self._check_held(seat, cs)
        hand = self.hands[seat]
        for c in cs:
            hand.remove(c)
        self.buried = list(cs)
        self.marked = []
        self.phase = CALL
        return [Event("buried", seat, ())]

    def _check_held(self, seat: int, cs: Sequence[Card]) -> None:
        have = Counter(self.hands[seat])
        for c, n in Counter(cs).items():
            if have[c] < n:
                raise IllegalAction(N_("You don't hold two {card}.") if n == 2 else N_("You don't hold that {card}."),
                                    "not_in_hand", card=c)

    def _call(self, seat: int, action: Action) -> list[Event]:
        if seat != self.koth:
            raise IllegalAction(N_("Only the King calls a card."), "not_your_turn")
        cs = action.cards
        if action == CALL_NOBODY:
            # The 15 s passed without a call: nobody is enlisted, the KotH defends alone (§4.6).
            self.called = None
            self.call_done = True
            self.leader = seat
            events = [Event("call", seat, ())]
            self._before_trick()
            return events
        if len(cs) != 1 or action.args:
            raise IllegalAction(N_("Call exactly one card."), "wrong_count")
        c = cs[0]
        if c.suit == "~":
            raise IllegalAction(N_("You can't call a joker."), "bad_call")
        if c.rank == self.trump.rank:
            raise IllegalAction(N_("You can't call a trump-rank card ({rank})."), "bad_call", rank=self.trump.rank)
        self.called = c
        self.leader = seat
        events = [Event("call", seat, (c,))]
        self._before_trick()
        return events

    def _before_trick(self) -> None:
        self._legal = self._legal_set = self._play_decision = None
        if self.options["ready_trick"] > 0:
            self.phase = TRICK_READY
            self.ready = [False] * PLAYERS
            self.turn = None
        else:
            self.phase = PLAY
            self.turn = self.leader

    def _play(self, seat: int, action: Action) -> list[Event]:
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        cs = action.cards
        if len(cs) not in (1, 2) or action.args:
            raise IllegalAction(N_("Play one card or two."), "wrong_count")
        play = _canon(cs)
        self.legal_plays(seat)
        if play not in self._legal_set:  # type: ignore[operator]
            reason, code = self._why_illegal(seat, play)
            raise IllegalAction(reason, code)
        # Validated: from here on nothing can fail.
        hand = self.hands[seat]
        for c in play:
            hand.remove(c)
        self._legal = self._legal_set = self._play_decision = None
        trick = self.trick
        trick.append((seat, play))
        events = [Event("play", seat, play)]
        called = self.called
        if called is not None and not self.call_done and called in play:
            self._count_called(seat, play.count(called), events)
        if len(trick) < PLAYERS:
            self.turn = (seat + 1) % PLAYERS
            return events
        winner = trick_winner(self.trump, trick)
        cards_won = [c for _, p in trick for c in p]
        pts = points_of(cards_won)
        self.taken[winner].extend(cards_won)
        self.points[winner] += pts
        events.append(Event("trick", winner, (self.trick_no, pts)))
        self.last_trick = (winner, pts, tuple(trick))
        self.history.append(tuple(trick))
        self.trick = []
        self.trick_no += 1
        self.leader = winner
        if self.hands[winner]:
            self._before_trick()
        else:
            self._end_round(winner, events)
        return events

    def _count_called(self, seat: int, copies: int, events: list[Event]) -> None:
        # The copy that counts (option called_copy) decides: its player joins, unless that is the
        # KotH, who then defends alone (docs/rules.md §4, step 7); a pair of it counts as two copies.
        need = 1 if self.options["called_copy"] == "first" else 2
        self.called_seen += copies
        if self.called_seen < need:
            return
        self.call_done = True
        if seat == self.koth:
            events.append(Event("alone", seat, (self.called,)))
        else:
            self.teammate = seat
            events.append(Event("teammate", seat, (self.called,)))

    def _why_illegal(self, seat: int, play: tuple[Card, ...]) -> tuple[str, str]:
        have = Counter(self.hands[seat])
        for c, n in Counter(play).items():
            if have[c] < n:
                return (said(N_("You don't hold two {card}.") if n == 2 else N_("You don't hold that {card}."),
                             card=c), "not_in_hand")
        if not self.trick:
            return (N_("Lead one card or an identical pair."), "bad_lead")
        lead = self.trick[0][1]
        if len(play) != len(lead):
            return (said_n("Play {n} card, as many as were led.", "Play {n} cards, as many as were led.", len(lead)),
                    "wrong_count")
        led = self._order[lead[0]][0]
        suit_name = said(N_("trumps")) if led == TRUMPS else suit(led, {"C": "clubs", "D": "diamonds", "H": "hearts",
                                                                        "S": "spades"}[led])
        if len(lead) == 1:
            return (said(N_("You must follow suit ({suits} were led)."), suits=suit_name), "must_follow")
        if _pairs_in([c for c in self.hands[seat] if self._order[c][0] == led]):
            return (said(N_("A pair of {suits} was led and you hold a pair of {suits}: play a pair."), suits=suit_name),
                    "must_follow")
        return (said(N_("A pair of {suits} was led: play as many {suits} as you hold, up to two."), suits=suit_name),
                "must_follow")

    def _end_round(self, last_winner: int, events: list[Event]) -> None:
        koth = self.koth
        assert koth is not None
        defenders = {koth} if self.teammate is None else {koth, self.teammate}
        challenger_points = sum(self.points[s] for s in range(PLAYERS) if s not in defenders)
        dead_points = points_of(self.buried)
        bonus = 0 if last_winner in defenders else self.options["dead_hand_multiplier"] * dead_points
        score = challenger_points + bonus
        before = list(self.ranks)
        if score < DEFEND_BELOW:
            next_koth = koth if self.teammate is None else self.teammate
            gain = 3 if score == 0 else 2 if score <= 40 else 1
            gainers = sorted(defenders)
            winners = [s for s in gainers if before[s] == ACE]
        else:
            next_koth = next(s for s in ((koth + i) % PLAYERS for i in range(1, PLAYERS)) if s not in defenders)
            gain = 0 if score < 120 else 1 if score < 160 else 2 if score < 200 else 3
            gainers = [s for s in range(PLAYERS) if s not in defenders]
            winners = []
        for s in gainers:
            self.ranks[s] = min(ACE, self.ranks[s] + gain)
        after = [rank_char(r) for r in self.ranks]
        self.last_round = {
            "round": self.round_no, "koth": koth, "teammate": self.teammate, "defenders": sorted(defenders),
            "called": None if self.called is None else self.called.code,
            "challenge_score": score, "challenger_points": challenger_points, "dead_hand_points": dead_points,
            "dead_hand_bonus": bonus, "last_trick_winner": last_winner, "next_koth": next_koth,
            "gain": gain, "gainers": gainers, "ranks_before": [rank_char(r) for r in before], "ranks_after": after,
            "dead_hand": [c.code for c in self.buried],
        }
        events.append(Event("hand_end", koth, (
            self.round_no, -1 if self.teammate is None else self.teammate, score, challenger_points, dead_points,
            bonus, last_winner, next_koth, gain, *after)))
        rounds = self.options["rounds"]
        if not winners and rounds and self.round_no >= rounds:
            top = max(self.ranks)
            winners = [s for s in range(PLAYERS) if self.ranks[s] == top]
        self.turn = self.leader = None
        if winners:
            self.winners = winners
            self.phase = OVER
            events.append(Event("game_end", None, (*after, *winners)))
            return
        self.koth = next_koth
        self.round_no += 1
        if self.options["ready_round"] > 0:
            self.phase = ROUND_READY
            self.ready = [False] * PLAYERS
        else:
            self._begin_round(events)

    # ---- views ------------------------------------------------------------------------------
    def known_defenders(self) -> list[int]:
        """The King and the teammate once revealed."""
        if self.koth is None:
            return []
        return sorted({self.koth} if self.teammate is None else {self.koth, self.teammate})

    def _finished_round_shown(self) -> bool:
        # Between rounds (and at the end) every card of the last round is face up.
        return self.last_round is not None and (self.phase == OVER or (self.phase == ROUND_READY))

    def public_view(self) -> dict[str, Any]:
        d = self.declared
        known = self.known_defenders()
        lt = self.last_trick
        lr = self.last_round
        if lr is not None and not self._finished_round_shown():
            # A new deal hides every code again, so the last round keeps only its numbers.
            lr = {k: v for k, v in lr.items() if k not in ("dead_hand", "called")}
        return {
            "game": "koth",
            "phase": self.phase,
            "round": self.round_no,
            "rounds": self.options["rounds"],
            "ranks": [rank_char(r) for r in self.ranks],
            "start": self.start,
            "koth": self.koth,
            "trump_rank": self.trump.rank,
            "trump_suit": self.trump.suit,
            "trump_how": self.trump_how,
            "declaration": None if d is None else {"seat": d[0], "cards": [d[1].code] * d[2]},
            "declarations": [{"seat": s, "cards": [c.code] * n} for s, c, n in self.declarations],
            "dealt": self.deal_count,
            "deal_total": DEALT,
            "cards_left": [len(h) for h in self.hands],
            "dead_hand_buried": bool(self.buried),
            "called": None if self.called is None else self.called.code,
            "called_copy": self.options["called_copy"],
            "called_seen": self.called_seen,
            "teammate": self.teammate,
            "alone": self.call_done and self.teammate is None,
            "defenders": known,
            "points": list(self.points),
            "challenger_points": sum(p for s, p in enumerate(self.points) if s not in known),
            "trick_no": self.trick_no,
            "trick": [[s, [c.code for c in p]] for s, p in self.trick],
            "leader": self.leader,
            "turn": self.turn,
            "last_trick": None if lt is None else {
                "plays": [[s, [c.code for c in p]] for s, p in lt[2]], "winner": lt[0], "points": lt[1]},
            "ready": list(self.ready) if self.phase in (ROUND_READY, TRICK_READY) else None,
            "last_round": lr,
            "winners": list(self.winners),
        }

    def view(self, seat: int) -> dict[str, Any]:
        v = self.public_view()
        v["seat"] = seat
        v["hand"] = [c.code for c in self.sorted_hand(seat)]
        if seat == self.koth and self.dead:
            if self.phase == BURY:
                v["dead_hand"] = [c.code for c in self.dead]
                v["marked"] = [c.code for c in self.marked]
            elif self.buried and self.phase not in (ROUND_READY, OVER):
                v["buried"] = [c.code for c in self.buried]
        return v

    def hidden_from(self, seat: int | None) -> set[str]:
        # A code is hidden only while both its copies are out of sight: codes repeat in a double deck.
        hidden: set[str] = set()
        shown: set[str] = set()
        for s in range(PLAYERS):
            (shown if s == seat else hidden).update(c.code for c in self.hands[s])
        hidden.update(c.code for c in self.stock)
        if self.buried:
            revealed = self._finished_round_shown() or (seat is not None and seat == self.koth)
            (shown if revealed else hidden).update(c.code for c in self.buried)
        for _, p in self.trick:
            shown.update(c.code for c in p)
        for pile in self.taken:
            shown.update(c.code for c in pile)
        # Named in public: the declared cards (shown from a hand) and the called card.
        shown.update(c.code for _, c, _ in self.declarations)
        if self.called is not None:
            shown.add(self.called.code)
        return hidden - shown

    def all_cards(self) -> list[Card]:
        out = [c for h in self.hands for c in h]
        out.extend(self.stock)
        out.extend(self.buried)
        out.extend(c for _, p in self.trick for c in p)
        out.extend(c for pile in self.taken for c in pile)
        return out

    # ---- the end ----------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> Outcome | None:
        if self.phase != OVER:
            return None
        win = set(self.winners)
        key = [(s in win, self.ranks[s]) for s in range(PLAYERS)]
        places = tuple(1 + sum(1 for k in key if k > mine) for mine in key)
        return Outcome(tuple(self.ranks), places, tuple(sorted(win)))

    # ---- serialisation ----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        def cs(x: Sequence[Card]) -> list[str]:
            return [c.code for c in x]

        def plays(x: Sequence[tuple[int, tuple[Card, ...]]]) -> list[list[Any]]:
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
    def from_dict(cls, data: dict[str, Any]) -> KingOfTheHill:
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
        g = KingOfTheHill.__new__(KingOfTheHill)
        d = self.__dict__.copy()
        g.__dict__ = d
        d["ranks"] = self.ranks[:]
        d["ready"] = self.ready[:]
        d["stock"] = self.stock[:]
        d["hands"] = [h[:] for h in self.hands]
        d["declarations"] = self.declarations[:]
        d["dead"] = self.dead[:]
        d["marked"] = self.marked[:]
        d["buried"] = self.buried[:]
        d["trick"] = self.trick[:]
        d["taken"] = [t[:] for t in self.taken]
        d["points"] = self.points[:]
        d["history"] = self.history[:]
        d["winners"] = self.winners[:]
        d["_tr"] = [t[:] for t in self._tr]
        d["_pairs"] = self._pairs[:]
        d["_legal"] = d["_legal_set"] = d["_play_decision"] = None
        return g

    def sample_world(self, seat: int, rng: Any) -> KingOfTheHill:
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

    def _world_dead(self, w: KingOfTheHill, seat: int, rng: Any) -> None:
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
