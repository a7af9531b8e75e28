"""Both storage backends for the storage, recovery and stats tests: a :class:`Store` is one empty
database (a SQLite file, or a fresh schema on the test PostgreSQL server) that a test opens as often
as it likes (each open is a new process's storage) and inspects from outside, with plain SQL
(``?`` parameters in both dialects), as another client would."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import sqlite3
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import asyncpg

from tables import FakeClock
from tables.storage import open_storage

BACKENDS = ("sqlite", "postgres")
#: Every storage the tests opened and that is still alive: :class:`StoredClock` waits for them.
OPEN: weakref.WeakSet[Any] = weakref.WeakSet()
_names = itertools.count(1)


class StoredClock(FakeClock):
    """A fake clock whose settling also waits for the database work in flight (it runs in real
    threads or on a real server, which ``asyncio.sleep(0)`` rounds alone do not wait for), so a
    test sees every write that the moves made up to now have started."""

    async def settle(self, rounds: int | None = None) -> None:
        for _ in range(5000):
            await super().settle(rounds)
            if not any(s.busy for s in OPEN):
                # Work that just finished in a thread has woken its caller, which may not have run
                # yet (e.g. the housekeeping, not yet asleep again): let it, then look once more.
                await super().settle(rounds)
                if not any(s.busy for s in OPEN):
                    return
            await asyncio.sleep(0.0005)
        raise AssertionError("the database never went quiet")


def _dollars(sql: str) -> str:
    n = itertools.count(1)
    return re.sub(r"\?", lambda _: f"${next(n)}", sql)


class _Loop:
    """An event loop in a thread of its own: the tests' synchronous look into PostgreSQL (from a
    listener callback, say) without touching the loop the runtime runs on."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="pg-inspect", daemon=True)
        self.thread.start()

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


class Store:
    """One empty database of one backend."""

    kind: str
    url: str

    async def open(self, **kw: Any) -> Any:
        storage = await open_storage(self.url, **kw)
        OPEN.add(storage)
        return storage

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        raise NotImplementedError

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        raise NotImplementedError

    def dicts(self, sql: str, params: Sequence[Any] = ()) -> list[dict]:
        raise NotImplementedError

    def table(self, tid: str) -> dict:
        """The stored row of table ``tid`` (``{}`` when there is none)."""
        found = self.dicts("SELECT * FROM tables WHERE id = ?", (tid,))
        return found[0] if found else {}

    def log(self, tid: str) -> list[tuple]:
        return self.rows("SELECT seq, seat, code, auto FROM actions WHERE table_id = ? ORDER BY seq", (tid,))

    def names(self) -> set[str]:
        """The tables (relations) in the database."""
        raise NotImplementedError

    async def cleanup(self) -> None:
        pass


class SQLiteStore(Store):
    kind = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.url = f"sqlite:///{path}"

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with sqlite3.connect(self.path) as conn:
            return conn.execute(sql, params).fetchall()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        with sqlite3.connect(self.path) as conn:
            conn.execute(sql, params)

    def dicts(self, sql: str, params: Sequence[Any] = ()) -> list[dict]:
        with sqlite3.connect(self.path) as conn:
            conn.row_factory = sqlite3.Row
            return [dict(r) for r in conn.execute(sql, params).fetchall()]

    def names(self) -> set[str]:
        return {r[0] for r in self.rows("SELECT name FROM sqlite_master WHERE type = 'table'")}


class PostgresStore(Store):
    """A schema of its own on the test server (``search_path`` in the URL), dropped at the end."""

    kind = "postgres"

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.schema = f"t_{os.getpid()}_{next(_names)}"
        sep = "&" if "?" in server_url else "?"
        self.url = f"{server_url}{sep}search_path={self.schema}"
        self._loop = _Loop()
        self._conn: asyncpg.Connection | None = None

    async def create(self) -> PostgresStore:
        conn = await asyncpg.connect(self.server_url)
        try:
            await conn.execute(f"CREATE SCHEMA {self.schema}")
        finally:
            await conn.close()
        return self

    def _connection(self) -> asyncpg.Connection:
        if self._conn is None:
            self._conn = self._loop.run(asyncpg.connect(self.url))
        return self._conn

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        conn = self._connection()
        return [tuple(r) for r in self._loop.run(conn.fetch(_dollars(sql), *params))]

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        conn = self._connection()
        self._loop.run(conn.execute(_dollars(sql), *params))

    def dicts(self, sql: str, params: Sequence[Any] = ()) -> list[dict]:
        conn = self._connection()
        return [dict(r) for r in self._loop.run(conn.fetch(_dollars(sql), *params))]

    def names(self) -> set[str]:
        return {r[0] for r in self.rows("SELECT table_name FROM information_schema.tables WHERE table_schema = ?",
                                        (self.schema,))}

    async def cleanup(self) -> None:
        if self._conn is not None:
            self._loop.run(self._conn.close())
        self._loop.stop()
        conn = await asyncpg.connect(self.server_url)
        try:
            await conn.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")
        finally:
            await conn.close()
