"""The SQLite storage: schema and migrations, guarded writes, and the runtime committing every change
before anyone hears of it."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import weakref
from pathlib import Path

import aiosqlite
import pytest

from tables import FakeClock, Phase, Runtime, TableError
from tables.records import record_of
from tables.storage import (
    LATEST,
    DuplicateTable,
    SQLiteStorage,
    StaleWrite,
    StorageError,
    migrations,
    open_storage,
    parse_url,
)
from tables.table import LogEntry

from .conftest import HOST, SHORT, Recorder, choose, new_table, run_until, started

BOB = 200


OPEN: weakref.WeakSet[SQLiteStorage] = weakref.WeakSet()


async def db(path: Path, **kw) -> SQLiteStorage:
    storage = await SQLiteStorage.open(f"sqlite:///{path}", **kw)
    OPEN.add(storage)
    return storage


class StoredClock(FakeClock):
    """A fake clock whose settling also waits for the database work in flight (it runs in real
    threads, which ``asyncio.sleep(0)`` rounds alone do not wait for), so a test sees every write
    that the moves made up to now have started."""

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


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


def rows(path: Path, sql: str, params=()) -> list[tuple]:
    """Read the file with plain sqlite3, as another process would."""
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


def stored_table(path: Path, tid: str) -> dict:
    with sqlite3.connect(path) as conn:
        conn.row_factory = sqlite3.Row
        row = conn.execute("SELECT * FROM tables WHERE id = ?", (tid,)).fetchone()
        return dict(row) if row else {}


def stored_log(path: Path, tid: str) -> list[tuple]:
    return rows(path, "SELECT seq, seat, code, auto FROM actions WHERE table_id = ? ORDER BY seq", (tid,))


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "deckhand.db"


@pytest.fixture
async def make_stored(make_runtime, path):
    """A runtime on the database file (each call is a fresh process's runtime on the same file)."""

    async def make(**kw) -> Runtime:
        return make_runtime(storage=await db(path), **kw)

    return make


# ==== URLs and migrations =========================================================================
def test_database_urls(tmp_path):
    assert parse_url("sqlite:///deckhand.db", tmp_path).path == str(tmp_path / "deckhand.db")
    assert parse_url("sqlite:///deckhand.db").path == "deckhand.db"
    assert parse_url("sqlite:////var/lib/x.db", tmp_path).path == "/var/lib/x.db"
    assert parse_url("sqlite:///:memory:").path == ":memory:"
    assert parse_url("sqlite:///a.db?synchronous=full").synchronous == "FULL"
    for bad in ("", "deckhand.db", "postgres://x/y", "sqlite://host/x.db", "sqlite:///", "sqlite:///a.db?synchronous=off"):
        with pytest.raises(StorageError):
            parse_url(bad)


def test_migrations_are_numbered_files():
    ms = migrations()
    assert [m.version for m in ms] == list(range(1, LATEST + 1)) and LATEST >= 3
    assert all(m.sql.strip() for m in ms)


async def test_an_empty_database_is_created_and_migrated(path):
    storage = await open_storage(f"sqlite:///{path.name}", base=path.parent)
    await storage.close()
    assert path.exists()
    assert rows(path, "SELECT version FROM schema_version ORDER BY version") == [(v,) for v in range(1, LATEST + 1)]
    assert rows(path, "PRAGMA journal_mode") == [("wal",)]
    names = {r[0] for r in rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"tables", "actions", "results", "schema_version"} <= names
    # Opening again applies nothing and keeps everything.
    storage = await db(path)
    await storage.close()
    assert len(rows(path, "SELECT * FROM schema_version")) == LATEST


async def test_migrating_from_the_previous_version_keeps_the_tables(path, make_runtime, clock):
    # A running table as a version before results (migration 3) wrote it: later migrations
    # (results, ratings) all apply on top of it.
    old = await db(path, upto=2)
    assert rows(path, "SELECT MAX(version) FROM schema_version") == [(2,)]
    assert "results" not in {r[0] for r in rows(path, "SELECT name FROM sqlite_master")}
    rt = make_runtime(storage=old)
    t = await started(rt, options=SHORT)
    await run_until(clock, lambda: 0 in t.to_act() and t.state.phase == "play" and t.version > 3)
    tid, version = t.id, t.version
    await rt.close()
    # The new version migrates on open, and the table recovers and plays on.
    rt2 = make_runtime(storage=await db(path))
    report = await rt2.recover()
    assert [x.id for x in report.restored] == [tid] and not report.broken
    assert rt2.get(tid).version == version
    assert rows(path, "SELECT MAX(version) FROM schema_version") == [(LATEST,)]
    assert rows(path, "SELECT COUNT(*) FROM results") == [(0,)]


async def test_each_migration_is_all_or_nothing(path, monkeypatch):
    import tables.storage as st

    broken = [*st.migrations()]
    broken[-1] = st.Migration(broken[-1].version, broken[-1].name, "CREATE TABLE ok (x);\nTHIS IS NOT SQL;")
    monkeypatch.setattr(st, "migrations", lambda: broken)
    with pytest.raises(StorageError, match=f"Migration {LATEST}"):
        await db(path)
    names = {r[0] for r in rows(path, "SELECT name FROM sqlite_master")}
    assert "ok" not in names
    assert rows(path, "SELECT MAX(version) FROM schema_version") == [(LATEST - 1,)]


async def test_a_newer_schema_is_refused(path):
    await (await db(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version VALUES (999, 'future', 0)")
    with pytest.raises(StorageError, match="newer"):
        await db(path)


# ==== guarded writes ================================================================================
async def _a_table(storage: SQLiteStorage, rt: Runtime):
    t = await new_table(rt)
    await storage.insert_table(record_of(t))
    return t


async def test_writes_are_guarded_by_version_and_rev(path, rt):
    storage = await db(path)
    try:
        t = await _a_table(storage, rt)
        with pytest.raises(DuplicateTable):
            await storage.insert_table(record_of(t))
        entry = LogEntry(1, 0, "play 2C", 5.0)
        await storage.write(t.id, {"version": 1, "rev": 1}, [entry], expect=(0, 0))
        # A second writer still believing version 0 loses, and changes nothing.
        with pytest.raises(StaleWrite):
            await storage.write(t.id, {"version": 1, "rev": 1, "phase": "finished"}, [entry], expect=(0, 0))
        # The same seq twice is refused too, even with the right version: nothing is applied twice.
        with pytest.raises(StaleWrite):
            await storage.write(t.id, {"version": 2, "rev": 2}, [entry], expect=(1, 1))
        with pytest.raises(ValueError):
            await storage.write(t.id, {"game": "other"}, expect=(1, 1))
    finally:
        await storage.close()
    row = stored_table(path, t.id)
    assert (row["version"], row["rev"], row["phase"]) == (1, 1, "lobby")
    assert stored_log(path, t.id) == [(1, 0, "play 2C", 0)]


async def test_a_cancelled_writer_leaves_no_open_transaction(path, rt):
    storage = await db(path)
    try:
        t = await _a_table(storage, rt)
        task = asyncio.ensure_future(storage.write(t.id, {"version": 1, "rev": 1}, [LogEntry(1, 0, "x", 1.0)],
                                                   expect=(0, 0)))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The shielded transaction finished by itself; the connection takes new writes.
        await storage.write(t.id, {"version": 2, "rev": 2}, [LogEntry(2, 0, "y", 2.0)], expect=(1, 1))
        assert not storage.conn.in_transaction
    finally:
        await storage.close()
    assert [r[0] for r in stored_log(path, t.id)] == [1, 2]


async def test_closed_storage_refuses_politely(path):
    storage = await db(path)
    await storage.close()
    await storage.close()  # twice is fine
    with pytest.raises(StorageError):
        await storage.unfinished()


# ==== the runtime writes through ===================================================================
class Auditor(Recorder):
    """A listener that checks, at every call, that what it is shown is already in the database."""

    def __init__(self, clock, path: Path) -> None:
        super().__init__(clock)
        self.path = path
        self.problems: list[str] = []
        self.checked = 0

    def audit(self, table, what: str) -> None:
        row = stored_table(self.path, table.id)
        self.checked += 1
        if not row:
            self.problems.append(f"{what}: table {table.id} not stored")
        elif (row["version"], row["phase"]) != (table.version, str(table.phase)):
            self.problems.append(f"{what}: shown v{table.version} {table.phase}, stored v{row['version']} "
                                 f"{row['phase']}")

    async def redraw(self, table) -> None:
        self.audit(table, "redraw")
        await super().redraw(table)

    async def turn(self, table, seats) -> None:
        self.audit(table, "turn")
        await super().turn(table, seats)

    async def summary(self, table, events) -> None:
        self.audit(table, "summary")
        await super().summary(table, events)


async def test_every_change_is_stored_before_anyone_hears_of_it(make_runtime, clock, path):
    auditor = Auditor(clock, path)
    rt = make_runtime(storage=await db(path), listener=auditor, ai_delay=0)
    t = await new_table(rt, options=SHORT)
    await rt.join(t.id, BOB, "Bob")
    await rt.add_ai(t.id, HOST)
    assert stored_table(path, t.id)["seats"].count('"name"') == 4
    await rt.start(t.id, HOST)
    assert stored_table(path, t.id)["phase"] == "running"
    moves = 0
    while t.phase != Phase.FINISHED:
        acted = False
        for user in (HOST, BOB):
            sv = rt.seat_view(t.id, user)
            if sv.decision is not None:
                await rt.act(t.id, user, choose(sv.decision))
                # act() has returned: the move is in the database.
                assert stored_table(path, t.id)["version"] == t.version
                assert len(stored_log(path, t.id)) == t.version
                acted = True
                moves += 1
        if not acted:
            await clock.advance(0.5)
    await clock.advance(5)
    assert auditor.checked > moves and auditor.problems == []
    assert [(e.seq, e.seat, e.code, int(e.auto)) for e in t.log] == stored_log(path, t.id)
    row = stored_table(path, t.id)
    assert row["phase"] == "finished" and row["ended_early"] == 0 and row["finished_at"] == t.finished_at
    assert row["snapshot"] is not None and row["snapshot_version"] > 0  # taken at a new deal


async def test_lobby_changes_and_message_ids_are_stored(make_stored, path):
    rt = await make_stored()
    t = await new_table(rt)
    await rt.attach(t.id, message_id=555)
    await rt.join(t.id, BOB, "Bob")
    await rt.leave(t.id, BOB)
    await rt.add_ai(t.id, HOST, 1)
    await rt.attach(t.id, thread_id=777)
    row = stored_table(path, t.id)
    assert (row["message_id"], row["thread_id"], row["rev"]) == (555, 777, 5)
    assert [s["name"] for s in json.loads(row["seats"])] == ["Ann", "AI 1"]
    await rt.end(t.id, HOST)
    assert stored_table(path, t.id)["phase"] == "finished"


async def test_a_second_process_cannot_overwrite_the_first(make_runtime, clock, path):
    first = make_runtime(storage=await db(path))
    t = await started(first, options=SHORT)
    second = make_runtime(storage=await db(path), rng=random.Random(99))
    await second.recover()
    t2 = second.get(t.id)
    # Both believe they run the table; the first to write wins ...
    await first.act(t.id, HOST, choose(first.seat_view(t.id, HOST).decision))
    # ... and the other is refused and lets the table go, changing nothing stored.
    with pytest.raises(TableError) as refused:
        await second.act(t2.id, HOST, choose(second.seat_view(t2.id, HOST).decision))
    assert refused.value.code == "moved"
    assert t.id not in second.tables
    assert stored_table(path, t.id)["version"] == t.version
    assert len(stored_log(path, t.id)) == t.version


async def test_a_failed_write_undoes_the_move(make_stored, clock, path, monkeypatch):
    rt = await make_stored()
    t = await started(rt, options=SHORT)
    await run_until(clock, lambda: t.version == 3)
    before = t.state.to_dict()
    storage = rt.storage

    async def failing(*a, **kw):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(storage, "write", failing)
    with pytest.raises(TableError) as refused:
        await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    assert refused.value.code == "not_saved"
    assert t.version == 3 and t.state.to_dict() == before and len(t.log) == 3
    monkeypatch.undo()
    # Once the disk is back, the same move goes through and is stored.
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    assert stored_table(path, t.id)["version"] == t.version == 4


async def test_a_failed_create_is_refused(make_stored, monkeypatch):
    rt = await make_stored()

    async def failing(record):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(rt.storage, "insert_table", failing)
    with pytest.raises(TableError):
        await new_table(rt)
    assert rt.tables == {}


async def test_a_stored_id_is_not_given_again(make_stored, path, monkeypatch):
    rt = await make_stored()
    ids = iter(["AAAAAA", "AAAAAA", "BBBBBB"])
    monkeypatch.setattr("tables.runtime.new_id", lambda rng, taken: next(ids))
    a = await new_table(rt)
    await rt.end(a.id, HOST)
    rt.tables.clear()  # as if pruned from memory
    b = await new_table(rt)
    assert (a.id, b.id) == ("AAAAAA", "BBBBBB")


async def test_the_write_path_is_plain_sqlite(path):
    # What the storage writes can be read by any SQLite client (backups, inspection).
    storage = await db(path)
    await storage.close()
    async with aiosqlite.connect(path) as conn:
        async with conn.execute("PRAGMA integrity_check") as cur:
            assert await cur.fetchone() == ("ok",)


async def test_migrating_from_the_first_version_restores_its_tables(path, make_runtime, clock):
    # A running table exactly as schema version 1 could hold it: no snapshot, no turn versions.
    old = await db(path, upto=1)
    await old.close()
    memory = make_runtime()
    t = await started(memory, options=SHORT)
    await run_until(clock, lambda: t.version >= 6)
    v1_columns = [c for c in record_of(t) if c not in ("since",)]
    record = record_of(t)
    with sqlite3.connect(path) as conn:
        conn.execute(f"INSERT INTO tables ({', '.join(v1_columns)}) VALUES ({', '.join('?' * len(v1_columns))})",
                     [record[c] for c in v1_columns])
        conn.executemany("INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?)",
                         [(t.id, e.seq, e.seat, e.code, e.time, int(e.auto)) for e in t.log])
    rt = make_runtime(storage=await db(path), rng=random.Random(5))
    report = await rt.recover()
    assert [x.id for x in report.restored] == [t.id]
    again = rt.get(t.id)
    assert again.state.to_dict() == t.state.to_dict() and again.deadlines == t.deadlines
    assert rows(path, "SELECT MAX(version) FROM schema_version") == [(LATEST,)]
