"""War's view (``War.view(seat)``, ``War.public_view()``), as the renderers read it."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class WarView(TypedDict):
    """What everyone sees; a seat's own view adds ``seat`` and ``hand``."""

    game: str
    phase: str
    turn: int | None
    leader: int
    #: The battle so far: ``[seat, card code]`` in play order.
    trick: list[list[int | str]]
    scores: list[int]
    cards_left: list[int]
    seat: NotRequired[int]
    hand: NotRequired[list[str]]
