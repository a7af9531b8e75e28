"""Every game's Discord side, registered once per game next to its renderer
(``games/<name>/screens.py``): how its messages look, its options in words, its end-of-game chart
and the faces of its own cards.

The engine's ``GameSpec`` (engine/core.py) holds a game's pure parts; this is the rest, and
``tests/test_spec.py`` fails when a game has one without the other or lacks a part.  Importing
:mod:`cogs` registers every game's screens (``cogs/__init__.py`` imports cogs/table/renderers.py, which
imports them), so a module reading this registry never misses one.  Nothing here imports another
cogs module: the renderers, the option words, the chart and the faces all read it, so it sits
below them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from words import N_

if TYPE_CHECKING:
    from engine.core import Options, View


@dataclass(frozen=True)
class Words:
    """How one option reads: ``about`` says what it does; ``say`` one value in plain words (the
    lobby and footer); ``values`` a few words per choice for ``/game rules``.  ``domain``: the
    catalog ``about`` and ``values`` are msgids of (a game's own, ``games/<name>/locale/``), read in
    the language being drawn by cogs/table/options.py; ``say`` speaks for itself."""

    about: str
    say: Callable[[Any], str]
    values: Mapping[Any, str] = field(default_factory=dict)
    domain: str | None = None


def choice(table: Mapping[Any, str]) -> Callable[[Any], str]:
    """``say`` for an option with named choices: each choice's words (the raw value if unworded)."""
    return lambda v: table.get(v, str(v))


@dataclass(frozen=True)
class Chart:
    """What the end-of-game picture (cogs/pictures/chart.py) plots: one point per hand (a public
    ``hand_end``), or per round when ``per_round`` (the public view's ``round`` changes); each point
    the public ``scores`` unless ``snapshot(public_view, players)`` says otherwise."""

    y_label: str = N_("points")
    x_label: str = N_("hand")
    per_round: bool = False
    snapshot: Callable[[View, int], list[float]] | None = None
    #: value -> label on the y axis (ranks); None: numbers.
    y_ticks: Mapping[float, str] | None = None


@dataclass(frozen=True)
class Screens:
    """One game's Discord side.  ``renderer`` is its ``cogs.table.renderer.Renderer``; ``words`` every
    option of the engine's ``options_spec`` in plain words; ``table_defaults`` the defaults of a
    Discord table that differ from the engine's; ``faces`` the drawing of each card code of its own
    (beyond the standard deck, which cogs/pictures/faces.py draws for every game)."""

    game: str
    renderer: Any
    words: Mapping[str, Words]
    chart: Chart = field(default_factory=Chart)
    table_defaults: Options = field(default_factory=dict)
    faces: Mapping[str, Callable[[], bytes]] = field(default_factory=dict)


_SCREENS: dict[str, Screens] = {}


def register(screens: Screens) -> None:
    _SCREENS[screens.game] = screens


def unregister(game: str) -> None:
    """Forget a game's screens (tests register throwaway games)."""
    _SCREENS.pop(game, None)


def registered() -> dict[str, Screens]:
    """Every game's screens by name, in the order they were registered."""
    return dict(_SCREENS)


def get(game: str) -> Screens | None:
    return _SCREENS.get(game)
