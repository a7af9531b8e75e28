"""War (games/war/), the sixth game, is not offered to users: the tests that run every game (the
conformance test, the privacy test, tests/test_spec.py) take their games from :func:`every_game`
and register War around each test (:func:`registered`), so it is gone again before any other test
runs."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import engine
from games.war import NAME, SPEC
from games.war.ai import WarAI
from games.war.figures import battles
from games.war.rules import War
from games.war.screens import SCREENS, registered

__all__ = ["NAME", "SCREENS", "SPEC", "War", "WarAI", "battles", "every_game", "offered", "registered"]


def every_game(registered_games: Iterable[str] | None = None) -> list[str]:
    """The registered games and War, for the tests that run every game."""
    return sorted({*(engine.games() if registered_games is None else registered_games), NAME})


@contextmanager
def offered() -> Iterator[None]:
    """War registered and among /game new's and /game rules' games (the choices the cog built when
    it was imported, before War was registered), as if it were shipped (games/war/'s ``OFFERED``)."""
    from discord import app_commands

    from cogs.table import arguments

    choice = app_commands.Choice(name=War.title, value=NAME)
    with registered():
        arguments.GAME_CHOICES.append(choice)
        try:
            yield
        finally:
            arguments.GAME_CHOICES.remove(choice)
