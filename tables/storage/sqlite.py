"""The SQLite backend of :mod:`tables.storage`: one file, through one aiosqlite connection.

Durability: WAL journal with ``synchronous=NORMAL`` by default, so a committed write survives the
process being killed at any moment (``kill -9``); only a power cut or OS crash may lose the last
few commits.  ``DATABASE_URL=sqlite:///deckhand.db?synchronous=full`` syncs every commit instead.

The file's identity (device and inode) is taken when it is opened and checked before every commit:
a file deleted or replaced under the running process (the connection would go on writing to the
unlinked old one, and everything after would be lost at the next start) raises
:class:`~tables.storage.StorageGone` instead, for that write and every one after it.

The SQL is :mod:`tables.storage.sql`'s; here are the connections, the group commit that runs its
steps, the file's lock and its identity.

A file has two connections, each in its own thread: one writes, one reads.  In WAL mode a read
sees the last commit and never waits for a write, nor a write for a read; so a move's commit never
queues behind the reads of a hand that just ended elsewhere (pings, ratings, stats).  (``:memory:``
is one database per connection: there, one connection does both.)
"""

from __future__ import annotations

import asyncio
import fcntl
import glob
import logging
import os
import sqlite3
import threading
import time
from collections import deque
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
#: Batches the writer's thread commits in a row before it lets the work queued behind it run (with
#: ``:memory:`` the reads share its thread).
BATCHES_IN_A_ROW = 8


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


def _answer(batch: list[tuple[Work[object], asyncio.Future[Any]]], outcomes: list[tuple[bool, object]]) -> None:
    """On the loop: each write of a committed (or failed) batch gets its outcome."""
    for (_, fut), (ok, value) in zip(batch, outcomes, strict=True):
        if fut.done():
            continue  # its caller was cancelled
        if ok:
            fut.set_result(value)
        else:
            assert isinstance(value, BaseException)
            fut.set_exception(value)


