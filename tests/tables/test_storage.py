"""The storage, on both backends (SQLite and PostgreSQL): schema and migrations, guarded writes, and
the runtime committing every change before anyone hears of it.  SQLite's own matters (the file, its
journal) at the end."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import aiosqlite
import pytest

from tables import Phase, Runtime, TableError
from tables.history import records
from tables.history.records import record_of
from tables.storage import (
    LATEST,
    UNFINISHED,
    DuplicateTable,
    PostgresURL,
    SQLiteStorage,
    StaleWrite,
    StorageError,
    StorageGone,
    migrations,
    open_storage,
    parse_url,
)
from tables.table import LogEntry

from .conftest import HOST, SHORT, Recorder, choose, new_table, run_until, started
from .stores import OPEN, Store, StoredClock

BOB = 200
__all__ = ["StoredClock", "db", "rows", "stored_log", "stored_table"]


async def db(path: Path, **kw) -> SQLiteStorage:
    """A SQLite storage on ``path`` (the tests that are about something else than the storage)."""
    storage = await SQLiteStorage.open(f"sqlite:///{path}", **kw)
    OPEN.add(storage)
    return storage


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
async def make_stored(make_runtime, store):
    """A runtime on the store (each call is a fresh process's runtime on the same database)."""

    async def make(**kw) -> Runtime:
        return make_runtime(storage=await store.open(), **kw)

    return make


# ==== URLs and migrations =========================================================================
def test_database_urls(tmp_path):
    assert parse_url("sqlite:///deckhand.db", tmp_path).path == str(tmp_path / "deckhand.db")
    assert parse_url("sqlite:///deckhand.db").path == "deckhand.db"
    assert parse_url("sqlite:////var/lib/x.db", tmp_path).path == "/var/lib/x.db"
    assert parse_url("sqlite:///:memory:").path == ":memory:"
    assert parse_url("sqlite:///a.db?synchronous=full").synchronous == "FULL"
    pg = parse_url("postgresql://deckhand:secret@db.example:5432/deckhand")
    assert pg == PostgresURL("postgresql://deckhand:secret@db.example:5432/deckhand")
    assert "secret" not in pg.where and "db.example:5432/deckhand" in pg.where
    assert isinstance(parse_url("postgres:///deckhand?host=/run/postgresql"), PostgresURL)
    for bad in ("", "deckhand.db", "mysql://x/y", "postgresql://", "postgresql://db:port/x", "sqlite://host/x.db",
                "sqlite:///", "sqlite:///a.db?synchronous=off"):
        with pytest.raises(StorageError):
            parse_url(bad)


def test_migrations_are_numbered_files_for_both_databases():
    for dialect in ("sqlite", "postgres"):
        ms = migrations(dialect)
        assert [m.version for m in ms] == list(range(1, LATEST + 1)) and LATEST >= 3
        assert all(m.sql.strip() for m in ms)
    # Same numbers, same names: a migration is never written for one database only.
    assert [(m.version, m.name) for m in migrations("sqlite")] == [(m.version, m.name) for m in migrations("postgres")]


async def test_a_migration_missing_for_one_database_is_refused(store, monkeypatch):
    import tables.storage.base as st

    real = st.migrations

    def lopsided(dialect: str = "sqlite"):
        found = real(dialect)
        return found if dialect == store.kind else found[:-1]

    monkeypatch.setattr(st, "migrations", lopsided)
    with pytest.raises(StorageError, match="differ"):
        await store.open()


async def test_an_empty_database_is_created_and_migrated(store):
    storage = await store.open()
    await storage.close()
    assert store.rows("SELECT version FROM schema_version ORDER BY version") == [(v,) for v in range(1, LATEST + 1)]
    assert {"tables", "actions", "results", "schema_version"} <= store.names()
    # Opening again applies nothing and keeps everything.
    storage = await store.open()
    await storage.close()
    assert len(store.rows("SELECT * FROM schema_version")) == LATEST


async def test_migrating_from_the_previous_version_keeps_the_tables(store, make_runtime, clock, monkeypatch):
    # A running table as a version before results (migration 3) wrote it: later migrations
    # (results, ratings, shown, hints) all apply on top of it.  That version wrote no `shown` or
    # `ai_level` or `locale` column.
    real = records.changes_of
    monkeypatch.setattr(records, "changes_of", lambda t, since: {k: v for k, v in real(t, since).items()
                                                                  if k not in ("shown", "ai_level", "locale")})
    # Nor the table's `place` (migration 12), `house` (migration 15), `ranked` (migration 16) or
    # `play_ahead` (migration 17).
    real_record = records.record_of
    monkeypatch.setattr(records, "record_of", lambda t, since=None: {k: v for k, v in real_record(t, since).items()
                                                                     if k not in ("place", "house", "ranked",
                                                                                  "play_ahead")})
    # Nor a log's `timed_out` (migration 8).
    import tables.storage.sql as sql

    old_log = sql.LOG[:-1]
    monkeypatch.setattr(sql, "LOG", old_log)
    monkeypatch.setattr(sql, "INSERT_ACTIONS", f"INSERT INTO actions ({', '.join(old_log)}) VALUES "
                                               f"({', '.join('?' * len(old_log))})")
    real_rows = sql.log_rows
    monkeypatch.setattr(sql, "log_rows", lambda tid, actions: [r[:-1] for r in real_rows(tid, actions)])
    old = await store.open(upto=2)
    assert store.rows("SELECT MAX(version) FROM schema_version") == [(2,)]
    assert "results" not in store.names()
    rt = make_runtime(storage=old)
    t = await started(rt, options=SHORT)
    await run_until(clock, lambda: 0 in t.to_act() and t.state.phase == "play" and t.version > 3)
    tid, version = t.id, t.version
    await rt.close()
    monkeypatch.undo()
    # The new version migrates on open, and the table recovers and plays on.
    rt2 = make_runtime(storage=await store.open())
    report = await rt2.recover()
    assert [x.id for x in report.restored] == [tid] and not report.broken
    assert rt2.get(tid).version == version
    assert store.rows("SELECT MAX(version) FROM schema_version") == [(LATEST,)]
    assert store.rows("SELECT COUNT(*) FROM results") == [(0,)]


async def test_each_migration_is_all_or_nothing(store, monkeypatch):
    import tables.storage.base as st

    real = st.migrations

    def broken(dialect: str = "sqlite"):
        found = [*real(dialect)]
        found[-1] = st.Migration(found[-1].version, found[-1].name, "CREATE TABLE ok (x INTEGER);\nTHIS IS NOT SQL;")
        return found

    monkeypatch.setattr(st, "migrations", broken)
    with pytest.raises(StorageError, match=f"Migration {LATEST}"):
        await store.open()
    assert "ok" not in store.names()
    assert store.rows("SELECT MAX(version) FROM schema_version") == [(LATEST - 1,)]


async def test_a_newer_schema_is_refused(store):
    await (await store.open()).close()
    store.execute("INSERT INTO schema_version VALUES (999, 'future', 0)")
    with pytest.raises(StorageError, match="newer"):
        await store.open()


# ==== guarded writes ================================================================================
async def _a_table(storage, rt: Runtime):
    t = await new_table(rt)
    await storage.insert_table(record_of(t))
    return t


async def test_writes_are_guarded_by_version_and_rev(store, rt):
    storage = await store.open()
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
        # A second process's storage on the same database is refused the same way.
        other = await store.open()
        try:
            with pytest.raises(StaleWrite):
                await other.write(t.id, {"version": 1, "rev": 1}, [LogEntry(1, 2, "play 3C", 6.0)], expect=(0, 0))
        finally:
            await other.close()
    finally:
        await storage.close()
    row = store.table(t.id)
    assert (row["version"], row["rev"], row["phase"]) == (1, 1, "lobby")
    assert store.log(t.id) == [(1, 0, "play 2C", 0)]


async def test_a_cancelled_writer_leaves_no_open_transaction(store, rt):
    storage = await store.open()
    try:
        t = await _a_table(storage, rt)
        task = asyncio.ensure_future(storage.write(t.id, {"version": 1, "rev": 1}, [LogEntry(1, 0, "x", 1.0)],
                                                   expect=(0, 0)))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The transaction (the flusher's) finished by itself; the connection takes new writes.
        await storage.write(t.id, {"version": 2, "rev": 2}, [LogEntry(2, 0, "y", 2.0)], expect=(1, 1))
        assert not storage.in_transaction and not storage.busy
    finally:
        await storage.close()
    assert [r[0] for r in store.log(t.id)] == [1, 2]


async def test_closed_storage_refuses_politely(store):
    storage = await store.open()
    await storage.close()
    await storage.close()  # twice is fine
    with pytest.raises(StorageError):
        await storage.unfinished()
    with pytest.raises(StorageError):
        await storage.write("ABCDEF", {"version": 1}, expect=(0, 0))


async def test_recovery_reads_rows_and_logs_in_one_snapshot(store, make_runtime, clock):
    # Another process commits between recovery's two reads (rows, then logs): what recovery sees
    # must still be one moment of the database — here, the row with exactly its logged actions.
    rt = make_runtime(storage=await store.open())
    t = await started(rt, options=SHORT)
    await run_until(clock, lambda: t.version >= 3 and 0 in t.to_act())
    version, rev = t.version, store.table(t.id)["rev"]
    await rt.close()

    def another_process_writes() -> None:
        store.execute("UPDATE tables SET version = ?, rev = ? WHERE id = ?", (version + 1, rev + 1, t.id))
        store.execute("INSERT INTO actions (table_id, seq, seat, code, time, auto) VALUES (?, ?, 0, 'play XX', 1.0, 0)",
                      (t.id, version + 1))

    reader = await store.open()
    try:
        # unfinished() is _snapshot(UNFINISHED); the hook runs between its two reads.
        [(record, log)] = await reader._snapshot(UNFINISHED, (), between=another_process_writes)
    finally:
        await reader.close()
    assert record["version"] == len(log) == version and log[-1].code != "play XX"
    assert store.table(t.id)["version"] == version + 1  # the other write did happen meanwhile


# ==== a database that goes away =====================================================================
async def test_a_deleted_database_file_refuses_every_write_loudly(tmp_path, make_runtime, clock, caplog):
    path = tmp_path / "gone.db"
    rt = make_runtime(storage=await db(path))
    t = await started(rt, options=SHORT)
    await run_until(clock, lambda: t.version >= 3 and 0 in t.to_act())
    version = t.version
    path.unlink()
    with pytest.raises(TableError) as refused:
        await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    assert refused.value.code == "storage_gone" and t.version == version  # the move did not happen
    assert rt.storage.gone and "deleted" in rt.storage.gone
    with pytest.raises(StorageGone, match="deleted"):
        await rt.storage.check()
    with pytest.raises(StorageGone):
        await rt.storage.write(t.id, {"version": version}, expect=(version, 0))
    [loud] = [r.getMessage() for r in caplog.records if r.levelname == "CRITICAL"]  # once, however many writes
    assert "deleted" in loud
    # What the process had stored is saved beside the path, and a restart on that copy goes on.
    [rescued] = tmp_path.glob("gone.db.rescued-*")
    assert str(rescued) in loud
    await rt.close()
    rescued.rename(path)
    rt2 = make_runtime(storage=await db(path))
    report = await rt2.recover()
    assert [x.id for x in report.restored] == [t.id] and rt2.get(t.id).version == version


async def test_a_replaced_database_file_is_noticed(tmp_path):
    path = tmp_path / "swap.db"
    storage = await db(path)
    try:
        await storage.check()  # the file it opened: fine
        other = tmp_path / "other.db"
        await (await db(other)).close()
        os.replace(other, path)  # a different file under the same name (a restored backup, say)
        with pytest.raises(StorageGone, match="replaced"):  # the periodic check sees it, no write needed
            await storage.check()
        with pytest.raises(StorageGone, match="replaced"):  # and it stays refused, even though a file is there
            await storage.insert_table({"id": "AAAAAA"})
    finally:
        await storage.close()
    assert rows(path, "SELECT COUNT(*) FROM tables") == [(0,)]


async def test_dropped_postgres_tables_are_noticed(pg_server):
    from .stores import PostgresStore

    store = await PostgresStore(pg_server).create()
    try:
        storage = await store.open()
        try:
            await storage.check()
            store.execute("DROP TABLE actions")
            store.execute("DROP TABLE tables")
            with pytest.raises(StorageGone):
                await storage.check()
            with pytest.raises(StorageGone):
                await storage.mark_broken("AAAAAA", "x", 1.0)
            assert storage.gone and "gone" in storage.gone
        finally:
            await storage.close()
    finally:
        await store.cleanup()


async def test_an_unreachable_postgresql_server_gets_a_sentence(tmp_path):
    with pytest.raises(StorageError, match="Cannot connect to the PostgreSQL database") as refused:
        await open_storage(f"postgresql://deckhand:secret@/deckhand?host={tmp_path}")  # no server there
    assert "secret" not in str(refused.value)


async def test_a_read_only_database_gets_a_sentence_not_a_traceback(tmp_path):
    folder = Path(tempfile.mkdtemp(prefix="deckhand-ro-"))
    path = folder / "ro.db"
    try:
        await (await db(path)).close()
        path.chmod(0o444)
        folder.chmod(0o555)
        if os.geteuid() == 0:
            # root writes anyway: open it as an unprivileged user, as the bot would run.
            os.setegid(65534)
            os.seteuid(65534)
        try:
            with pytest.raises(StorageError, match="read-only") as refused:
                await open_storage(f"sqlite:///{path}")
        finally:
            if os.getuid() == 0:
                os.seteuid(0)
                os.setegid(0)
        assert type(refused.value) is StorageError and "permissions" in str(refused.value)
    finally:
        folder.chmod(0o755)
        path.chmod(0o644)
        for f in folder.iterdir():
            f.unlink()
        folder.rmdir()


# ==== the runtime writes through ===================================================================
class Auditor(Recorder):
    """A listener that checks, at every call, that what it is shown is already in the database."""

    def __init__(self, clock, store: Store) -> None:
        super().__init__(clock)
        self.store = store
        self.problems: list[str] = []
        self.checked = 0

    def audit(self, table, what: str) -> None:
        row = self.store.table(table.id)
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


async def test_every_change_is_stored_before_anyone_hears_of_it(make_runtime, clock, store):
    auditor = Auditor(clock, store)
    rt = make_runtime(storage=await store.open(), listener=auditor, ai_delay=0)
    t = await new_table(rt, options=SHORT)
    await rt.join(t.id, BOB, "Bob")
    await rt.add_ai(t.id, HOST)
    assert store.table(t.id)["seats"].count('"name"') == 4
    await rt.start(t.id, HOST)
    assert store.table(t.id)["phase"] == "running"
    moves = 0
    while t.phase != Phase.FINISHED:
        acted = False
        for user in (HOST, BOB):
            sv = rt.seat_view(t.id, user)
            if sv.decision is not None:
                await rt.act(t.id, user, choose(sv.decision))
                # act() has returned: the move is in the database.
                assert store.table(t.id)["version"] == t.version
                assert len(store.log(t.id)) == t.version
                acted = True
                moves += 1
        if not acted:
            await clock.advance(0.5)
    await clock.advance(5)
    assert auditor.checked > moves and auditor.problems == []
    assert [(e.seq, e.seat, e.code, int(e.auto)) for e in t.log] == store.log(t.id)
    row = store.table(t.id)
    assert row["phase"] == "finished" and row["ended_early"] == 0 and row["finished_at"] == t.finished_at
    assert row["snapshot"] is not None and row["snapshot_version"] > 0  # taken at a new deal


async def test_lobby_changes_and_message_ids_are_stored(make_stored, store):
    rt = await make_stored()
    t = await new_table(rt)
    await rt.attach(t.id, message_id=555)
    await rt.join(t.id, BOB, "Bob")
    await rt.leave(t.id, BOB)
    await rt.add_ai(t.id, HOST, 1)
    await rt.attach(t.id, thread_id=777)
    row = store.table(t.id)
    assert (row["message_id"], row["thread_id"], row["rev"]) == (555, 777, 5)
    assert [s["name"] for s in json.loads(row["seats"])] == ["Ann", "AI 1"]
    await rt.end(t.id, HOST)
    assert store.table(t.id)["phase"] == "finished"


async def test_discord_sized_ids_are_kept_exactly(make_stored, store):
    # Snowflakes are 64-bit: beyond a 32-bit column, and beyond a double's exact integers.
    big = 1_234_567_890_123_456_789
    rt = await make_stored()
    t = await new_table(rt, guild_id=big - 2, channel_id=big - 1, host=big)
    await rt.attach(t.id, message_id=big + 1, thread_id=big + 2)
    row = store.table(t.id)
    assert (row["guild_id"], row["channel_id"], row["host_id"], row["message_id"], row["thread_id"]) == (
        big - 2, big - 1, big, big + 1, big + 2)


async def test_a_second_process_cannot_overwrite_the_first(make_runtime, clock, store):
    first = make_runtime(storage=await store.open())
    t = await started(first, options=SHORT)
    second = make_runtime(storage=await store.open(), rng=random.Random(99))
    await second.recover()
    t2 = second.get(t.id)
    # Both believe they run the table; the first to write wins ...
    await first.act(t.id, HOST, choose(first.seat_view(t.id, HOST).decision))
    # ... and the other is refused and lets the table go, changing nothing stored.
    with pytest.raises(TableError) as refused:
        await second.act(t2.id, HOST, choose(second.seat_view(t2.id, HOST).decision))
    assert refused.value.code == "moved"
    assert t.id not in second.tables
    assert store.table(t.id)["version"] == t.version
    assert len(store.log(t.id)) == t.version


async def test_a_failed_write_undoes_the_move(make_stored, clock, store, monkeypatch):
    rt = await make_stored()
    t = await started(rt, options=SHORT)
    await run_until(clock, lambda: t.version == 3)
    before = t.state.to_dict()
    storage = rt.storage

    async def failing(*a, **kw):
        raise StorageError("disk I/O error")

    monkeypatch.setattr(storage, "write", failing)
    with pytest.raises(TableError) as refused:
        await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    assert refused.value.code == "not_saved"
    assert t.version == 3 and t.state.to_dict() == before and len(t.log) == 3
    monkeypatch.undo()
    # Once the disk is back, the same move goes through and is stored.
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    assert store.table(t.id)["version"] == t.version == 4


async def test_a_failed_create_is_refused(make_stored, monkeypatch):
    rt = await make_stored()

    async def failing(record):
        raise StorageError("database is locked")

    monkeypatch.setattr(rt.storage, "insert_table", failing)
    with pytest.raises(TableError):
        await new_table(rt)
    assert rt.tables == {}


async def test_a_stored_id_is_not_given_again(make_stored, monkeypatch):
    rt = await make_stored()
    ids = iter(["AAAAAA", "AAAAAA", "BBBBBB"])
    monkeypatch.setattr("tables.lobby.new_id", lambda rng, taken: next(ids))
    a = await new_table(rt)
    await rt.end(a.id, HOST)
    rt.tables.clear()  # as if pruned from memory
    b = await new_table(rt)
    assert (a.id, b.id) == ("AAAAAA", "BBBBBB")


async def test_migrating_from_the_first_version_restores_its_tables(store, make_runtime, clock):
    # A running table exactly as schema version 1 could hold it: no snapshot, no turn versions.
    old = await store.open(upto=1)
    await old.close()
    memory = make_runtime()
    t = await started(memory, options=SHORT)
    await run_until(clock, lambda: t.version >= 6)
    later = ("since", "shown", "ai_level", "locale", "place", "house", "ranked", "play_ahead")
    v1_columns = [c for c in record_of(t) if c not in later]
    record = record_of(t)
    store.execute(f"INSERT INTO tables ({', '.join(v1_columns)}) VALUES ({', '.join('?' * len(v1_columns))})",
                  [record[c] for c in v1_columns])
    for e in t.log:
        store.execute("INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?)",
                      (t.id, e.seq, e.seat, e.code, float(e.time), int(e.auto)))
    rt = make_runtime(storage=await store.open(), rng=random.Random(5))
    report = await rt.recover()
    assert [x.id for x in report.restored] == [t.id]
    again = rt.get(t.id)
    assert again.state.to_dict() == t.state.to_dict() and again.deadlines == t.deadlines
    assert store.rows("SELECT MAX(version) FROM schema_version") == [(LATEST,)]


# ==== SQLite's own ==================================================================================
async def test_a_sqlite_database_is_a_wal_file_next_to_bot_py(path):
    storage = await open_storage(f"sqlite:///{path.name}", base=path.parent)
    await storage.close()
    assert path.exists()
    assert rows(path, "PRAGMA journal_mode") == [("wal",)]


async def test_the_write_path_is_plain_sqlite(path):
    # What the storage writes can be read by any SQLite client (backups, inspection).
    storage = await db(path)
    await storage.close()
    async with aiosqlite.connect(path) as conn:
        async with conn.execute("PRAGMA integrity_check") as cur:
            assert await cur.fetchone() == ("ok",)


async def test_a_second_bot_on_the_same_sqlite_file_refuses_to_start(tmp_path):
    """Two processes on one SQLite file would both drive its tables (the second used to mark the
    first's live tables broken): the bot opens its file exclusively, and a second one is told why."""
    import subprocess
    import sys

    path = tmp_path / "deckhand.db"
    first = await SQLiteStorage.open(f"sqlite:///{path}", exclusive=True)
    try:
        with pytest.raises(StorageError, match="Another Deckhand process") as no:
            await SQLiteStorage.open(f"sqlite:///{path}", exclusive=True)
        assert str(os.getpid()) in str(no.value)
        probe = (
            "import asyncio, sys\n"
            "from tables.storage import open_storage, StorageError\n"
            f"try:\n    asyncio.run(open_storage('sqlite:///{path}', exclusive=True))\n"
            "except StorageError as e:\n    print(e); sys.exit(3)\n"
        )
        other = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                               cwd=Path(__file__).resolve().parents[2])
        assert other.returncode == 3 and "Another Deckhand process" in other.stdout
    finally:
        await first.close()
    again = await SQLiteStorage.open(f"sqlite:///{path}", exclusive=True)  # the lock went with the close
    await again.close()


def _probe(url: str) -> subprocess.CompletedProcess:
    """Another process starting a bot's storage on ``url`` (exit 3 and the sentence when refused)."""
    probe = (
        "import asyncio, sys\n"
        "from tables.storage import open_storage, StorageError\n"
        f"try:\n    asyncio.run(open_storage({url!r}, exclusive=True))\n"
        "except StorageError as e:\n    print(e); sys.exit(3)\n"
    )
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])


