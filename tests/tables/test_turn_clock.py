"""A clock for a whole turn: Siege gives 90 s for a turn of several actions (Decision.clock_key)."""

from __future__ import annotations

from tables import Phase
from tests.tables.conftest import HOST, new_table, run_until

NORMAL_TURN = 90.0


async def siege_table(rt, clock):
    t = await new_table(rt, game="siege", options={"max_rounds": 3})
    await rt.start(t.id, HOST)
    await run_until(clock, lambda: 0 in t.state.to_act() or t.phase == Phase.FINISHED, step=0.5)
    return t


async def test_acting_within_a_turn_does_not_restart_its_clock(rt, clock):
    t = await siege_table(rt, clock)
    deadline = t.deadlines[0]
    assert deadline - clock.now() <= NORMAL_TURN
    await clock.advance(30)
    sv = rt.seat_view(t.id, HOST)
    moves = [a for a in sv.decision.actions if a.kind != "end"]
    assert moves, "a Siege turn always offers something besides ending it"
    await rt.act(t.id, HOST, moves[0], version=t.version)
    if 0 in t.state.to_act() and t.state.decision(0).clock_key == sv.decision.clock_key:
        assert t.deadlines[0] == deadline  # same turn, same clock
    # The next turn gets a fresh clock.
    await rt.act(t.id, HOST, "end")
    await run_until(clock, lambda: 0 in t.state.to_act(), step=0.5)
    assert t.deadlines[0] - clock.now() > NORMAL_TURN - 1


async def test_a_missed_turn_counts_once_however_many_actions_the_safe_finish_takes(rt, clock):
    t = await siege_table(rt, clock)
    turn = t.state.turn_no
    await run_until(clock, lambda: t.state.turn_no != turn, step=5.0)
    assert t.seats[0].missed == 1 and not t.seats[0].away
    auto = [e for e in t.log if e.seat == 0 and e.auto]
    assert auto and auto[-1].code == "end" or t.state.is_over
