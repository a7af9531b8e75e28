import pytest

from tables import SPEEDS, Phase, TableError
from tables.ids import ALPHABET

from .conftest import CHANNEL, GUILD, HOST, HOST_NAME, new_table

BOB, CAL, DEE, EVE = 200, 300, 400, 500


async def test_create_seats_the_host_and_redraws(rt, listener, clock):
    t = await new_table(rt)
    assert t.phase == Phase.LOBBY
    assert [(s.user_id, s.name, s.is_ai) for s in t.seats] == [(HOST, HOST_NAME, False)]
    assert t.host_id == HOST and t.seat_of(HOST) == 0
    assert len(t.id) == 6 and set(t.id) <= set(ALPHABET)
    assert rt.get(t.id.lower()) is t and rt.get(f"#{t.id}") is t
    assert t.free_seats() == t.max_seats - 1 and t.to_act() == ()
    assert t.options == {"rules": "classic", "target": 100, "moon": "others_plus_26"}
    await clock.settle()
    assert [r[1] for r in listener.redraws] == [t.id]


@pytest.mark.parametrize(
    ("kw", "word"),
    [
        ({"game": "poker"}, "poker"),
        ({"options": {"target": 0}}, "target"),
        ({"options": {"colour": "red"}}, "colour"),
        ({"speed": "ludicrous"}, "blitz"),
    ],
)
async def test_create_refuses_bad_game_options_and_speed(rt, kw, word):
    with pytest.raises(TableError) as e:
        await new_table(rt, **kw)
    assert word in e.value.message
    assert rt.tables == {}


async def test_create_reads_options_and_speed(rt):
    t = await new_table(rt, options={"rules": "McGill", "target": "50"}, speed=" Blitz ")
    assert t.options["rules"] == "mcgill" and t.options["target"] == 50
    assert t.speed == "blitz" and SPEEDS[t.speed] == 0.5


async def test_unknown_id_is_refused(rt):
    with pytest.raises(TableError) as e:
        await rt.join("ZZZZZZ", BOB, "Bob")
    assert "`ZZZZZZ`" in e.value.message


async def test_join_takes_free_seats_until_full(rt):
    t = await new_table(rt)
    for uid, name in ((BOB, "Bob"), (CAL, "Cal"), (DEE, "Dee")):
        await rt.join(t.id, uid, name)
    assert t.names() == [HOST_NAME, "Bob", "Cal", "Dee"] and t.free_seats() == 0
    with pytest.raises(TableError) as e:
        await rt.join(t.id, EVE, "Eve")
    assert "full" in e.value.message
    with pytest.raises(TableError) as e:
        await rt.join(t.id, BOB, "Bob")
    assert "already" in e.value.message
    assert len(t.seats) == 4


async def test_one_unfinished_table_per_person_per_guild(rt):
    t = await new_table(rt)
    other = await new_table(rt, host=BOB, name="Bob")
    with pytest.raises(TableError) as e:
        await rt.join(other.id, HOST, HOST_NAME)
    assert t.id in e.value.message
    with pytest.raises(TableError) as e:
        await new_table(rt)
    assert t.id in e.value.message
    # Another server is another matter.
    elsewhere = await new_table(rt, guild_id=GUILD + 1)
    assert elsewhere.seat_of(HOST) == 0


async def test_add_ai_is_for_the_host_in_the_lobby(rt):
    t = await new_table(rt)
    await rt.join(t.id, BOB, "Bob")
    with pytest.raises(TableError) as e:
        await rt.add_ai(t.id, BOB)
    assert "host" in e.value.message and HOST_NAME in e.value.message
    assert await rt.add_ai(t.id, HOST, 1) == 1
    assert await rt.add_ai(t.id, HOST) == 1
    assert [(s.name, s.is_ai, s.user_id) for s in t.seats[2:]] == [("AI 1", True, None), ("AI 2", True, None)]
    with pytest.raises(TableError) as e:
        await rt.add_ai(t.id, HOST)
    assert "free seat" in e.value.message


async def test_add_ai_count_is_capped_by_free_seats(rt):
    t = await new_table(rt)
    assert await rt.add_ai(t.id, HOST, 10) == 3
    assert len(t.seats) == 4


async def test_start_is_for_the_host_fills_with_ai_and_happens_once(rt, listener, clock):
    t = await new_table(rt)
    await rt.join(t.id, BOB, "Bob")
    with pytest.raises(TableError):
        await rt.start(t.id, BOB)
    assert t.phase == Phase.LOBBY
    await rt.start(t.id, HOST)
    assert t.phase == Phase.RUNNING and t.state is not None and isinstance(t.seed, int)
    assert [s.is_ai for s in t.seats] == [False, False, True, True]
    assert t.version == 0 and set(t.to_act()) == {0, 1, 2, 3}  # classic Hearts opens with a pass
    with pytest.raises(TableError) as e:
        await rt.start(t.id, HOST)
    assert "already started" in e.value.message
    with pytest.raises(TableError):
        await rt.add_ai(t.id, HOST)
    with pytest.raises(TableError) as e:
        await rt.join(t.id, CAL, "Cal")
    assert "already started" in e.value.message
    await clock.settle()
    assert listener.turns == [(t.id, (0, 1))]  # both people pinged, never the AIs


