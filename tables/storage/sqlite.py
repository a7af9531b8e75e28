"""The SQLite backend of :mod:`tables.storage`: one file, through one aiosqlite connection.

Durability: WAL journal with ``synchronous=NORMAL`` by default, so a committed write survives the
process being killed at any moment (``kill -9``); only a power cut or OS crash may lose the last
few commits.  ``DATABASE_URL=sqlite:///deckhand.db?synchronous=full`` syncs every commit instead.

The file's identity (device and inode) is taken when it is opened and checked before every commit:
a file deleted or replaced under the running process (the connection would go on writing to the
unlinked old one, and everything after would be lost at the next start) raises
:class:`~tables.storage.StorageGone` instead, for that write and every one after it.

The SQL is :mod:`tables.storage.sql`'s; here are the connection, the group commit that runs its
steps, the file's lock and its identity.
"""

from __future__ import annotations

import asyncio
import fcntl
import glob
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite

from tables.storage import base as st
from tables.storage.base import (
    TABLE_COLUMNS,
    Param,
    Record,
    SQLiteURL,
    StorageError,
    StorageGone,
    Stored,
    stored_logs,
)
from tables.storage.people import PeopleStorage
from tables.storage.sql import (
    CURRENT_VERSION,
    SQLITE,
    Job,
    R,
    Rows,
    RunMany,
    Value,
    schema_version_table,
    snapshot_logs,
    snapshot_rows,
    version_applied,
)

log = logging.getLogger("deckhand.storage")


# ==== migrations =================================================================================
async def schema_version(conn: aiosqlite.Connection) -> int:
    await conn.execute(schema_version_table(SQLITE))
    async with conn.execute(CURRENT_VERSION) as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def migrate(conn: aiosqlite.Connection, upto: int | None = None) -> list[int]:
    """Apply every migration newer than the database (up to ``upto``); return those applied."""
    known = st.matching_migrations("sqlite")
    target = len(known) if upto is None else upto
    current = await schema_version(conn)
    if current > len(known):
        raise st.newer_schema(current, len(known), "file")
    applied = []
    for m in known[current:target]:
        script = f"BEGIN IMMEDIATE;\n{m.sql}\n{version_applied(m, time.time())};\nCOMMIT;"
        try:
            await conn.executescript(script)
        except sqlite3.Error as e:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise StorageError(f"Migration {m.version} ({m.name}) failed: {e}") from e
        applied.append(m.version)
    return applied


def _identity(path: str) -> tuple[int, int] | None:
    try:
        s = os.stat(path)
    except FileNotFoundError:
        return None
    return (s.st_dev, s.st_ino)


def _unusable(path: str, e: sqlite3.Error) -> StorageError:
    """A sentence for a database file that cannot be opened for writing."""
    text = str(e).lower()
    if "readonly" in text or "read-only" in text or "read only" in text:
        return StorageError(
            f"The database {path} is read-only: Deckhand must be able to write the file and its folder "
            f"(for the -wal and -shm files next to it). Check their owner and permissions, or point "
            f"DATABASE_URL at another file. ({e})"
        )
    return StorageError(f"Cannot use the database {path}: {e}")


# ==== SQLite =====================================================================================
Work = Callable[[sqlite3.Connection], R]  # one write, run in the database thread
MAX_BATCH = 256


#: The database files this process holds the lock of, by (st_dev, st_ino).  A second open in the
#: same process is refused from here, before opening the file: closing any descriptor of a file
#: drops every POSIX lock the process holds on it, SQLite's own included.
_OWNED: set[tuple[int, int]] = set()


def _holder(identity: tuple[int, int]) -> str:
    """The pid holding the lock on the file ``identity`` (from ``/proc/locks``), or ``?``."""
    dev, ino = identity
    exact = f"{os.major(dev):02x}:{os.minor(dev):02x}:{ino}"
    fallback = "?"
    try:
        with open("/proc/locks") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 6 or parts[1] != "FLOCK" or parts[3] != "WRITE":
                    continue
                if parts[5] == exact:
                    return parts[4]
                # Some filesystems (btrfs subvolumes, overlays) show another device number there.
                if parts[5].rsplit(":", 1)[-1] == str(ino):
                    fallback = parts[4]
    except OSError:
        pass
    return fallback


def _another_process(pid: str, path: str) -> StorageError:
    return StorageError(
        f"Another Deckhand process (pid {pid}) is already running on the database {path}. Two "
        "processes on one SQLite file would both drive the same tables: stop the other one first, "
        "give this one its own DATABASE_URL, or use PostgreSQL to run several processes."
    )


