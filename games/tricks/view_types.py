"""Tricks' view (``Tricks.view(seat)``, ``Tricks.public_view()``), as the renderers read it."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class LastTrick(TypedDict):
    #: ``[seat, card code]`` in play order.
    cards: list[list[int | str]]
    winner: int
    points: int


class TricksView(TypedDict):
    """What everyone sees; a seat's own view adds ``seat`` and ``hand``."""

    game: str
    target: int
    phase: str
    hand_no: int
    order: list[int]
    scores: list[int]
    hand_tricks: list[int]
    trick_no: int
    #: The trick so far: ``[seat, card code]`` in play order.
    trick: list[list[int | str]]
    leader: int
    turn: int | None
    cards_left: list[int]
    bad_cards: list[int]
    last_trick: LastTrick | None
    seat: NotRequired[int]
    hand: NotRequired[list[str]]
