"""A game that ends just before the bot stops is still shown as ended: the next start redraws its
table message and posts its closing summary once (not again at the start after), on both backends."""

from __future__ import annotations

import asyncio

import pytest

from tables import Phase

from .conftest import HOST, Recorder, new_table, started
from .stores import StoredClock
from .test_recovery import play


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


class Deaf(Recorder):
    """A listener of a process about to die: it hears nothing of the end (its calls never finish)."""

    async def redraw(self, table) -> None:
        if table.phase == Phase.FINISHED:
            await asyncio.Event().wait()
        await super().redraw(table)

    async def summary(self, table, events) -> None:
        await asyncio.Event().wait()


async def test_a_game_that_ended_just_before_a_stop_is_shown_after_the_restart(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open(), listener=Deaf(clock))
    t = await started(rt, options={"target": 1})
    await play(rt, clock, t.id)
    assert t.phase == Phase.FINISHED
    await clock.settle()
    await rt.close()  # the process goes before its listener could show the end

    seen = Recorder(clock)
    rt2 = make_runtime(storage=await store.open(), listener=seen)
    report = await rt2.recover()
    assert [x.id for x in report.restored] == [t.id] and report.broken == []
    await clock.advance(2.0)
    await clock.settle()
    assert any(tid == t.id and phase == Phase.FINISHED for _, tid, _, phase in seen.redraws)
    assert len(seen.summaries) == 1
    tid, events = seen.summaries[0]
    assert tid == t.id and [e.kind for e in events][-1] == "game_end"
    await rt2.close()

    # Shown once: the start after that has nothing to show.
    again = Recorder(clock)
    rt3 = make_runtime(storage=await store.open(), listener=again)
    report = await rt3.recover()
    assert report.restored == [] and report.broken == []
    await clock.advance(2.0)
    assert again.redraws == [] and again.summaries == []


async def test_a_lobby_closed_just_before_a_stop_is_shown_closed(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open(), listener=Deaf(clock))
    t = await new_table(rt)
    await rt.end(t.id, HOST)
    await clock.settle()
    await rt.close()

    seen = Recorder(clock)
    rt2 = make_runtime(storage=await store.open(), listener=seen)
    report = await rt2.recover()
    assert [x.id for x in report.restored] == [t.id] and report.broken == []
    await clock.advance(2.0)
    assert seen.summaries == [(t.id, [])]
    assert seen.redraws and seen.redraws[-1][3] == Phase.FINISHED
