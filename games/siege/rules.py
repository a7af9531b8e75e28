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

The steps live in their own modules, each a class the next one extends: cards.py (the deck and the
actions), piles.py (what a pile takes and scores), turn.py (the state, the draw and the end of a
turn), attack.py and build.py; this module puts them together as :class:`Siege` (legal actions,
decisions, reading and applying an action, views, saving and the search's hooks) and is the one
other modules import: it re-exports the names they use.
"""

from __future__ import annotations

import random

from engine.core import Action, Decision, Event, IllegalAction, Option, Outcome, Saved
from engine.scaffold import copied, others_cards, restored, saved
from games.siege.build import SiegeBuild
from games.siege.cards import (
    _END_FILLER,
    _END_WORDS,
    _SYMBOLS_TO_LETTER,
    _WORD_SUIT,
    ATTACK,
    ATTACK_PHASE,
    BUILD,
    BUILD_PHASE,
    BY_CODE,
    END,
    KINDS,
    KING,
    OVER,
    PLACE,
    PLACE_KING,
    SEAT_SUITS,
    SLOT_ARGS,
    START,
    SWAP,
    TURN_TIMER,
    Pile,
    SiegeCard,
    SiegeCardError,
    _codes,
    _read,
    _sorted,
    siege_card,
)
from games.siege.cards import DECK as DECK
from games.siege.cards import DISTINCT as DISTINCT
from games.siege.cards import HAND_SIZE as HAND_SIZE
from games.siege.cards import KING_PILE as KING_PILE
from games.siege.cards import PILE_KINDS as PILE_KINDS
from games.siege.cards import RANK_NAMES as RANK_NAMES
from games.siege.cards import RANKS as RANKS
from games.siege.cards import SUIT_NAMES as SUIT_NAMES
from games.siege.cards import SUIT_SYMBOLS as SUIT_SYMBOLS
from games.siege.cards import SUITS as SUITS
from games.siege.cards import siege_cards as siege_cards
from games.siege.piles import (
    _fit_rule,
    pile_kind,
    pile_score,
)
from games.siege.piles import attacker_wins as attacker_wins
from games.siege.piles import defending_slot as defending_slot
from games.siege.piles import fits as fits
from games.siege.piles import misfit_reason as misfit_reason
from games.siege.piles import why_not_fits as why_not_fits
from games.siege.view_types import LastAttack, PileView, SiegeView
from words import N_

# START, PLACE and PLACE_KING as lists by ``3 * card.index + slot`` (``card.index``): what
# _compute_legal reads for every card of the hand at every move.  (END fills the gaps: never read.)
_START_AT: list[Action] = [START.get((c, i), END) for c in DISTINCT for i in range(3)]
_PLACE_AT: list[Action] = [PLACE.get((c, i), END) for c in DISTINCT for i in range(3)]
_KING_AT: list[Action] = [PLACE_KING.get(c, END) for c in DISTINCT]
# What every start, place and swap action means, by the action's identity (they are all built
# once, in cards.py): (kind, card or None for a swap, slot; -1 for the King pile; a swap's two
# slots as ``i << 2 | j``).  Read by apply for the action random_action drew.
_MOVES: dict[int, tuple[str, SiegeCard | None, int]] = {
    **{id(a): ("start", c, i) for (c, i), a in START.items()},
    **{id(a): ("place", c, i) for (c, i), a in PLACE.items()},
    **{id(a): ("place", c, -1) for c, a in PLACE_KING.items()},
    **{id(a): ("swap", None, i << 2 | j) for (i, j), a in SWAP.items()},
}
_BUILD_EVENTS: tuple[Event, ...] = tuple(Event("build", seat, ()) for seat in range(4))
# The swaps possible by which slots hold a pile (bit i: slot i holds one), in SWAP's order.
_SWAPS: tuple[tuple[Action, ...], ...] = tuple(
    tuple(a for (i, j), a in SWAP.items() if mask >> i & 1 or mask >> j & 1) for mask in range(8))
# _fit_rule's reading of a pile (without the slot), by the pile's cards: see _compute_legal.
_TAKES: dict[tuple[SiegeCard, ...], tuple[str, frozenset[int] | None]] = {}
_EMPTY: tuple[tuple[int, ...], ...] = tuple(tuple(i for i in range(3) if not mask >> i & 1) for mask in range(8))


class Siege(SiegeBuild):
    name = "siege"
    title = "Siege"
    min_players = max_players = 4
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
        # The hand's distinct cards in deck order (``_sorted``'s order is the cards' index order):
        # keyed by index, so the sort compares ints and each action is a list read, not a hash.
        distinct = {c.index: c for c in self.hands[seat]}
        m0, m1, m2 = mine
        held = (m0 is not None) | (m1 is not None) << 1 | (m2 is not None) << 2
        empty = _EMPTY[held]
        # What each house pile takes, read once per call rather than once per card (``fits``).
        rules: list[tuple[int, str, frozenset[int] | None]] = []
        if held:
            for i in range(3):
                p = mine[i]
                if p is not None:
                    # What a pile takes depends only on its cards: remembered by them (one
                    # tuple and a lookup rather than counting the pile at every move).
                    key = tuple(p)
                    takes = _TAKES.get(key)
                    if takes is None:
                        if len(_TAKES) >= 4096:
                            _TAKES.clear()
                        takes = _TAKES[key] = _fit_rule(0, p)[1:]
                    rules.append((i, takes[0], takes[1]))
        append = out.append
        for k in sorted(distinct):
            c = distinct[k]
            if not c.is_number:
                for i in empty:
                    append(_START_AT[3 * k + i])
                continue
            if c.suit == own:
                append(_KING_AT[k])
            v, suit = c.value, c.suit
            for i, rule_suit, values in rules:
                if (suit == rule_suit) if rule_suit else (values is None or v in values):
                    append(_PLACE_AT[3 * k + i])
        out.extend(_SWAPS[held])
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

    def random_action(self, seat: int, rng: random.Random) -> Action:
        legal = self.legal(seat)
        if not legal:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        a = self._drawn = legal[int(rng.random() * len(legal))]
        return a

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
        if action is self._drawn:
            # Just drawn from the legal actions of this seat's turn (random_action): carried out
            # without checking it again, by the same steps as the checked path below.
            move = _MOVES.get(id(action))
            if move is not None:
                if self.phase == ATTACK_PHASE:
                    self.phase = BUILD_PHASE
                    self._touch()
                    return [_BUILD_EVENTS[seat], *self._do_move(seat, move)]
                return self._do_move(seat, move)
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

    def _do_move(self, seat: int, move: tuple[str, SiegeCard | None, int]) -> list[Event]:
        """A start, place or swap already known legal (``_MOVES``' reading of its action)."""
        kind, c, i = move
        if c is None:
            return self._do_swap(seat, i >> 2, i & 3)
        if kind == "start":
            return self._do_start(seat, c, i)
        if i < 0:
            return self._do_place_king(seat, c)
        return self._do_place(seat, c, i)

    # ---- views ----------------------------------------------------------------------------------
    def _pile_view(self, p: Pile | None) -> PileView | None:
        if p is None:
            return None
        return {"kind": pile_kind(p), "special": p[0].code, "cards": _codes(p[1:]), "score": pile_score(p)}

    def public_view(self) -> SiegeView:
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
            "last_attack": None if self.last_attack is None else self.last_attack.copy(),
            "winner": self.winner,
        }

    def view(self, seat: int) -> SiegeView:
        v = self.public_view()
        v["seat"] = seat
        v["suit"] = SEAT_SUITS[seat]
        v["hand"] = _codes(_sorted(self.hands[seat]))
        return v

    def hidden_from(self, seat: int | None) -> set[str]:
        hidden = others_cards(self.hands, seat)
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

    def all_cards(self) -> list[SiegeCard]:
        out = [c for h in self.hands for c in h]
        out.extend(c for k in self.kings for c in k)
        out.extend(c for h in self.houses for p in h if p is not None for c in p)
        out.extend(self.stock)
        out.extend(self.discard)
        return out

    # ---- the end --------------------------------------------------------------------------------
    def final_outcome(self) -> Outcome:
        return Outcome.ranked([len(k) for k in self.kings])

    # ---- serialisation --------------------------------------------------------------------------
    def to_dict(self) -> Saved:
        return saved(
            self,
            phase=self.phase,
            turn=self.turn,
            turn_no=self.turn_no,
            hands=[_codes(h) for h in self.hands],
            kings=[_codes(k) for k in self.kings],
            houses=[[None if p is None else _codes(p) for p in h] for h in self.houses],
            stock=_codes(self.stock),
            discard=_codes(self.discard),
            shuffles=self.shuffles,
            attacked=list(self.attacked),
            last_attack=None if self.last_attack is None else _copy_attack(self.last_attack),
            winner=self.winner,
            seen_in_hand=[_codes(h) for h in self.seen_in_hand],
            seen_discard=_codes(self.seen_discard),
            own_discard=[_codes(h) for h in self.own_discard])

    @classmethod
    def from_dict(cls, data: Saved) -> Siege:
        g = restored(cls, data)
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
        g.last_attack = None if la is None else _copy_attack(la)
        g.winner = data["winner"]
        # Absent from snapshots written before search: sample_world then infers less.
        g.seen_in_hand = [_read(h) for h in data.get("seen_in_hand", [[], [], [], []])]
        g.seen_discard = _read(data.get("seen_discard", []))
        g.own_discard = [_read(h) for h in data.get("own_discard", [[], [], [], []])]
        return g

    # ---- search (see engine/worlds.py) ----------------------------------------------------------
    def copy(self) -> Siege:
        g = copied(self, ("stock", "discard", "attacked", "seen_discard"),
                   ("hands", "kings", "seen_in_hand", "own_discard"), ("_legal", "_shown", "_drawn"))
        g.houses = [[None if p is None else p[:] for p in h] for h in self.houses]
        return g

    def sample_world(self, seat: int, rng: random.Random) -> Siege:
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


def _copy_attack(la: LastAttack) -> LastAttack:
    """A copy of the last attack's record that shares none of its lists."""
    return {**la, "taken": list(la["taken"]), "discarded": list(la["discarded"])}
