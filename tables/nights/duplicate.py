"""Duplicate scoring: luck cancels out when everyone is measured against the others who held the
same cards.

A *board* is one deal and one of its hands (the cards one seat was dealt).  Played duplicate, every
table of a tournament's round is dealt the same cards seat by seat (the same seed: the deal depends
on the seed and the hand's number alone), and different people sit in those seats, so each board is
held by several people — in the same seat, with the same neighbours' cards, the same pass and lead; or
one group's deals are replayed afterwards by the strong AI in every seat, which gives each board a
*par*.  A person's result on a board is their score there against the mean of everyone else's on
the same board (or against par), signed so that more is better whichever way the game counts; their
total is the sum over their boards ("+7 against the field on the same cards").  Par is computed
only after the hand is over, so nothing of it can show during play.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

#: Whoever held a board's cards (a person, or a seat an AI played).
H = TypeVar("H", bound=Hashable)
#: A board (a deal and one of its hands).
B = TypeVar("B", bound=Hashable)


def against_field(boards: Mapping[B, Mapping[H, float]], *, lowest_wins: bool,
                  par: Mapping[B, float] | None = None) -> dict[H, float]:
    """Each person's total against the field.  ``boards``: board → {person: score on it};
    ``par``: board → the AI's score on it (then each person is measured against par instead).
    A board held by one person and without a par counts for nothing (there is nobody to compare)."""
    sign = -1.0 if lowest_wins else 1.0
    out: dict[H, float] = {}
    for board, scores in boards.items():
        for person, score in scores.items():
            if par is not None and board in par:
                field = par[board]
            else:
                others = [s for p, s in scores.items() if p != person]
                if not others:
                    out.setdefault(person, 0.0)
                    continue
                field = sum(others) / len(others)
            out[person] = out.get(person, 0.0) + sign * (score - field)
    return out
