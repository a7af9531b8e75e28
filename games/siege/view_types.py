"""Siege's view (``Siege.view(seat)``, ``Siege.public_view()``) and the record of the last attack
it shows, as the renderers read them."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class PileView(TypedDict):
    """A house pile on the table."""

    kind: str
    #: The card that started it (a jack, or the rank its numbers follow).
    special: str
    #: The cards placed on it, in order.
    cards: list[str]
    score: int


class LastAttack(TypedDict):
    """The last fight of a turn (seats 0-based, slots 1-based), as the state keeps it."""

    seat: int
    slot: int
    target: int
    target_slot: int
    attack_score: int
    defend_score: int
    winner: int
    #: The cards the winner took into their hand, and the cards discarded.
    taken: list[str]
    discarded: list[str]


class SiegeView(TypedDict):
    """What everyone sees; a seat's own view adds ``seat``, ``suit`` and ``hand``."""

    game: str
    phase: str
    turn: int | None
    turn_no: int
    round: int
    max_rounds: int
    suits: list[str]
    scores: list[int]
    kings: list[list[str]]
    #: Per seat, its three slots: a pile, or None.
    houses: list[list[PileView | None]]
    hand_counts: list[int]
    stock: int
    discard: int
    attacked: list[int]
    last_attack: LastAttack | None
    winner: int | None
    seat: NotRequired[int]
    suit: NotRequired[str]
    hand: NotRequired[list[str]]
