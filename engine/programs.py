"""What a game with program seats tells the line protocol (``GameSpec.programs``).

Programs play through the line protocol of tables/programs/protocol.py (docs/rules.md, "Programs as
players"): one card a play, and the events of a trick-taking game.  The runtime, the program seats
and the arena know no game: the game whose spec carries a :class:`ProgramRules` says how a card
answer becomes its action, how a bad answer is carried, and what a program that starts mid-game
must hear.  Pure.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from engine.cards import Card
from engine.core import Action, Event, Game


class ProgramRules(ABC):
    #: Seats at a game of programs (the protocol's ``start game`` names them all).
    players: int
    #: The action kind the runtime applies for a program's bad answer, followed by what it said: the
    #: game scores the penalty (it is never offered as a choice).
    bad: str
    #: The option that sets the score a game of programs ends at (the arena's ``--target``).
    target_option: str

    @abstractmethod
    def play(self, card: Card) -> Action:
        """The action of playing ``card`` (an answer the protocol read)."""

    @abstractmethod
    def legal(self, state: Game, seat: int) -> Sequence[Card]:
        """The cards ``seat`` may play now."""

    @abstractmethod
    def clean(self, text: str) -> str:
        """What a bad answer said, made safe to show and to carry in one action code."""

    @abstractmethod
    def catch_up(self, state: Game) -> list[Event]:
        """The events that bring a program that starts now up to the current point (at the start
        of the game: the events that open it)."""

    @abstractmethod
    def hands_begun(self, state: Game) -> int:
        """Hands begun so far, abandoned ones included."""

    @abstractmethod
    def bad_cards(self, state: Game) -> list[int]:
        """Bad answers per seat so far."""
