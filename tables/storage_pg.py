"""The PostgreSQL backend of :mod:`tables.storage`, through an asyncpg connection pool.

For several bot processes sharing one database (``DATABASE_URL=postgresql://…``).  Each write is one
transaction on a pooled connection, so writes of different tables run side by side (PostgreSQL
groups concurrent commits itself); durability is the server's (``synchronous_commit``, on by
default: a commit is on disk when the write returns).  Server settings may ride in the URL's query
(``?synchronous_commit=off``, ``?search_path=deckhand``), as asyncpg passes them on.

Recovery reads every unfinished row and its log in one ``REPEATABLE READ`` read-only transaction:
one snapshot, whatever other processes commit meanwhile.  Migrations run under a session advisory
lock (:data:`MIGRATION_LOCK`), so processes starting together apply each one once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import asyncpg

from tables import storage_base as st
from tables.storage_base import (
    PRUNABLE,
    RESULT_COLUMNS,
    TABLE_COLUMNS,
    UNFINISHED,
    DuplicateTable,
    PostgresURL,
    Record,
    StaleWrite,
    StorageError,
    StorageGone,
    Stored,
    check_changes,
    in_shards,
    log_rows,
    result_rows,
)
from tables.table import LogEntry

log = logging.getLogger("deckhand.storage")

#: The advisory lock key held while migrating (``hashtext('deckhand.migrations')`` would do as well;
#: a constant is easier to find in ``pg_locks``).
MIGRATION_LOCK = 0x6465636B_6D696772  # "deckmigr"
POOL_SIZE = 8
FLOAT_COLUMNS = frozenset({"created_at", "finished_at"})

Conn = asyncpg.Connection
Work = Callable[[Conn], Awaitable[Any]]


def _param(column: str, value: Any) -> Any:
    # asyncpg is strict about Python types: a time that happens to be a whole number is still a time.
    if column in FLOAT_COLUMNS and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


async def schema_version(conn: Conn) -> int:
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at DOUBLE PRECISION NOT NULL)"
    )
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))


async def migrate(conn: Conn, upto: int | None = None) -> list[int]:
    """Apply every migration newer than the database (up to ``upto``); return those applied.  Each
    runs in its own transaction (PostgreSQL's DDL is transactional: all of it or none)."""
    known = st.matching_migrations("postgres")
    target = len(known) if upto is None else upto
    await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        current = await schema_version(conn)
        if current > len(known):
            raise st.newer_schema(current, len(known), "database")
        applied = []
        for m in known[current:target]:
            try:
                async with conn.transaction():
                    await conn.execute(m.sql)
                    await conn.execute("INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)",
                                       m.version, m.name, time.time())
            except asyncpg.PostgresError as e:
                raise StorageError(f"Migration {m.version} ({m.name}) failed: {e}") from e
            applied.append(m.version)
        return applied
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)


async def _keep_session(conn: Conn) -> None:
    """Instead of asyncpg's reset of a connection given back to the pool (``RESET ALL`` and the
    rest: one more round trip per write).  The storage sets no session state; an open transaction
    is still rolled back by the pool before this."""


