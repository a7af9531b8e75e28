"""What a restart must not forget besides the tables (tables/kept.py, migration 0009), on SQLite and
PostgreSQL: the rematch link of a finished table and the turn pings standing in a thread."""

from __future__ import annotations

import pytest

from tables import TableError
from tables.kept import Kept, StoredPing, due_text, read_due

from .conftest import CHANNEL, GUILD, HOST
from .stores import StoredClock
from .test_rematch import GUEST, played


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


async def test_pings_and_rematch_links_are_stored_read_back_and_forgotten(store):
    storage = await store.open()
    kept = Kept(storage)
    assert await kept.pings("AAAAAA") == [] and await kept.rematch_of("AAAAAA") is None
    # A deadline keeps every bit through the storage (the successor compares it with the table's).
    deadline = 1_764_201_234.123456789
    one = StoredPing(1_300_000_000_000_000_001, 1_200_000_000_000_000_002, {0: deadline, 2: None})
    two = StoredPing(1_300_000_000_000_000_003, 1_200_000_000_000_000_002, {1: 17.5})
    await kept.save_ping("AAAAAA", one)
    await kept.save_ping("AAAAAA", two)
    await kept.save_ping("BBBBBB", two)
    await kept.save_ping("AAAAAA", one)  # (stored twice: still one)
    await kept.save_rematch("AAAAAA", "CCCCCC", 10.0)

    again = Kept(await store.open())  # another process
    assert await again.pings("AAAAAA") == [one, two]
    assert await again.rematch_of("AAAAAA") == "CCCCCC" and await again.rematch_of("CCCCCC") is None
    await again.drop_ping("AAAAAA", one.message_id)
    await again.drop_ping("AAAAAA", 5)  # (one that is not there: nothing happens)
    assert await kept.pings("AAAAAA") == [two] and await kept.pings("BBBBBB") == [two]
    await kept.save_rematch("AAAAAA", "DDDDDD", 11.0)  # a later rematch (the first one ended)
    assert await kept.rematch_of("AAAAAA") == "DDDDDD"
    assert store.rows("SELECT old_id, new_id FROM rematches") == [("AAAAAA", "DDDDDD")]


def test_a_pings_deadlines_read_back_as_written():
    due = {0: 1_764_201_234.123456789, 3: None}
    assert read_due(due_text(due)) == due
    with pytest.raises(ValueError):
        read_due('{"x": 1}')


async def test_without_a_storage_nothing_is_kept_and_nothing_fails():
    kept = Kept(None)
    await kept.save_ping("AAAAAA", StoredPing(1, 2, {0: 1.0}))
    await kept.save_rematch("AAAAAA", "BBBBBB", 1.0)
    assert await kept.pings("AAAAAA") == [] and await kept.rematch_of("AAAAAA") is None


async def test_a_restarted_runtime_still_points_a_second_play_again_to_the_first_rematch(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    old = await played(rt, clock)
    first = (await rt.rematch(old.id, GUEST, "Bo", guild_id=GUILD, channel_id=CHANNEL)).table
    await clock.advance(3.0)
    assert store.rows("SELECT old_id, new_id FROM rematches") == [(old.id, first.id)]

    # A new process on the same database: the lobby is recovered, and the link with it.
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    assert rt2.tables[first.id].phase == "lobby" and rt2.rematches == {}
    for who, name in ((HOST, "Ann"), (GUEST, "Bo")):
        with pytest.raises(TableError) as again:
            await rt2.rematch(old.id, who, name, guild_id=GUILD, channel_id=CHANNEL)
        assert again.value.code == "rematch_open" and first.id in again.value.message
    assert [t.id for t in rt2.list(GUILD)] == [first.id]
    # Once that lobby has closed, the old table has had its rematch (issue 29 item 7): a press says
    # so and opens nothing; the link stays.
    await rt2.end(first.id, GUEST)
    with pytest.raises(TableError) as used:
        await rt2.rematch(old.id, HOST, "Ann", guild_id=GUILD, channel_id=CHANNEL)
    assert used.value.code == "rematch_used" and first.id in used.value.message
    assert rt2.list(GUILD) == []
    await clock.advance(3.0)
    assert store.rows("SELECT old_id, new_id FROM rematches") == [(old.id, first.id)]


async def test_pruning_a_table_forgets_what_was_kept_for_it(make_runtime, clock, store):
    storage = await store.open()
    rt = make_runtime(storage=storage)
    old = await played(rt, clock)
    await rt.kept.save_ping(old.id, StoredPing(7, 8, {0: 1.0}))
    await rt.kept.save_ping("ZZZZZZ", StoredPing(9, 8, {1: 2.0}))
    await rt.kept.save_rematch(old.id, "YYYYYY", 1.0)
    assert await storage.prune(clock.now() + 10.0) == 1
    assert await rt.kept.pings(old.id) == [] and await rt.kept.rematch_of(old.id) is None
    assert [p.message_id for p in await rt.kept.pings("ZZZZZZ")] == [9]  # another table's stays


async def test_a_storage_that_fails_is_logged_and_never_raises(store, caplog):
    storage = await store.open()
    await storage.close()  # a storage that can no longer be used
    kept = Kept(storage)
    await kept.save_ping("AAAAAA", StoredPing(1, 2, {0: 1.0}))
    await kept.drop_ping("AAAAAA", 1)
    await kept.save_rematch("AAAAAA", "BBBBBB", 1.0)
    assert await kept.pings("AAAAAA") == [] and await kept.rematch_of("AAAAAA") is None
    assert [r.levelname for r in caplog.records if r.name == "tables.kept"] == ["WARNING"] * 5
