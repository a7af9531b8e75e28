"""A table whose writes fail (a full disk) waits instead of spinning: the overdue deadline does not
fire again and again, the failure is logged at most once a minute, the table says it is paused,
and the game goes on by itself once writes work again — nothing lost."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest

from tables import Runtime, TableError
from tables.persistence import GONE

from .conftest import HOST, SHORT, choose, new_table, run_until, started
from .test_storage import StoredClock, db, stored_table


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


@pytest.fixture
def path(tmp_path):
    return tmp_path / "deckhand.db"


async def test_a_full_disk_pauses_the_table_instead_of_a_hot_loop(make_runtime, clock, path, monkeypatch, caplog):
    rt: Runtime = make_runtime(storage=await db(path))
    t = await started(rt, options=SHORT)
    await run_until(clock, lambda: t.to_act() == (0,))  # the AIs passed; only the host must still pass
    version = t.version
    storage = rt.storage
    attempts: list[float] = []

    async def full_disk(*a, **kw):
        attempts.append(clock.now())
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(storage, "write", full_disk)
    caplog.set_level(logging.DEBUG, logger="deckhand.tables")
    deadline = t.deadlines[0]

    async def twenty_seconds_past_the_deadline() -> None:
        await clock.advance(deadline - clock.now() + 0.5)
        for _ in range(20):
            await clock.advance(1.0)

    # On a hot loop this never settles: fail within a bounded time rather than hang.
    await asyncio.wait_for(twenty_seconds_past_the_deadline(), timeout=60)
    # One try at the deadline, then after 1, 2, 4, 8 s: a handful, not thousands.
    assert 3 <= len(attempts) <= 6, attempts
    gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
    assert all(b >= a for a, b in zip(gaps, gaps[1:], strict=False)), gaps  # backing off
    assert t.paused and t.version == version  # nothing happened that is not stored
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR and "Could not store table" in r.getMessage()]
    assert len(logged) == 1

    monkeypatch.undo()  # the disk has room again
    await run_until(clock, lambda: t.version > version and not t.paused)
    await clock.settle()
    assert stored_table(path, t.id)["version"] == t.version
    assert rt._live[t.id].backoff == 0.0


async def test_the_back_off_is_capped(make_runtime, clock, path, monkeypatch):
    rt: Runtime = make_runtime(storage=await db(path))
    t = await started(rt, options=SHORT)
    await run_until(clock, lambda: 0 in t.to_act() and 0 in t.deadlines)
    attempts: list[float] = []

    async def full_disk(*a, **kw):
        attempts.append(clock.now())
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(rt.storage, "write", full_disk)
    await asyncio.wait_for(run_until(clock, lambda: len(attempts) >= 9, step=5.0), timeout=60)
    gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
    assert max(gaps) <= 60 + 5  # the cap, give or take a step of the fake clock
    assert gaps[-1] >= 55


async def test_a_deleted_database_pauses_every_table_for_good(make_runtime, clock, path):
    """The file deleted under a running bot: the move is refused and undone, the table says why and
    makes no automatic move any more (nothing could be saved), and nothing new starts."""
    rt: Runtime = make_runtime(storage=await db(path))
    t = await started(rt, options=SHORT)
    await run_until(clock, lambda: t.to_act() == (0,))
    version = t.version
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with pytest.raises(TableError) as no:
        await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    assert no.value.code == "storage_gone" and "lost its database" in no.value.message
    assert t.paused == GONE and t.version == version
    await clock.advance(600)  # deadlines pass: nothing moves, nothing loops
    assert t.version == version and t.paused == GONE
    with pytest.raises(TableError) as again:
        await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    assert again.value.code == "storage_gone"
    with pytest.raises(TableError):
        await new_table(rt, host=HOST + 1, name="Bo", guild_id=99)


async def test_the_watch_notices_a_deleted_database_without_a_move(make_runtime, clock, path):
    rt: Runtime = make_runtime(storage=await db(path), ai_delay=1.0)
    await rt.recover()  # starts the housekeeping and the watch
    t = await started(rt, options=SHORT)
    await run_until(clock, lambda: t.to_act() == (0,))
    rt.ai_delay = 10_000  # nobody but the watch will touch the storage
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    await clock.advance(61)
    assert t.paused == GONE
