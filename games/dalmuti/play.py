"""The play of a hand of The Great Dalmuti (docs/rules.md §3.5-3.8): the leader plays any set of one
number, each next player as many cards of a lower number or passes (players with no legal play pass
by themselves), the round ends when everyone else has passed, and the hand ends when one player is
left holding cards; finishing order scores n−1 … 0 and ranks the next hand (deal.py)."""

from __future__ import annotations

from typing import Final

from engine.cards import mypyc_attr
from engine.core import Action, Event, IllegalAction
from engine.words import said_n
from games.dalmuti.cards import (
    _AUTO_PASS,
    _JESTERS_ALONE,
    _LEAD,
    _PASS_EVENT,
    _PLAY_INFO,
    _PLAYS,
    _ROUND_END,
    _SPEC,
    _TOP,
    JESTER_NUMBER,
    OVER,
    PASS_ACTION,
    PLAY,
    _read_cards,
    _spec_of,
    play_set,
    said_set,
)
from games.dalmuti.taxes import DalmutiTaxes
from words import N_

# Whether this module runs compiled by mypyc (tools/native.py) or from its source: _advance picks the
# faster of two ways to the same answer.
_COMPILED: Final = not __file__.endswith(".py")


# Compiled by mypyc with the rest of Dalmuti's rules: see the note on the class in rules.py.
@mypyc_attr(allow_interpreted_subclasses=True)
class DalmutiPlay(DalmutiTaxes):
    """Legal plays, a play, a pass, and the ends of a round and of a hand."""

    def legal_plays(self, seat: int) -> list[Action]:
        """Every legal play of ``seat`` (plus ``pass`` when topping); empty when not their turn."""
        if self.phase != PLAY or seat != self.turn:
            return []
        # Asked for twice per move (choosing, then the decision menu): cache until the state changes.
        cached = self._legal
        if cached is None:
            self._legal = cached = self._compute_legal(seat)
        return cached

    def _compute_legal(self, seat: int) -> list[Action]:
        h = self.counts[seat]
        j = h[JESTER_NUMBER]
        out: list[Action] = []
        cur = self.cur_num
        if not cur:
            lead = _LEAD
            for m in range(1, 13):
                c = h[m]
                if c:
                    out.extend(lead[m][c][j])
            if j:
                out.extend(_JESTERS_ALONE[j])
            return out
        top = _TOP
        k = self.cur_k
        for m in range(1, cur):  # a lower number; cur is at most 13, so m stays a number
            c = h[m]
            if c:
                out.extend(top[m][c][j][k])
        out.append(PASS_ACTION)
        return out

    def _pass(self, seat: int) -> list[Event]:
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        if not self.cur_num:
            raise IllegalAction(N_("You lead this round: play any set of one number (the leader cannot pass)."),
                                "must_lead")
        self.passed[seat] = True
        self._legal = None
        events = [_PASS_EVENT[seat]]
        self._advance(seat, events)
        return events

    def _play(self, seat: int, action: Action) -> list[Event]:
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        # The engine's own Action objects are found by identity, which is cheaper than hashing them.
        info = _PLAY_INFO.get(id(action))
        if info is None:
            spec = _SPEC.get(action)
            if spec is None:
                spec = _spec_of(_read_cards(action), strict=True)
            action = _PLAYS[spec]  # the canonical one (its events are keyed by it)
            info = _PLAY_INFO[id(action)]
        m, a, b, k, play_events = info
        h = self.counts[seat]
        if h[m] < a or h[JESTER_NUMBER] < b:
            raise IllegalAction(N_("You do not hold {set}."), "not_in_hand", set=said_set(m, a + b, b))
        cur = self.cur_num
        if cur:
            if k != self.cur_k:
                raise IllegalAction(said_n("Play exactly {n} card to beat {play}, or pass.",
                                           "Play exactly {n} cards to beat {play}, or pass.", self.cur_k,
                                           play=said_set(*play_set(self.cur_action))),  # type: ignore[arg-type]  # a play to beat has its action
                                    "wrong_count")
            if m >= cur:
                if m == JESTER_NUMBER:
                    raise IllegalAction(N_("Jesters on their own count as 13 and cannot beat anything."), "too_weak")
                raise IllegalAction(N_("You need a lower number than {number} (lower numbers are better).")
                                    if cur < 13 else
                                    N_("You need a lower number than the Jesters (lower numbers are better)."),
                                    "too_weak", number=cur)
        # Validated: from here on nothing can fail.
        h[m] -= a
        h[JESTER_NUMBER] -= b
        pile = self.pile
        pile[m] += a
        pile[JESTER_NUMBER] += b
        left = self.left[seat] - k
        self.left[seat] = left
        self.cur_num, self.cur_k, self.cur_action, self.cur_by = m, k, action, seat
        self.passed[seat] = False
        self._legal = None
        events = [play_events[seat]]
        if not left:
            self.finish.append(seat)
            self.active -= 1
            events.append(Event("out", seat, (len(self.finish),)))
            if self.active == 1:
                self._end_hand(events)
                return events
        self._advance(seat, events)
        return events

    def _advance(self, seat: int, events: list[Event]) -> None:
        """Turn to the next player who may still answer the play to beat; players with no legal
        play pass automatically (RULES §3.5).  When the walk comes back to the last player to play,
        everyone else has passed: the round ends (§3.6)."""
        order, left, passed = self.ranking, self.left, self.passed
        n = self.players
        owner = self.cur_by
        locked = self.locked
        counts, cur, k = self.counts, self.cur_num, self.cur_k
        i = self.pos[seat]
        while True:
            i += 1
            if i == n:
                i = 0
            s = order[i]
            if s == owner:
                self._end_round(events)
                return
            if not left[s] or (locked and passed[s]):
                continue
            if cur > 1:
                h = counts[s]
                if _COMPILED:
                    # Compiled, a loop over the numbers that stops at the first that answers is
                    # cheaper than a slice and max; the pure build keeps those (C inside).
                    j = h[JESTER_NUMBER]
                    x = 1
                    while x < cur:
                        c = h[x]
                        if c and c + j >= k:
                            self.turn = s
                            return
                        x += 1
                else:
                    most = max(h[1:cur])
                    if most and most + h[JESTER_NUMBER] >= k:
                        self.turn = s
                        return
            passed[s] = True
            events.append(_AUTO_PASS[s])

    def _end_round(self, events: list[Event]) -> None:
        owner = self.cur_by
        lead = owner
        if not self.left[owner]:
            # §3.6: the last player to play has gone out, so the lead passes on in order.
            order, i, n = self.ranking, self.pos[owner], self.players
            while True:
                i = i + 1 if i + 1 < n else 0
                lead = order[i]
                if self.left[lead]:
                    break
        events.append(_ROUND_END[owner][lead])
        self.cur_num = self.cur_k = 0
        self.cur_action = None
        self.cur_by = -1
        self.passed = [False] * self.players
        self.leader = self.turn = lead
        self._legal = None

    def _end_hand(self, events: list[Event]) -> None:
        """§3.7: the hand ends as soon as only one player holds cards; finishing order scores
        n−1 … 0 (§3.8) and becomes the next hand's ranking."""
        last = next(s for s in self.ranking if self.left[s])
        self.finish.append(last)
        n = self.players
        for place, s in enumerate(self.finish):
            self.scores[s] += n - 1 - place
        order = list(self.finish)
        self.history.append(order)
        self.turn = None
        self._legal = None
        events.append(Event("hand_end", None, (self.hand_no, *order, *self.scores)))
        if len(self.history) >= self.options["hands"]:
            self.phase = OVER
            self.cur_num = self.cur_k = 0
            self.cur_action = None
            self.cur_by = -1
            events.append(Event("game_end", None, tuple(self.scores)))
            return
        self.hand_no += 1
        self._start_hand(order, None, events)
