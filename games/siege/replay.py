"""What a replay shows of Siege (engine/replays.py): every player's house piles and King pile, a
step's place counted in rounds and turns."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event, Game, View
from engine.replays import Group, Position, ReplayHooks, codes, group
from words import N_, Speaker

_ = Speaker("siege")  # (the piles' names, in the language the replay is drawn in)
_PILES = {"queen": N_("Queen pile"), "jack": N_("Jack pile"), "ace": N_("Ace pile"), "house": N_("House pile")}


class SiegeReplay(ReplayHooks):
    unit = "round"

    def table(self, state: Game, pv: View, views: Sequence[View], events: Sequence[Event]) -> list[Group]:
        out: list[Group] = []
        for s, houses in enumerate(pv.get("houses") or []):
            for h in houses or []:
                if h:  # the rule book's words: a Queen, Jack or Ace pile
                    said = _PILES.get(str(h.get("kind") or "house"), _PILES["house"])
                    out.append(group(s, _(said),
                                     codes([h.get("special")]) + codes(h.get("cards"))))
        out += [group(s, _("King pile"), pile) for s, pile in enumerate(pv.get("kings") or []) if pile]
        return out

    def position(self, pv: View, events: Sequence[Event], leads: int) -> Position:
        return Position(int(pv.get("round") or 1), self.unit, int(pv.get("turn_no") or 0) + 1, "turn")