def _own(path: str) -> tuple[int, tuple[int, int]]:
    """Take the lock that makes this process the only bot on the database: an ``flock`` on the
    database file itself, held until the storage closes (the system drops it when a process dies,
    even by SIGKILL).  A lock on the file, not on its name: a symlink, a hard link or another mount
    of the same file meets the same lock.  (On a local filesystem ``flock`` and SQLite's own POSIX
    locks do not interact.)  Returns the locked descriptor and the file's (st_dev, st_ino)."""
    try:
        known = _identity(path)
    except OSError:
        known = None
    if known is not None and known in _OWNED:
        raise _another_process(str(os.getpid()), path)
    try:
        # Read-only is enough for flock, and a read-only file then gets SQLite's own sentence.
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise StorageError(f"Cannot open or create the database {path}: {e}") from e
    st_ = os.fstat(fd)
    identity = (st_.st_dev, st_.st_ino)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise _another_process(_holder(identity), path) from None
    _OWNED.add(identity)
    return fd, identity


def _let_go(fd: int, identity: tuple[int, int]) -> None:
    _OWNED.discard(identity)
    os.close(fd)  # the lock goes with it


def _rescued_beside(path: str) -> str | None:
    """The newest ``<path>.rescued-*`` copy (see ``_gone_in_thread``) beside ``path``, if any."""
    where = Path(path)
    copies = sorted(where.parent.glob(glob.escape(where.name) + ".rescued-*"))
    return str(copies[-1]) if copies else None


def _drive(c: sqlite3.Connection, job: Job[R]) -> R:
    """In the database thread: run a job's steps (see :mod:`tables.storage.sql`) on ``c``."""
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
                    c.executemany(step.sql, step.rows)
                reply = None
            elif isinstance(step, Value):
                row = c.execute(step.sql, step.params).fetchone()
                reply = row[0] if row else None
            elif isinstance(step, Rows):
                cur = c.execute(step.sql, step.params)
                cols = [d[0] for d in cur.description or ()]
                reply = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
            else:
                reply = c.execute(step.sql, step.params).rowcount
        except sqlite3.IntegrityError as e:
            if step.conflict is None:
                raise
            raise step.conflict from e


