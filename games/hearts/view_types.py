"""Hearts' view (``Hearts.view(seat)``, ``Hearts.public_view()``), as the renderers read it."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class LastTrick(TypedDict):
    #: ``[seat, card code]`` in play order.
    cards: list[list[int | str]]
    winner: int
    points: int


class HeartsView(TypedDict):
    """What everyone sees; a seat's own view adds ``seat``, ``hand`` and its pass (``passing``: the
    cards it chose or passed, ``received``: the cards passed to it)."""

    game: str
    rules: str
    target: int
    phase: str
    hand_no: int
    pass_dir: str
    scores: list[int]
    hand_points: list[int]
    trick_no: int
    #: The trick so far: ``[seat, card code]`` in play order.
    trick: list[list[int | str]]
    leader: int
    turn: int | None
    hearts_broken: bool
    cards_left: list[int]
    #: Per seat, whether it has chosen its pass (all True outside the pass).
    passed: list[bool]
    last_trick: LastTrick | None
    seat: NotRequired[int]
    hand: NotRequired[list[str]]
    passing: NotRequired[list[str]]
    received: NotRequired[list[str]]