async def test_a_second_bot_through_a_symlink_or_a_hard_link_refuses_to_start(tmp_path):
    """The lock is the file's, not its name's: another path to the same file (a symlink, a hard link
    in another folder) meets it, in another process and in this one, with the same sentence."""
    path = tmp_path / "deckhand.db"
    first = await SQLiteStorage.open(f"sqlite:///{path}", exclusive=True)
    alias = tmp_path / "alias.db"
    alias.symlink_to(path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    hard = elsewhere / "hard.db"
    os.link(path, hard)
    try:
        for other in (alias, hard):
            seen = _probe(f"sqlite:///{other}")
            assert seen.returncode == 3, seen.stderr
            assert f"Another Deckhand process (pid {os.getpid()}) is already running on the database {other}" \
                in seen.stdout
            with pytest.raises(StorageError, match="Another Deckhand process") as no:
                await SQLiteStorage.open(f"sqlite:///{other}", exclusive=True)
            assert str(os.getpid()) in str(no.value)
    finally:
        await first.close()
    # The lock went with the close: the other name opens now.
    again = await SQLiteStorage.open(f"sqlite:///{hard}", exclusive=True)
    await again.close()


async def test_a_new_database_beside_a_rescued_copy_says_how_to_restore_it(tmp_path, caplog):
    path = tmp_path / "deckhand.db"
    older = tmp_path / "deckhand.db.rescued-20000101-000000"  # an earlier rescue, never restored
    sqlite3.connect(older).close()
    running = await db(path)
    path.unlink()  # deleted under the running bot, which saves what it had beside it
    with pytest.raises(StorageGone):
        await running.check()
    await running.close()
    [newer] = set(tmp_path.glob("deckhand.db.rescued-*")) - {older}
    caplog.clear()
    caplog.set_level("WARNING", logger="deckhand.storage")
    storage = await SQLiteStorage.open(f"sqlite:///{path}", exclusive=True)
    await storage.close()
    [said] = [r.getMessage() for r in caplog.records if r.name == "deckhand.storage"]
    assert said == storage.notice
    assert str(newer) in said and str(older) not in said and f"move that file to {path}" in said
    # A database that is not new says nothing, copy or not.
    caplog.clear()
    storage = await SQLiteStorage.open(f"sqlite:///{path}", exclusive=True)
    await storage.close()
    assert storage.notice is None and not [r for r in caplog.records if r.name == "deckhand.storage"]
    # Nor does a new one with no copy beside it.
    quiet = await db(tmp_path / "other.db")
    await quiet.close()
    assert quiet.notice is None and not [r for r in caplog.records if r.name == "deckhand.storage"]


# ==== one storage, two dialects =====================================================================
def test_the_backends_write_no_sql_of_their_own():
    """Every statement on Deckhand's tables is in tables/storage/sql.py, once: a backend only runs
    them (a statement copied into one backend would drift from the other's)."""
    import re

    import tables.storage.postgres as pg
    import tables.storage.sqlite as lite

    names = "tables|actions|results|ratings|ai_results|rated_tables|reviews|schema_version"
    for module in (pg, lite):
        text = Path(module.__file__).read_text()
        found = re.findall(rf"\b(?:INSERT INTO|UPDATE|DELETE FROM|FROM|JOIN)\s+(?:{names})\b", text)
        assert found == [], f"{module.__name__}: {found}"


def test_the_dialects_differ_only_where_the_databases_do():
    from tables.storage.sql import POSTGRES, SQLITE

    text = "SELECT x FROM t WHERE a = ? AND b = ? LIMIT ?"
    assert SQLITE.sql(text) == text
    assert POSTGRES.sql(text) == "SELECT x FROM t WHERE a = $1 AND b = $2 LIMIT $3"
    assert SQLITE.in_list("user_id", [3, 4], "bigint") == ("user_id IN (?, ?)", [3, 4])
    assert POSTGRES.in_list("user_id", [3, 4], "bigint") == ("user_id = ANY(?::bigint[])", [[3, 4]])
    # Upserts read the same in both; only PostgreSQL writes a move as one statement.
    assert SQLITE.upsert("r", ("k", "v"), ("k",)) == POSTGRES.upsert("r", ("k", "v"), ("k",))
    assert SQLITE.move("UPDATE tables SET version = ? WHERE id = ?") is None
    assert "unnest" in POSTGRES.move("UPDATE tables SET version = ? WHERE id = ?")


async def test_the_runtime_owns_the_ratings_of_its_storage(store):
    storage = await store.open()
    rt = Runtime(storage=storage)
    try:
        assert rt.ratings is not None and rt.ratings.storage is storage
        assert await rt.ratings.board(7, "hearts") == [] and await rt.ratings.of_player(7, 1) == {}
    finally:
        await rt.close()
    assert Runtime().ratings is None  # nothing kept, nothing rated


async def test_a_writer_resumes_right_after_its_commit(path, rt):
    """A click's answer waits for its move's commit: once the batch is committed, the writer
    resumes in the next turn of the loop (each turn runs every other ready callback first, so
    each extra hand-off between the flusher and the writer delays the answer by a whole turn)."""
    storage = await db(path)
    try:
        t = await _a_table(storage, rt)
        execute = storage.conn._execute
        committed: list[int] = []
        turns = 0

        async def counted(fn, *args):  # the database thread's call: the loop's turn when it is back
            result = await execute(fn, *args)
            committed.append(turns)
            return result

        storage.conn._execute = counted  # type: ignore[method-assign]
        stop = False

        async def ticker() -> None:
            nonlocal turns
            while not stop:
                turns += 1
                await asyncio.sleep(0)

        ticking = asyncio.ensure_future(ticker())
        await asyncio.sleep(0)
        await storage.write(t.id, {"version": 1, "rev": 1}, [LogEntry(1, 0, "x", 1.0)], expect=(0, 0))
        resumed = turns
        stop = True
        await ticking
        assert len(committed) == 1 and resumed - committed[0] <= 1
    finally:
        await storage.close()
