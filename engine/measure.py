"""What the benches measure of a game (``GameSpec.measure``), so bench/*.py name no game.

bench/ai.py plays one hand (its :attr:`Measure.hand` options) once with the normal AI in every seat
and once per seat with the strong one, and compares the seat's :attr:`Measure.result` in
:attr:`Measure.units`; bench/hints.py asks hints in positions of such hands; bench/engine.py times
random hands with :attr:`Measure.players` seats against :attr:`Measure.target`, and plays the
game side by side with OpenSpiel's implementation of it when :attr:`Measure.openspiel` names one.
Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import Game, GameSpec, OptionValue, games


def score_gain(start: Game, end: Game, seat: int) -> float:
    """The seat's public score at ``end`` minus at ``start``."""
    return float(end.public_view()["scores"][seat] - start.public_view()["scores"][seat])


def win_share(start: Game, end: Game, seat: int) -> float:
    """The seat's share of the win of a finished game (1 alone, shared by ties, else 0)."""
    outcome = end.outcome()
    if outcome is None or seat not in outcome.winners:
        return 0.0
    return 1.0 / len(outcome.winners)


@dataclass(frozen=True)
class Measure:
    #: Options of a game of one hand: the unit of bench/ai.py's figure.
    hand: Mapping[str, OptionValue]
    #: What bench/ai.py's figure counts ("points a hand").
    units: str
    #: The seat's result of the hand played from ``start`` to ``end``, in :attr:`units`.
    result: Callable[[Any, Any, int], float] = score_gain
    #: The hand is the whole game: bench/ai.py plays it to its end (not to the search hooks' ``done``).
    whole_game: bool = False
    #: A lower :attr:`result` is the better one (e.g. penalty points taken): bench/ai.py reports how much
    #: better the strong level is, so it turns strong − normal round for such a game.
    lower_is_better: bool = False
    #: bench/hints.py's options when they differ from :attr:`hand`.
    hints: Mapping[str, OptionValue] | None = None
    #: Seats at bench/engine.py's figures (None: the fewest the game allows).
    players: int | None = None
    #: bench/engine.py's speed target, as the game's issue set it: ``(figure, at least)``.
    target: tuple[str, float] | None = None
    #: The name of the same game in OpenSpiel (``pyspiel.load_game``): bench/engine.py plays the two
    #: side by side.  None: there is none to compare with.
    openspiel: str | None = None
    #: The variants bench/engine.py plays side by side, each ``(label, one-hand options of ours, the
    #: OpenSpiel game with its parameters)``; empty: the game's first ``short_options`` against
    #: :attr:`openspiel` as OpenSpiel loads it by default.
    openspiel_variants: tuple[tuple[str, Mapping[str, OptionValue], str], ...] = ()
    #: The game the whole-bot benches play (bench/review.py, bench/storage.py, bench/discord.py):
    #: the one their goals were set for.  One registered game says so.
    reference: bool = False
    #: The option that sets the score a game runs to (bench/review.py's ``--target``).
    length: str | None = None


def reference_game() -> GameSpec:
    """The registered game whose measure is the whole-bot benches' ``reference``."""
    for spec in games().values():
        if spec.measure is not None and spec.measure.reference:
            return spec
    raise LookupError("No registered game is the benches' reference (Measure.reference).")
