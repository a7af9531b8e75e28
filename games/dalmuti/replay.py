"""What a replay shows of The Great Dalmuti (engine/replays.py): the cards to beat, each lead of a
hand counted (the rules number no tricks), and the taxes, paid and given back, face up with each of
the two players for the rest of that hand."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event, Game, View
from engine.replays import Group, Position, ReplayHooks, codes, group
from games.dalmuti.rules import is_peon
from words import Speaker

_ = Speaker("dalmuti")  # (the piles' names, in the language the replay is drawn in)


def _to_beat(pv: View) -> bool:
    current = pv.get("current")
    return bool(current.get("cards")) if isinstance(current, dict) else False


class DalmutiReplay(ReplayHooks):
    def table(self, state: Game, pv: View, views: Sequence[View], events: Sequence[Event]) -> list[Group]:
        if not _to_beat(pv):
            return []
        by = pv["current"].get("by")
        return [group(None if by is None else int(by), _("to beat"), pv["current"]["cards"])]

    def piles(self, state: Game, pv: View, views: Sequence[View]) -> list[Group]:
        ranking = [int(s) for s in pv.get("ranking") or ()]
        out: list[Group] = []
        for s, v in enumerate(views):  # each seat's own taxes
            given, received = codes(v.get("tax_given")), codes(v.get("tax_received"))
            if not given and not received:
                continue
            peon = s in ranking and is_peon(ranking.index(s), len(ranking))
            first, then = ((_("paid in taxes"), given), (_("got back"), received)) if peon else \
                ((_("received in taxes"), received), (_("gave back"), given))
            out += [group(s, label, cards) for label, cards in (first, then) if cards]
        return out

    def position(self, pv: View, events: Sequence[Event], leads: int) -> Position:
        return Position(int(pv.get("hand_no") or 0) + 1, self.unit, leads, "lead")

    def lead_over(self, before: View, after: View) -> bool:
        """A new lead starts when the cards to beat clear."""
        return _to_beat(before) and not _to_beat(after)
