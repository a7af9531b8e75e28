"""What a replay shows of King of the Hill (engine/replays.py): the trick, the players' ranks as
scores, and face up the dead hand (in the middle while the deal goes on, with the King once taken)
and the King's buried cards until the next deal."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event, Game, View
from engine.replays import Group, Position, ReplayHooks, group, trick_position, trick_table
from games.koth.rules import BURY, DEAD, DEAL, LATE, OVER, RANKS, ROUND_READY, SUIT
from words import Speaker

_ = Speaker("koth")  # (the piles' names, in the language the replay is drawn in)


def rank_value(rank: object) -> int:
    """A rank as the view spells it (``"T"``) as the number the outcome counts (10; A is 14)."""
    return RANKS.index(str(rank)) + 2 if str(rank) in RANKS else 2


class KothReplay(ReplayHooks):
    unit = "round"
    totals_word = "ranks"

    def table(self, state: Game, pv: View, views: Sequence[View], events: Sequence[Event]) -> list[Group]:
        return trick_table(pv, events)

    def scores(self, pv: View, players: int) -> list[int]:
        ranks = pv.get("ranks")
        return [rank_value(r) for r in ranks] if isinstance(ranks, list) else [2] * players

    def totals(self, pv: View) -> list[object] | None:
        ranks = pv.get("ranks")
        return list(ranks) if isinstance(ranks, list) else None

    def position(self, pv: View, events: Sequence[Event], leads: int) -> Position:
        return trick_position(pv, events, int(pv.get("round") or 1), self.unit)

    def piles(self, state: Game, pv: View, views: Sequence[View]) -> list[Group]:
        # The dead hand lies undealt in the stock during the deal: only the engine's whole state
        # (its snapshot) has it.
        d = state.to_dict()
        phase, stock, koth = d.get("phase"), list(d.get("stock") or ()), d.get("koth")
        if phase in (DEAL, LATE, SUIT) and len(stock) >= DEAD:
            return [group(None, _("dead hand"), stock[:DEAD][::-1])]
        if phase == BURY and d.get("dead") and koth is not None:
            return [group(int(koth), _("took the dead hand"), d["dead"])]
        if d.get("buried"):
            if phase in (ROUND_READY, OVER):  # scored: the King may have changed since
                koth = (pv.get("last_round") or {}).get("koth", koth)
            if koth is not None:
                return [group(int(koth), _("buried"), d["buried"])]
        return []
