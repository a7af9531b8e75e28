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

from tables.nights.duplicate import against_field
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
class Boards:
    """What one table of a duplicate round scored on each of its boards: ``hands[k][seat]`` is the
    score of the game's seat ``seat`` on hand ``k`` (every table of the round is dealt the same cards
    seat by seat), and ``holders[seat]`` the round's place at that table who sat there."""

    holders: list[int]
    hands: list[list[float]]
    #: Each hand's par by seat (tables/par.py: the strong AI in every seat on the same cards), when
    #: the round had one table and nobody else held them; None for a hand without one.
    par: list[list[float] | None] | None = None


@dataclass
class Round:
    """One round: its tables' people in seat order (None: an AI fills the seat), the runtime's id
    of each table once opened, each table's finished seats and, played duplicate, its boards."""

    tables: list[list[int | None]]
    table_ids: list[str | None] = field(default_factory=list)
    results: list[list[Seat] | None] = field(default_factory=list)
    boards: list[Boards | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.table_ids = self.table_ids or [None] * len(self.tables)
        self.results = self.results or [None] * len(self.tables)
        self.boards = self.boards or [None] * len(self.tables)

    def against_field(self, lowest_wins: bool) -> dict[int, float]:
        """Each present person's total against the field over this round's boards: on every hand
        and seat, their score against the mean of everyone (people and AIs) who held the same
        cards at the round's other tables (tables/nights/duplicate.py).  Someone absent earns 0."""
        boards: dict[tuple[int, int], dict[tuple[int, int], float]] = {}
        par: dict[tuple[int, int], float] = {}
        for n, b in enumerate(self.boards):
            res = self.results[n]
            if b is None or res is None:
                continue
            for k, scores in enumerate(b.hands):
                row = b.par[k] if b.par is not None and k < len(b.par) else None
                for seat, score in enumerate(scores):
                    boards.setdefault((k, seat), {})[(n, b.holders[seat])] = score
                    if row is not None:
                        par[(k, seat)] = row[seat]
        totals = against_field(boards, lowest_wins=lowest_wins, par=par)
        out: dict[int, float] = {}
        for (n, place), total in totals.items():
            res = self.results[n]
            s = None if res is None else res[place]
            if s is not None and s.player is not None:
                out[s.player] = out.get(s.player, 0.0) + (total if s.present else 0.0)
        return out

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
    #: Played duplicate: every table of a round is dealt the same cards, and people are scored
    #: against the others who held the same cards (``lowest_wins``: the game counts that way).
    duplicate: bool = False
    lowest_wins: bool = False

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

    def finished(self, table_id: str, places: Sequence[int], absent: Sequence[int] = (),
                 boards: Boards | None = None) -> Round | None:
        """A table of the current round finished with ``places`` by seat; ``absent``: seats whose
        person the AI played for (they earn nothing for the round); ``boards``: a duplicate round's
        scores hand by hand.  Returns the next round when this was the round's last table (or None:
        more to finish, or the tournament is over)."""
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
        r.boards[n] = boards
        if not r.done:
            return None
        if len(self.played) >= self.rounds:
            self.state = "finished"
            return None
        return self._next_round()

    def finished_tables(self) -> list[list[Seat]]:
        return [res for r in self.played for res in r.results if res is not None]

    def standings(self) -> list[Standing]:
        if not self.duplicate:
            return standings(self.players, self.finished_tables())
        # Played duplicate, a round counts once all its tables are done: until then a finished
        # table's result would tell the others something of the cards they still hold.
        done = [r for r in self.played if r.done]
        earned: dict[int, float] = {}
        for r in done:
            for p, v in r.against_field(self.lowest_wins).items():
                earned[p] = earned.get(p, 0.0) + v
        return standings(self.players, [res for r in done for res in r.results if res is not None], earned)

    @property
    def against_par(self) -> bool:
        """Played duplicate by one group (one table a round): nobody else holds the same cards, so
        each person is scored against par (tables/par.py)."""
        return self.duplicate and len(self.players) <= self.seats

    def shown_results(self, r: Round) -> list[list[Seat] | None]:
        """What the tournament's message may show of round ``r``'s tables: played duplicate, nothing
        until the round is done."""
        if self.duplicate and not r.done:
            return [None] * len(r.results)
        return list(r.results)

    # ---- storage ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "seats": self.seats, "rounds": self.rounds,
                "organiser": self.organiser, "seed": self.seed, "players": list(self.players),
                "state": self.state, "duplicate": self.duplicate, "lowest_wins": self.lowest_wins,
                "played": [{"tables": r.tables, "table_ids": r.table_ids,
                            "results": [None if res is None else [[s.player, s.place, s.present] for s in res]
                                        for res in r.results],
                            "boards": [None if b is None else {"holders": b.holders, "hands": b.hands, "par": b.par}
                                       for b in r.boards]} for r in self.played]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tournament:
        played = [Round([list(t) for t in r["tables"]], list(r["table_ids"]),
                        [None if res is None else [Seat(p, place, present) for p, place, present in res]
                         for res in r["results"]],
                        [None if b is None else Boards([int(h) for h in b["holders"]],
                                                       [[float(x) for x in hand] for hand in b["hands"]],
                                                       None if b.get("par") is None else
                                                       [None if row is None else [float(x) for x in row]
                                                        for row in b["par"]])
                         for b in r.get("boards") or []]) for r in data["played"]]
        return cls(str(data["id"]), str(data["game"]), int(data["seats"]), int(data["rounds"]),
                   int(data["organiser"]), int(data["seed"]), [int(p) for p in data["players"]],
                   data["state"], played, bool(data.get("duplicate")), bool(data.get("lowest_wins")))
