"""War's normal AI (games/war/rules.py)."""

from __future__ import annotations

import random

from engine.core import AI, Action
from games.war.rules import RANKS, War


class WarAI(AI[War]):
    """Plays its lowest card that takes the battle so far, else its lowest card."""

    def choose(self, state: War, seat: int, rng: random.Random) -> Action:
        assert isinstance(state, War)
        hand = state.hands[seat]
        best = max((RANKS.index(c.code[0]) for _, c in state.trick), default=-1)
        winners = [c for c in hand if RANKS.index(c.code[0]) > best]
        pick = min(winners or hand, key=lambda c: RANKS.index(c.code[0]))
        return Action("play", (pick,))
