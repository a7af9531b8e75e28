"""A tournament's state, pure: sign-ups, rounds of tables seated by :mod:`tables.nights.swiss`, each
table's result, the standings.  The runtime stores it (:meth:`Tournament.to_dict`) after every change
and rebuilds it on a restart (:meth:`Tournament.from_dict`), so a restart mid-tournament resumes it;
it opens each table it is told to (:meth:`Tournament.to_open`) and reports each finish
(:meth:`Tournament.finished`)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tables.nights.swiss import Seat, Standing, met, pair, standings

State = Literal["signup", "running", "finished"]

MIN_PLAYERS = 2
MAX_PLAYERS = 64


def N_(text: str) -> str:
    """A sentence of the shared catalog (words/; marked here, translated where it is shown)."""
    return text


class TournamentError(Exception):
    """What a person tried is not possible now: a catalog sentence (``message``, with ``fields``)
    saying why, in words."""

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message.format(**fields))
        self.template = message
        self.fields = fields


@dataclass
class Round:
    """One round: its tables' people in seat order (None: an AI fills the seat), the runtime's id
    of each table once opened, and each table's finished seats."""

    tables: list[list[int | None]]
    table_ids: list[str | None] = field(default_factory=list)
    results: list[list[Seat] | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.table_ids = self.table_ids or [None] * len(self.tables)
        self.results = self.results or [None] * len(self.tables)

    @property
    def done(self) -> bool:
        return all(r is not None for r in self.results)


@dataclass
class Tournament:
    id: str
    game: str
    seats: int
    rounds: int
    organiser: int
    seed: int
    players: list[int] = field(default_factory=list)
    state: State = "signup"
    played: list[Round] = field(default_factory=list)

    # ---- sign-ups ---------------------------------------------------------------------------------
    def join(self, user_id: int) -> None:
        if self.state != "signup":
            raise TournamentError(N_("The tournament has started: sign-ups are closed."))
        if user_id in self.players:
            raise TournamentError(N_("You are signed up already."))
        if len(self.players) >= MAX_PLAYERS:
            raise TournamentError(N_("The tournament is full ({most} people)."), most=MAX_PLAYERS)
        self.players.append(user_id)

    def leave(self, user_id: int) -> None:
        if self.state != "signup":
            raise TournamentError(N_("The tournament has started: the AI plays for anyone who is away."))
        if user_id not in self.players:
            raise TournamentError(N_("You are not signed up."))
        self.players.remove(user_id)

    def start(self, by: int) -> Round:
        if by != self.organiser:
            raise TournamentError(N_("Only the organiser can start the tournament."))
        if self.state != "signup":
            raise TournamentError(N_("The tournament has started already."))
        if len(self.players) < MIN_PLAYERS:
            raise TournamentError(N_("A tournament needs at least {least} people signed up."), least=MIN_PLAYERS)
        self.state = "running"
        return self._next_round()

    # ---- rounds -----------------------------------------------------------------------------------
    @property
    def round_no(self) -> int:
        """The round being played (1 = the first), 0 before the start."""
        return len(self.played)

    def _next_round(self) -> Round:
        if self.played:
            order = [s.player for s in self.standings()]
        else:
            order = list(self.players)
            random.Random(f"{self.seed}:{self.id}").shuffle(order)
        people = pair(order, self.seats, met(self.finished_tables()))
        tables: list[list[int | None]] = []
        for n, group in enumerate(people):
            seated: list[int | None] = [*group, *([None] * (self.seats - len(group)))]
            # Who sits where at a table is shuffled too (the first seat often leads).
            random.Random(f"{self.seed}:{self.id}:{len(self.played) + 1}:{n}").shuffle(seated)
            tables.append(seated)
        r = Round(tables)
        self.played.append(r)
        return r

    def to_open(self) -> list[tuple[int, list[int | None]]]:
        """The tables of the current round not opened yet: ``(index, people by seat)``."""
        if self.state != "running":
            return []
        r = self.played[-1]
        return [(n, list(t)) for n, t in enumerate(r.tables) if r.table_ids[n] is None]

    def opened(self, index: int, table_id: str) -> None:
        self.played[-1].table_ids[index] = table_id

    def finished(self, table_id: str, places: Sequence[int], absent: Sequence[int] = ()) -> Round | None:
        """A table of the current round finished with ``places`` by seat; ``absent``: seats whose
        person the AI played for (they earn nothing for the round).  Returns the next round when
        this was the round's last table (or None: more to finish, or the tournament is over)."""
        if self.state != "running":
            return None
        r = self.played[-1]
        if table_id not in r.table_ids:
            return None
        n = r.table_ids.index(table_id)
        if r.results[n] is not None:
            return None  # told twice (a restart): once counts
        people = r.tables[n]
        if len(places) != len(people):
            raise ValueError(f"table {table_id} has {len(people)} seats, not {len(places)}")
        r.results[n] = [Seat(p, int(place), present=seat not in absent)
                        for seat, (p, place) in enumerate(zip(people, places, strict=True))]
        if not r.done:
            return None
        if len(self.played) >= self.rounds:
            self.state = "finished"
            return None
        return self._next_round()

    def finished_tables(self) -> list[list[Seat]]:
        return [res for r in self.played for res in r.results if res is not None]

    def standings(self) -> list[Standing]:
        return standings(self.players, self.finished_tables())

    # ---- storage ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "seats": self.seats, "rounds": self.rounds,
                "organiser": self.organiser, "seed": self.seed, "players": list(self.players),
                "state": self.state,
                "played": [{"tables": r.tables, "table_ids": r.table_ids,
                            "results": [None if res is None else [[s.player, s.place, s.present] for s in res]
                                        for res in r.results]} for r in self.played]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tournament:
        played = [Round([list(t) for t in r["tables"]], list(r["table_ids"]),
                        [None if res is None else [Seat(p, place, present) for p, place, present in res]
                         for res in r["results"]]) for r in data["played"]]
        return cls(str(data["id"]), str(data["game"]), int(data["seats"]), int(data["rounds"]),
                   int(data["organiser"]), int(data["seed"]), [int(p) for p in data["players"]],
                   data["state"], played)
