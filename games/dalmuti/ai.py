"""A Great Dalmuti computer player that climbs the way experienced players do.

It reads only what its seat may know (all of it is in ``state.view(seat)``): its own hand, the
play to beat and who made it, how many cards each player holds, who has passed, the ranking, and
which numbers have been played this hand (public: every play is announced).  No search, a few
rules of thumb, well under a millisecond a decision:

* Leading: dump the worst set whole (the highest number, every copy, no Jesters).  Near the end,
  lead a set nobody can beat when the rest of the hand then goes out in one play.
* Topping: the cheapest sufficient improvement — the highest number that beats the play using a
  whole set.  Breaking a set or spending Jesters only late, or for cards too weak to matter;
  otherwise pass rather than break a set it needs.
* Going out: whenever one legal play empties the hand, play it.
* Jesters are kept as wild cards for big sets late.
* Taxes: gives back its worst cards (highest numbers, never a Jester).
* Revolution: calls it during the look when it would otherwise pay taxes (as a Peon); else keeps
  quiet (declining is saying nothing).
"""

from __future__ import annotations

import random

from engine.core import AI, Action
from engine.scaffold import your_turn
from games.dalmuti.rules import Dalmuti, play_spec

_J = 13
_FULL = [0] + list(range(1, 13)) + [2]


class DalmutiAI(AI[Dalmuti]):
    """Rule-of-thumb Dalmuti player: deterministic, always legal, uses only its seat's knowledge."""

    #: A set of this number or worse is cheap enough to break when topping.
    CHEAP_NUMBER = 9
    #: With this many cards or fewer left, it breaks sets and spends Jesters to keep the lead.
    LATE_CARDS = 5

    def choose(self, state: Dalmuti, seat: int, rng: random.Random) -> Action:
        d = your_turn(state.decision(seat))
        if d.kind == "revolution":
            return d.actions[0]  # the only answer there is: declining is keeping quiet
        if d.kind == "give":
            return Action("give", self.choose_return(list(d.cards), d.pick))
        if len(d.actions) == 1:
            return d.actions[0]

        return self.choose_play(state, seat, [(play_spec(a), a) for a in d.actions])

    def choose_optional(self, state: Dalmuti, seat: int, rng: random.Random) -> Action | None:
        """During the look at the cards: call the revolution when it would otherwise pay taxes (as
        a Peon), else keep quiet."""
        d = state.decision(seat)
        if d is None or d.kind != "revolution":
            return None
        return d.actions[0] if state.pos[seat] >= state.players - 2 else None

    # ---- taxes --------------------------------------------------------------------------------
    @staticmethod
    def choose_return(hand: list, k: int) -> tuple:
        """The ``k`` worst cards of ``hand`` to give back: highest numbers, Jesters kept."""
        numbered = sorted((c for c in hand if c.number != _J), key=lambda c: -c.number)
        chosen = numbered[:k]
        if len(chosen) < k:  # nothing but Jesters left to give
            chosen += [c for c in hand if c.number == _J][: k - len(chosen)]
        return tuple(sorted(chosen, key=lambda c: c.number))

    # ---- playing ------------------------------------------------------------------------------
    def choose_play(self, state: Dalmuti, seat: int, options: list) -> Action:
        """``options``: ``(spec or None, action)`` for every legal action; ``spec`` is
        ``(number, naturals, jesters)`` of a play, ``None`` for pass."""
        h = state.counts[seat]
        total = state.left[seat]
        plays = [(s, a) for s, a in options if s is not None]
        pass_action = next((a for s, a in options if s is None), None)
        for s, a in plays:
            if s[1] + s[2] == total:
                return a  # going out beats everything
        if not state.cur_num:
            return self._lead(state, seat, h, plays)
        return self._top(state, seat, h, total, plays, pass_action)

    @staticmethod
    def _unseen(state: Dalmuti, h: list[int]) -> list[int]:
        pile = state.pile
        return [_FULL[x] - h[x] - pile[x] for x in range(14)]

    def _safe(self, unseen: list[int], m: int, k: int) -> bool:
        """Whether nobody can possibly beat ``k`` cards of ``m`` (with the Jesters still out)."""
        uj = unseen[_J]
        for x in range(1, min(m, 13)):
            if unseen[x] and unseen[x] + uj >= k:
                return False
        return True

    def _lead(self, state: Dalmuti, seat: int, h: list[int], plays: list) -> Action:
        numbers = [m for m in range(1, 13) if h[m]]
        by_spec = {s: a for s, a in plays}
        if not numbers:
            return by_spec.get((_J, 0, h[_J])) or plays[0][1]
        if len(numbers) == 2:
            # Two sets left: lead the one nobody can beat, then the other (with the Jesters) goes out.
            unseen = self._unseen(state, h)
            for m in numbers:
                if self._safe(unseen, m, h[m]):
                    return by_spec[(m, h[m], 0)]
        worst = numbers[-1]
        return by_spec[(worst, h[worst], 0)]

    def _top(self, state: Dalmuti, seat: int, h: list[int], total: int, plays: list, pass_action: Action | None
             ) -> Action:
        whole = [(s, a) for s, a in plays if s[2] == 0 and s[1] == h[s[0]]]
        if whole:
            return max(whole, key=lambda p: p[0][0])[1]  # the cheapest sufficient improvement
        late = total <= self.LATE_CARDS or self._someone_nearly_out(state, seat)
        broken = [(s, a) for s, a in plays if s[2] == 0 and (late or s[0] >= self.CHEAP_NUMBER)]
        if broken:
            return max(broken, key=lambda p: p[0][0])[1]
        if late:
            # Jesters as wild cards: the fewest, on the highest number that works.
            return min(plays, key=lambda p: (p[0][2], -p[0][0]))[1]
        return pass_action if pass_action is not None else plays[0][1]

    @staticmethod
    def _someone_nearly_out(state: Dalmuti, seat: int) -> bool:
        return any(0 < n <= 2 for s, n in enumerate(state.left) if s != seat)
