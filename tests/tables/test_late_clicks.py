"""A click counts only while its answer can still reach the person (tables/live.py ANSWER_WITHIN):
one that waited too long — behind the table's lock, or in a process that was frozen — is refused
with code ``late`` and changes nothing, so a click the person saw fail never takes effect later."""

from __future__ import annotations

import asyncio

import pytest

from tables import TableError
from tables.live import ANSWER_WITHIN

from .conftest import HOST, choose, started


async def test_the_deadline_of_a_click_counts_from_when_it_was_made(rt, clock) -> None:
    assert rt.answer_by(0.5) == clock.now() + ANSWER_WITHIN - 0.5
    assert rt.answer_by(-2.0) == clock.now() + ANSWER_WITHIN  # a clock behind Discord's: no credit
    rt.refuse_late(rt.answer_by(ANSWER_WITHIN))  # just in time
    with pytest.raises(TableError) as e:
        rt.refuse_late(rt.answer_by(ANSWER_WITHIN + 0.01))
    assert e.value.code == "late"


async def test_a_click_that_waited_past_its_answer_for_the_table_is_refused_and_changes_nothing(rt, clock) -> None:
    t = await started(rt)
    action = choose(rt.seat_view(t.id, HOST).decision)
    hand = rt.seat_view(t.id, HOST).view["hand"]
    live = rt._live[t.id]
    async with live.lock:  # something slow holds the table: a write, a process that was frozen
        click = asyncio.create_task(rt.act(t.id, HOST, action, version=t.version, answer_by=rt.answer_by(0.2)))
        await clock.advance(ANSWER_WITHIN)
        assert not click.done()
    with pytest.raises(TableError) as e:
        await click
    assert e.value.code == "late"
    # Nothing of it happened (the AIs may have passed meanwhile: they did not wait for a person).
    after = rt.seat_view(t.id, HOST)
    assert [e for e in t.log if e.seat == 0] == [] and after.view["hand"] == hand
    assert not after.view["passed"][0] and after.decision is not None and after.decision.kind == action.kind

    # The same click made again, in time, counts.
    events = await rt.act(t.id, HOST, action, version=t.version, answer_by=rt.answer_by(0.2))
    assert events and [(e.seat, e.code, e.auto) for e in t.log if e.seat == 0] == [(0, action.code, False)]
