"""What Tricks tells the line protocol of program players (engine/programs.py; docs/rules.md,
"Programs as players")."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.core import Action, Event, Game
from engine.programs import ProgramRules
from games.tricks.rules import BAD, PLAY, Tricks, clean_bad_text


def _tricks(state: Game) -> Tricks:
    if not isinstance(state, Tricks):
        raise TypeError(f"not a game of Tricks: {type(state).__name__}")
    return state


class TricksPrograms(ProgramRules):
    players = 4
    bad = BAD
    target_option = "target"

    def play(self, card: Card) -> Action:
        return PLAY[card]

    def legal(self, state: Game, seat: int) -> Sequence[Card]:
        return _tricks(state).legal_plays(seat)

    def clean(self, text: str) -> str:
        return clean_bad_text(text)

    def catch_up(self, state: Game) -> list[Event]:
        """The current hand's deal and every seat's remaining cards, the current trick's start and
        the cards played to it: at the start of a hand, exactly ``state.opening_events()``."""
        g = _tricks(state)
        if g.is_over:
            return []
        lead = g.leader
        events = [Event("deal", None, (g.hand_no, *g.order))]
        events += [Event("dealt", s, tuple(g.hands[s]), s) for s in range(4)]
        events.append(Event("trick_start", lead, (g.trick_no, *((lead + i) % 4 for i in range(4)))))
        events += [Event("play", s, (c,)) for s, c in g.trick]
        return events

    def hands_begun(self, state: Game) -> int:
        return _tricks(state).hand_no + 1

    def bad_cards(self, state: Game) -> list[int]:
        return list(_tricks(state).bad_cards)
