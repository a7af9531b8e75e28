"""Caps: one person cannot keep any number of tables going, a server runs a bounded number of games,
and the machine a bounded number of program processes.  Each refusal is a sentence and changes
nothing."""

from __future__ import annotations

import asyncio

import pytest

from tables import Phase, Table, TableError
from tables.offers import Limits

from .conftest import CHANNEL, GUILD, HOST, new_table, started

LINE = {"echo": "python3 -c pass"}


async def test_leaving_running_tables_does_not_free_a_person_to_host_without_end(make_runtime):
    rt = make_runtime(limits=Limits(tables_per_person=2))
    for _ in range(2):
        t = await started(rt)
        await rt.leave(t.id, HOST)  # the AI plays on; the host is free to sit elsewhere
        assert t.phase == Phase.RUNNING
    before = dict(rt.tables)
    with pytest.raises(TableError) as no:
        await new_table(rt)
    assert no.value.code == "too_many_tables" and "2 unfinished tables" in no.value.message
    assert rt.tables == before
    # In another server too: the cap is the person's, not the server's.
    with pytest.raises(TableError):
        await new_table(rt, guild_id=GUILD + 1)


async def test_a_finished_table_frees_its_place(make_runtime):
    rt = make_runtime(limits=Limits(tables_per_person=1))
    t = await new_table(rt)
    with pytest.raises(TableError):
        await new_table(rt, guild_id=GUILD + 1)
    await rt.end(t.id, HOST)
    assert (await new_table(rt, guild_id=GUILD + 1)).phase == Phase.LOBBY


async def test_a_server_runs_a_bounded_number_of_games(make_runtime):
    rt = make_runtime(limits=Limits(running_per_server=2))
    for host in (1, 2):
        await started(rt, host=host, name=f"P{host}")
    waiting = await new_table(rt, host=3, name="P3")
    with pytest.raises(TableError) as no:
        await rt.start(waiting.id, 3)
    assert no.value.code == "server_full" and waiting.phase == Phase.LOBBY and waiting.version == 0
    # Another server is not affected.
    elsewhere = await new_table(rt, host=4, name="P4", guild_id=GUILD + 1, channel_id=CHANNEL + 1)
    await rt.start(elsewhere.id, 4)
    assert elsewhere.phase == Phase.RUNNING


async def test_program_seats_are_capped_on_the_machine(make_runtime):
    rt = make_runtime(limits=Limits(programs=3), programs=LINE)
    a = await new_table(rt, game="tricks", host=1, name="P1")
    assert await rt.add_ai(a.id, 1, 3, program="echo") == 3
    b = await new_table(rt, game="tricks", host=2, name="P2")
    with pytest.raises(TableError) as no:
        await rt.add_ai(b.id, 2, 1, program="echo")
    assert no.value.code == "too_many_programs" and len(b.seats) == 1
    assert no.value.message == ("This machine is already running as many programs as it can. Seat the built-in "
                                "AI instead, or try again when a game with programs ends.")
    assert await rt.add_ai(b.id, 2, 1) == 1  # the built-in AI is always there


async def test_a_host_who_asks_for_more_programs_than_fit_reads_about_their_request(make_runtime):
    # Issue 25: "already running 15 programs, the most this machine allows (16)" to a host who asked
    # for three.  The sentence speaks of what they asked for and what fits.
    rt = make_runtime(limits=Limits(programs=4), programs=LINE)
    a = await new_table(rt, game="tricks", host=1, name="P1")
    assert await rt.add_ai(a.id, 1, 3, program="echo") == 3
    b = await new_table(rt, game="tricks", host=2, name="P2")
    with pytest.raises(TableError) as no:
        await rt.add_ai(b.id, 2, 3, program="echo")
    assert no.value.code == "too_many_programs" and len(b.seats) == 1 and b.version == 0
    assert no.value.message == ("You asked for 3 program seats, but this machine can run only one more program "
                                "right now. Ask for 1, seat the built-in AI instead, or try again when a game "
                                "with programs ends.")
    assert await rt.add_ai(b.id, 2, 1, program="echo") == 1


async def test_no_limit_when_set_to_zero(make_runtime):
    rt = make_runtime(limits=Limits(tables_per_person=0))
    for g in range(5):
        await new_table(rt, guild_id=GUILD + g)
    assert len(rt.tables) == 5


# ==== requests at once (issue 29 item 13) =========================================================
# Each limit is taken before the lobby's first wait (its insert into the storage): requests that
# come together are judged one after the other, and a failed insert gives its place back.
async def outcomes(*requests) -> list[object]:
    return list(await asyncio.gather(*requests, return_exceptions=True))


def codes(results: list[object]) -> list[str]:
    return sorted(r.code for r in results if isinstance(r, TableError))


async def test_ten_new_tables_at_once_open_one_per_server_and_three_in_all(make_runtime, store):
    rt = make_runtime(storage=await store.open())
    same = await outcomes(*(new_table(rt) for _ in range(10)))
    assert sum(isinstance(r, Table) for r in same) == 1 and codes(same) == ["elsewhere"] * 9
    spread = await outcomes(*(new_table(rt, guild_id=GUILD + g, channel_id=CHANNEL + g) for g in range(1, 11)))
    assert sum(isinstance(r, Table) for r in spread) == 2 and codes(spread) == ["too_many_tables"] * 8
    assert len([t for t in rt.tables.values() if t.host_id == HOST]) == 3 == len(store.rows("SELECT id FROM tables"))


async def test_a_new_table_and_a_join_at_once_seat_a_person_once(make_runtime, store):
    rt = make_runtime(storage=await store.open())
    other = await new_table(rt, host=2, name="P2")
    made, joined = await outcomes(new_table(rt), rt.join(other.id, HOST, "Ann"))
    assert codes([made, joined]) == ["elsewhere"]
    assert sum(t.seat_of(HOST) is not None for t in rt.tables.values()) == 1


async def test_a_failed_insert_gives_its_place_back(make_runtime, store):
    rt = make_runtime(storage=await store.open())
    real = rt.storage.insert_table

    async def broken(record):
        raise OSError("disk full")

    rt.storage.insert_table = broken
    with pytest.raises(TableError) as no:
        await new_table(rt)
    assert no.value.code == "not_saved" and not rt.tables and not rt._opening
    rt.storage.insert_table = real
    assert (await new_table(rt)).phase == Phase.LOBBY
