"""The PostgreSQL backend of :mod:`tables.storage`, through an asyncpg connection pool.

For several bot processes sharing one database (``DATABASE_URL=postgresql://…``).  Each write is one
transaction on a pooled connection, so writes of different tables run side by side (PostgreSQL
groups concurrent commits itself); durability is the server's (``synchronous_commit``, on by
default: a commit is on disk when the write returns).  Server settings may ride in the URL's query
(``?synchronous_commit=off``, ``?search_path=deckhand``), as asyncpg passes them on.

Recovery reads every unfinished row and its log in one ``REPEATABLE READ`` read-only transaction:
one snapshot, whatever other processes commit meanwhile.  Migrations run under a session advisory
lock (:data:`MIGRATION_LOCK`), so processes starting together apply each one once.

The SQL is :mod:`tables.storage.sql`'s (in its PostgreSQL dialect); here are the pool, the
transactions that run its steps in order per table, and the tables going away.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias

import asyncpg

from tables.storage import base as st
from tables.storage.base import (
    Param,
    PostgresURL,
    Record,
    StorageError,
    StorageGone,
    Stored,
)
from tables.storage.people import PeopleStorage
from tables.storage.sql import (
    CURRENT_VERSION,
    POSTGRES,
    Job,
    R,
    Rows,
    RunMany,
    Value,
    affected,
    schema_version_table,
    snapshot_logs,
    snapshot_rows,
    version_applied,
)
from tables.table import LogEntry

log = logging.getLogger("deckhand.storage")

#: The advisory lock key held while migrating (``hashtext('deckhand.migrations')`` would do as well;
#: a constant is easier to find in ``pg_locks``).
MIGRATION_LOCK = 0x6465636B_6D696772  # "deckmigr"
POOL_SIZE = 8

Conn: TypeAlias = asyncpg.Connection  # an alias, not a variable, though asyncpg is untyped
Work = Callable[[Conn], Awaitable[R]]


async def schema_version(conn: Conn) -> int:
    await conn.execute(schema_version_table(POSTGRES))
    return int(await conn.fetchval(CURRENT_VERSION))


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
                    await conn.execute(version_applied(m, time.time()))
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


async def _drive(conn: Conn, job: Job[R]) -> R:
    """Run a job's steps (see :mod:`tables.storage.sql`) on ``conn``."""
    steps = job.steps()
    reply: Any = None
    while True:
        try:
            step = steps.send(reply)
        except StopIteration as done:
            return done.value
        try:
            if isinstance(step, RunMany):
                if step.rows:
                    await conn.executemany(step.sql, step.rows)
                reply = None
            elif isinstance(step, Value):
                reply = await conn.fetchval(step.sql, *step.params)
            elif isinstance(step, Rows):
                reply = [dict(r) for r in await conn.fetch(step.sql, *step.params)]
            else:
                reply = affected(await conn.execute(step.sql, *step.params))
        except asyncpg.UniqueViolationError as e:
            if step.conflict is None:
                raise
            raise step.conflict from e


class PostgresStorage(PeopleStorage):
    """:class:`~tables.storage.Storage` on a PostgreSQL database, through an asyncpg pool."""

    dialect = POSTGRES

    def __init__(self, pool: asyncpg.Pool, url: PostgresURL) -> None:
        self.pool = pool
        self.url = url
        self.gone: str | None = None
        self._closed = False
        self._tasks: set[asyncio.Task[object]] = set()
        # The last write of each table still running: the next one of that table waits for it,
        # so one table's writes commit in the order they were made (as SQLite's single queue does),
        # even after a caller stopped waiting for one.
        self._last: dict[str, asyncio.Task[object]] = {}
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

    async def _transaction(self, work: Work[R], key: str = "", *, one_statement: bool = False) -> R:
        if self._closed:
            raise StorageError("The database is closed.")
        if self.gone is not None:
            raise StorageGone(self.gone)
        before = self._last.get(key)

        async def run() -> R:
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

        def done(t: asyncio.Task[object]) -> None:
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

    async def _reading(self, work: Work[R], *, snapshot: bool = False) -> R:
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

    async def _read(self, sql: str, params: Sequence[Param] = ()) -> list[Record]:
        async def work(conn: Conn) -> list[Record]:
            return [dict(r) for r in await conn.fetch(POSTGRES.sql(sql), *params)]

        return await self._reading(work)

    async def _run(self, job: Job[R]) -> R:
        return await self._transaction(lambda conn: _drive(conn, job), job.key, one_statement=job.single)

    # ---- reads --------------------------------------------------------------------------------
    async def _snapshot(self, where: str, params: Sequence[Param] = (), *,
                        between: Callable[[], None] | None = None) -> list[Stored]:
        """The rows matching ``where`` (a condition on ``tables t``) and their logs, in one
        snapshot.  (``between``: a test's hook, run between the two reads.)"""

        async def work(conn: Conn) -> list[Stored]:
            rows = [dict(r) for r in await conn.fetch(POSTGRES.sql(snapshot_rows(where)), *params)]
            if between is not None:
                between()
            # Through a cursor, in chunks: a thousand tables' logs are never all in memory twice.
            logs: dict[str, list[LogEntry]] = {}
            async for tid, seq, seat, code, at, auto, *timed_out in conn.cursor(
                    POSTGRES.sql(snapshot_logs(where)), *params, prefetch=4096):
                logs.setdefault(tid, []).append(LogEntry(seq, seat, code, at, bool(auto),
                                                         bool(timed_out and timed_out[0])))
            return [Stored(r, logs.get(r["id"], [])) for r in rows]

        return await self._reading(work, snapshot=True)

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
