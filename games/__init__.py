"""Every game, one package each: ``games/<name>/`` holds all that only it needs (docs/interfaces.md,
"Adding a game").  Importing this package imports every game package in it, found by a scan of
the folder, and each registers its pure parts itself (``engine.core.register``); the engine's
registry imports this package the first time it is read (``engine.core.discover``), so nothing
outside games/ names a game.

A game's Discord side (``games/<name>/screens.py``) is imported only by :func:`load_screens`,
which cogs/table/renderers.py calls: a game's package itself imports nothing of Discord.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

from engine import search as _search


def names() -> list[str]:
    """The game packages in this folder, by folder name."""
    return [m.name for m in pkgutil.iter_modules(__path__) if m.ispkg and not m.name.startswith("_")]


for _name in names():
    importlib.import_module(f"{__name__}.{_name}")

# The strong AI level searches with the registered AIs and hooks: offered once they are registered.
_search.register_strong()


def load_screens() -> None:
    """Import every game's screens (``games/<name>/screens.py``): each registers its ``Screens``."""
    for name in names():
        module = f"{__name__}.{name}.screens"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)