@dataclass(eq=False)
class SQLiteStorage(PeopleStorage):
    """:class:`~tables.storage.Storage` on one SQLite file, through one aiosqlite connection.

    Writes are *group-committed*: each is a function queued for the connection's thread; a flusher
    takes everything queued, runs it as one transaction (each write inside its own savepoint, so a
    refused write — :class:`StaleWrite` — is undone alone) and commits once.  A write's caller
    resumes only after that commit.  Busy tables therefore share commits instead of waiting for
    each other's, and a caller cancelled while waiting cannot cut a transaction short: the flusher
    is not the caller's task.  An asyncio lock keeps reads and writes from interleaving."""

    conn: aiosqlite.Connection
    path: str
    #: The file's (st_dev, st_ino) when opened; None for ":memory:".
    identity: tuple[int, int] | None = None
    gone: str | None = None
    #: Set at open when the file is new and a rescued copy lies beside it: a sentence for the log.
    notice: str | None = None
    _owner: tuple[int, tuple[int, int]] | None = None  # an exclusive open's locked descriptor (see _own)
    _rescued: bool = False
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _closed: bool = False
    _queue: list[tuple[Work[object], asyncio.Future[Any]]] = field(default_factory=list)  # (each write its own result)
    _flusher: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: SQLiteURL | str, *, upto: int | None = None, exclusive: bool = False) -> SQLiteStorage:
        if isinstance(url, str):
            parsed = st.parse_url(url)
            if not isinstance(parsed, SQLiteURL):
                raise StorageError(f"{url!r} is not a SQLite URL.")
            url = parsed
        memory = url.path == ":memory:"
        if not memory:
            try:
                Path(url.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StorageError(f"Cannot create the folder of the database {url.path}: {e}") from e
        # A file that is not there yet (or empty) is a new database: see _rescued_beside below.
        fresh = not memory and not (os.path.isfile(url.path) and os.path.getsize(url.path) > 0)
        owner = _own(url.path) if exclusive and not memory else None

        def let_go() -> None:
            if owner is not None:
                _let_go(*owner)

        try:
            conn = await aiosqlite.connect(url.path, isolation_level=None)
        except sqlite3.Error as e:
            let_go()
            raise _unusable(url.path, e) from e
        try:
            # Everything here may meet a file it cannot write (read-only, a directory, not a
            # database): a sentence for the person starting the bot, not a traceback.
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute(f"PRAGMA synchronous={url.synchronous}")
            await conn.execute("PRAGMA busy_timeout=5000")
            await migrate(conn, upto)
        except sqlite3.Error as e:
            await conn.close()
            let_go()
            raise _unusable(url.path, e) from e
        except BaseException:
            await conn.close()
            let_go()
            raise
        storage = cls(conn, url.path, _identity(url.path) if not memory else None)
        storage._owner = owner
        rescued = _rescued_beside(url.path) if fresh else None
        if rescued is not None:
            # After the file was deleted under a running bot (which saved what it had beside it),
            # a restart makes a new empty database: say where the games are.
            storage.notice = (f"The database {url.path} is new and empty, but {rescued} beside it holds what an "
                              f"earlier Deckhand saved when its database went away: to restore it, stop Deckhand, "
                              f"move that file to {url.path} and start Deckhand again.")
            log.warning("%s", storage.notice)
        return storage

    @property
    def busy(self) -> bool:
        """Whether any read or write is queued or in progress (tests wait for quiet)."""
        return bool(self._queue) or self._lock.locked() or (self._flusher is not None and not self._flusher.done())

    # ---- the file under us ------------------------------------------------------------------------
    def _detect(self) -> None:
        """Notice (once) that the file is no longer the one opened.  Any thread."""
        if self.gone is None and self.identity is not None:
            now = _identity(self.path)
            if now != self.identity:
                what = "deleted" if now is None else "replaced by another file"
                self.gone = (f"The database file {self.path} was {what} while Deckhand was running: nothing "
                             f"can be saved any more, and moves are refused.")

    def _gone_in_thread(self) -> None:
        """In the database thread: raise :class:`StorageGone` if the file went away.  The first time,
        save what this connection still sees (the old file stays readable through it, deleted or
        not) next to the path, so a restart need not lose the games, and say so loudly."""
        self._detect()
        if self.gone is None:
            return
        if not self._rescued:
            self._rescued = True
            target = f"{self.path}.rescued-{time.strftime('%Y%m%d-%H%M%S')}"
            try:
                copy = sqlite3.connect(target)
                try:
                    self.conn._conn.backup(copy)
                finally:
                    copy.close()
                self.gone += (f" Everything this process had stored is saved in {target}: stop Deckhand, move "
                              f"that file to {self.path} and start it again.")
            except (sqlite3.Error, OSError) as e:
                self.gone += f" A copy of what it had stored could not be saved ({e}): restore a backup."
            log.critical("%s", self.gone)
        raise StorageGone(self.gone)

    async def check(self) -> None:
        """Raise :class:`StorageGone` if the file was deleted or replaced (one ``stat``; for a
        periodic check when no write would notice)."""
        if self.gone is None and not self._closed:
            async with self._lock:
                await self.conn._execute(self._gone_in_thread)
        if self.gone is not None:
            raise StorageGone(self.gone)

    # ---- plumbing -----------------------------------------------------------------------------
    async def _transaction(self, work: Work[R]) -> R:
        if self._closed:
            raise StorageError("The database is closed.")
        if self.gone is not None:
            raise StorageGone(self.gone)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[R] = loop.create_future()
        self._queue.append((work, fut))
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush(), name="storage-flush")
        # Awaited as it is, not through asyncio.shield: the shield's own callback cost the writer a
        # whole turn of the loop after its commit (a click's answer waits for it).  Cancelling the
        # writer cancels only this future: the flusher, not the writer's task, runs the work, and
        # skips a future that is done.
        return await fut

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

    def _run_batch(self, works: list[Work[object]]) -> list[tuple[bool, object]]:
        """In the database thread: one transaction, one savepoint per write."""
        c = self.conn._conn
        out: list[tuple[bool, object]] = []
        # Just before the transaction: a write into a deleted (or swapped) file would look
        # committed and be lost at the next start.  One stat per batch, a few microseconds.
        self._gone_in_thread()
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

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    async def _read(self, sql: str, params: Sequence[Param] = ()) -> list[Record]:
        async with self._lock:
            if self._closed:
                raise StorageError("The database is closed.")
            async with self.conn.execute(sql, params) as cur:
                cols = [d[0] for d in cur.description or ()]
                rows = await cur.fetchall()
        return [dict(zip(cols, r, strict=True)) for r in rows]

    async def _run(self, job: Job[R]) -> R:
        return await self._transaction(lambda c: _drive(c, job))

    # ---- reads --------------------------------------------------------------------------------
    async def _snapshot(self, where: str, params: Sequence[Param] = (), *,
                        between: Callable[[], None] | None = None) -> list[Stored]:
        """The rows matching ``where`` (a condition on ``tables t``) and their logs, read in one
        read transaction: in WAL mode it sees one state of the file, whatever other processes
        commit meanwhile.  One hop to the database thread.  (``between``: a test's hook, run
        between the two reads.)"""

        def read(c: sqlite3.Connection) -> list[Stored]:
            c.execute("BEGIN")  # deferred: a read snapshot, taking no write lock
            try:
                cur = c.execute(snapshot_rows(where), params)
                rows = [dict(zip(TABLE_COLUMNS, r, strict=True)) for r in cur]
                if between is not None:
                    between()
                cur = c.execute(snapshot_logs(where), params)
                logs = stored_logs(cur)
            finally:
                c.execute("COMMIT")
            return [Stored(r, logs.get(r["id"], [])) for r in rows]

        async with self._lock:
            if self._closed:
                raise StorageError("The database is closed.")
            return await self.conn._execute(read, self.conn._conn)

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
        if self._owner is not None:
            _let_go(*self._owner)
            self._owner = None
