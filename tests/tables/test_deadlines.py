import pytest

from engine.core import Action
from tables import SPEEDS, Phase, TableError

from .conftest import HOST, SHORT, choose, new_table, run_until, seat_entries, started

BOB = 200


async def test_the_safe_move_is_made_at_the_deadline(rt, clock):
    t = await started(rt, options=SHORT)
    t0 = clock.now()
    timer = rt.seat_view(t.id, HOST).decision.timer
    assert t.deadlines == {0: t0 + timer} and rt.seat_view(t.id, HOST).deadline == t0 + timer
    await clock.advance(timer - 0.5)
    assert 0 in t.to_act() and seat_entries(t, 0) == []
    assert t.version == 3  # the AIs passed meanwhile
    await clock.advance(1.0)
    [entry] = seat_entries(t, 0)
    assert entry.auto and entry.code.startswith("pass") and entry.time == t0 + timer
    assert t.seats[0].missed == 1 and not t.seats[0].away
    assert t.state.phase == "play"


@pytest.mark.parametrize("speed", ["blitz", "normal", "relaxed"])
async def test_speed_scales_the_deadline(make_runtime, clock, speed):
    rt = make_runtime()
    t = await started(rt, options=SHORT, speed=speed)
    wait = t.deadlines[0] - clock.now()
    assert wait == rt.seat_view(t.id, HOST).decision.timer * SPEEDS[speed]
    await clock.advance(wait - 0.01)
    assert seat_entries(t, 0) == []
    await clock.advance(0.02)
    assert [e.auto for e in seat_entries(t, 0)] == [True]


async def test_blitz_is_half_of_normal(make_runtime, clock):
    waits = {}
    for speed, host in (("blitz", HOST), ("normal", BOB)):
        rt = make_runtime()
        t = await new_table(rt, host=host, speed=speed)
        await rt.start(t.id, host)
        waits[speed] = t.deadlines[0] - clock.now()
    assert waits["blitz"] * 2 == waits["normal"] > 0


async def test_untimed_never_fires(make_runtime, clock):
    rt = make_runtime()
    t = await started(rt, options=SHORT, speed="untimed")
    assert t.deadlines == {} and rt.seat_view(t.id, HOST).deadline is None
    await clock.advance(7 * 24 * 3600)
    assert 0 in t.to_act() and seat_entries(t, 0) == [] and t.version == 3


async def test_three_misses_make_the_seat_away_and_back_returns_it(rt, clock, listener):
    t = await started(rt, speed="blitz")
    await run_until(clock, lambda: t.seats[0].away)
    assert t.seats[0].missed == 3 and [e.auto for e in seat_entries(t, 0)] == [True] * 3
    assert not t.seats[0].left
    # Away: the AI plays the seat without waiting for deadlines.
    count = len(seat_entries(t, 0))
    await run_until(clock, lambda: len(seat_entries(t, 0)) >= count + 2)
    assert 0 not in t.deadlines
    await clock.settle()
    pings = len(listener.turns)
    await rt.back(t.id, HOST)
    assert not t.seats[0].away and t.seats[0].missed == 0
    # The next decision waits for the person again, with a deadline.
    await run_until(clock, lambda: 0 in t.to_act())
    assert 0 in t.deadlines
    count = len(seat_entries(t, 0))
    await clock.advance(t.deadlines[0] - clock.now() - 0.5)
    assert 0 in t.to_act() and len(seat_entries(t, 0)) == count
    assert len(listener.turns) > pings and listener.turns[-1] == (t.id, (0,))


async def test_acting_resets_missed(rt, clock):
    t = await started(rt, options=SHORT, speed="blitz")
    await run_until(clock, lambda: t.seats[0].missed == 1)
    await run_until(clock, lambda: 0 in t.to_act())
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    assert t.seats[0].missed == 0
    assert [e.auto for e in seat_entries(t, 0)] == [True, False]


