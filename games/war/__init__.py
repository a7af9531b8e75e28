"""War: the sixth game, and the proof that a game is one folder (docs/interfaces.md, "Adding a
game"): the rules (rules.py), the normal AI (ai.py), the stats figures (figures.py), the hints'
reasons (hints.py) and, for the Discord side only, its screens (screens.py, imported by cogs/,
never from here).

War is not offered to users: it is a registered game only while ``games.war.screens.registered``
lasts (the tests turn it on, tests/wargame.py), so ``SPEC`` is built here but not registered on import.
"""

from __future__ import annotations

from engine.core import GameSpec
from engine.enlist import enlist
from games.war.ai import WarAI
from games.war.figures import BATTLES, battles
from games.war.hints import war_facts
from games.war.rules import NAME as NAME  # re-exported for tests/wargame.py
from games.war.rules import War

# Off: War registers only inside screens.registered() (the tests' flag); True would offer it to everyone.
OFFERED = False

# Its own words (screens, figures) are registered even while War is not offered (the tests turn it on).
SPEC = enlist(__file__, GameSpec(War, WarAI, figures=battles, figure_names=BATTLES, sample=(3, {"cards": 6}),
                                 explain=war_facts),
              "Goal: win battles.", "Your turn: play one card.",
              "Wins: the most battles won.", "Key rule: the highest card takes the battle.", offered=OFFERED)
