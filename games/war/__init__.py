"""War: the sixth game, and the proof that a game is one folder (docs/interfaces.md, "Adding a
game"): the rules (rules.py), the normal AI (ai.py), the stats figures (figures.py) and, for the
Discord side only, its screens (screens.py, imported by cogs/, never from here).

War is not offered to users: it is a registered game only while :func:`registered` lasts (the
tests turn it on, tests/wargame.py), so ``SPEC`` is built here but not registered on import.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from engine.core import GameSpec, register, unregister
from games.war.ai import WarAI
from games.war.figures import BATTLES, battles
from games.war.rules import NAME, War

# Off: War registers only inside registered() (the tests' flag); True would offer it to everyone.
OFFERED = False

SPEC = GameSpec(War, WarAI, figures=battles, figure_names=BATTLES, sample=(3, {"cards": 6}),
                quick_start=("Goal: win battles.", "Your turn: play one card.",
                             "Wins: the most battles won.", "Key rule: the highest card takes the battle."))

if OFFERED:
    register(SPEC)


@contextmanager
def registered() -> Iterator[None]:
    """War is a registered game while this lasts (its engine spec and its screens), then gone."""
    from cogs import screens  # the Discord side, only when asked for (never on import)
    from games.war.screens import SCREENS
    register(SPEC)
    screens.register(SCREENS)
    try:
        yield
    finally:
        unregister(NAME)
        screens.unregister(NAME)
