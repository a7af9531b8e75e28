"""The SQLite storage's ratings (tables/ratings.py; migration 0004), a part of
:class:`~tables.storage_sqlite.SQLiteStorage` kept in its own room: the PostgreSQL backend ports it as
one block.  Plain SQL: ``INSERT ... ON CONFLICT DO UPDATE`` works in PostgreSQL as written."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from tables.storage_base import Record


class SQLiteRatings:
    """Ratings methods over the storage's ``_read`` and ``_transaction`` (mixed into SQLiteStorage)."""

    _read: Callable[..., Any]
    _transaction: Callable[..., Any]

    async def unrated_results(self, skip: str = "") -> int:
        """How many finished games (but ``skip``) have results but are not in the ratings yet."""
        rows = await self._read(
            "SELECT COUNT(DISTINCT table_id) AS n FROM results "
            "WHERE table_id NOT IN (SELECT table_id FROM rated_tables) AND table_id != ?",
            (skip,),
        )
        return int(rows[0]["n"]) if rows else 0

    async def rating_inputs(self) -> list[Record]:
        """Every stored finishing order: people's places and the AI seats' (``user_id`` 0)."""
        return await self._read(
            "SELECT table_id, seat, guild_id, game, user_id, place, finished_at FROM results "
            "UNION ALL SELECT table_id, seat, guild_id, game, 0 AS user_id, place, finished_at FROM ai_results "
            "ORDER BY finished_at, table_id, seat"
        )

    async def ratings_of(self, guild_id: int, game: str, user_ids: Sequence[int]) -> list[Record]:
        if not user_ids:
            return []
        marks = ", ".join("?" * len(user_ids))
        return await self._read(
            f"SELECT user_id, mu, sigma, games FROM ratings WHERE guild_id = ? AND game = ? AND user_id IN ({marks})",
            (guild_id, game, *user_ids),
        )

    async def save_ratings(self, table_id: str, guild_id: int, game: str, finished_at: float,
                           ratings: Sequence[Record], ai_places: Sequence[Record]) -> bool:
        """Store one game's new ratings and its AI seats' places, once: ``False`` (and nothing
        written) when the table was rated already."""
        upsert = ("INSERT INTO ratings (guild_id, game, user_id, mu, sigma, games) VALUES (?, ?, ?, ?, ?, ?) "
                  "ON CONFLICT (guild_id, game, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                  "games = excluded.games")
        rating_rows = [(r["guild_id"], r["game"], r["user_id"], r["mu"], r["sigma"], r["games"]) for r in ratings]
        ai_rows = [(table_id, a["seat"], guild_id, game, a["place"], finished_at) for a in ai_places]

        def work(c: sqlite3.Connection) -> bool:
            try:
                c.execute("INSERT INTO rated_tables (table_id) VALUES (?)", (table_id,))
            except sqlite3.IntegrityError:
                return False
            c.executemany("INSERT OR REPLACE INTO ai_results (table_id, seat, guild_id, game, place, finished_at) "
                          "VALUES (?, ?, ?, ?, ?, ?)", ai_rows)
            c.executemany(upsert, rating_rows)
            return True

        return bool(await self._transaction(work))

    async def replace_ratings(self, ratings: Sequence[Record], table_ids: Sequence[str]) -> None:
        """Every rating at once (a recomputation), and the games they include."""
        rows = [(r["guild_id"], r["game"], r["user_id"], r["mu"], r["sigma"], r["games"]) for r in ratings]

        def work(c: sqlite3.Connection) -> None:
            c.execute("DELETE FROM ratings")
            c.executemany("INSERT INTO ratings (guild_id, game, user_id, mu, sigma, games) VALUES (?, ?, ?, ?, ?, ?)",
                          rows)
            c.executemany("INSERT OR IGNORE INTO rated_tables (table_id) VALUES (?)", [(t,) for t in table_ids])

        await self._transaction(work)

    async def player_ratings(self, guild_id: int, user_id: int) -> list[Record]:
        return await self._read(
            "SELECT game, mu, sigma, games FROM ratings WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
        )

    async def rating_board(self, guild_id: int, game: str, limit: int = 10) -> list[Record]:
        """The best people by μ − 3σ (the AI, user 0, rated but never listed)."""
        return await self._read(
            "SELECT r.user_id, r.mu, r.sigma, r.games, r.mu - 3 * r.sigma AS conservative, "
            "(SELECT s.name FROM results s WHERE s.guild_id = r.guild_id AND s.user_id = r.user_id "
            " ORDER BY s.finished_at DESC LIMIT 1) AS name "
            "FROM ratings r WHERE r.guild_id = ? AND r.game = ? AND r.user_id != 0 "
            "ORDER BY conservative DESC, r.games DESC, r.user_id ASC LIMIT ?",
            (guild_id, game, limit),
        )
