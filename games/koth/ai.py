"""A King of the Hill computer player that plays like a sensible club player.

It reads only what its seat may know: its own hand, the dead hand and the buried cards when it is
the KotH, every declaration, the trump, the called card, the known defenders and every card played
so far.  No search: rules of thumb, each well under a millisecond.

* Declaring: with enough trumps for a suit (jokers, trump-rank cards and that suit) among the cards
  dealt so far; a declarer locks its own single with the pair; a pair overrides someone else's
  single only for a clearly better suit.  As KotH with nobody declaring: its longest suit.
* Burying: voids its short plain suits (aces kept), then buries the points it cannot protect (a
  king or ten without the ace above it), then its lowest plain cards; never a trump unless forced.
  Cards the KotH has marked (its person timed out) are buried first, the rest chosen as above.
* Calling: an ace it does not hold (with ``called_copy: second``, preferably one whose other copy
  it holds), in the plain suit where it holds most cards, so it can lead the suit to its partner.
* Playing: leads pairs and sure winners, else low cards from short suits; follows the team's
  interest once the teams are known — feeds points to a partner who is winning the trick, takes
  points from the other side with the cheapest winning play, otherwise throws its least useful
  card without points.  It only ever picks among the legal plays, so it never reneges.
* ``ready`` at once.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from engine.cards import Card
from engine.core import AI, TABLE, Action, IllegalAction
from engine.scaffold import your_turn
from games.koth.rules import DECK, KingOfTheHill, trick_winner
from games.koth.trump import TRUMPS, Trump

_POINTS = {"5": 5, "T": 10, "K": 10}
_PLAIN = "CDHS"


def _pts(c: Card) -> int:
    return _POINTS.get(c.rank, 0) if c.suit != "~" else 0


def _trumps_for(hand: Sequence[Card], suit: str, rank: str) -> float:
    """How many of ``hand`` would be trumps with ``suit`` declared; high ones count a little more."""
    n = 0.0
    for c in hand:
        if c.suit == "~" or c.rank == rank:
            n += 1.5
        elif c.suit == suit:
            n += 1.25 if c.rank in "AK" else 1.0
    return n


class KothAI(AI[KingOfTheHill]):
    """Rule-of-thumb King of the Hill player: deterministic, always legal, uses only its seat's
    knowledge."""

    #: Share of the cards held so far that must be trumps (for the suit) before declaring.
    DECLARE_SHARE = 0.42
    #: ... and, in the late window, the share that is still worth a declaration.
    LATE_SHARE = 0.3
    #: Declarations wait until a few cards are in hand to judge by.
    DECLARE_MIN_CARDS = 6
    #: A pair overrides another seat's single only when its suit is this much better for us.
    OVERRIDE_MARGIN = 3.0

    # ---- the AI interface ---------------------------------------------------------------------
    def choose(self, state: KingOfTheHill, seat: int, rng: random.Random) -> Action:
        d = your_turn(state.decision(seat))
        if d.kind == "ready" or seat == TABLE:
            return d.actions[0]  # ready at once; for the table, its one timed step
        if d.kind == "declare":
            # A declaration is optional (see choose_optional); asked for one anyway, make the best.
            return self.declaration(state, seat) or max(
                d.actions, key=lambda a: (_trumps_for(state.hands[seat], a.cards[0].suit, state.trump.rank),
                                          len(a.cards), -a.cards[0].index))
        if d.kind == "suit":
            return self.choose_suit(state, seat)
        if d.kind == "bury":
            # Cards the KotH marked (a person whose time ran out, or who went away) are buried; the
            # rest of the 8 are this AI's choice among the others.
            marked = state.marked if seat == state.koth else []
            mult = state.options["dead_hand_multiplier"]
            if not marked:
                return Action("bury", tuple(self.choose_bury(state.hands[seat], state.trump, multiplier=mult)))
            rest = self.choose_bury(state.unmarked(seat), state.trump, 8 - len(marked), multiplier=mult)
            return Action("bury", (*marked, *rest))
        if d.kind == "call":
            return Action("call", (self.choose_call(state, seat),))
        if d.kind == "play":
            if len(d.actions) == 1:
                return d.actions[0]
            return self.choose_play(state, seat, d.actions)
        raise IllegalAction(f"KothAI does not know the decision {d.kind!r}.", "bad_action")

    def choose_optional(
            self, state: KingOfTheHill, seat: int, rng: random.Random) -> Action | None:
        """For a runtime at a table step: the move this AI wants to make now, or ``None`` to let the
        table go on.  Only declarations are optional; any other decision gets :meth:`choose`."""
        d = state.decision(seat)
        if d is None:
            return None
        if d.kind == "declare":
            return self.declaration(state, seat)
        return self.choose(state, seat, rng)

    # ---- declaring --------------------------------------------------------------------------
    def declaration(self, state: KingOfTheHill, seat: int) -> Action | None:
        """The declaration this seat wants to make now, if any."""
        opts = state.declare_options(seat)
        if not opts:
            return None
        hand = state.hands[seat]
        rank = state.trump.rank
        score = {a: _trumps_for(hand, a.cards[0].suit, rank) for a in opts}
        best = max(opts, key=lambda a: (score[a], len(a.cards), -a.cards[0].index))
        current = state.declared
        n = max(len(hand), 1)
        if current is None:
            share = self.LATE_SHARE if state.phase == "late" else self.DECLARE_SHARE
            if len(hand) >= self.DECLARE_MIN_CARDS or state.phase == "late":
                if score[best] / n >= share:
                    return best
            return None
        d_seat, d_card, _ = current
        if d_seat == seat:
            # Lock our own single: a pair is final, nobody can take trumps away from us any more.
            for a in opts:
                if a.cards[0] is d_card:
                    return a
        mine = _trumps_for(hand, d_card.suit, rank)
        if score[best] >= mine + self.OVERRIDE_MARGIN and score[best] / n >= self.LATE_SHARE:
            return best
        return None

    def choose_suit(self, state: KingOfTheHill, seat: int) -> Action:
        hand = state.hands[seat]
        rank = state.trump.rank
        suit = max(_PLAIN, key=lambda s: (_trumps_for(hand, s, rank), -_PLAIN.index(s)))
        return Action("suit", (), (suit,))

    # ---- burying ----------------------------------------------------------------------------
    def choose_bury(self, hand: Sequence[Card], trump: Trump, count: int = 8, multiplier: int = 2) -> list[Card]:
        """The ``count`` cards to bury out of ``hand``.  ``multiplier`` is the table's
        ``dead_hand_multiplier`` (default 2, the rules' default): buried points count that many
        times for the challengers if they take the last trick, so with a bonus points stay out."""
        order = trump.table()
        plain: dict[str, list[Card]] = {s: [] for s in _PLAIN}
        trumps: list[Card] = []
        for c in hand:
            (trumps if order[c][0] == TRUMPS else plain[c.suit]).append(c)
        held = Counter(hand)
        chosen: list[Card] = []
        # Void the short plain suits first (without aces or pairs, which win tricks by themselves).
        for s in sorted(_PLAIN, key=lambda s: (len(plain[s]), _PLAIN.index(s))):
            cs = plain[s]
            if not cs or len(chosen) + len(cs) > count:
                continue
            if any(c.rank == "A" or held[c] > 1 for c in cs):
                continue
            chosen.extend(cs)

        def bury_score(c: Card) -> tuple[float, int]:
            if order[c][0] == TRUMPS:
                return (-100.0 - order[c][1], -c.index)  # trumps only when nothing else is left
            suit = plain[c.suit]
            s = 20.0 - c.value - len(suit)  # low cards of short suits
            if c.rank == "A":
                s -= 40
            if held[c] > 1:
                s -= 15  # a pair wins a pair lead
            if _pts(c):
                top = max(x.value for x in suit)
                protected = top > c.value and any(x.rank == "A" for x in suit)
                if multiplier:
                    # The last trick often goes to a challenger, and then the bury pays them
                    # multiplier x its points: more than an unprotected king risks in play.
                    s -= 50 + multiplier * _pts(c)
                elif not protected:
                    s += 25 + _pts(c)  # points we would lose to a challenger's ace
            return (s, -c.index)

        pool = list(hand)
        for c in chosen:
            pool.remove(c)
        pool.sort(key=bury_score, reverse=True)
        chosen.extend(pool[: count - len(chosen)])
        return chosen

    # ---- calling ----------------------------------------------------------------------------
    def choose_call(self, state: KingOfTheHill, seat: int) -> Card:
        hand = state.hands[seat]
        held = Counter(hand) + Counter(state.buried)
        trump = state.trump
        # With the first copy we must hold none, or we would join ourselves; with the second, one of
        # ours goes first and the other copy's holder joins.
        want = 1 if state.options["called_copy"] == "second" else 0
        suit_len = Counter(c.suit for c in hand if not trump.is_trump(c))

        def score(c: Card) -> tuple[int, int, int, int, int, int]:
            return (int(held[c] == want), int(held[c] < 2), int(not trump.is_trump(c)),
                    {"A": 2, "K": 1}.get(c.rank, 0), suit_len[c.suit], -c.index)

        return max(state.callable(), key=score)

    # ---- playing ----------------------------------------------------------------------------
    def choose_play(self, state: KingOfTheHill, seat: int, actions: Sequence[Action]) -> Action:
        k = _Knowledge(state, seat)
        if not state.trick:
            return self._lead(state, k, actions)
        return self._follow(state, k, actions)

    def _lead(self, state: KingOfTheHill, k: _Knowledge, actions: Sequence[Action]) -> Action:
        return max(actions, key=self._lead_score(k))

    def _lead_score(self, k: _Knowledge) -> Callable[[Action], tuple[float, int]]:
        order = k.order

        def score(a: Action) -> tuple[float, int]:
            cs = a.cards
            c = cs[0]
            suit, strength = order[c][:2]
            boss = k.is_boss(cs)
            s = 0.0
            if len(cs) == 2:
                s += 30 if boss else 12  # pairs are hard to beat and draw out the others' pairs
            if boss:
                s += 20 + (_pts(c) * len(cs)) / 2
            elif suit == TRUMPS:
                s -= 10 + strength  # an unsafe trump lead only feeds the others' big trumps
            else:
                s -= _pts(c) * len(cs)  # never lead points into someone else's ace
                s += 8 - strength / 2  # a low card of a short suit works towards a void
                s -= k.suit_len(suit) / 2
            if k.defender and suit == TRUMPS and k.many_trumps:
                s += 10  # a strong KotH draws trumps
            if k.koth_seeking and k.called is not None and suit == k.called.suit and not boss:
                s += 15  # lead low into the called suit: the partner takes it with the called ace
            return (s, -c.index)

        return score

    def _follow(self, state: KingOfTheHill, k: _Knowledge, actions: Sequence[Action]) -> Action:
        m = _FollowMeasures(state, k, actions)
        if m.friend_winning and (m.last or k.is_boss(trick_winner_cards(m.trick, m.current))):
            # Our side takes this trick: feed it points, keep the strong cards.
            return max(actions, key=m.feed)
        if m.wins and not m.friend_winning and (m.at_stake or m.last or k.defender or m.foe_winning):
            safe = [a for a, sure in m.wins if sure]
            pool = safe or [a for a, _ in m.wins]
            if safe or m.at_stake >= 10:
                # The cheapest play that takes it; points of our own go along when it is safe.
                return min(pool, key=m.take if safe else m.take_bare)
        # We cannot (or need not) take it: throw the least useful cards, without points.
        return min(actions, key=m.throw)

    # ---- a shortlist for the search -------------------------------------------------------------
    def rank_plays(self, state: KingOfTheHill, seat: int, actions: Sequence[Action]) -> list[Action]:
        """Every play of ``actions``, the one :meth:`choose_play` makes first, then the best of each
        of this player's own measures by turns: on a lead its lead score; on a follow the least
        useful throw, the richest feed to a partner and the cheapest play that takes the trick.  A
        search that can afford only the first few compares moves of every kind, not a dozen throws
        (engine/search.py keeps the first K when a follow offers a hundred pairs)."""
        if not actions:
            return []
        first = self.choose_play(state, seat, actions)
        k = _Knowledge(state, seat)
        if not state.trick:
            orders = [sorted(actions, key=self._lead_score(k), reverse=True)]
        else:
            m = _FollowMeasures(state, k, actions)
            orders = [sorted(actions, key=m.throw), sorted(actions, key=m.feed, reverse=True),
                      sorted((a for a, _ in m.wins), key=m.take)]
        out = [first]
        seen = {first}
        for i in range(max(len(o) for o in orders)):
            for o in orders:
                if i < len(o) and o[i] not in seen:
                    seen.add(o[i])
                    out.append(o[i])
        return out


class _FollowMeasures:
    """The follow's view of the trick and its measures of a play (keys for min/max over plays)."""

    def __init__(self, state: KingOfTheHill, k: _Knowledge, actions: Sequence[Action]) -> None:
        self.trick = trick = list(state.trick)
        trump = state.trump
        self.order = k.order
        self.current = current = trick_winner(trump, trick)
        self.last = last = len(trick) == 4
        self.at_stake = sum(_pts(c) for _, p in trick for c in p)
        self.friend_winning = current in k.friends
        self.foe_winning = current in k.foes
        after_me = [(trick[0][0] + i) % 5 for i in range(len(trick) + 1, 5)]
        foes_after = any(s in k.foes or s not in k.friends for s in after_me)
        self.wins: list[tuple[Action, bool]] = []
        for a in actions:
            if trick_winner(trump, trick + [(k.seat, a.cards)]) == k.seat:
                self.wins.append((a, last or not foes_after or k.is_boss(a.cards)))

    def keep(self, c: Card) -> float:
        suit, strength = self.order[c][:2]
        v = float(strength)
        if suit == TRUMPS:
            v += 25
        elif c.rank == "A":
            v += 8
        return v

    def feed(self, a: Action) -> tuple[float, int]:
        """Higher is better: points to a partner who takes the trick, strong cards kept."""
        return (sum(_pts(c) for c in a.cards) * 3 - sum(self.keep(c) for c in a.cards), -a.cards[0].index)

    def take(self, a: Action) -> tuple[float, int]:
        """Lower is better: the cheapest winning play, our own points along (a sure win)."""
        return (sum(self.keep(c) for c in a.cards) - sum(_pts(c) for c in a.cards) * 2, a.cards[0].index)

    def take_bare(self, a: Action) -> tuple[float, int]:
        """Lower is better: the cheapest winning play (a win that may yet be lost)."""
        return (sum(self.keep(c) for c in a.cards), a.cards[0].index)

    def throw(self, a: Action) -> tuple[float, int]:
        """Lower is better: the least useful cards, without points."""
        return (sum(self.keep(c) + _pts(c) * 3 for c in a.cards), a.cards[0].index)


def trick_winner_cards(trick: Sequence[tuple[int, tuple[Card, ...]]], seat: int) -> tuple[Card, ...]:
    for s, p in trick:
        if s == seat:
            return p
    return ()


class _Knowledge:
    """What one seat knows, computed once per decision."""

    def __init__(self, state: KingOfTheHill, seat: int) -> None:
        self.seat = seat
        self.order = state.trump.table()
        self.hand = state.hands[seat]
        self.called = state.called
        koth = state.koth
        # Every card this seat has not seen: the rest of the double deck, less its hand, less every
        # card played, less the buried cards when it buried them itself.

        unseen = Counter(DECK)
        unseen.subtract(self.hand)
        for pile in state.taken:
            unseen.subtract(pile)
        for _, p in state.trick:
            unseen.subtract(p)
        if seat == koth:
            unseen.subtract(state.buried)
        self.unseen = +unseen
        holds_called = (state.called is not None and not state.call_done and state.called in self.hand
                        and seat != koth)
        self.defender = seat == koth or seat == state.teammate or holds_called
        # Sides as far as this seat knows them.
        if self.defender:
            self.friends = {s for s in (koth, state.teammate) if s is not None} | {seat}
            if state.call_done or state.called is None:
                self.foes = set(range(5)) - self.friends
            else:
                self.foes = set()
        else:
            self.foes = {s for s in (koth, state.teammate) if s is not None}
            if state.call_done:
                self.friends = set(range(5)) - self.foes
            else:
                self.friends = {seat}
        self.koth_seeking = seat == koth and not state.call_done and state.called is not None
        trumps = sum(1 for c in self.hand if self.order[c][0] == TRUMPS)
        self.many_trumps = trumps >= max(6, len(self.hand) // 2)

    def suit_len(self, suit: str) -> int:
        return sum(1 for c in self.hand if self.order[c][0] == suit)

    def is_boss(self, cs: Sequence[Card]) -> bool:
        """Whether no card (or, for a pair, no identical pair) still unseen can beat ``cs``."""
        if not cs:
            return False
        suit, strength = self.order[cs[0]][:2]
        need = 2 if len(cs) == 2 else 1
        order = self.order
        # Only the suit itself: a void player's trump is a risk the caller weighs separately.
        return not any(n >= need and order[c][0] == suit and order[c][1] > strength for c, n in self.unseen.items())
