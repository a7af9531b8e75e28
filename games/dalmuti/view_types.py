"""Dalmuti's view (``Dalmuti.view(seat)``, ``Dalmuti.public_view()``), as the renderers read it."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class CurrentPlay(TypedDict):
    """The play to beat: its cards, its number, how many cards (Jesters among them) and who played it."""

    cards: list[str]
    number: int
    count: int
    jesters: int
    by: int


class Tax(TypedDict):
    """The tax return waited for now."""

    giver: int
    receiver: int
    count: int


# The option ``pass`` (locked or open) is a Python keyword: a key the class syntax cannot name.
_PassOption = TypedDict("_PassOption", {"pass": str})


class DalmutiView(_PassOption):
    """What everyone sees; a seat's own view adds ``seat``, ``hand`` and its taxes
    (``tax_given``, ``tax_received``)."""

    game: str
    #: The options: ``pass`` (above) and how many ``hands``.
    hands: int
    phase: str
    hand_no: int
    players: int
    ranking: list[int]
    positions: list[int]
    titles: list[str]
    turn: int | None
    leader: int | None
    current: CurrentPlay | None
    cards_left: list[int]
    #: Cards played this hand per number (index 13: Jesters).
    played: list[int]
    passed: list[bool]
    #: Per seat, the place it went out in this hand, or None.
    out: list[int | None]
    finish_order: list[int]
    scores: list[int]
    history: list[list[int]]
    revolution: str | None
    revolution_holder: int | None
    tax: Tax | None
    #: The opening draw, round by round ``[seat, card code]``, shown with the first hand only.
    opening_draw: NotRequired[list[list[list[int | str]]]]
    seat: NotRequired[int]
    hand: NotRequired[list[str]]
    tax_given: NotRequired[list[str]]
    tax_received: NotRequired[list[str]]
