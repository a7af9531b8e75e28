"""The Great Dalmuti's knowledge for the strong level's search (engine/search.py; docs/rules.md §3).

A hand scores each seat by its finishing place (n−1 for first out … 0), and a place is settled the
moment the seat goes out: a playout stops there (:meth:`DalmutiHooks.playout`) instead of playing
the others' race for the places behind it, so the same CPU buys more worlds.  The searched seat
goes out first about a third of the time, often after a few plays, where the full playout ran the
whole hand."""

from __future__ import annotations

import random

from engine.core import AI
from engine.search import Hooks
from games.dalmuti.rules import Dalmuti


class DalmutiHooks(Hooks):
    """The Great Dalmuti: the points the seat's finishing place scores (n−1 for first out … 0)."""

    def playout(self, start: Dalmuti, x: Dalmuti, seat: int, base: AI) -> float | None:
        """The normal AI's playout to the end of the hand, cut short once ``seat`` is out: its
        place, so its points, can no longer change (the same result as the full playout)."""
        from games.dalmuti.ai import DalmutiAI
        from games.dalmuti.rules import PLAY, play_spec

        if type(base) is not DalmutiAI:
            return None
        rng = random.Random(0)  # (the normal AI never draws from it)
        hand = start.hand_no
        while not (x.is_over or x.hand_no != hand):
            finish = x.finish
            if seat in finish:
                return float(x.players - 1 - finish.index(seat))
            s = x.to_act()[0]
            if x.phase == PLAY:
                # The normal AI's own play (DalmutiAI.choose) without building the decision's prompt.
                plays = x.legal_plays(s)
                a = plays[0] if len(plays) == 1 else base.choose_play(x, s, [(play_spec(p), p) for p in plays])
            else:
                a = base.choose(x, s, rng)
            x.apply(s, a)
        return self.utility(start, x, seat)

    def utility(self, start: Dalmuti, end: Dalmuti, seat: int) -> float:
        return float(end.scores[seat] - start.scores[seat])
