"""Deckhand's rules engine: pure, synchronous and deterministic: the interface every game implements,
the registry, cards, search, worlds, hints and reviews.  The games themselves live in games/<name>/."""

# First of all: import the mypyc-compiled modules instead of their sources when a current build
# exists (tools/native.py; the pure sources otherwise).  So every other import comes after it:
# ruff: noqa: E402
from tools import native as _native

_native.activate()

from engine import figures, hints, search  # noqa: F401 (engine.hints, … for those that import engine)
from engine.core import (  # noqa: F401
    AI,
    Action,
    Decision,
    Event,
    Game,
    GameSpec,
    IllegalAction,
    Option,
    Outcome,
    discover,
    games,
    get,
    register,
    replay,
    unregister,
)
from engine.levels import ai_for, levels, register_level  # noqa: F401

# No game is named here: each registers itself, with all its pure parts, in its own package
# (games/<name>/__init__.py), and the registry imports the games package the first time it is read
# (engine.core.discover), so every reader of engine.games() or engine.get() sees every game.
