"""Ratings: openskill's Plackett–Luce model, per server and game, from each ranked game's finishing order.

Only a ranked game between people changes ratings (``Table.rated``; docs/rules.md, "Ranked and
casual"): a person who left it, or for whom the AI made most moves, finishes it last
(:func:`rating_place`).  Games finished before tables were ranked or casual were all rated, the
built-in AI's seats among them: in those the AI appears as :data:`AI_ID` (``0``, never a Discord id)
once per AI seat, rated like a player but never listed; several AI seats in one game are each their
own competitor carrying the AI's rating, and the AI's new rating is their average.

Seasons (tables/nights/seasons.py): every rating belongs to the season of its last game.  The first
ranked game of a new season keeps the final board of each season that ended (:func:`closing_boards`),
and a rating entering a new season carries over with a wider sigma (:func:`carried`).

Everything here is pure (no I/O): :func:`rate_game` is the incremental step, :func:`recompute`
replays every stored finishing order in the order the games finished, and the two agree exactly
(tests/tables/test_ratings.py).  The storage keeps the ratings and the AI's places
(``tables/storage/migrations/0004_ratings.sql``), seasons and their final boards (``0016``);
:class:`Ratings` ties the two together and backfills games finished before ratings existed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from tables.history.stats import absent
from tables.nights.seasons import Period, season_of, widened
from tables.storage.base import Record, Storage
from tables.table import Table

log = logging.getLogger("deckhand.tables")

AI_ID = 0
MODEL = PlackettLuce()
MU, SIGMA = MODEL.mu, MODEL.sigma


@dataclass(frozen=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    #: The season of the last game rated (``"all"``: a server without seasons, or a newcomer).
    season: str = "all"
    #: Ranked games played in that season.
    season_games: int = 0

    @property
    def conservative(self) -> float:
        """μ − 3σ: what the leaderboard ranks by (a newcomer starts at 0 and earns their place)."""
        return self.mu - 3 * self.sigma


Key = tuple[int, str, int]  # (guild_id, game, user_id)
BoardKey = tuple[int, str, str]  # (guild_id, game, season)


def carried(r: Rating, season: str) -> Rating:
    """A rating as it enters ``season``: as it is within its own season; at a new one, its sigma
    widened (openskill's tau, once per season: tables/nights/seasons.py) and no game played yet."""
    if r.season == season:
        return r
    return Rating(r.mu, widened(r.sigma, SIGMA), r.games, season, 0)


def rating_place(place: int, players: int, absent: bool) -> int:
    """Where a person finished for the rating: their place, or — absent from a ranked game (left, or
    the AI made most of their moves) — after everyone who played it, as a loss."""
    return players + 1 if absent else place


def rate_game(current: Mapping[int, Rating], seats: Sequence[tuple[int, int]],
              season: str = "all") -> dict[int, Rating]:
    """The new ratings of everyone in one game.  ``current``: user id → rating before (missing: a
    newcomer); ``seats``: ``(user_id, place)`` per seat, place 1 first, equal places tied;
    ``season``: the season the game counts in."""
    before = {uid: carried(current.get(uid, Rating()), season) for uid, _ in seats}
    teams = [[MODEL.rating(mu=before[uid].mu, sigma=before[uid].sigma)] for uid, _ in seats]
    if len(teams) < 2:
        return {}
    rated = MODEL.rate(teams, ranks=[float(place) for _, place in seats])
    new: dict[int, list[tuple[float, float]]] = {}
    for (uid, _), team in zip(seats, rated, strict=True):
        new.setdefault(uid, []).append((team[0].mu, team[0].sigma))
    out = {}
    for uid, values in new.items():
        mu = sum(m for m, _ in values) / len(values)
        sigma = sum(s for _, s in values) / len(values)
        out[uid] = Rating(mu, sigma, before[uid].games + 1, season, before[uid].season_games + 1)
    return out


def closing_boards(ratings: Mapping[int, Rating], season: str) -> dict[str, dict[int, Rating]]:
    """The final boards of the seasons that ended before ``season``, from one server's ratings at one
    game (user id → rating): everyone whose last game was in another season, by that season.  The
    AI and forgotten people are never on a board."""
    out: dict[str, dict[int, Rating]] = {}
    for uid, r in ratings.items():
        if r.season != season and uid > 0:
            out.setdefault(r.season, {})[uid] = r
    return out


def games_of(rows: Iterable[Record]) -> list[tuple[int, str, float, list[tuple[int, int]]]]:
    """Stored finishing orders (rows of ``table_id, seat, guild_id, game, user_id, place,
    finished_at``; ``place`` already :func:`rating_place`) grouped into games, in the order they
    finished: ``(guild_id, game, finished_at, seats)``."""
    by_table: dict[str, Record] = {}
    for r in rows:
        g = by_table.setdefault(str(r["table_id"]), {"guild": int(r["guild_id"]), "game": str(r["game"]),
                                                     "at": float(r["finished_at"]), "seats": []})
        g["at"] = min(g["at"], float(r["finished_at"]))
        g["seats"].append((int(r["seat"]), int(r["user_id"]), int(r["place"])))
    ordered = sorted(by_table.items(), key=lambda kv: (kv[1]["at"], kv[0]))
    return [(g["guild"], g["game"], g["at"], [(uid, place) for _, uid, place in sorted(g["seats"])])
            for _, g in ordered]


def recompute(rows: Iterable[Record], periods: Mapping[int, Period] | None = None
              ) -> tuple[dict[Key, Rating], dict[BoardKey, dict[int, Rating]]]:
    """Every rating and every kept season's final board from scratch, from every stored finishing
    order; ``periods``: each server's season length (missing: monthly)."""
    ratings: dict[Key, Rating] = {}
    by_game: dict[tuple[int, str], dict[int, Rating]] = {}
    boards: dict[BoardKey, dict[int, Rating]] = {}
    for guild, game, at, seats in games_of(rows):
        season = season_of(at, (periods or {}).get(guild, "month"))
        mine = by_game.setdefault((guild, game), {})
        for ended, board in closing_boards(mine, season).items():
            boards.setdefault((guild, game, ended), {}).update(board)
        current = {uid: mine[uid] for uid, _ in seats if uid in mine}
        for uid, r in rate_game(current, seats, season).items():
            if uid >= 0:  # −1: someone Deckhand forgot, a newcomer in every game (storage rating_inputs)
                ratings[(guild, game, uid)] = mine[uid] = r
    return ratings, boards


@dataclass(frozen=True)
class Change:
    user_id: int
    before: Rating
    after: Rating


def finishing_order(table: Table) -> list[tuple[int, int]] | None:
    """``(user_id, place)`` per seat of a ranked game between people that finished by its rules —
    a person absent from it last (:func:`rating_place`) — or ``None`` when there is nothing to rate."""
    state = getattr(table, "state", None)
    if state is None or getattr(table, "ended_early", False) or not state.is_over or not table.rated:
        return None
    outcome = state.outcome()
    if outcome is None:
        return None
    players = len(table.seats)
    people = [s.user_id for s in table.seats if s.user_id is not None]
    if len(people) != players:
        return None  # (a ranked seat is a person's: ``Table.rated``)
    return [(uid, rating_place(int(outcome.places[i]), players, absent(table, i))) for i, uid in enumerate(people)]


PeriodOf = Callable[[int], Awaitable[Period]]


async def monthly(guild_id: int) -> Period:
    """Deckhand's own season length (a server's settings may choose another)."""
    return "month"


def _record(guild_id: int, game: str, uid: int, r: Rating) -> Record:
    return {"guild_id": guild_id, "game": game, "user_id": uid, "mu": r.mu, "sigma": r.sigma, "games": r.games,
            "season": r.season, "season_games": r.season_games}


def _rating(row: Record) -> Rating:
    return Rating(float(row["mu"]), float(row["sigma"]), int(row["games"]), str(row.get("season") or "all"),
                  int(row.get("season_games") or 0))


class Ratings:
    """Ratings kept in the storage: rate a finished table once, backfill, read for the cogs.  The
    runtime owns one (``Runtime.ratings``, one lock per database) when it has a storage.
    ``period_of``: a server's season length (its settings); ``now``: the clock, for the current season."""

    def __init__(self, storage: Storage, period_of: PeriodOf = monthly,
                 now: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self.period_of = period_of
        self.now = now
        self._lock = asyncio.Lock()  # one rating write at a time: read, compute, write
        self._checked = False

    async def ensure(self, skip: str = "") -> None:
        """Once per process: when some stored ranked result has no rating yet (games finished before
        ratings or seasons existed, or a crash between a game's end and its rating), recompute them
        all — but the game ``skip``, which is being rated right now."""
        if self._checked:
            return
        async with self._lock:
            if self._checked:
                return
            if await self.storage.unrated_results(skip) > 0:
                await self.rebuild(skip)
            self._checked = True

    async def rebuild(self, skip: str = "") -> int:
        """Recompute every rating and season board from the stored finishing orders (but the game
        ``skip``'s); returns how many games."""
        rows = [r for r in await self.storage.rating_inputs() if str(r["table_id"]) != skip]
        periods = {g: await self.period_of(g) for g in sorted({int(r["guild_id"]) for r in rows})}
        ratings, boards = await asyncio.to_thread(recompute, rows, periods)  # thousands of games: off the loop
        records = [_record(g, game, uid, r) for (g, game, uid), r in ratings.items()]
        kept = [{"guild_id": g, "game": game, "season": season, "user_id": uid, "mu": r.mu, "sigma": r.sigma,
                 "games": r.season_games} for (g, game, season), board in boards.items() for uid, r in board.items()]
        tables = sorted({str(r["table_id"]) for r in rows})
        await self.storage.replace_ratings(records, tables, kept)
        log.info("Ratings recomputed from %d stored games", len(tables))
        return len(tables)

    async def season(self, guild_id: int, at: float | None = None) -> str:
        """The season of ``guild_id`` at ``at`` (default: now)."""
        return season_of(self.now() if at is None else at, await self.period_of(guild_id))

    async def rate_table(self, table: Table) -> list[Change]:
        """Rate a ranked table whose game has just finished (once: a second call changes nothing
        and returns nothing)."""
        seats = finishing_order(table)
        if not seats:
            return []
        await self.ensure(skip=table.id)
        finished_at = table.finished_at if table.finished_at is not None else 0.0
        season = await self.season(table.guild_id, finished_at)
        async with self._lock:
            ids = sorted({uid for uid, _ in seats})
            rows = await self.storage.ratings_of(table.guild_id, table.game, ids)
            current = {int(r["user_id"]): _rating(r) for r in rows}
            new = rate_game(current, seats, season)
            records = [_record(table.guild_id, table.game, uid, r) for uid, r in new.items()]
            # (the storage keeps the final board of every season that ended, in the same transaction)
            saved = await self.storage.save_ratings(table.id, table.guild_id, table.game, records, season)
        if not saved:
            return []
        return [Change(uid, current.get(uid, Rating()), new[uid]) for uid in ids]

    async def of_player(self, guild_id: int, user_id: int) -> dict[str, Record]:
        """Someone's ratings in a server, by game (every stored result rated first)."""
        await self.ensure()
        return {str(r["game"]): r for r in await self.storage.player_ratings(guild_id, user_id)}

    async def board(self, guild_id: int, game: str, season: str | None = None, limit: int = 10) -> list[Record]:
        """A game's best people of a season (default: the current one) in a server, by μ − 3σ (every
        stored result rated first).  ``games``: the ranked games each played in that season."""
        await self.ensure()
        return await self.storage.rating_board(guild_id, game, season or await self.season(guild_id), limit)

    async def seasons(self, guild_id: int, game: str) -> list[str]:
        """Every season with a board for ``game`` in ``guild_id``, the latest first."""
        await self.ensure()
        return await self.storage.rating_seasons(guild_id, game)
