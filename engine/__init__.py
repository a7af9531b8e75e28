"""Deckhand's rules engine: pure, synchronous and deterministic.  Importing it registers every game."""

from engine import dalmuti as _dalmuti  # noqa: F401  (each game module registers itself)
from engine import hearts as _hearts  # noqa: F401
from engine import koth as _koth  # noqa: F401
from engine import search as _search  # noqa: F401  (registers the strong levels)
from engine import siege as _siege  # noqa: F401
from engine import tricks as _tricks  # noqa: F401
from engine.core import (  # noqa: F401
    AI,
    Action,
    Decision,
    Event,
    Game,
    IllegalAction,
    Option,
    Outcome,
    ai_for,
    games,
    get,
    levels,
    register,
    register_level,
    replay,
)
