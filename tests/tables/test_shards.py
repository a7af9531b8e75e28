"""Shards (tables/shards/__init__.py): a table belongs to the shard of its guild, and a runtime recovers,
creates and answers only tables of the shards it holds; losing a shard lets its tables go at once."""

from __future__ import annotations

import asyncio

import pytest

from tables import Phase, Runtime, TableError
from tables.shards import ELSEWHERE, Shards, parse_shards, shard_of

from .conftest import HOST, HOST_NAME, choose, run_until, started
from .stores import StoredClock

A_GUILD = (4 << 22) | 123  # shard 0 of 2
B_GUILD = (9 << 22) | 77   # shard 1 of 2


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


def test_shard_of_is_discords_formula() -> None:
    assert shard_of(A_GUILD, 2) == 0 and shard_of(B_GUILD, 2) == 1
    assert shard_of(B_GUILD, 1) == 0 and shard_of(None, 4) == 0
    assert [shard_of(n << 22, 3) for n in range(6)] == [0, 1, 2, 0, 1, 2]
    # The low 22 bits (Discord's worker, process and increment) do not count.
    assert shard_of((5 << 22) | ((1 << 22) - 1), 4) == 1


def test_parse_shards() -> None:
    assert parse_shards("", "") == (1, (0,))
    assert parse_shards("4", "") == (4, (0, 1, 2, 3))
    assert parse_shards("4", "3, 1 1") == (4, (1, 3))
    for count, ids, words in [("0", "", "SHARD_COUNT"), ("x", "", "SHARD_COUNT"), ("2", "2", "does not exist"),
                              ("2", "a", "is not one"), ("", "1", "needs SHARD_COUNT")]:
        with pytest.raises(ValueError, match=words):
            parse_shards(count, ids)


async def _tables_in_both_shards(store, clock) -> dict[int, list[str]]:
    rt = Runtime(storage=await store.open(), clock=clock, ai_delay=1.0, lobby_ttl=None)
    ids: dict[int, list[str]] = {0: [], 1: []}
    for n, guild in enumerate((A_GUILD, B_GUILD, A_GUILD, B_GUILD)):
        t = await rt.create(game="hearts", guild_id=guild, channel_id=10 + n, host_id=HOST + n, host_name=HOST_NAME)
        await rt.add_ai(t.id, HOST + n)
        await rt.start(t.id, HOST + n)
        ids[shard_of(guild, 2)].append(t.id)
    await clock.settle()
    await rt.close()
    return ids


async def test_a_runtime_recovers_only_its_shards_tables(store, clock) -> None:
    ids = await _tables_in_both_shards(store, clock)
    for shard in (0, 1):
        rt = Runtime(storage=await store.open(), clock=clock, ai_delay=1.0, shards=Shards.of(2, [shard]))
        report = await rt.recover()
        assert sorted(t.id for t in report.restored) == sorted(ids[shard])
        assert sorted(rt.tables) == sorted(ids[shard])
        await rt.close()
    both = Runtime(storage=await store.open(), clock=clock, ai_delay=1.0, shards=Shards.of(2))
    assert sorted(t.id for t in (await both.recover()).restored) == sorted(ids[0] + ids[1])
    await both.close()


async def test_another_shards_guild_gets_a_sentence_and_nothing_changes(store, clock) -> None:
    ids = await _tables_in_both_shards(store, clock)
    rt = Runtime(storage=await store.open(), clock=clock, ai_delay=1.0, shards=Shards.of(2, [0]))
    await rt.recover()
    before = store.rows("SELECT id FROM tables ORDER BY id")
    with pytest.raises(TableError) as refused:
        await rt.create(game="hearts", guild_id=B_GUILD, channel_id=99, host_id=999, host_name="Zed")
    assert refused.value.message == ELSEWHERE and refused.value.code == "elsewhere"
    assert store.rows("SELECT id FROM tables ORDER BY id") == before
    with pytest.raises(TableError, match="no table"):
        rt.get(ids[1][0])  # never loaded here, so never driven here
    await rt.close()


async def test_fencing_a_shard_stops_its_tables_at_once(store, clock) -> None:
    ids = await _tables_in_both_shards(store, clock)
    rt = Runtime(storage=await store.open(), clock=clock, ai_delay=1.0, shards=Shards.of(2))
    await rt.recover()
    for tid in ids[1]:  # the hosts leave: the AI would play those tables to the end on its own
        await rt.leave(tid, rt.get(tid).host_id)
    await clock.settle()
    assert sorted(rt.fence(1)) == sorted(ids[1])
    assert sorted(rt.tables) == sorted(ids[0]) and rt.shards.held == {0}
    stored = {tid: store.table(tid)["version"] for tid in ids[1]}
    for _ in range(30):
        await clock.advance(1.0)
    assert {tid: store.table(tid)["version"] for tid in ids[1]} == stored  # nobody moved them
    assert all(store.table(tid)["phase"] == Phase.RUNNING.value for tid in ids[1])
    with pytest.raises(TableError, match="another Deckhand process"):
        await rt.create(game="hearts", guild_id=B_GUILD, channel_id=99, host_id=999, host_name="Zed")
    await rt.close()


