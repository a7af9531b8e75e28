"""King of the Hill's view (``KingOfTheHill.view(seat)``, ``public_view()``), as the renderers
read it."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class Declaration(TypedDict):
    """A declaration of trump: the seat, and the card it showed, once per copy shown."""

    seat: int
    cards: list[str]


class LastTrick(TypedDict):
    #: ``[seat, [card codes]]`` in play order.
    plays: list[list[int | list[str]]]
    winner: int
    points: int


class KothView(TypedDict):
    """What everyone sees; a seat's own view adds ``seat`` and ``hand``, and the King's while it
    buries (``dead_hand``, ``marked``) or until the round ends (``buried``)."""

    game: str
    phase: str
    round: int
    rounds: int
    ranks: list[str]
    start: int
    koth: int | None
    trump_rank: str
    trump_suit: str | None
    trump_how: str | None
    declaration: Declaration | None
    declarations: list[Declaration]
    dealt: int
    deal_total: int
    cards_left: list[int]
    dead_hand_buried: bool
    called: str | None
    called_copy: str
    called_seen: int
    teammate: int | None
    alone: bool
    defenders: list[int]
    points: list[int]
    challenger_points: int
    trick_no: int
    #: The trick so far: ``[seat, [card codes]]`` in play order.
    trick: list[list[int | list[str]]]
    leader: int | None
    turn: int | None
    last_trick: LastTrick | None
    ready: list[bool] | None
    #: The last round's record (games/koth/play.py writes it); while a new deal is on, without the
    #: codes of its dead hand and called card.
    last_round: dict[str, Any] | None  # Any: as the state keeps it (KothDeal.last_round)
    winners: list[int]
    seat: NotRequired[int]
    hand: NotRequired[list[str]]
    dead_hand: NotRequired[list[str]]
    marked: NotRequired[list[str]]
    buried: NotRequired[list[str]]