class PostgresStorage:
    """:class:`~tables.storage.Storage` on a PostgreSQL database, through an asyncpg pool."""

    def __init__(self, pool: asyncpg.Pool, url: PostgresURL) -> None:
        self.pool = pool
        self.url = url
        self.gone: str | None = None
        self._closed = False
        self._tasks: set[asyncio.Task[Any]] = set()
        # The last write of each table still running: the next one of that table waits for it,
        # so one table's writes commit in the order they were made (as SQLite's single queue does),
        # even after a caller stopped waiting for one.
        self._last: dict[str, asyncio.Task[Any]] = {}
        self._reads = 0

    @classmethod
    async def open(cls, url: PostgresURL | str, *, upto: int | None = None, pool_size: int = POOL_SIZE,
                   ) -> PostgresStorage:
        if isinstance(url, str):
            parsed = st.parse_url(url)
            if not isinstance(parsed, PostgresURL):
                raise StorageError(f"{url!r} is not a PostgreSQL URL.")
            url = parsed
        try:
            pool = await asyncpg.create_pool(dsn=url.dsn, min_size=1, max_size=pool_size, timeout=15,
                                             reset=_keep_session)
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as e:
            raise StorageError(f"Cannot connect to the PostgreSQL database {url.where}: {e}") from e
        try:
            async with pool.acquire() as conn:
                await migrate(conn, upto)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as e:
            await pool.close()
            raise StorageError(f"Cannot use the PostgreSQL database {url.where}: {e}") from e
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url)

    @property
    def busy(self) -> bool:
        """Whether any read or write is in progress (tests wait for quiet)."""
        return bool(self._tasks) or self._reads > 0

    @property
    def in_transaction(self) -> bool:
        """Whether a write is still open (each runs in a task of its own, so: is one running)."""
        return bool(self._tasks)

    # ---- plumbing -----------------------------------------------------------------------------
    def _lost(self, e: Exception) -> StorageGone:
        if self.gone is None:
            self.gone = (f"The Deckhand tables in the PostgreSQL database {self.url.where} are gone ({e}): nothing "
                         "can be saved any more. Restore the database (or accept the loss) and restart Deckhand.")
            log.critical("%s Moves are refused from now on.", self.gone)
        return StorageGone(self.gone)

    async def check(self) -> None:
        """Raise :class:`StorageGone` if the tables were dropped (one catalog lookup)."""
        if self.gone is None:
            async with self.pool.acquire() as conn:
                if await conn.fetchval("SELECT to_regclass('tables')") is None:
                    raise self._lost(Exception("the table 'tables' does not exist"))
        if self.gone is not None:
            raise StorageGone(self.gone)

    async def _transaction(self, work: Work, key: str = "", *, one_statement: bool = False) -> Any:
        if self._closed:
            raise StorageError("The database is closed.")
        if self.gone is not None:
            raise StorageGone(self.gone)
        before = self._last.get(key)

        async def run() -> Any:
            if before is not None and not before.done():
                await asyncio.wait([before])
            async with self.pool.acquire() as conn:
                if one_statement:  # a single statement is a transaction by itself: no BEGIN/COMMIT trips
                    return await work(conn)
                async with conn.transaction():
                    return await work(conn)

        # Its own task: a caller cancelled while waiting (a shutdown) cannot cut the transaction short.
        task = asyncio.get_running_loop().create_task(run(), name="storage-write")
        self._tasks.add(task)
        self._last[key] = task

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if self._last.get(key) is t:
                del self._last[key]

        task.add_done_callback(done)
        try:
            return await asyncio.shield(task)
        except asyncpg.UndefinedTableError as e:
            raise self._lost(e) from e
        except (asyncpg.PostgresError, asyncpg.InterfaceError) as e:
            raise StorageError(f"The database refused the write: {e}") from e

    async def _reading(self, work: Work, *, snapshot: bool = False) -> Any:
        if self._closed:
            raise StorageError("The database is closed.")
        self._reads += 1
        try:
            async with self.pool.acquire() as conn:
                if not snapshot:
                    return await work(conn)
                async with conn.transaction(isolation="repeatable_read", readonly=True):
                    return await work(conn)
        except asyncpg.UndefinedTableError as e:
            raise self._lost(e) from e
        finally:
            self._reads -= 1

    async def _read(self, sql: str, *params: Any) -> list[Record]:
        async def work(conn: Conn) -> list[Record]:
            return [dict(r) for r in await conn.fetch(sql, *params)]

        return await self._reading(work)

    # ---- tables -------------------------------------------------------------------------------
    async def insert_table(self, record: Record) -> None:
        cols = [c for c in TABLE_COLUMNS if c in record]
        sql = f"INSERT INTO tables ({', '.join(cols)}) VALUES ({', '.join(f'${i}' for i in range(1, len(cols) + 1))})"
        params = [_param(c, record[c]) for c in cols]

        async def work(conn: Conn) -> None:
            try:
                await conn.execute(sql, *params)
            except asyncpg.UniqueViolationError as e:
                raise DuplicateTable(f"A table with id {record.get('id')!r} is already stored.") from e

        await self._transaction(work, str(record.get("id")), one_statement=True)

    async def write(
        self,
        table_id: str,
        changes: Record,
        actions: Sequence[LogEntry] = (),
        *,
        expect: tuple[int, int],
        results: Sequence[Record] = (),
    ) -> None:
        check_changes(changes)
        cols = sorted(changes)
        n = len(cols)
        sets = ", ".join(f"{c} = ${i}" for i, c in enumerate(cols, start=1))
        update = f"UPDATE tables SET {sets} WHERE id = ${n + 1} AND version = ${n + 2} AND rev = ${n + 3}"
        params = [_param(c, changes[c]) for c in cols] + [table_id, expect[0], expect[1]]
        logged = log_rows(table_id, actions)
        scored = [[_param(c, v) for c, v in zip(RESULT_COLUMNS, row, strict=True)] for row in result_rows(results)]
        stale = f"Table {table_id} is no longer at version {expect[0]} (rev {expect[1]})."
        twice = f"Table {table_id} already has an action numbered like these."

        if not scored:
            # The common write (a move): row and log entries in ONE statement, so one round trip and
            # atomic without BEGIN/COMMIT.  The log rows are inserted only if the guarded UPDATE
            # matched; a seq already logged aborts the whole statement.
            sql = (f"WITH u AS ({update} RETURNING 1), "
                   f"a AS (INSERT INTO actions (table_id, seq, seat, code, time, auto) "
                   f"SELECT ${n + 1}, * FROM unnest(${n + 4}::int[], ${n + 5}::int[], ${n + 6}::text[], "
                   f"${n + 7}::float8[], ${n + 8}::int[]) WHERE EXISTS (SELECT 1 FROM u) RETURNING 1) "
                   "SELECT (SELECT count(*) FROM u)")
            columns = [[row[i] for row in logged] for i in range(1, 6)]

            async def one(conn: Conn) -> None:
                try:
                    matched = await conn.fetchval(sql, *params, *columns)
                except asyncpg.UniqueViolationError as e:  # a seq already logged: never apply one twice
                    raise StaleWrite(twice) from e
                if matched != 1:
                    raise StaleWrite(stale)

            await self._transaction(one, table_id, one_statement=True)
            return

        async def work(conn: Conn) -> None:
            if await conn.execute(update, *params) != "UPDATE 1":
                raise StaleWrite(stale)
            if logged:
                try:
                    await conn.executemany(
                        "INSERT INTO actions (table_id, seq, seat, code, time, auto) VALUES ($1, $2, $3, $4, $5, $6)",
                        logged,
                    )
                except asyncpg.UniqueViolationError as e:
                    raise StaleWrite(twice) from e
            marks = ", ".join(f"${i}" for i in range(1, len(RESULT_COLUMNS) + 1))
            refresh = ", ".join(f"{c} = EXCLUDED.{c}" for c in RESULT_COLUMNS if c not in ("table_id", "seat"))
            await conn.executemany(
                f"INSERT INTO results ({', '.join(RESULT_COLUMNS)}) VALUES ({marks}) "
                f"ON CONFLICT (table_id, seat) DO UPDATE SET {refresh}",
                scored,
            )

        await self._transaction(work, table_id)

    async def mark_broken(self, table_id: str, reason: str, at: float) -> None:
        async def work(conn: Conn) -> None:
            await conn.execute("UPDATE tables SET broken = $1, finished_at = COALESCE(finished_at, $2) WHERE id = $3",
                               reason[:500], float(at), table_id)

        await self._transaction(work, table_id, one_statement=True)

    async def prune(self, before: float) -> int:
        doomed = f"SELECT id FROM tables WHERE {PRUNABLE.format(before='$1')}"

        async def work(conn: Conn) -> int:
            await conn.execute(f"DELETE FROM actions WHERE table_id IN ({doomed})", float(before))
            status = await conn.execute(f"DELETE FROM tables WHERE id IN ({doomed})", float(before))
            return int(status.rsplit(" ", 1)[-1])

        return await self._transaction(work)

    # ---- reads --------------------------------------------------------------------------------
    async def _snapshot(self, where: str, params: Sequence[Any] = (), *,
                        between: Callable[[], None] | None = None) -> list[Stored]:
        """The rows matching ``where`` (a condition on ``tables t``) and their logs, in one
        snapshot.  (``between``: a test's hook, run between the two reads.)"""

        async def work(conn: Conn) -> list[Stored]:
            rows = [dict(r) for r in await conn.fetch(
                f"SELECT {', '.join(TABLE_COLUMNS)} FROM tables t WHERE {where} ORDER BY t.created_at, t.id", *params)]
            if between is not None:
                between()
            # Through a cursor, in chunks: a thousand tables' logs are never all in memory twice.
            logs: dict[str, list[LogEntry]] = {}
            async for tid, seq, seat, code, at, auto in conn.cursor(
                    "SELECT a.table_id, a.seq, a.seat, a.code, a.time, a.auto FROM actions a "
                    f"WHERE a.table_id IN (SELECT t.id FROM tables t WHERE {where}) ORDER BY a.table_id, a.seq",
                    *params, prefetch=4096):
                logs.setdefault(tid, []).append(LogEntry(seq, seat, code, at, bool(auto)))
            return [Stored(r, logs.get(r["id"], [])) for r in rows]

        return await self._reading(work, snapshot=True)

    async def unfinished(self, shards: Sequence[int] | None = None, count: int = 1) -> list[Stored]:
        if shards is None:
            return await self._snapshot(UNFINISHED)
        return await self._snapshot(f"{UNFINISHED} AND {in_shards(shards, count)}")

    async def load(self, table_id: str) -> Stored | None:
        found = await self._snapshot("t.id = $1", (table_id,))
        return found[0] if found else None

    async def player_results(self, guild_id: int, user_id: int) -> list[Record]:
        return await self._read(
            f"SELECT {', '.join(RESULT_COLUMNS)} FROM results WHERE guild_id = $1 AND user_id = $2 "
            "ORDER BY finished_at",
            guild_id, user_id,
        )

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[Record]:
        # Casts: PostgreSQL's AVG of integers is NUMERIC (a Decimal in Python); SQLite gives floats.
        return await self._read(
            "SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, AVG(place)::float8 AS avg_place, "
            "AVG(score)::float8 AS avg_score, "
            "(SELECT r2.name FROM results r2 WHERE r2.guild_id = r.guild_id AND r2.user_id = r.user_id "
            " ORDER BY r2.finished_at DESC LIMIT 1) AS name "
            "FROM results r WHERE guild_id = $1 AND game = $2 GROUP BY guild_id, user_id "
            "ORDER BY wins DESC, avg_place ASC, games DESC, user_id ASC LIMIT $3",
            guild_id, game, limit,
        )

    async def close(self) -> None:
        """Finish the writes in progress, then close the pool."""
        if self._closed:
            return
        self._closed = True  # no new writes
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        try:
            await asyncio.wait_for(self.pool.close(), timeout=10)
        except (TimeoutError, OSError, asyncpg.InterfaceError):
            self.pool.terminate()

    # ==== ratings (tables/ratings.py; migration 0004) ===============================================
    # The same methods as SQLiteStorage's ratings block, in PostgreSQL's SQL.
    async def unrated_results(self, skip: str = "") -> int:
        """How many finished games (but ``skip``) have results but are not in the ratings yet."""
        rows = await self._read(
            "SELECT COUNT(DISTINCT table_id) AS n FROM results "
            "WHERE table_id NOT IN (SELECT table_id FROM rated_tables) AND table_id != $1",
            skip,
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
        return await self._read(
            "SELECT user_id, mu, sigma, games FROM ratings WHERE guild_id = $1 AND game = $2 "
            "AND user_id = ANY($3::bigint[])",
            guild_id, game, list(user_ids),
        )

    async def save_ratings(self, table_id: str, guild_id: int, game: str, finished_at: float,
                           ratings: Sequence[Record], ai_places: Sequence[Record]) -> bool:
        """Store one game's new ratings and its AI seats' places, once: ``False`` (and nothing
        written) when the table was rated already."""
        upsert = ("INSERT INTO ratings (guild_id, game, user_id, mu, sigma, games) VALUES ($1, $2, $3, $4, $5, $6) "
                  "ON CONFLICT (guild_id, game, user_id) DO UPDATE SET mu = EXCLUDED.mu, sigma = EXCLUDED.sigma, "
                  "games = EXCLUDED.games")
        rating_rows = [(r["guild_id"], r["game"], r["user_id"], float(r["mu"]), float(r["sigma"]), r["games"])
                       for r in ratings]
        ai_rows = [(table_id, a["seat"], guild_id, game, a["place"], float(finished_at)) for a in ai_places]

        async def work(conn: Conn) -> bool:
            # ON CONFLICT DO NOTHING rather than catching the duplicate: an error would abort the transaction.
            if await conn.execute("INSERT INTO rated_tables (table_id) VALUES ($1) ON CONFLICT DO NOTHING",
                                  table_id) != "INSERT 0 1":
                return False
            if ai_rows:
                await conn.executemany(
                    "INSERT INTO ai_results (table_id, seat, guild_id, game, place, finished_at) "
                    "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (table_id, seat) DO UPDATE SET "
                    "guild_id = EXCLUDED.guild_id, game = EXCLUDED.game, place = EXCLUDED.place, "
                    "finished_at = EXCLUDED.finished_at", ai_rows)
            if rating_rows:
                await conn.executemany(upsert, rating_rows)
            return True

        return bool(await self._transaction(work, f"ratings:{table_id}"))

    async def replace_ratings(self, ratings: Sequence[Record], table_ids: Sequence[str]) -> None:
        """Every rating at once (a recomputation), and the games they include."""
        rows = [(r["guild_id"], r["game"], r["user_id"], float(r["mu"]), float(r["sigma"]), r["games"])
                for r in ratings]

        async def work(conn: Conn) -> None:
            await conn.execute("DELETE FROM ratings")
            if rows:
                await conn.executemany(
                    "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, games) VALUES ($1, $2, $3, $4, $5, $6)",
                    rows)
            if table_ids:
                await conn.execute(
                    "INSERT INTO rated_tables (table_id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING",
                    list(table_ids))

        await self._transaction(work, "ratings")

    async def player_ratings(self, guild_id: int, user_id: int) -> list[Record]:
        return await self._read(
            "SELECT game, mu, sigma, games FROM ratings WHERE guild_id = $1 AND user_id = $2", guild_id, user_id
        )

    async def rating_board(self, guild_id: int, game: str, limit: int = 10) -> list[Record]:
        """The best people by μ − 3σ (the AI, user 0, rated but never listed)."""
        return await self._read(
            "SELECT r.user_id, r.mu, r.sigma, r.games, r.mu - 3 * r.sigma AS conservative, "
            "(SELECT s.name FROM results s WHERE s.guild_id = r.guild_id AND s.user_id = r.user_id "
            " ORDER BY s.finished_at DESC LIMIT 1) AS name "
            "FROM ratings r WHERE r.guild_id = $1 AND r.game = $2 AND r.user_id != 0 "
            "ORDER BY conservative DESC, r.games DESC, r.user_id ASC LIMIT $3",
            guild_id, game, limit,
        )
