"""What each seat of King of the Hill sees (docs/rules.md §4): the public view, a seat's own view
(its hand, and the dead hand and the marks while it buries), which card codes are hidden from it,
and the game's end and outcome."""

from __future__ import annotations

from engine.cards import Card
from engine.core import Outcome
from games.koth.cards import (
    BURY,
    DEALT,
    OVER,
    PLAYERS,
    ROUND_READY,
    TRICK_READY,
    rank_char,
)
from games.koth.play import KothPlay
from games.koth.view_types import KothView


class KothViews(KothPlay):
    """The views of the table and the end of the game."""

    # ---- views ------------------------------------------------------------------------------
    def known_defenders(self) -> list[int]:
        """The King and the teammate once revealed."""
        if self.koth is None:
            return []
        return sorted({self.koth} if self.teammate is None else {self.koth, self.teammate})

    def _finished_round_shown(self) -> bool:
        # Between rounds (and at the end) every card of the last round is face up.
        return self.last_round is not None and (self.phase == OVER or (self.phase == ROUND_READY))

    def public_view(self) -> KothView:
        d = self.declared
        known = self.known_defenders()
        lt = self.last_trick
        lr = self.last_round
        if lr is not None and not self._finished_round_shown():
            # A new deal hides every code again, so the last round keeps only its numbers.
            lr = {k: v for k, v in lr.items() if k not in ("dead_hand", "called")}
        return {
            "game": "koth",
            "phase": self.phase,
            "round": self.round_no,
            "rounds": self.options["rounds"],
            "ranks": [rank_char(r) for r in self.ranks],
            "start": self.start,
            "koth": self.koth,
            "trump_rank": self.trump.rank,
            "trump_suit": self.trump.suit,
            "trump_how": self.trump_how,
            "declaration": None if d is None else {"seat": d[0], "cards": [d[1].code] * d[2]},
            "declarations": [{"seat": s, "cards": [c.code] * n} for s, c, n in self.declarations],
            "dealt": self.deal_count,
            "deal_total": DEALT,
            "cards_left": [len(h) for h in self.hands],
            "dead_hand_buried": bool(self.buried),
            "called": None if self.called is None else self.called.code,
            "called_copy": self.options["called_copy"],
            "called_seen": self.called_seen,
            "teammate": self.teammate,
            "alone": self.call_done and self.teammate is None,
            "defenders": known,
            "points": list(self.points),
            "challenger_points": sum(p for s, p in enumerate(self.points) if s not in known),
            "trick_no": self.trick_no,
            "trick": [[s, [c.code for c in p]] for s, p in self.trick],
            "leader": self.leader,
            "turn": self.turn,
            "last_trick": None if lt is None else {
                "plays": [[s, [c.code for c in p]] for s, p in lt[2]], "winner": lt[0], "points": lt[1]},
            "ready": list(self.ready) if self.phase in (ROUND_READY, TRICK_READY) else None,
            "last_round": lr,
            "winners": list(self.winners),
        }

    def view(self, seat: int) -> KothView:
        v = self.public_view()
        v["seat"] = seat
        v["hand"] = [c.code for c in self.sorted_hand(seat)]
        if seat == self.koth and self.dead:
            if self.phase == BURY:
                v["dead_hand"] = [c.code for c in self.dead]
                v["marked"] = [c.code for c in self.marked]
            elif self.buried and self.phase not in (ROUND_READY, OVER):
                v["buried"] = [c.code for c in self.buried]
        return v

    def hidden_from(self, seat: int | None) -> set[str]:
        # A code is hidden only while both its copies are out of sight: codes repeat in a double deck.
        hidden: set[str] = set()
        shown: set[str] = set()
        for s in range(PLAYERS):
            (shown if s == seat else hidden).update(c.code for c in self.hands[s])
        hidden.update(c.code for c in self.stock)
        if self.buried:
            revealed = self._finished_round_shown() or (seat is not None and seat == self.koth)
            (shown if revealed else hidden).update(c.code for c in self.buried)
        for _, p in self.trick:
            shown.update(c.code for c in p)
        for pile in self.taken:
            shown.update(c.code for c in pile)
        # Named in public: the declared cards (shown from a hand) and the called card.
        shown.update(c.code for _, c, _ in self.declarations)
        if self.called is not None:
            shown.add(self.called.code)
        return hidden - shown

    def all_cards(self) -> list[Card]:
        out = [c for h in self.hands for c in h]
        out.extend(self.stock)
        out.extend(self.buried)
        out.extend(c for _, p in self.trick for c in p)
        out.extend(c for pile in self.taken for c in pile)
        return out

    # ---- the end ----------------------------------------------------------------------------
    def final_outcome(self) -> Outcome:
        win = set(self.winners)
        key = [(s in win, self.ranks[s]) for s in range(PLAYERS)]
        places = tuple(1 + sum(1 for k in key if k > mine) for mine in key)
        return Outcome(tuple(self.ranks), places, tuple(sorted(win)))
