"""Play again (issue 24 item 4): a finished table opens one new lobby of the same game, options,
speed and AI level, its AI players seated again at their levels, hosted by whoever pressed, its
other people invited (not seated) — from memory, or from the storage once the finished table has
left it; the old game's stored row and log stay exactly as they were."""

from __future__ import annotations

import pytest

from tables import Phase, TableError
from tables.offers import Limits

from .conftest import CHANNEL, GUILD, HOST, new_table, run_until, started
from .stores import StoredClock

GUEST = 200
STRANGER = 300
OPTIONS = {"target": 1, "rules": "mcgill"}


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


async def played(rt, clock, *, strong: bool = False):
    """Ann and Bo with two AIs (one strong) play one hand of McGill Hearts, speed blitz, and leave it
    to the AIs; the game ends."""
    t = await new_table(rt, options=OPTIONS, speed="blitz")
    await rt.join(t.id, GUEST, "Bo")
    await rt.add_ai(t.id, HOST, 1)
    await rt.add_ai(t.id, HOST, 1, level="strong" if strong else None)
    await rt.start(t.id, HOST)
    await rt.leave(t.id, HOST)
    await rt.leave(t.id, GUEST)
    await run_until(clock, lambda: t.phase == Phase.FINISHED)
    return t


async def test_play_again_opens_one_lobby_with_the_same_game_and_people(make_runtime, clock):
    rt = make_runtime()
    old = await played(rt, clock, strong=True)
    new = await rt.rematch(old.id, GUEST, "Bo", guild_id=GUILD, channel_id=CHANNEL + 1)
    t = new.table
    assert t.id != old.id and t.phase == Phase.LOBBY and rt.tables[t.id] is t
    assert (t.game, t.options, t.speed, t.ai_level) == (old.game, old.options, old.speed, old.ai_level)
    assert t.channel_id == CHANNEL + 1 and t.host_id == GUEST  # the presser hosts it
    # Bo sits; the AIs are back at their levels; Ann is invited, not seated.
    assert [(s.user_id, s.is_ai, s.level) for s in t.seats] == [(GUEST, False, None), (None, True, None),
                                                                (None, True, "strong")]
    assert new.invited == (HOST,) and t.seat_of(HOST) is None
    # A second press (by anyone who played) points to it and opens nothing.
    for who in (GUEST, HOST):
        with pytest.raises(TableError) as again:
            await rt.rematch(old.id, who, "x", guild_id=GUILD, channel_id=CHANNEL)
        assert again.value.code == "rematch_open" and t.id in again.value.message
    assert len(rt.list(GUILD)) == 1
    # The same people can start it: Ann joins, Bo starts.
    await rt.join(t.id, HOST, "Ann")
    await rt.start(t.id, GUEST)
    assert t.phase == Phase.RUNNING and len(t.seats) == 4
    with pytest.raises(TableError) as running:
        await rt.rematch(old.id, HOST, "Ann", guild_id=GUILD, channel_id=CHANNEL)
    assert running.value.code == "rematch_open"


async def test_only_people_of_a_finished_game_may_play_it_again(make_runtime, clock):
    rt = make_runtime()
    lobby = await new_table(rt)
    with pytest.raises(TableError) as unfinished:
        await rt.rematch(lobby.id, HOST, "Ann", guild_id=GUILD, channel_id=CHANNEL)
    assert unfinished.value.code == "not_finished"
    await rt.end(lobby.id, HOST)
    with pytest.raises(TableError) as never:
        await rt.rematch(lobby.id, HOST, "Ann", guild_id=GUILD, channel_id=CHANNEL)
    assert never.value.code == "never_played"
    old = await played(rt, clock)
    before = len(rt.tables)
    for who, guild, code in ((STRANGER, GUILD, "not_a_player"), (HOST, GUILD + 1, "unknown_table")):
        with pytest.raises(TableError) as refused:
            await rt.rematch(old.id, who, "x", guild_id=guild, channel_id=CHANNEL)
        assert refused.value.code == code
    with pytest.raises(TableError) as unknown:
        await rt.rematch("ZZZZZZ", HOST, "Ann", guild_id=GUILD, channel_id=CHANNEL)
    assert unknown.value.code == "unknown_table"
    assert len(rt.tables) == before  # nothing was opened


