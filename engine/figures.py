"""A game's stats figures: counted from the public events of a replay of its log, and what each
figure is called.  Each game keeps its own (``games/<name>/figures.py``).

Counted from events, not kept by the games, so old logs can be counted again.  Each game's
``GameSpec`` names its function and figures (``figures``, ``figure_names``); ``tables/history/stats.py``
stores what they count at the end of a game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.core import Event

#: ``figures(events, players) -> [{figure: count}]``, one dict per seat.
Figures = Callable[[Sequence[Event], int], list[dict[str, int]]]
