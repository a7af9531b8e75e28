"""What a replay shows of a game: the hooks a game declares on its spec (``GameSpec.replay``).

The replay viewer (tables/history/replay_steps.py) describes the table after every step of a finished game,
and ``/game replay``'s recap (tables/history/replay.py) writes a line per hand; neither knows any game.  What
differs from game to game — the cards on the table, the piles nobody sees until the game is over,
what the scores are, where in a hand a step falls, what a hand's recap line says — each game's
``engine/<game>_replay.py`` answers by overriding :class:`ReplayHooks`, reading its own rules'
constants.  The base class is a game with nothing on the table, no hidden piles, a ``scores`` list
in its public view, counted in hands.

Pure: states and views in, JSON-safe values out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, TypedDict

from engine.core import Event, Game, View


class Group(TypedDict):
    """A group of cards a replay picture draws."""

    seat: int | None  # None: in the middle of the table
    label: str
    cards: list[str]  # codes


class Position(NamedTuple):
    """Where a step falls: the hand (or round) from 1 and the game's word for it, and the trick
    (turn, lead) within it from 1 and that word (both None for a game with none)."""

    hand: int
    unit: str
    trick: int | None = None
    sub: str | None = None


def codes(cards: str | Iterable[object] | None) -> list[str]:
    """Card codes of one card, a list of cards or a list of codes (views hold codes)."""
    if isinstance(cards, str):
        return [cards]
    return [str(getattr(c, "code", c)) for c in cards or ()]


def group(seat: int | None, label: str, cards: str | Iterable[object] | None) -> Group:
    return {"seat": seat, "label": label, "cards": codes(cards)}


class ReplayHooks:
    """A game's replay, step by step (see the module's doc).  Every method is pure."""

    #: The game's word for a hand: ``hand``, or ``round`` where its rules count rounds.
    unit = "hand"
    #: What a recap line calls the public scores after a hand (``totals``; ``ranks``).
    totals_word = "totals"

    def table(self, state: Game, pv: View, views: Sequence[View], events: Sequence[Event]) -> list[Group]:
        """The cards on the table after a step (``events``: the step's public events)."""
        return []

    def piles(self, state: Game, pv: View, views: Sequence[View]) -> list[Group]:
        """The piles no view shows everyone, face up (only a finished game is replayed)."""
        return []

    def scores(self, pv: View, players: int) -> list[int]:
        """The public scores, one number per seat, as the game's outcome counts them."""
        scores = pv.get("scores")
        return [int(x) for x in scores] if isinstance(scores, list) else [0] * players

    def position(self, pv: View, events: Sequence[Event], leads: int) -> Position:
        """Where the step that left public view ``pv`` falls.  ``leads`` counts the leads of this
        hand for a game without trick numbers (:meth:`lead_over`)."""
        return Position(int(pv.get("hand_no") or 0) + 1, self.unit)

    def lead_over(self, before: View, after: View) -> bool:
        """Whether a step from public view ``before`` to ``after`` ended a lead (counted for
        :meth:`position` where the game does not number its leads)."""
        return False

    def totals(self, pv: View) -> Sequence[object] | None:
        """The public totals a recap line lists after a hand (None: none)."""
        scores = pv.get("scores")
        return list(scores) if isinstance(scores, list) else None

    def recap_line(self, names: Sequence[str], hand: int, pv: View, events: Sequence[Event]) -> str | None:
        """The recap's line for hand ``hand`` (from 1), which just ended: ``pv`` is the public view
        after it, ``events`` the public events from the end of the hand before (for the first
        hand: from the game's creation, its first deal included) to this hand's ``hand_end``."""
        values = self.totals(pv)
        if values is None:
            return None
        each = " · ".join(f"{names[s]}: {v}" for s, v in enumerate(values))  # ("AI 1: 6", not "AI 1 6")
        return f"{self.unit.capitalize()} {hand} — {self.totals_word} {each}"


def trick_table(pv: View, events: Sequence[Event], label: str = "played") -> list[Group]:
    """A trick-taking game's table: the trick being played, or the one a step just took (still shown,
    so the step that completes a trick shows all its cards).  Views keep ``[seat, card]`` or
    ``[seat, [cards]]`` pairs under ``trick`` and ``last_trick.cards``."""
    trick = pv.get("trick")
    if trick:
        return [group(int(s), label, c) for s, c in trick]
    last = pv.get("last_trick")
    if isinstance(last, dict) and any(e.kind == "trick" for e in events) and last.get("cards"):
        return [group(int(s), label, c) for s, c in last["cards"]]
    return []


def trick_position(pv: View, events: Sequence[Event], hand: int, unit: str) -> Position:
    """The trick of a step from 1 (``trick_no``), the step that completes a trick counting as
    that trick's (:func:`trick_table` still shows it)."""
    trick = int(pv.get("trick_no") or 0) + 1
    taken = [e for e in events if e.kind == "trick" and e.data and isinstance(e.data[0], int)]
    if taken and not pv.get("trick") and not any(e.kind == "deal" for e in events):
        trick = int(taken[-1].data[0]) + 1
    return Position(hand, unit, trick, "trick")
