"""Ratings: openskill's Plackett–Luce model, per server and game, from each game's finishing order.

A finished game is a list of ``(user_id, place)`` — shared places are ties — in which the built-in
AI appears as :data:`AI_ID` (``0``, never a Discord id) once per AI seat: it is rated like a player,
so beating it counts, but it is never listed.  When several AI seats play one game, each is its own
competitor carrying the AI's rating, and the AI's new rating is their average (one game played).

Everything here is pure (no I/O): :func:`rate_game` is the incremental step, :func:`recompute`
replays every stored finishing order in the order the games finished, and the two agree exactly
(tests/tables/test_ratings.py).  The storage keeps the ratings and the AI's places
(``tables/storage/migrations/0004_ratings.sql``); :class:`Ratings` ties the two together and backfills
games finished before ratings existed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

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

    @property
    def conservative(self) -> float:
        """μ − 3σ: what the leaderboard ranks by (a newcomer starts at 0 and earns their place)."""
        return self.mu - 3 * self.sigma


Key = tuple[int, str, int]  # (guild_id, game, user_id)


def rate_game(current: Mapping[int, Rating], seats: Sequence[tuple[int, int]]) -> dict[int, Rating]:
    """The new ratings of everyone in one game.  ``current``: user id → rating before (missing: a
    newcomer); ``seats``: ``(user_id, place)`` per seat, place 1 first, equal places tied."""
    teams = [[MODEL.rating(mu=current.get(uid, Rating()).mu, sigma=current.get(uid, Rating()).sigma)]
             for uid, _ in seats]
    if len(teams) < 2:
        return {}
    rated = MODEL.rate(teams, ranks=[float(place) for _, place in seats])
    new: dict[int, list[tuple[float, float]]] = {}
    for (uid, _), team in zip(seats, rated, strict=True):
        new.setdefault(uid, []).append((team[0].mu, team[0].sigma))
    out = {}
    for uid, values in new.items():
        before = current.get(uid, Rating())
        mu = sum(m for m, _ in values) / len(values)
        sigma = sum(s for _, s in values) / len(values)
        out[uid] = Rating(mu, sigma, before.games + 1)
    return out


def games_of(rows: Iterable[Record]) -> list[tuple[int, str, list[tuple[int, int]]]]:
    """Stored finishing orders (rows of ``table_id, seat, guild_id, game, user_id, place,
    finished_at``) grouped into games, in the order they finished: ``(guild_id, game, seats)``."""
    by_table: dict[str, Record] = {}
    for r in rows:
        g = by_table.setdefault(str(r["table_id"]), {"guild": int(r["guild_id"]), "game": str(r["game"]),
                                                     "at": float(r["finished_at"]), "seats": []})
        g["at"] = min(g["at"], float(r["finished_at"]))
        g["seats"].append((int(r["seat"]), int(r["user_id"]), int(r["place"])))
    ordered = sorted(by_table.items(), key=lambda kv: (kv[1]["at"], kv[0]))
    return [(g["guild"], g["game"], [(uid, place) for _, uid, place in sorted(g["seats"])]) for _, g in ordered]


def recompute(rows: Iterable[Record]) -> dict[Key, Rating]:
    """Every rating from scratch, from every stored finishing order."""
    ratings: dict[Key, Rating] = {}
    for guild, game, seats in games_of(rows):
        current = {uid: ratings[(guild, game, uid)] for uid, _ in seats if (guild, game, uid) in ratings}
        for uid, r in rate_game(current, seats).items():
            if uid >= 0:  # −1: someone Deckhand forgot, a newcomer in every game (storage rating_inputs)
                ratings[(guild, game, uid)] = r
    return ratings


@dataclass(frozen=True)
class Change:
    user_id: int
    before: Rating
    after: Rating


def finishing_order(table: Table) -> list[tuple[int, int]] | None:
    """``(user_id, place)`` per seat of a game that finished by its rules (AI seats as
    :data:`AI_ID`), or ``None`` when there is nothing to rate."""
    state = getattr(table, "state", None)
    if state is None or getattr(table, "ended_early", False) or not state.is_over:
        return None
    outcome = state.outcome()
    if outcome is None:
        return None
    return [(AI_ID if s.is_ai or s.user_id is None else int(s.user_id), int(outcome.places[i]))
            for i, s in enumerate(table.seats)]


class Ratings:
    """Ratings kept in the storage: rate a finished table once, backfill, read for the cogs.  The
    runtime owns one (``Runtime.ratings``, one lock per database) when it has a storage."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._lock = asyncio.Lock()  # one rating write at a time: read, compute, write
        self._checked = False

    async def ensure(self, skip: str = "") -> None:
        """Once per process: when some stored result has no rating yet (games finished before
        ratings existed, or a crash between a game's end and its rating), recompute them all —
        but the game ``skip``, which is being rated right now."""
        if self._checked:
            return
        async with self._lock:
            if self._checked:
                return
            if await self.storage.unrated_results(skip) > 0:
                await self.rebuild(skip)
            self._checked = True

    async def rebuild(self, skip: str = "") -> int:
        """Recompute every rating from the stored finishing orders (but the game ``skip``'s);
        returns how many games."""
        rows = [r for r in await self.storage.rating_inputs() if str(r["table_id"]) != skip]
        ratings = await asyncio.to_thread(recompute, rows)  # thousands of games: off the event loop
        records = [{"guild_id": g, "game": game, "user_id": uid, "mu": r.mu, "sigma": r.sigma, "games": r.games}
                   for (g, game, uid), r in ratings.items()]
        tables = sorted({str(r["table_id"]) for r in rows})
        await self.storage.replace_ratings(records, tables)
        log.info("Ratings recomputed from %d stored games", len(tables))
        return len(tables)

    async def rate_table(self, table: Table) -> list[Change]:
        """Rate a table whose game has just finished (once: a second call changes nothing and
        returns nothing)."""
        seats = finishing_order(table)
        if not seats or not any(uid != AI_ID for uid, _ in seats):
            return []
        await self.ensure(skip=table.id)
        async with self._lock:
            ids = sorted({uid for uid, _ in seats})
            rows = await self.storage.ratings_of(table.guild_id, table.game, ids)
            current = {int(r["user_id"]): Rating(float(r["mu"]), float(r["sigma"]), int(r["games"])) for r in rows}
            new = rate_game(current, seats)
            records = [{"guild_id": table.guild_id, "game": table.game, "user_id": uid, "mu": r.mu,
                        "sigma": r.sigma, "games": r.games} for uid, r in new.items()]
            ai_places = [{"seat": i, "place": place} for i, (uid, place) in enumerate(seats) if uid == AI_ID]
            finished_at = table.finished_at if table.finished_at is not None else 0.0
            saved = await self.storage.save_ratings(table.id, table.guild_id, table.game, finished_at, records,
                                                    ai_places)
        if not saved:
            return []
        return [Change(uid, current.get(uid, Rating()), new[uid]) for uid in ids if uid != AI_ID]

    async def of_player(self, guild_id: int, user_id: int) -> dict[str, Record]:
        """Someone's ratings in a server, by game (every stored result rated first)."""
        await self.ensure()
        return {str(r["game"]): r for r in await self.storage.player_ratings(guild_id, user_id)}

    async def board(self, guild_id: int, game: str, limit: int = 10) -> list[Record]:
        """A game's best people in a server by μ − 3σ (every stored result rated first)."""
        await self.ensure()
        return await self.storage.rating_board(guild_id, game, limit)
