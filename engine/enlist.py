"""What each game's ``games/<name>/__init__.py`` ends with: :func:`enlist` (docs/interfaces.md, "Adding a
game").  Pure: it registers a spec and names a catalog folder; nothing is read here."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import words
from engine.core import GameSpec, register


def enlist(package_file: str, spec: GameSpec, *quick_start: str, offered: bool = True) -> GameSpec:
    """``spec`` with its four ``quick_start`` lines (the goal, your turn, what wins, one key rule),
    registered unless it is not ``offered``, and the game's own words (``games/<name>/locale/``,
    beside ``package_file``) as a catalog domain named after it, registered even then (the tests
    turn such a game on).  Returns the spec."""
    spec = dataclasses.replace(spec, quick_start=quick_start)
    words.add_domain(spec.name, Path(package_file).parent / "locale")
    if offered:
        register(spec)
    return spec
