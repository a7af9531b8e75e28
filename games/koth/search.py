"""King of the Hill's knowledge for the strong level's search (engine/search.py; docs/rules.md §4)."""

from __future__ import annotations

from engine.core import AI, Action
from engine.search import Hooks
from games.koth.rules import KingOfTheHill


class KothHooks(Hooks):
    #: What crossing the 80-point line is worth on top of the points themselves: the hill changes hands.
    LINE_BONUS = 40.0

    #: A playout from early in a round is ~5 ms of CPU, so a world of 24 candidates is ~0.1 s:
    #: several worlds in a second's budget even on a busy machine, and no lead (at most 20 singles
    #: and a few pairs) is cut.  Follows of a pair lead offer up to ~190 pairs.
    max_candidates: int | None = 24

    def done(self, start: KingOfTheHill, now: KingOfTheHill) -> bool:
        return now.is_over or now.round_no != start.round_no

    def shortlist(self, state: KingOfTheHill, seat: int, cands: list[Action], base: AI, default: Action,
                  k: int) -> list[Action]:
        """The normal AI's own ranking (its move, then the best throw, feed and take by turns)."""
        from games.koth.ai import KothAI

        if not isinstance(base, KothAI):
            return super().shortlist(state, seat, cands, base, default, k)
        ranked = [a for a in base.rank_plays(state, seat, cands) if a != default]
        return [default, *ranked][:k]

    def utility(self, start: KingOfTheHill, end: KingOfTheHill, seat: int) -> float:
        lr = end.last_round
        assert lr is not None  # the round is over
        score = float(lr["challenge_score"])
        if score >= 80:
            score += self.LINE_BONUS
        return -score if seat in lr["defenders"] else score
