"""AI levels beyond each game's own AI (``normal``): a game's search offers ``strong`` here
(:func:`register_level`), and every layer asks for a computer player of a level through :func:`ai_for`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypedDict, Unpack

from engine.core import AI, LEVELS, discover, get


class Budget(TypedDict, total=False):
    """What a searching AI level may spend on a decision (see :func:`ai_for`)."""

    playouts: int | None
    time_left: Callable[[], float] | None
    #: The most moves searched (the rest cut by the normal AI's ranking); 0: no cut (tests, benches).
    max_candidates: int | None


class LevelFactory(Protocol):
    """What makes an AI of a level beyond ``normal``, within a :class:`Budget`."""

    def __call__(self, **budget: Unpack[Budget]) -> AI: ...


def register_level(name: str, level: str, factory: LevelFactory) -> None:
    """Offer ``level`` for game ``name``: ``factory(playouts=None, time_left=None) -> AI``."""
    LEVELS[(name, level)] = factory


def levels(name: str) -> tuple[str, ...]:
    """The AI levels game ``name`` offers, ``normal`` first."""
    get(name)
    return ("normal", *sorted(lv for n, lv in LEVELS if n == name))


def ai_for(name: str, level: str = "normal", **budget: Unpack[Budget]) -> AI:
    """A computer player for game ``name`` at ``level``.  ``normal`` is the game's registered AI
    (instant); ``strong`` searches, within ``budget``: ``playouts`` (a number) and/or ``time_left``
    (a callable giving the seconds left: the engine never reads a clock itself).  Raises
    ``KeyError`` naming the levels offered when the game has no such level."""
    if level == "normal":
        return get(name).ai()
    discover()
    factory = LEVELS.get((name, level))
    if factory is None:
        raise KeyError(f"{name} has no AI level {level!r}; levels: {', '.join(levels(name))}.")
    return factory(**budget)
