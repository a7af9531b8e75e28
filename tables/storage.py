"""Where tables, their action logs and game results are kept: one small async interface, and
SQLite (through aiosqlite) behind it.

The storage is a dumb row store.  It knows columns, not games: :mod:`tables.records` turns a
:class:`~tables.table.Table` into column values and back, and the runtime decides *when* to write.
What it guarantees:

* every write is one transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), and a caller cancelled half
  way through (a shutdown) cannot leave one open: the transaction runs in its own shielded task;
* a write to a table names the ``(version, rev)`` it expects the stored row to have, and changes
  nothing when the row has moved on (:class:`StaleWrite`) — so two processes running the same
  table cannot both win;
* the schema is versioned: numbered migrations (``tables/migrations/NNNN_name.sql``) are applied
  at start-up, each in its own transaction together with its row in ``schema_version``.

Durability: WAL journal with ``synchronous=NORMAL`` by default, so a committed write survives the
process being killed at any moment (``kill -9``); only a power cut or OS crash may lose the last
few commits.  ``DATABASE_URL=sqlite:///deckhand.db?synchronous=full`` syncs every commit instead.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol
from urllib.parse import parse_qs, urlsplit

import aiosqlite

from tables.table import LogEntry

MIGRATIONS = Path(__file__).resolve().with_name("migrations")
DEFAULT_URL = "sqlite:///deckhand.db"

#: Columns a write may change (``id``, ``game``, ``guild_id`` and the rest never change).
MUTABLE = frozenset({
    "options", "speed", "thread_id", "message_id", "host_id", "seats", "phase", "seed", "version", "rev",
    "deadlines", "since", "finished_at", "ended_early", "snapshot", "snapshot_version",
})
TABLE_COLUMNS = ("id", "game", "options", "speed", "guild_id", "channel_id", "thread_id", "message_id", "host_id",
                 "seats", "phase", "seed", "version", "rev", "deadlines", "since", "created_at", "finished_at",
                 "ended_early", "snapshot", "snapshot_version", "broken")
RESULT_COLUMNS = ("table_id", "seat", "guild_id", "game", "user_id", "name", "players", "place", "score", "won",
                  "figures", "finished_at")

Record = dict[str, Any]


class StorageError(Exception):
    """The storage cannot be used (bad URL, newer schema, failed migration); the message says why."""


class StaleWrite(StorageError):
    """The stored table is not at the version this writer expected: someone else wrote it."""


class DuplicateTable(StorageError):
    """A table with that id is already stored."""


class Stored(NamedTuple):
    """One table as stored: its row (column → value, JSON columns as text) and its action log."""

    record: Record
    log: list[LogEntry]


class Storage(Protocol):
    """What the runtime needs from a store.  Every method is one transaction or one read."""

    async def insert_table(self, record: Record) -> None:
        """Store a new table (raises :class:`DuplicateTable` if the id exists)."""
        ...

    async def write(
        self,
        table_id: str,
        changes: Record,
        actions: Sequence[LogEntry] = (),
        *,
        expect: tuple[int, int],
        results: Sequence[Record] = (),
    ) -> None:
        """Append ``actions`` to the log, update the row with ``changes`` and add ``results``, all
        or nothing — only if the stored row is at ``expect = (version, rev)``; else
        :class:`StaleWrite`."""
        ...

    async def unfinished(self) -> list[Stored]:
        """Every table in the lobby or running that is not marked broken, with its log."""
        ...

    async def load(self, table_id: str) -> Stored | None: ...

    async def mark_broken(self, table_id: str, reason: str, at: float) -> None: ...

    async def prune(self, before: float) -> int:
        """Delete finished (or broken) tables and their logs that ended before ``before``; results
        stay.  Returns how many tables went."""
        ...

    async def player_results(self, guild_id: int, user_id: int) -> list[Record]: ...

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[Record]: ...

    async def close(self) -> None: ...


# ==== URLs ======================================================================================
@dataclass(frozen=True)
class SQLiteURL:
    path: str  # a file path, or ":memory:"
    synchronous: str = "NORMAL"


def parse_url(url: str, base: Path | None = None) -> SQLiteURL:
    """``sqlite:///deckhand.db`` (relative to ``base``, default the working directory),
    ``sqlite:////var/lib/deckhand.db`` (absolute), ``sqlite:///:memory:`` (nothing kept);
    optional ``?synchronous=normal|full``."""
    text = (url or "").strip()
    parts = urlsplit(text)
    if parts.scheme != "sqlite" or parts.netloc or not parts.path.startswith("/") or len(parts.path) < 2:
        raise StorageError(
            f"DATABASE_URL must look like sqlite:///deckhand.db (a file next to bot.py), "
            f"sqlite:////absolute/path/deckhand.db or sqlite:///:memory:, not {text!r}."
        )
    raw = parts.path[1:]  # sqlite:///x.db -> "x.db"; sqlite:////abs -> "/abs"
    sync = (parse_qs(parts.query).get("synchronous") or ["normal"])[0].upper()
    if sync not in ("NORMAL", "FULL"):
        raise StorageError(f"DATABASE_URL's synchronous must be normal or full, not {sync.lower()!r}.")
    if raw == ":memory:":
        return SQLiteURL(raw, sync)
    path = Path(raw)
    if not path.is_absolute() and base is not None:
        path = base / path
    return SQLiteURL(str(path), sync)


async def open_storage(url: str = DEFAULT_URL, base: Path | None = None) -> SQLiteStorage:
    """Open (creating it if needed) and migrate the database named by ``url``."""
    return await SQLiteStorage.open(parse_url(url, base))


# ==== migrations =================================================================================
@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """The numbered migrations, in order (``0001_tables_and_log.sql`` is version 1)."""
    found = []
    for path in sorted(MIGRATIONS.glob("*.sql")):
        m = re.fullmatch(r"(\d{4})_(\w+)\.sql", path.name)
        if m is None:
            raise StorageError(f"Migration file {path.name} should be named NNNN_name.sql.")
        found.append(Migration(int(m[1]), m[2], path.read_text()))
    for i, m in enumerate(found, start=1):
        if m.version != i:
            raise StorageError(f"Migrations must be numbered 1, 2, 3, ... without gaps; found {m.version} at {i}.")
    return found


LATEST = len(migrations())


async def schema_version(conn: aiosqlite.Connection) -> int:
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at REAL NOT NULL)"
    )
    async with conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def migrate(conn: aiosqlite.Connection, upto: int | None = None) -> list[int]:
    """Apply every migration newer than the database (up to ``upto``); return those applied."""
    known = migrations()
    target = len(known) if upto is None else upto
    current = await schema_version(conn)
    if current > len(known):
        raise StorageError(
            f"The database is at schema version {current}, newer than this Deckhand knows ({len(known)}): "
            "run a newer Deckhand, or point DATABASE_URL at another file."
        )
    applied = []
    for m in known[current:target]:
        script = (f"BEGIN IMMEDIATE;\n{m.sql}\n"
                  f"INSERT INTO schema_version (version, name, applied_at) VALUES ({m.version}, '{m.name}', "
                  f"{time.time()!r});\nCOMMIT;")
        try:
            await conn.executescript(script)
        except sqlite3.Error as e:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise StorageError(f"Migration {m.version} ({m.name}) failed: {e}") from e
        applied.append(m.version)
    return applied


# ==== SQLite =====================================================================================
def _encode_log(table_id: str, actions: Sequence[LogEntry]) -> list[tuple[Any, ...]]:
    return [(table_id, a.seq, a.seat, a.code, a.time, int(a.auto)) for a in actions]


Work = Callable[[sqlite3.Connection], Any]  # one write, run in the database thread
MAX_BATCH = 256


@dataclass(eq=False)
class SQLiteStorage:
    """:class:`Storage` on one SQLite file, through one aiosqlite connection.

    Writes are *group-committed*: each is a function queued for the connection's thread; a flusher
    takes everything queued, runs it as one transaction (each write inside its own savepoint, so a
    refused write — :class:`StaleWrite` — is undone alone) and commits once.  A write's caller
    resumes only after that commit.  Busy tables therefore share commits instead of waiting for
    each other's, and a caller cancelled while waiting cannot cut a transaction short: the flusher
    is not the caller's task.  An asyncio lock keeps reads and writes from interleaving."""

    conn: aiosqlite.Connection
    path: str
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _closed: bool = False
    _queue: list[tuple[Work, asyncio.Future[Any]]] = field(default_factory=list)
    _flusher: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: SQLiteURL | str, *, upto: int | None = None) -> SQLiteStorage:
        if isinstance(url, str):
            url = parse_url(url)
        if url.path != ":memory:":
            Path(url.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = await aiosqlite.connect(url.path, isolation_level=None)
        except sqlite3.Error as e:
            raise StorageError(f"Cannot open the database {url.path}: {e}") from e
        try:
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute(f"PRAGMA synchronous={url.synchronous}")
            await conn.execute("PRAGMA busy_timeout=5000")
            await migrate(conn, upto)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, url.path)

    @property
    def busy(self) -> bool:
        """Whether any read or write is queued or in progress (tests wait for quiet)."""
        return bool(self._queue) or self._lock.locked() or (self._flusher is not None and not self._flusher.done())

    # ---- plumbing -----------------------------------------------------------------------------
    async def _transaction(self, work: Work) -> Any:
        if self._closed:
            raise StorageError("The database is closed.")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        self._queue.append((work, fut))
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush(), name="storage-flush")
        return await asyncio.shield(fut)

    async def _flush(self) -> None:
        while self._queue:
            batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
            try:
                async with self._lock:
                    # aiosqlite's own call into its thread: the whole batch is one hop and one commit.
                    outcomes = await self.conn._execute(self._run_batch, [w for w, _ in batch])
            except BaseException as e:  # BEGIN or COMMIT failed: none of the batch happened
                err = e if isinstance(e, Exception) else StorageError(f"The write was interrupted: {e!r}")
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(err)
                if not isinstance(e, Exception):
                    raise
                continue
            for (_, fut), (ok, value) in zip(batch, outcomes, strict=True):
                if fut.done():
                    continue
                if ok:
                    fut.set_result(value)
                else:
                    fut.set_exception(value)

    def _run_batch(self, works: list[Work]) -> list[tuple[bool, Any]]:
        """In the database thread: one transaction, one savepoint per write."""
        c = self.conn._conn
        out: list[tuple[bool, Any]] = []
        c.execute("BEGIN IMMEDIATE")
        try:
            for work in works:
                c.execute("SAVEPOINT one")
                try:
                    value = work(c)
                except Exception as e:
                    c.execute("ROLLBACK TO one")
                    c.execute("RELEASE one")
                    out.append((False, e))
                else:
                    c.execute("RELEASE one")
                    out.append((True, value))
            c.execute("COMMIT")
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise
        return out

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Record]:
        async with self._lock:
            if self._closed:
                raise StorageError("The database is closed.")
            async with self.conn.execute(sql, params) as cur:
                cols = [d[0] for d in cur.description or ()]
                rows = await cur.fetchall()
        return [dict(zip(cols, r, strict=True)) for r in rows]

    # ---- tables -------------------------------------------------------------------------------
    async def insert_table(self, record: Record) -> None:
        cols = [c for c in TABLE_COLUMNS if c in record]
        sql = f"INSERT INTO tables ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        params = [record[c] for c in cols]

        def work(c: sqlite3.Connection) -> None:
            try:
                c.execute(sql, params)
            except sqlite3.IntegrityError as e:
                raise DuplicateTable(f"A table with id {record.get('id')!r} is already stored.") from e

        await self._transaction(work)

    async def write(
        self,
        table_id: str,
        changes: Record,
        actions: Sequence[LogEntry] = (),
        *,
        expect: tuple[int, int],
        results: Sequence[Record] = (),
    ) -> None:
        bad = set(changes) - MUTABLE
        if bad:
            raise ValueError(f"Columns that cannot be written: {sorted(bad)}")
        cols = sorted(changes)
        sets = ", ".join(f"{c} = ?" for c in cols)
        update = f"UPDATE tables SET {sets} WHERE id = ? AND version = ? AND rev = ?"
        params = [changes[c] for c in cols] + [table_id, expect[0], expect[1]]
        log_rows = _encode_log(table_id, actions)
        result_rows = [[r[c] for c in RESULT_COLUMNS] for r in results]

        def work(c: sqlite3.Connection) -> None:
            if c.execute(update, params).rowcount != 1:
                raise StaleWrite(f"Table {table_id} is no longer at version {expect[0]} (rev {expect[1]}).")
            if log_rows:
                try:
                    c.executemany(
                        "INSERT INTO actions (table_id, seq, seat, code, time, auto) VALUES (?, ?, ?, ?, ?, ?)",
                        log_rows,
                    )
                except sqlite3.IntegrityError as e:  # a seq already logged: never apply one twice
                    raise StaleWrite(f"Table {table_id} already has an action numbered like these.") from e
            if result_rows:
                c.executemany(
                    f"INSERT OR REPLACE INTO results ({', '.join(RESULT_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(RESULT_COLUMNS))})",
                    result_rows,
                )

        await self._transaction(work)

    async def mark_broken(self, table_id: str, reason: str, at: float) -> None:
        def work(c: sqlite3.Connection) -> None:
            c.execute(
                "UPDATE tables SET broken = ?, finished_at = COALESCE(finished_at, ?) WHERE id = ?",
                (reason[:500], at, table_id),
            )

        await self._transaction(work)

    async def prune(self, before: float) -> int:
        doomed = "SELECT id FROM tables WHERE finished_at < ? AND (phase = 'finished' OR broken IS NOT NULL)"

        def work(c: sqlite3.Connection) -> int:
            c.execute(f"DELETE FROM actions WHERE table_id IN ({doomed})", (before,))
            return c.execute(f"DELETE FROM tables WHERE id IN ({doomed})", (before,)).rowcount

        return await self._transaction(work)

    # ---- reads --------------------------------------------------------------------------------
    async def _logs(self, where: str, params: Sequence[Any]) -> dict[str, list[LogEntry]]:
        """The logs of the tables matching ``where`` (a condition on ``tables t``), by table id."""
        async with self._lock:
            if self._closed:
                raise StorageError("The database is closed.")
            out: dict[str, list[LogEntry]] = {}
            async with self.conn.execute(
                "SELECT a.table_id, a.seq, a.seat, a.code, a.time, a.auto FROM actions a "
                f"WHERE a.table_id IN (SELECT t.id FROM tables t WHERE {where}) ORDER BY a.table_id, a.seq",
                params,
            ) as cur:
                # Big chunks: few trips to the database thread, and never the whole log in memory twice.
                while rows := await cur.fetchmany(4096):
                    for tid, seq, seat, code, at, auto in rows:
                        out.setdefault(tid, []).append(LogEntry(seq, seat, code, at, bool(auto)))
        return out

    async def unfinished(self) -> list[Stored]:
        where = "t.phase != 'finished' AND t.broken IS NULL"
        # Rows and logs are read under one lock each; only this process writes them meanwhile
        # (recovery runs before any table is live), so they agree.
        rows = await self._read(
            f"SELECT {', '.join(TABLE_COLUMNS)} FROM tables t WHERE {where} ORDER BY created_at, id"
        )
        logs = await self._logs(where, ())
        return [Stored(r, logs.get(r["id"], [])) for r in rows]

    async def load(self, table_id: str) -> Stored | None:
        rows = await self._read(f"SELECT {', '.join(TABLE_COLUMNS)} FROM tables WHERE id = ?", (table_id,))
        if not rows:
            return None
        logs = await self._logs("t.id = ?", (table_id,))
        return Stored(rows[0], logs.get(table_id, []))

    async def player_results(self, guild_id: int, user_id: int) -> list[Record]:
        return await self._read(
            f"SELECT {', '.join(RESULT_COLUMNS)} FROM results WHERE guild_id = ? AND user_id = ? "
            "ORDER BY finished_at",
            (guild_id, user_id),
        )

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[Record]:
        return await self._read(
            "SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, AVG(place) AS avg_place, AVG(score) AS avg_score, "
            "(SELECT r2.name FROM results r2 WHERE r2.guild_id = r.guild_id AND r2.user_id = r.user_id "
            " ORDER BY r2.finished_at DESC LIMIT 1) AS name "
            "FROM results r WHERE guild_id = ? AND game = ? GROUP BY user_id "
            "ORDER BY wins DESC, avg_place ASC, games DESC, user_id ASC LIMIT ?",
            (guild_id, game, limit),
        )

    async def close(self) -> None:
        """Finish the writes already queued, then close."""
        if self._closed:
            return
        self._closed = True  # no new writes
        flusher = self._flusher
        if flusher is not None and not flusher.done():
            await asyncio.gather(flusher, return_exceptions=True)
        async with self._lock:
            await self.conn.close()

    # ==== ratings (tables/ratings.py; migration 0004) ===============================================
    # Kept apart from the rest of the class so another backend can port it as one block.  Plain SQL:
    # INSERT ... ON CONFLICT DO UPDATE works in PostgreSQL as written.
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
