"""What most games' rules and AIs are built of alike (games/<name>/rules.py, ai.py): a new state's
seats, seed and options (:func:`started`), the end read from the phase (:class:`EndsOver`), a saved
state's head (:func:`saved`) and an AI's "not your turn" (:func:`your_turn`).  Pure, like the engine."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final, TypeVar

from engine.core import AnyCard, Game, IllegalAction, Options, Outcome, Saved
from words import N_

#: The phase a game that uses :class:`EndsOver` is in once it ended.
OVER: Final = "over"

G = TypeVar("G", bound="Game[Any, Any]")  # any game's state class
T = TypeVar("T")


def started(cls: type[G], players: int, options: Options | None, seed: int | str, refusal: str) -> G:
    """A new state of ``cls`` for its ``create``: ``players`` within its seats (else ``ValueError``
    with ``refusal``, the game's own sentence), the seed and the options read (``Game.read_options``)."""
    if not cls.min_players <= players <= cls.max_players:
        raise ValueError(refusal)
    return restored(cls, {"seed": seed, "options": options})


def restored(cls: type[G], data: Saved) -> G:
    """A state of ``cls`` for its ``from_dict`` (and :func:`started`): the seed and the options that
    :func:`saved` wrote, read back."""
    g = cls()
    g.seed = data["seed"]
    g.options = cls.read_options(data["options"])
    return g


class EndsOver:
    """A game whose ``phase`` is :data:`OVER` once it ended: ``is_over`` and ``outcome`` (from
    :meth:`final_outcome`) come from that."""

    phase: str

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> Outcome | None:
        return self.final_outcome() if self.phase == OVER else None

    def final_outcome(self) -> Outcome:
        """The result of the game that just ended."""
        raise NotImplementedError


def saved(game: Game[Any, Any], **fields: Any) -> Saved:
    """The head of a game's ``to_dict`` (its name, seed and options), then its own ``fields``."""
    return {"game": game.name, "seed": game.seed, "options": dict(game.options), **fields}


def your_turn(decision: T | None) -> T:
    """What an AI is asked to decide (a ``Decision``, the legal moves): refused when there is none."""
    if not decision:
        raise IllegalAction(N_("It is not your turn."), "not_your_turn")
    return decision


S = TypeVar("S")


def copied(state: S, flat: tuple[str, ...] = (), nested: tuple[str, ...] = (), cleared: tuple[str, ...] = ()) -> S:
    """``state``'s copy for search (``Game.copy``): its attributes shared, but the lists named ``flat``
    copied, the lists of lists named ``nested`` copied two deep and the caches named ``cleared`` reset
    to ``None``."""
    g = type(state).__new__(type(state))
    d = state.__dict__.copy()
    for k in flat:
        d[k] = d[k][:]
    for k in nested:
        d[k] = [x[:] for x in d[k]]
    for k in cleared:
        d[k] = None
    g.__dict__ = d
    return g


def others_cards(hands: Sequence[Iterable[AnyCard]], seat: int | None) -> set[str]:
    """The codes in every hand but ``seat``'s (``None``: every hand): where a ``hidden_from`` starts."""
    return {c.code for s, hand in enumerate(hands) if s != seat for c in hand}
