"""What a replay shows of Hearts (engine/replays.py): the trick being played, the cards each seat
chose to pass until they change hands, and a recap line per hand with its pass and its points."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event, Game, View
from engine.replays import Group, Position, ReplayHooks, group, trick_position, trick_table
from games.hearts.rules import PASS, Hearts
from words import N_, Speaker

_ = Speaker("hearts")
#: The way cards were passed, as the recap says it (the language being drawn: words.speaking).
_PASSED = {"left": N_("passed left"), "right": N_("passed right"), "across": N_("passed across")}


class HeartsReplay(ReplayHooks):
    def table(self, state: Game, pv: View, views: Sequence[View], events: Sequence[Event]) -> list[Group]:
        out = trick_table(pv, events)
        if pv.get("phase") == PASS:  # the cards each seat chose to pass, until they change hands
            out += [group(s, _("to pass"), v["passing"]) for s, v in enumerate(views) if v.get("passing")]
        return out

    def position(self, pv: View, events: Sequence[Event], leads: int) -> Position:
        return trick_position(pv, events, int(pv.get("hand_no") or 0) + 1, self.unit)

    def recap_line(self, names: Sequence[str], hand: int, pv: View, events: Sequence[Event]) -> str | None:
        """``Hand 1 (passed left): Ann +10, … · totals 10 / …`` — the pass from the hand's deal."""
        n = len(names)
        deal = next((e for e in reversed(events) if e.kind == "deal" and len(e.data) >= 2), None)
        end = next((e for e in reversed(events) if e.kind == "hand_end" and len(e.data) >= 2 * n + 1), None)
        if end is None:
            return None
        pts, moon, totals = end.data[:n], end.data[n], end.data[n + 1: 2 * n + 1]
        direction = None if deal is None else str(deal.data[1])
        if direction is None:
            passed = ""
        elif Hearts.pass_target(0, direction) == 0:  # a hand without passing keeps every card
            passed = " (" + _("no passing") + ")"
        else:
            passed = " (" + (_(_PASSED[direction]) if direction in _PASSED else direction) + ")"
        taken = ", ".join(f"{names[s]} {pts[s]:+d}" for s in range(n))
        shot = isinstance(moon, int) and 0 <= moon < n
        moon_text = (" — " + _("{who} shot the moon!", who=names[moon])) if shot else ""
        return (_("Hand {hand}", hand=hand) + f"{passed}: {taken}{moon_text} · "
                + _("totals {scores}", scores=" / ".join(str(x) for x in totals)))