async def test_a_late_write_of_a_former_holder_is_reloaded_never_doubled(store, clock) -> None:
    """The new holder of a shard recovered a table; the former holder, which has not noticed its
    loss yet, stores one more move.  The new holder's next write finds the row moved on: it reloads
    the table (the stored row is the truth) instead of letting it go, and plays on from there."""
    former = Runtime(storage=await store.open(), clock=clock, ai_delay=1.0)
    t = await started(former)
    await clock.settle()
    holder = Runtime(storage=await store.open(), clock=clock, ai_delay=1.0, shards=Shards(1, (0,), {0}, leased=True))
    assert [x.id for x in (await holder.recover()).restored] == [t.id]
    await former.act(t.id, HOST, choose(former.seat_view(t.id, HOST).decision))  # the late write
    former.fence(0)
    await clock.settle()
    stored = store.table(t.id)["version"]
    assert holder.get(t.id).version == stored - 1
    with pytest.raises(TableError) as refused:
        await holder.act(t.id, HOST, choose(holder.seat_view(t.id, HOST).decision))
    assert refused.value.code == "not_saved"
    mine = holder.get(t.id)  # still here, now as stored
    assert mine.version == stored and [e.code for e in mine.log] == [c for _, _, c, _ in store.log(t.id)]
    await run_until(clock, lambda: mine.version > stored)  # the AIs pass
    await clock.settle()
    assert store.table(t.id)["version"] == mine.version  # its own writes go through again
    seqs = [seq for seq, *_ in store.log(t.id)]
    assert seqs == list(range(1, len(seqs) + 1))
    await holder.close()
    await former.close()


async def test_the_database_picks_a_shards_tables_by_discords_formula(store, clock) -> None:
    """Recovery asks the database only for its shards' tables: the SQL reading of the guild's shard
    agrees with shard_of, up to the largest guild ids (a 64-bit integer on both backends)."""
    rt = Runtime(storage=await store.open(), clock=clock, ai_delay=1.0, lobby_ttl=None)
    guilds = [A_GUILD, B_GUILD, (2 << 22) | 5, ((1 << 62) + (1 << 40)) | 9, (1 << 63) - 1, 0]
    made: dict[int, str] = {}
    for n, guild in enumerate(guilds):
        t = await rt.create(game="hearts", guild_id=guild, channel_id=10 + n, host_id=HOST + n, host_name=HOST_NAME)
        made[guild] = t.id
    await clock.settle()
    await rt.close()
    storage = await store.open()
    try:
        for count in (1, 2, 3, 5):
            for shard in range(count):
                got = sorted(item.record["id"] for item in await storage.unfinished([shard], count))
                assert got == sorted(tid for g, tid in made.items() if shard_of(g, count) == shard), (count, shard)
        assert len(await storage.unfinished([0, 1], 2)) == len(guilds) == len(await storage.unfinished())
        assert await storage.unfinished([], 2) == []  # a standby holds nothing: reads nothing
    finally:
        await storage.close()


async def test_recovery_reads_only_its_shards_rows(store, clock) -> None:
    """Recovery filters in the database, not after reading everything: the storage is asked for
    the shards held, and what comes back is only theirs."""
    ids = await _tables_in_both_shards(store, clock)
    storage = await store.open()
    asked: list[tuple[object, int]] = []
    seen: list[str] = []
    unfinished = storage.unfinished

    async def spy(shards=None, count=1):
        asked.append((shards, count))
        found = await unfinished(shards, count)
        seen.extend(item.record["id"] for item in found)
        return found

    storage.unfinished = spy
    rt = Runtime(storage=storage, clock=clock, ai_delay=1.0, shards=Shards.of(2, [1]))
    await rt.recover()
    assert asked == [([1], 2)] and sorted(seen) == sorted(ids[1]) == sorted(rt.tables)
    await rt.close()