async def test_play_again_keeps_the_limits(make_runtime, clock):
    rt = make_runtime(limits=Limits(tables_per_person=1))
    old = await played(rt, clock)
    elsewhere = await new_table(rt, host=GUEST + 1, name="Cy")
    await rt.join(elsewhere.id, HOST, "Ann")
    with pytest.raises(TableError) as seated:
        await rt.rematch(old.id, HOST, "Ann", guild_id=GUILD, channel_id=CHANNEL)
    assert seated.value.code == "elsewhere"
    mine = await started(rt, host=GUEST)
    await rt.leave(mine.id, GUEST)  # a game left to the AIs still counts as one of Bo's tables
    with pytest.raises(TableError) as hosting:
        await rt.rematch(old.id, GUEST, "Bo", guild_id=GUILD, channel_id=CHANNEL)
    assert hosting.value.code == "too_many_tables"
    assert old.id not in rt.rematches


async def test_play_again_from_the_storage_leaves_the_old_record_untouched(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    old = await played(rt, clock)
    await clock.advance(3.0)
    assert old.id not in rt.tables and rt.finished.get(old.id) is not None  # only its stub stays
    row, log = store.table(old.id), store.log(old.id)
    replay = await rt.history(old.id, GUILD)
    with pytest.raises(TableError) as stranger:
        await rt.rematch(old.id, STRANGER, "x", guild_id=GUILD, channel_id=CHANNEL)
    assert stranger.value.code == "not_a_player"
    t = (await rt.rematch(old.id, HOST, "Ann", guild_id=GUILD, channel_id=CHANNEL)).table
    assert (t.game, t.options, t.speed) == ("hearts", old.options, "blitz")
    assert [s.is_ai for s in t.seats] == [False, True, True]
    assert store.table(t.id)["phase"] == "lobby"
    await clock.advance(3.0)
    assert store.table(old.id) == row and store.log(old.id) == log
    assert await rt.history(old.id, GUILD) == replay  # /game replay of the old id still works

    # After a restart (no stub in memory) the stored link still names the rematch: while it is open
    # a press points to it, and once it has closed the old table is not played again a second time
    # (issue 29 item 7: leaving the new lobby and pressing again pinged the same people again).
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    with pytest.raises(TableError) as open_:
        await rt2.rematch(old.id, GUEST, "Bo", guild_id=GUILD, channel_id=CHANNEL)
    assert open_.value.code == "rematch_open" and t.id in open_.value.message
    await rt2.end(t.id, HOST)
    with pytest.raises(TableError) as used:
        await rt2.rematch(old.id, GUEST, "Bo", guild_id=GUILD, channel_id=CHANNEL)
    assert used.value.code == "rematch_used" and t.id in used.value.message
    assert [x.id for x in rt2.list(GUILD)] == []


async def test_program_seats_come_back_while_configured_and_within_the_limit(make_runtime):
    rt = make_runtime(programs={"bot": "python3 -c pass"}, limits=Limits(programs=2))
    t = await new_table(rt, game="tricks")
    await rt.add_ai(t.id, HOST, 2, program="bot")
    await rt.add_ai(t.id, HOST, 1, level="strong")
    # Only its seats matter here, not a game: as if it had been played and had ended.
    t.phase, t.seed = Phase.FINISHED, 5
    rt.limits = Limits(programs=1)
    new = (await rt.rematch(t.id, HOST, "Ann", guild_id=GUILD, channel_id=CHANNEL)).table
    # One program fits the limit now (the old table is over); the other seat gets the built-in AI.
    assert [(s.is_ai, s.program, s.level) for s in new.seats] == [(False, None, None), (True, "bot", None),
                                                                  (True, None, None), (True, None, "strong")]


async def test_a_closed_rematch_is_not_opened_again(make_runtime, clock):
    # Issue 29 item 7: the presser left the new lobby (it closed) and pressed again, over and over,
    # each time a new lobby inviting the others.  One rematch per finished table, ever.
    rt = make_runtime()
    old = await played(rt, clock)
    first = await rt.rematch(old.id, GUEST, "Bo", guild_id=GUILD, channel_id=CHANNEL)
    await rt.leave(first.table.id, GUEST)
    assert first.table.phase == Phase.FINISHED and first.table.id not in rt.tables
    for who, name in ((GUEST, "Bo"), (HOST, "Ann")):
        with pytest.raises(TableError) as used:
            await rt.rematch(old.id, who, name, guild_id=GUILD, channel_id=CHANNEL)
        assert used.value.code == "rematch_used" and first.table.id in used.value.message
    assert rt.list(GUILD) == [] and rt.rematches == {old.id: first.table.id}
