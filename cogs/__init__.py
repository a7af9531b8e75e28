"""Deckhand's Discord layer.  Importing it registers every game's screens (cogs/table/screens.py), as
importing :mod:`engine` registers every game."""

from cogs.table import renderers as _renderers  # noqa: F401
