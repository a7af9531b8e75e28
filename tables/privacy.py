"""A person's data (docs/privacy.md): what Deckhand keeps about them, a copy of all of it, and
"forget me"; and what a server that removed Deckhand leaves behind, deleted after a grace period.

What is kept about a person: their seat (id and name) in the tables they sat at and those tables'
logs; one result per finished game (place, score, hints asked); a rating per server and game; the
reviews of their play.  Their export holds all of it — of each game their own moves and the public
facts (who sat where, how it ended), never another seat's moves, so nobody's hidden cards.

"Forget me" (:meth:`Privacy.forget`) deletes their results, ratings and reviews and turns their
seat in every stored game into a former player — no id, no name — in one transaction, so each game
still replays and the others' ratings stay as they are (their places are kept without an id,
``former_results``).  It is refused, with nothing changed, while a table they sit at is open or
being played anywhere (another process's shards included: the database says so), and the tables
this process still holds in memory are changed first, under their locks, so that no later write
of a finished table brings their name back.

A member who leaves a server keeps their results; a server that removes Deckhand has everything
kept for it deleted ``grace`` seconds later (default 30 days) by the daily sweep, unless Deckhand
is added back before.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import NotRequired, TypedDict

import engine
import words
from tables.ai.reviews import Reviews, move_words
from tables.clock import Clock
from tables.finished import Ended
from tables.live import Live
from tables.storage.base import Forgotten, Record, Storage
from tables.table import SHOWN_ALL, Phase, Table
from tables.tournaments import Entry, Tournaments
from words import N_

log = logging.getLogger("deckhand.privacy")

#: How a forgotten person is named in the games they played (a replay, a table still in memory).
FORMER_PLAYER = N_("A former player")
GRACE = 30 * 86400.0  # seconds a server that removed Deckhand has to add it back before its data goes
SWEEP_EVERY = 86400.0  # the departed servers' sweep runs daily
EXPORT_VERSION = 1

#: A JSON value as ``json.loads`` gives it (a stored column that holds JSON).
Json = dict[str, "Json"] | list["Json"] | str | int | float | bool | None


class ExportedMove(TypedDict):
    number: int
    seat: int
    move: str
    in_words: str | None
    made_for_you: bool
    at: str | None


class ExportedGame(TypedDict):
    table_id: str
    game: str
    where: str
    place_id: str
    channel_id: str
    you_host_it: bool
    your_seats: list[int]
    players: Sequence[Json]  # names (a stored table's as its seats column holds them)
    options: Json
    speed: str
    state: str
    created_at: str | None
    finished_at: str | None
    ended_early: bool
    your_moves: NotRequired[list[ExportedMove]]


class ExportedStanding(TypedDict):
    place: int
    points: float
    opposition: float
    tables_won: int


class ExportedTournament(TypedDict):
    tournament_id: str
    place_id: str
    game: str
    state: str
    rounds: int
    your_name: str
    organiser: bool
    your_standing: ExportedStanding | None


class Export(TypedDict, total=False):
    """What ``/privacy export`` hands a person (format :data:`EXPORT_VERSION`): everything kept about them."""

    format: int
    user_id: str
    made_at: str | None
    results: list[dict[str, Json]]
    ratings: list[dict[str, Json]]
    season_boards: list[dict[str, Json]]
    reviews: list[dict[str, Json]]
    settings_changes: list[dict[str, Json]]
    games: list[ExportedGame]
    tournaments: list[ExportedTournament]


def former_name(locale: str = words.ENGLISH) -> str:
    return words.translate(locale, FORMER_PLAYER)


def seats_without(seats_text: str, user_id: int) -> tuple[str, list[int]] | None:
    """A stored ``seats`` column with ``user_id``'s seats made former players, and which seats
    those were; ``None`` when they sat at none.  Read as plain JSON, so a damaged table (one that
    could not be rebuilt) is cleaned as well."""
    try:
        seats = json.loads(seats_text)
    except ValueError:
        return None
    if not isinstance(seats, list):
        return None
    theirs = [i for i, d in enumerate(seats)
              if isinstance(d, dict) and d.get("user_id") == user_id and not d.get("is_ai")]
    if not theirs:
        return None
    for i in theirs:
        d = seats[i]
        d.update(user_id=None, name="", former=True)
        d.pop("hints", None)  # a count about them
        d.pop("hinted_at", None)
    return json.dumps(seats, separators=(",", ":"), sort_keys=True), theirs


def _when(at: float | str | None) -> str | None:
    if at is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(at)))


def _json(text: str | None) -> Json:
    try:
        return json.loads(str(text))
    except ValueError:
        return text


class Privacy:
    """The runtime's keeper of people's data (``Runtime.privacy``)."""

    def __init__(self, storage: Storage | None, clock: Clock, *, tables: dict[str, Table],
                 live_of: Callable[[str], Live | None], ended: dict[str, Ended], reviews: Reviews,
                 grace: float | None = GRACE) -> None:
        self.storage = storage
        self.clock = clock
        self.tables = tables
        self.live_of = live_of
        self.ended = ended
        self.reviews = reviews
        self.grace = grace
        #: The runtime's tournaments (tables/tournaments.py; set by the runtime once it has them).
        self.tournaments: Tournaments | None = None

    # ---- what is kept, as a file ---------------------------------------------------------------
    async def export(self, user_id: int, locale: str = words.ENGLISH) -> Export:
        """Everything kept about ``user_id``, as JSON-ready data (their own moves only)."""
        out: Export = {
            "format": EXPORT_VERSION, "user_id": str(user_id), "made_at": _when(self.clock.now()),
            "results": [], "ratings": [], "reviews": [], "games": [], "tournaments": [],
        }
        stored: dict[str, Record] = {}
        if self.storage is not None:
            rows = await self.storage.person_rows(user_id)
            out["results"] = [self._result(r) for r in rows["results"]]
            out["ratings"] = [{"place_id": str(r["guild_id"]), "game": r["game"], "rating": float(r["mu"]),
                               "uncertainty": float(r["sigma"]), "games": int(r["games"]), "season": str(r["season"]),
                               "games_this_season": int(r["season_games"])} for r in rows["ratings"]]
            out["season_boards"] = [{"place_id": str(r["guild_id"]), "game": r["game"], "season": r["season"],
                                     "rating": float(r["mu"]), "uncertainty": float(r["sigma"]),
                                     "games": int(r["games"])} for r in rows.get("season_boards", [])]
            out["reviews"] = [{"table_id": r["table_id"], "seat": int(r["seat"]), "game": r["game"],
                               "decisions_judged": int(r["judged"]), "points_lost": float(r["loss"]),
                               "made_at": _when(r["created_at"]), "review": _json(r["review"])}
                              for r in rows["reviews"]]
            out["settings_changes"] = [{"place_id": str(r["guild_id"]), "at": _when(r["at"]),
                                        "change": _json(r["change"])} for r in rows.get("settings_changes", [])]
            stored = {str(r["id"]): r for r in await self.storage.person_tables(user_id)}
        games: dict[str, ExportedGame] = {}
        for tid, row in stored.items():
            game = self._game(row, user_id)
            if game is not None:
                games[tid] = game
        if self.tournaments is not None:
            out["tournaments"] = [self._tournament(e, user_id) for e in await self.tournaments.of_person(user_id)]
        for t in self.tables.values():  # a table not stored yet (no database), or newer in memory
            if t.id not in games and (t.seat_of(user_id) is not None or t.host_id == user_id):
                games[t.id] = self._game_of_table(t, user_id)
        if self.storage is not None:
            pairs = [(tid, s) for tid, g in games.items() for s in g["your_seats"]]
            for m in await self.storage.seat_logs(pairs):
                games[str(m["table_id"])].setdefault("your_moves", []).append(self._move(games, m, locale))
        for t in self.tables.values():
            if t.id in games and "your_moves" not in games[t.id]:
                mine = set(games[t.id]["your_seats"])
                games[t.id]["your_moves"] = [
                    self._move(games, {"table_id": t.id, "seq": e.seq, "seat": e.seat, "code": e.code,
                                       "time": e.time, "auto": e.auto}, locale)
                    for e in t.log if e.seat in mine]
        out["games"] = sorted(games.values(), key=lambda g: (g["created_at"] or "", g["table_id"]))
        return out

    @staticmethod
    def _tournament(entry: Entry, user_id: int) -> ExportedTournament:
        mine = next((s for s in entry.t.standings() if s.player == user_id), None)
        return {"tournament_id": entry.id, "place_id": str(entry.guild_id), "game": entry.t.game,
                "state": entry.t.state, "rounds": entry.t.rounds, "your_name": entry.names.get(user_id, ""),
                "organiser": entry.t.organiser == user_id,
                "your_standing": None if mine is None else {"place": mine.place, "points": mine.points,
                                                            "opposition": mine.opposition, "tables_won": mine.wins}}

    @staticmethod
    def _result(r: Record) -> dict[str, Json]:
        return {"table_id": r["table_id"], "place_id": str(r["guild_id"]), "game": r["game"], "seat": int(r["seat"]),
                "name": r["name"], "players": int(r["players"]), "place": int(r["place"]), "score": int(r["score"]),
                "won": bool(r["won"]), "hints": int(r.get("hints") or 0), "figures": _json(r["figures"]),
                "ranked": bool(r.get("ranked")), "absent": bool(r.get("absent")),
                "finished_at": _when(r["finished_at"])}

    @staticmethod
    def _game(row: Record, user_id: int) -> ExportedGame | None:
        seats = _json(row["seats"])
        if not isinstance(seats, list):
            return None
        mine = [i for i, d in enumerate(seats)
                if isinstance(d, dict) and d.get("user_id") == user_id and not d.get("is_ai")]
        if not mine and row["host_id"] != user_id:
            return None
        return {
            "table_id": str(row["id"]), "game": row["game"], "where": row.get("place") or "server",
            "place_id": str(row["guild_id"]), "channel_id": str(row["channel_id"]),
            "you_host_it": row["host_id"] == user_id, "your_seats": mine,
            "players": [d.get("name") if isinstance(d, dict) else None for d in seats],
            "options": _json(row["options"]), "speed": row["speed"], "state": row["phase"],
            "created_at": _when(row["created_at"]), "finished_at": _when(row["finished_at"]),
            "ended_early": bool(row["ended_early"]),
        }

    @staticmethod
    def _game_of_table(t: Table, user_id: int) -> ExportedGame:
        return {
            "table_id": t.id, "game": t.game, "where": t.place, "place_id": str(t.guild_id),
            "channel_id": str(t.channel_id), "you_host_it": t.host_id == user_id,
            "your_seats": [i for i, s in enumerate(t.seats) if s.user_id == user_id and not s.is_ai],
            "players": t.names(), "options": dict(t.options), "speed": t.speed, "state": str(t.phase),
            "created_at": _when(t.created_at), "finished_at": _when(t.finished_at), "ended_early": t.ended_early,
        }

    @staticmethod
    def _move(games: dict[str, ExportedGame], m: Record, locale: str) -> ExportedMove:
        game = games[str(m["table_id"])]["game"]
        known = engine.games().get(game) is not None
        return {"number": int(m["seq"]), "seat": int(m["seat"]), "move": m["code"],
                "in_words": move_words(game, str(m["code"]), locale) if known else None,
                "made_for_you": bool(m["auto"]), "at": _when(m["time"])}

    # ---- forget me -----------------------------------------------------------------------------
    def playing(self, user_id: int) -> list[Table]:
        """The tables in memory where ``user_id`` sits and that are not over: "forget me" waits for them."""
        return [t for t in self.tables.values()
                if t.phase != Phase.FINISHED and t.seat_of(user_id) is not None]

    async def forget(self, user_id: int) -> Forgotten:
        """Forget ``user_id`` (see the module's words).  ``busy`` lists the tables that stopped it."""
        busy = [t.id for t in self.playing(user_id)]
        if self.tournaments is not None:
            busy += self.tournaments.playing(user_id)
        if self.storage is not None and not busy:
            # Asked first, so that a refusal changes nothing here either (the transaction asks again).
            busy = [str(r["id"]) for r in await self.storage.person_tables(user_id)
                    if seats_without(str(r["seats"]), user_id) is not None and not r.get("broken")
                    and (r["phase"] != str(Phase.FINISHED) or int(r.get("shown") or 0) != SHOWN_ALL)]
        if busy:
            return Forgotten(busy=busy)
        self.reviews.forget(user_id)
        if self.tournaments is not None:
            await self.tournaments.forget(user_id)
        for t in list(self.tables.values()):
            mine = [s for s in t.seats if s.user_id == user_id and not s.is_ai]
            if not mine and t.host_id != user_id:
                continue
            live = self.live_of(t.id)
            if live is None:
                self._anonymize(t, user_id)
                continue
            async with live.lock:  # the next write of this table carries the former player
                self._anonymize(t, user_id)
        for stub in self.ended.values():
            if user_id in stub.users:
                stub.users = tuple(None if u == user_id else u for u in stub.users)
        if self.storage is None:
            return Forgotten(tables=[t.id for t in self.tables.values() if any(s.former for s in t.seats)])
        done: Forgotten = await self.storage.forget_person(user_id, lambda seats: seats_without(seats, user_id))
        if done.busy:
            log.info("Forget me waits: %d tables still being played", len(done.busy))
        else:
            log.info("Forgot a person: %d tables, %d results, %d ratings, %d reviews", len(done.tables),
                     done.results, done.ratings, done.reviews)
        return done

    @staticmethod
    def _anonymize(t: Table, user_id: int) -> None:
        for s in t.seats:
            if s.user_id == user_id and not s.is_ai:
                s.user_id, s.name, s.former, s.hints, s.hinted_at = None, "", True, 0, None
        if t.host_id == user_id:
            t.host_id = 0

    # ---- servers that removed Deckhand ---------------------------------------------------------
    async def server_left(self, guild_id: int) -> None:
        if self.storage is not None and self.grace is not None:
            await self.storage.note_departure(guild_id, self.clock.now())

    async def server_back(self, guild_id: int) -> None:
        if self.storage is not None:
            if await self.storage.cancel_departure(guild_id):
                log.info("A server added Deckhand back within its grace period: its data stays")

    async def sweep(self) -> list[int]:
        """Delete what the servers that left more than ``grace`` ago left behind; returns them."""
        if self.storage is None or self.grace is None:
            return []
        gone: list[int] = await self.storage.purge_departed(self.clock.now() - self.grace)
        if gone:
            log.info("Deleted the data of %d servers that removed Deckhand", len(gone))
        return gone

    async def sweep_daily(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception:
                log.exception("Deleting the data of servers that left failed; trying again tomorrow")
            await self.clock.sleep(SWEEP_EVERY)
