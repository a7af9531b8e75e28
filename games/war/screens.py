"""War's Discord side: its renderer (the base one) and its table option in words, registered only
when War is offered (games/war/__init__.py, ``OFFERED``)."""

from __future__ import annotations

from cogs.render import Renderer
from cogs.screens import Screens, Words, register
from games.war import OFFERED
from games.war.rules import NAME

SCREENS = Screens(NAME, Renderer(), words={"cards": Words("how many cards each player is dealt",
                                                          lambda v: f"{v} cards each")})

if OFFERED:
    register(SCREENS)