async def test_acting_brings_an_away_seat_back(rt, clock):
    t = await started(rt, options=SHORT)
    await rt.leave(t.id, HOST)
    assert t.seats[0].away and t.deadlines == {}
    # The AI passes for everyone, then the seat's owner plays in person when due.
    await run_until(clock, lambda: t.state.phase == "play" and 0 in t.to_act())
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    assert not t.seats[0].away and not t.seats[0].left
    await run_until(clock, lambda: 0 in t.to_act())
    assert 0 in t.deadlines


async def test_back_needs_a_seat_and_a_running_game(rt):
    t = await new_table(rt)
    with pytest.raises(TableError):
        await rt.back(t.id, HOST)
    await rt.start(t.id, HOST)
    with pytest.raises(TableError):
        await rt.back(t.id, BOB)
    # Not away: its own sentence, and the seat's clock stays as it was.
    before = dict(t.deadlines)
    with pytest.raises(TableError) as refused:
        await rt.back(t.id, HOST)
    assert refused.value.code == "not_away" and "not away" in refused.value.message
    assert t.deadlines == before


async def test_one_passer_does_not_reset_the_others_deadlines(rt, clock):
    t = await new_table(rt, options=SHORT)
    await rt.join(t.id, BOB, "Bob")
    await rt.start(t.id, HOST)
    opened = t.version
    first = dict(t.deadlines)
    assert set(first) == {0, 1} and first[0] == first[1]
    await clock.advance(10)
    assert t.version == opened + 2  # both AIs passed meanwhile
    await rt.act(t.id, BOB, choose(rt.seat_view(t.id, BOB).decision), version=opened)
    assert t.deadlines == {0: first[0]}
    # Ann's pass menu, opened before anyone passed, is still good: her decision has not changed.
    sv = rt.seat_view(t.id, HOST)
    assert sv.deadline == first[0]
    await clock.advance(first[0] - clock.now() - 0.1)
    assert 0 in t.to_act() and seat_entries(t, 0) == []
    await rt.act(t.id, HOST, choose(sv.decision), version=opened)
    assert t.state.phase == "play" and t.version == opened + 4


async def test_the_other_passers_deadline_fires_on_time(rt, clock):
    t = await new_table(rt, options=SHORT)
    await rt.join(t.id, BOB, "Bob")
    await rt.start(t.id, HOST)
    due = t.deadlines[0]
    await clock.advance(20)
    await rt.act(t.id, BOB, choose(rt.seat_view(t.id, BOB).decision))
    await clock.advance(due - clock.now() - 0.1)
    assert seat_entries(t, 0) == []
    await clock.advance(0.2)
    assert [e.time for e in seat_entries(t, 0)] == [due]


async def test_two_people_passing_at_once_both_count(rt, clock):
    import asyncio

    t = await new_table(rt, options=SHORT)
    await rt.join(t.id, BOB, "Bob")
    await rt.start(t.id, HOST)
    v = t.version
    a, b = rt.seat_view(t.id, HOST).decision, rt.seat_view(t.id, BOB).decision
    await asyncio.gather(rt.act(t.id, HOST, choose(a), version=v), rt.act(t.id, BOB, choose(b), version=v))
    assert sorted(e.seat for e in t.log) == [0, 1] and t.phase == Phase.RUNNING


async def test_the_rules_own_timeout_move_is_made_at_a_deadline(rt, clock, monkeypatch):
    """Where the rules say what happens when time runs out (King of the Hill's call enlists nobody),
    the deadline makes that move, not the AI's choice."""
    from games.hearts.rules import Hearts

    t = await started(rt)
    decision = rt.seat_view(t.id, HOST).decision
    forced = decision.actions[-1] if not decision.pick else Action(decision.kind, tuple(decision.cards[-3:]))

    class Forced(Hearts):  # Hearts may be compiled (tools/native.py): a subclass, not a patch
        def timeout_action(self, seat):
            return forced if seat == 0 else None

    t.state = Forced.from_dict(t.state.to_dict())
    await clock.advance(t.deadlines[0] - clock.now() + 0.1)
    mine = [e for e in t.log if e.seat == 0]
    assert mine and mine[0].code == forced.code and mine[0].auto