class _HeldPings:
    """A listener whose ``turn`` waits (its REST budget spent): what is still queued when the shard
    is lost would be shown late, by a process that no longer runs the table."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.gate = asyncio.Event()

    async def redraw(self, table) -> None:
        self.calls.append("redraw")

    async def turn(self, table, seats) -> None:
        self.calls.append("turn")
        await self.gate.wait()

    async def summary(self, table, events) -> None:
        self.calls.append("summary")

    async def seat_changed(self, table, seats) -> None:
        self.calls.append("seat_changed")


async def test_a_lost_shards_tables_show_nothing_more_from_here_but_their_summaries(clock) -> None:
    heard = _HeldPings()
    rt = Runtime(listener=heard, clock=clock, ai_delay=1.0, shards=Shards.of(2))
    t = await rt.create(game="hearts", guild_id=B_GUILD, channel_id=10, host_id=HOST, host_name=HOST_NAME)
    await rt.add_ai(t.id, HOST)
    await rt.start(t.id, HOST)
    await run_until(clock, lambda: "turn" in heard.calls)  # the host's ping, stuck in the budget
    # What this process decided but has not shown yet: a hand's summary, another ping, a redraw.
    rt.delivery.notify(t, "summary", t, [])
    rt.delivery.notify(t, "turn", t, (0,))
    rt.delivery.notify(t, "seat_changed", t, (0,))
    rt.delivery.redraw(t)
    before = len(heard.calls)
    assert rt.fence(1) == [t.id]
    heard.gate.set()
    for _ in range(5):
        await clock.advance(1.0)
    assert heard.calls[before:] == ["summary"]
    await rt.close()


class _EndlessPool:
    """An AI pool whose searches run until they are called off (counted when they are)."""

    def __init__(self) -> None:
        self.running = 0
        self.called_off = 0

    async def choose(self, game, state, seat, seed, *, level, budget):
        self.running += 1
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.called_off += 1
            raise
        finally:
            self.running -= 1


async def test_a_lost_shards_tables_keep_no_timer_and_no_ai_search_here(clock) -> None:
    """Issue 29 item 10: deadlines, AI moves and their searches in the AI pool go with the table."""
    pool = _EndlessPool()
    rt = Runtime(clock=clock, ai_delay=1.0, shards=Shards.of(2), ai_pool=pool)  # type: ignore[arg-type]
    t = await rt.create(game="hearts", guild_id=B_GUILD, channel_id=10, host_id=HOST, host_name=HOST_NAME,
                        ai_level="strong")
    await rt.add_ai(t.id, HOST)
    await rt.start(t.id, HOST)
    for _ in range(5):
        await asyncio.sleep(0)  # (the searches start in tasks of their own)
    assert pool.running == 3, "the strong AIs are not searching: the test proves nothing"
    assert t.deadlines and any(t.id in task.get_name() and not task.done() for task in rt.tasks.running)
    assert rt.fence(1) == [t.id]
    for _ in range(5):
        await asyncio.sleep(0)
    assert (pool.running, pool.called_off) == (0, 3)
    assert [task.get_name() for task in rt.tasks.running if t.id in task.get_name() and not task.done()] == []
    version = t.version
    await clock.advance(max(t.deadlines.values()) - clock.now() + 5)  # past every deadline
    assert t.version == version and not any(s.missed for s in t.seats)
    await rt.close()


class _Heard:
    """A listener that writes down its calls, ``released`` included."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def redraw(self, table) -> None:
        self.calls.append("redraw")

    async def turn(self, table, seats) -> None:
        self.calls.append("turn")

    async def summary(self, table, events) -> None:
        self.calls.append("summary")

    async def seat_changed(self, table, seats) -> None:
        self.calls.append("seat_changed")

    def released(self, table) -> None:
        self.calls.append(f"released {table.id}")


async def test_a_table_written_elsewhere_is_let_go_and_shows_nothing_of_the_unsaved_move(store, clock) -> None:
    """A process whose write finds the table run by another one lets it go like a lost shard's:
    its listener hears ``released`` and nothing of the move it could not save."""
    heard = _Heard()
    old = Runtime(listener=heard, storage=await store.open(), clock=clock, ai_delay=1.0)
    t = await started(old)
    await clock.settle()
    other = Runtime(storage=await store.open(), clock=clock, ai_delay=1.0)
    assert [x.id for x in (await other.recover()).restored] == [t.id]
    await other.act(t.id, HOST, choose(other.seat_view(t.id, HOST).decision))  # it moves on there
    before = len(heard.calls)
    with pytest.raises(TableError) as refused:
        await old.act(t.id, HOST, choose(old.seat_view(t.id, HOST).decision))
    assert refused.value.code == "moved" and t.id not in old.tables
    await clock.advance(5.0)
    assert heard.calls[before:] == [f"released {t.id}"]
    await other.close()
    await old.close()