@dataclass(eq=False)
class SQLiteStorage(PeopleStorage):
    """:class:`~tables.storage.Storage` on one SQLite file, through two aiosqlite connections (one
    for ``:memory:``): a writing one and a reading one, each with its own thread.

    Writes are *group-committed*: each is a function queued for the writing connection's thread,
    which takes everything queued, runs it as one transaction (each write inside its own savepoint,
    so a refused write — :class:`StaleWrite` — is undone alone), commits once, hands every caller its
    outcome straight from the thread (one turn of the loop: no task in between) and takes what was
    queued meanwhile.  A write's caller resumes only after that commit.  Busy tables therefore share
    commits instead of waiting for each other's, and a caller cancelled while waiting cannot cut a
    transaction short: the thread, not the caller's task, runs it.  Reads go to ``conn`` (the
    reading connection), each one hop into its thread; nothing the loop does holds the database."""

    conn: aiosqlite.Connection  # reads (and, for ``:memory:``, writes)
    path: str
    #: The file's (st_dev, st_ino) when opened; None for ":memory:".
    identity: tuple[int, int] | None = None
    gone: str | None = None
    #: Set at open when the file is new and a rescued copy lies beside it: a sentence for the log.
    notice: str | None = None
    _owner: tuple[int, tuple[int, int]] | None = None  # an exclusive open's locked descriptor (see _own)
    _rescued: bool = False
    _rescue: threading.Lock = field(default_factory=threading.Lock)
    #: The writing connection (its own thread); None: ``conn`` writes too.
    writer: aiosqlite.Connection | None = None
    _closed: bool = False
    #: The writes waiting for the writer's thread (each its own outcome).
    _queue: deque[tuple[Work[object], asyncio.Future[Any]]] = field(default_factory=deque)
    _guard: threading.Lock = field(default_factory=threading.Lock)  # the queue and _writing, across threads
    _writing: bool = False  # the writer's thread has the queue's work in hand (or queued for it)
    _reads: int = 0  # reads under way

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
        writer = None
        if not memory:
            try:
                writer = await aiosqlite.connect(url.path, isolation_level=None)
                await writer.execute(f"PRAGMA synchronous={url.synchronous}")
                await writer.execute("PRAGMA busy_timeout=5000")
                await conn.execute("PRAGMA query_only=1")  # every write goes through the writer
            except sqlite3.Error as e:
                if writer is not None:
                    await writer.close()
                await conn.close()
                let_go()
                raise _unusable(url.path, e) from e
        storage = cls(conn, url.path, _identity(url.path) if not memory else None, writer=writer)
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
        return bool(self._queue) or self._writing or self._reads > 0

    # ---- the file under us ------------------------------------------------------------------------
    def _detect(self) -> None:
        """Notice (once) that the file is no longer the one opened.  Any thread."""
        if self.gone is None and self.identity is not None:
            now = _identity(self.path)
            if now != self.identity:
                what = "deleted" if now is None else "replaced by another file"
                self.gone = (f"The database file {self.path} was {what} while Deckhand was running: nothing "
                             f"can be saved any more, and moves are refused.")

    def _gone_in_thread(self, c: sqlite3.Connection) -> None:
        """In the database thread: raise :class:`StorageGone` if the file went away.  The first time,
        save what this connection still sees (the old file stays readable through it, deleted or
        not) next to the path, so a restart need not lose the games, and say so loudly.  ``c``: the
        thread's own connection."""
        self._detect()
        if self.gone is None:
            return
        with self._rescue:  # (the reading and the writing thread may both find it gone)
            self._save_what_was_stored(c)
        raise StorageGone(self.gone)

    def _save_what_was_stored(self, c: sqlite3.Connection) -> None:
        if self.gone is not None and not self._rescued:
            self._rescued = True
            target = f"{self.path}.rescued-{time.strftime('%Y%m%d-%H%M%S')}"
            try:
                copy = sqlite3.connect(target)
                try:
                    c.backup(copy)
                finally:
                    copy.close()
                self.gone += (f" Everything this process had stored is saved in {target}: stop Deckhand, move "
                              f"that file to {self.path} and start it again.")
            except (sqlite3.Error, OSError) as e:
                self.gone += f" A copy of what it had stored could not be saved ({e}): restore a backup."
            log.critical("%s", self.gone)

    async def check(self) -> None:
        """Raise :class:`StorageGone` if the file was deleted or replaced (one ``stat``; for a
        periodic check when no write would notice)."""
        if self.gone is None and not self._closed:
            self._reads += 1
            try:
                await self.conn._execute(self._gone_in_thread, self.conn._conn)
            finally:
                self._reads -= 1
        if self.gone is not None:
            raise StorageGone(self.gone)

    # ---- plumbing -----------------------------------------------------------------------------
    async def _transaction(self, work: Work[R]) -> R:
        if self._closed:
            raise StorageError("The database is closed.")
        if self.gone is not None:
            raise StorageGone(self.gone)
        fut: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        with self._guard:
            self._queue.append((work, fut))
            start, self._writing = not self._writing, True
        if start:
            self._wake_writer()
        # Awaited as it is, not through asyncio.shield: the shield's own callback cost the writer a
        # whole turn of the loop after its commit (a click's answer waits for it).  Cancelling the
        # writer cancels only this future: the database thread runs the work, and skips a future
        # that is done.
        return await fut

    def _wake_writer(self) -> None:
        """Have the writing connection's thread take the queue (aiosqlite's own queue into its thread;
        no future: :meth:`_write_queued` answers each write itself)."""
        (self.writer or self.conn)._tx.put_nowait((None, self._write_queued))

    def _write_queued(self) -> None:
        """In the writer's thread: commit what is queued, batch after batch, each caller told from
        here; after :data:`BATCHES_IN_A_ROW`, what else waits for the thread goes first."""
        for _ in range(BATCHES_IN_A_ROW):
            with self._guard:
                if not self._queue:
                    self._writing = False
                    return
                batch = [self._queue.popleft() for _ in range(min(MAX_BATCH, len(self._queue)))]
            try:
                outcomes = self._run_batch([w for w, _ in batch])
            except Exception as e:  # BEGIN or COMMIT failed: none of the batch happened
                outcomes = [(False, e)] * len(batch)
            except BaseException as e:
                outcomes = [(False, StorageError(f"The write was interrupted: {e!r}"))] * len(batch)
            with self._guard:  # (done before the callers hear: a caller that resumes sees it quiet)
                more = self._writing = bool(self._queue)
            try:
                batch[0][1].get_loop().call_soon_threadsafe(_answer, batch, outcomes)
            except RuntimeError:  # the loop is closed: nobody waits any more
                pass
            if not more:
                return
        self._wake_writer()

    def _run_batch(self, works: list[Work[object]]) -> list[tuple[bool, object]]:
        """In the writer's thread: one transaction.  Each database call hands the interpreter's lock
        to the loop and waits to get it back (a whole switch interval while the loop is busy), so
        the writes run first side by side with no savepoint of their own; only when one of them
        is refused (:class:`StaleWrite`, rare) is the batch rolled back and run again, each write in
        its own savepoint, so the refused one is undone alone."""
        c = (self.writer or self.conn)._conn
        # Just before the transaction: a write into a deleted (or swapped) file would look
        # committed and be lost at the next start.  One stat per batch, a few microseconds.
        self._gone_in_thread(c)
        c.execute("BEGIN IMMEDIATE")
        try:
            out = self._all_or_none(c, works)
            if out is None:
                c.execute("ROLLBACK")
                c.execute("BEGIN IMMEDIATE")
                out = self._one_by_one(c, works)
            c.execute("COMMIT")
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise
        return out

    @staticmethod
    def _all_or_none(c: sqlite3.Connection, works: list[Work[object]]) -> list[tuple[bool, object]] | None:
        """Every write of the batch, inside the open transaction; ``None`` (and the transaction to be
        rolled back) as soon as one is refused."""
        out: list[tuple[bool, object]] = []
        for work in works:
            try:
                out.append((True, work(c)))
            except Exception:
                return None
        return out

    @staticmethod
    def _one_by_one(c: sqlite3.Connection, works: list[Work[object]]) -> list[tuple[bool, object]]:
        """Every write of the batch in its own savepoint, inside the open transaction."""
        out: list[tuple[bool, object]] = []
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
        return out

    @property
    def in_transaction(self) -> bool:
        return (self.writer or self.conn).in_transaction

    async def _read(self, sql: str, params: Sequence[Param] = ()) -> list[Record]:
        """One read, in one hop into the reading connection's thread."""

        def read(c: sqlite3.Connection) -> list[Record]:
            cur = c.execute(sql, params)
            cols = [d[0] for d in cur.description or ()]
            return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

        return await self._reading(read)

    async def _reading(self, read: Callable[[sqlite3.Connection], R]) -> R:
        if self._closed:
            raise StorageError("The database is closed.")
        self._reads += 1
        try:
            return await self.conn._execute(read, self.conn._conn)
        finally:
            self._reads -= 1

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

        return await self._reading(read)

    async def close(self) -> None:
        """Finish the writes already queued, then close."""
        if self._closed:
            return
        self._closed = True  # no new writes
        while self._writing:  # the writes queued are committed first (each noop: one turn of the writer's thread)
            await (self.writer or self.conn)._execute(lambda: None)
        if self.writer is not None:
            await self.writer.close()
        await self.conn.close()  # (after the reads queued in its thread)
        if self._owner is not None:
            _let_go(*self._owner)
            self._owner = None