async def test_leave_in_the_lobby_passes_the_host_and_closes_an_empty_table(rt, clock, listener):
    t = await new_table(rt)
    await rt.join(t.id, BOB, "Bob")
    await rt.add_ai(t.id, HOST, 1)
    with pytest.raises(TableError):
        await rt.leave(t.id, CAL)
    await rt.leave(t.id, HOST)
    assert t.host_id == BOB and t.names() == ["Bob", "AI 1"]
    await rt.leave(t.id, BOB)
    assert t.phase == Phase.FINISHED and t.id not in rt.tables
    with pytest.raises(TableError):
        rt.get(t.id)
    await clock.advance(1)
    assert listener.redraws[-1][1:] == (t.id, 0, Phase.FINISHED)  # its message can say it closed
    # Leaving freed Ann to open a new table.
    assert (await new_table(rt)).seat_of(HOST) == 0


async def test_leave_a_running_game_then_come_back(rt):
    t = await new_table(rt)
    await rt.join(t.id, BOB, "Bob")
    await rt.start(t.id, HOST)
    await rt.leave(t.id, BOB)
    assert t.seats[1].away and t.seats[1].auto and t.seat_of(BOB) == 1
    assert t.deadlines.get(1) is None
    with pytest.raises(TableError):
        await rt.leave(t.id, BOB)
    await rt.join(t.id, BOB, "Bob")
    assert not t.seats[1].away and t.seats[1].missed == 0
    with pytest.raises(TableError) as e:
        await rt.join(t.id, BOB, "Bob")
    assert "already" in e.value.message


async def test_after_leaving_a_game_you_may_sit_elsewhere_but_not_both(rt):
    t = await new_table(rt)
    await rt.join(t.id, BOB, "Bob")
    await rt.start(t.id, HOST)
    await rt.leave(t.id, HOST)
    assert t.host_id == BOB  # someone present can still end the table
    other = await new_table(rt, channel_id=CHANNEL + 1)
    with pytest.raises(TableError) as e:
        await rt.join(t.id, HOST, HOST_NAME)
    assert other.id in e.value.message
    assert t.seats[0].away


async def test_find_and_list(rt):
    a = await new_table(rt)
    b = await new_table(rt, host=BOB, name="Bob", channel_id=CHANNEL + 5)
    c = await new_table(rt, host=CAL, name="Cal")
    assert rt.find(GUILD, CHANNEL) is c  # the newest open table in the channel
    assert rt.find(GUILD, CHANNEL, HOST) is a  # unless you sit at one there
    assert rt.find(GUILD, None, BOB) is b
    assert rt.find(GUILD, None, DEE) is None and rt.find(GUILD) is None
    assert rt.find(GUILD + 1, CHANNEL) is None
    b.thread_id = 999
    assert rt.find(GUILD, 999) is b and b.channel_ids == (CHANNEL + 5, 999)
    assert rt.list(GUILD) == [a, b, c]
    await rt.end(b.id, BOB)
    assert rt.list(GUILD) == [a, c] and rt.find(GUILD, 999) is None
    assert rt.list(GUILD + 1) == []


async def test_seat_view_in_the_lobby_and_for_strangers(rt):
    t = await new_table(rt)
    sv = rt.seat_view(t.id, HOST)
    assert (sv.table, sv.seat, sv.view, sv.decision, sv.deadline) == (t, 0, None, None, None)
    with pytest.raises(TableError):
        rt.seat_view(t.id, BOB)


async def test_end_by_host_admin_or_nobody_else(rt, clock, listener):
    t = await new_table(rt)
    await rt.start(t.id, HOST)
    with pytest.raises(TableError) as e:
        await rt.end(t.id, BOB)
    assert "host" in e.value.message and t.phase == Phase.RUNNING
    await rt.end(t.id, HOST)
    assert t.phase == Phase.FINISHED and t.ended_early and t.deadlines == {}
    version = t.version
    await clock.advance(120)  # nothing moves any more: AI and deadline tasks are gone
    assert t.version == version and len(t.log) == version
    assert listener.summaries == [(t.id, [])]
    assert listener.redraws[-1][1:] == (t.id, version, Phase.FINISHED)
    with pytest.raises(TableError):
        await rt.end(t.id, HOST)
    with pytest.raises(TableError) as e:
        await rt.act(t.id, HOST, "2C")
    assert "over" in e.value.message

    admin_table = await new_table(rt, host=BOB, name="Bob")
    await rt.start(admin_table.id, BOB)
    await rt.end(admin_table.id, 12345, admin=True)
    assert admin_table.phase == Phase.FINISHED and admin_table.ended_early
