"""War's Discord side: its renderer (the base one) and its table option in words, registered only
when War is offered (games/war/__init__.py, ``OFFERED``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from cogs.table import screens
from cogs.table.render import Renderer
from cogs.table.screens import Screens, Words, register
from engine.core import register as register_game
from engine.core import unregister
from games.war import OFFERED, SPEC
from games.war.rules import NAME

SCREENS = Screens(NAME, Renderer(), words={"cards": Words("how many cards each player is dealt",
                                                          lambda v: f"{v} cards each")})

if OFFERED:
    register(SCREENS)


@contextmanager
def registered() -> Iterator[None]:
    """War is a registered game while this lasts (its engine spec and its screens), then gone.  It
    lives on the Discord side, since it registers the screens too; the tests turn War on with it."""
    register_game(SPEC)
    register(SCREENS)
    try:
        yield
    finally:
        unregister(NAME)
        screens.unregister(NAME)
