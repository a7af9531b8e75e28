"""What most games' rules and AIs are built of alike (games/<name>/rules.py, ai.py): a new state's
seats, seed and options (:func:`started`), the end read from the phase (:class:`EndsOver`), a saved
state's head (:func:`saved`) and an AI's "not your turn" (:func:`your_turn`).  Pure, like the engine."""

from __future__ import annotations

from typing import Any, Final, TypeVar

from engine.core import Game, IllegalAction, Options, Outcome, Saved
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
    g = cls()
    g.seed = seed
    g.options = cls.read_options(options)
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
