"""A game's stats figures: counted from the public events of a replay of its log, and what each
figure is called.  Each game keeps its own (``games/<name>/figures.py``).

Counted from events, not kept by the games, so old logs can be counted again.  Each game's
``GameSpec`` names its function and figures (``figures``, ``figure_names``); ``tables/history/stats.py``
stores what they count at the end of a game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from engine.core import Event

#: ``figures(events, players) -> [{figure: count}]``, one dict per seat.
Figures = Callable[[Sequence[Event], int], list[dict[str, int]]]


def zeroed(names: Mapping[str, str], players: int) -> list[dict[str, int]]:
    """Each seat's figures (``names``: a game's figure names) at zero, where a game's count starts."""
    return [dict.fromkeys(names, 0) for _ in range(players)]


def public(events: Iterable[Event]) -> Iterator[Event]:
    """The public events of a replay, the ones figures are counted from."""
    return (e for e in events if e.to is None)


def hand_totals(events: Sequence[Event], players: int) -> list[list[float]]:
    """Each finished hand's score per seat, for duplicate scoring (tables/nights/duplicate.py): the
    change in the running totals that a game's public ``hand_end`` event ends with, one per seat.  A
    game whose events say it otherwise declares its own ``GameSpec.hand_scores``."""
    out: list[list[float]] = []
    before = [0.0] * players
    for e in events:
        if e.kind != "hand_end" or e.to is not None or len(e.data) < players:
            continue
        after = [float(x) for x in e.data[-players:]]
        out.append([a - b for a, b in zip(after, before, strict=True)])
        before = after
    return out
