"""Finished tables leave memory once their end is shown and stored (tables/finished.py), never
before: the summary posted, the table message drawn finished, the hand views done drawing, all of
it written.  What stays is a small stub; the game's record is read from the storage.  Without a
storage a finished table stays for ``keep_finished`` seconds, as before."""

from __future__ import annotations

import asyncio

import pytest

from tables import Phase, TableError
from tables.finished import Ended
from tables.storage import StorageError
from tables.table import SHOWN_ALL

from .conftest import GUILD, HOST, Recorder, new_table, run_until, started
from .stores import StoredClock

ONE_HAND = {"target": 1}


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()  # its settling waits for the database's writes too


class Held(Recorder):
    """A listener whose ``summary`` waits until the test lets it go (a slow Discord), and whose
    ``showing`` says what the test wants (a hand view still being edited)."""

    def __init__(self, clock) -> None:
        super().__init__(clock)
        self.gate = asyncio.Event()
        self.still_showing = False

    async def summary(self, table, events) -> None:
        await self.gate.wait()
        await super().summary(table, events)

    def showing(self, table) -> bool:
        return self.still_showing


async def played_out(rt, clock):
    """A one-hand game the AIs play to its end (the host leaves at once)."""
    t = await started(rt, options=ONE_HAND)
    await rt.leave(t.id, HOST)
    await run_until(clock, lambda: t.phase == Phase.FINISHED)
    return t


async def test_a_finished_game_leaves_memory_once_its_end_is_shown_and_stored(make_runtime, clock, store, listener):
    rt = make_runtime(storage=await store.open())
    t = await played_out(rt, clock)
    await clock.advance(3.0)
    assert t.id not in rt.tables and rt.list(GUILD) == []
    # Its end was shown first: the closing summary and the table drawn finished...
    assert any(tid == t.id and any(e.kind == "game_end" for e in events) for tid, events in listener.summaries)
    assert listener.redraws[-1][1:] == (t.id, t.version, Phase.FINISHED)
    # ... and stored so: a restart has nothing left to show of it.
    row = store.table(t.id)
    assert (row["phase"], row["shown"], row["version"]) == ("finished", SHOWN_ALL, t.version)
    # What stays in memory is a stub saying whose game it was.
    ended = rt.finished.get(t.id)
    assert isinstance(ended, Ended) and ended.guild_id == GUILD and ended.seed == t.seed
    assert ended.seat_of(HOST) == 0 and ended.seat_of(None) is None and ended.seat_of(12345) is None
    # /game replay reads the storage: the same game, move for move.
    record = await rt.history(t.id, GUILD)
    state, _ = record.replay()
    assert record.finished and state.to_dict() == t.state.to_dict() and len(record.log) == len(t.log)
    # Nobody can change it: the runtime no longer has it (the cogs answer from the stub).
    for change in (lambda: rt.act(t.id, HOST, "pass"), lambda: rt.join(t.id, HOST, "Ann"),
                   lambda: rt.end(t.id, HOST)):
        with pytest.raises(TableError) as refused:
            await change()
        assert refused.value.code == "unknown_table"


async def test_an_ended_lobby_leaves_memory_too(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await new_table(rt)
    await rt.end(t.id, HOST)
    await clock.advance(3.0)
    assert t.id not in rt.tables
    assert rt.finished.get(t.id).seed is None  # closed before its game started


async def test_not_before_the_summary_is_posted_nor_while_a_hand_view_draws_it(make_runtime, clock, store):
    held = Held(clock)
    rt = make_runtime(storage=await store.open(), listener=held)
    t = await started(rt, options=ONE_HAND)
    await rt.end(t.id, HOST)
    await clock.advance(30.0)
    # The table message is drawn finished and stored, but the summary is still on its way.
    assert held.redraws[-1][3] == Phase.FINISHED and not held.summaries
    assert t.id in rt.tables and rt.finished.get(t.id) is None
    held.still_showing = True
    held.gate.set()
    await clock.advance(30.0)
    assert held.summaries == [(t.id, [])] and store.table(t.id)["shown"] == SHOWN_ALL
    assert t.id in rt.tables  # a hand view still draws the end from the table
    held.still_showing = False
    await clock.advance(2.0)
    assert t.id not in rt.tables and rt.finished.get(t.id) is not None


async def test_an_end_not_stored_keeps_the_table(make_runtime, clock, store, monkeypatch):
    rt = make_runtime(storage=await store.open())
    t = await started(rt, options=ONE_HAND)
    await rt.end(t.id, HOST)  # (committed: the deliveries run after it)

    async def failing(*args, **kw):
        raise StorageError("disk full")

    monkeypatch.setattr(rt.storage, "write", failing)
    await clock.advance(5.0)
    assert store.table(t.id)["shown"] != SHOWN_ALL
    assert t.id in rt.tables and rt.finished.get(t.id) is None


async def test_without_a_storage_a_finished_table_stays_for_keep_finished(make_runtime, clock):
    rt = make_runtime(keep_finished=600.0)
    t = await played_out(rt, clock)
    await clock.advance(30.0)
    assert rt.tables[t.id] is t and rt.finished.get(t.id) is None  # nothing else holds its game
    await clock.advance(600.0)
    await new_table(rt, host=HOST + 50)  # a new table prunes the old ones
    assert t.id not in rt.tables


async def test_stubs_go_after_keep_finished(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open(), keep_finished=600.0)
    t = await played_out(rt, clock)
    await clock.advance(3.0)
    assert rt.finished.get(t.id) is not None
    await clock.advance(601.0)
    await new_table(rt, host=HOST + 50)
    assert rt.finished.get(t.id) is None and rt.finished.ended.keys() == set()


class Unreachable(Recorder):
    """A listener that cannot reach the table message (a table where the bot is not a member whose
    last token ran out): its ``unshown`` says so until a new message is attached."""

    def __init__(self, clock) -> None:
        super().__init__(clock)
        self.reachable = False

    def unshown(self, table) -> bool:
        return not self.reachable


async def test_an_end_no_message_could_show_is_kept_across_a_restart_until_it_is_shown(make_runtime, clock, store):
    """The game ended while the listener could not reach its message: its end is not counted as
    shown, so the table stays (in memory and stored as unfinished); a new process recovers it; once
    the Discord layer posts it again (``attach``), it is drawn, counted shown, stored and let go."""
    away = Unreachable(clock)
    rt = make_runtime(storage=await store.open(), listener=away)
    t = await played_out(rt, clock)
    await clock.advance(30.0)
    assert away.redraws[-1][3] == Phase.FINISHED  # (asked for, and not shown)
    assert t.id in rt.tables and rt.finished.get(t.id) is None
    assert store.table(t.id)["phase"] == "finished" and store.table(t.id)["shown"] != SHOWN_ALL
    await rt.close()
    later = Unreachable(clock)
    rt2 = make_runtime(storage=await store.open(), listener=later)
    await rt2.recover()
    await clock.advance(30.0)
    t2 = rt2.tables[t.id]
    assert t2.phase == Phase.FINISHED and t2.id not in rt2.finished.ended
    later.reachable = True  # the next interaction there posted it again
    await rt2.attach(t.id, message_id=99)
    await clock.advance(5.0)
    assert later.redraws[-1][1:3] == (t.id, t.version) and store.table(t.id)["shown"] == SHOWN_ALL
    assert t.id not in rt2.tables and rt2.finished.get(t.id) is not None
