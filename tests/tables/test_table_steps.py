"""Rule-driven timed steps (the seat TABLE): King of the Hill deals one card every `deal_rate`
seconds by itself, people may declare meanwhile, and nobody is hurried or pinged for that."""

from __future__ import annotations

import engine
from engine.core import TABLE
from tables import Phase
from tests.tables.conftest import HOST, new_table, run_until

ONE_ROUND = {"rounds": 1, "deal_rate": 1, "ready_round": 0}


async def test_a_table_of_ais_plays_a_king_of_the_hill_round_to_the_end(rt, clock):
    t = await new_table(rt, game="koth", options=ONE_ROUND)
    await rt.start(t.id, HOST)
    await rt.leave(t.id, HOST)  # the AI takes the host's seat too
    await run_until(clock, lambda: t.phase == Phase.FINISHED, step=1.0, limit=20000)
    table_moves = [e for e in t.log if e.seat == TABLE]
    assert len([e for e in table_moves if e.code == "deal"]) == 100  # 5 × 20, one card at a time
    again, _ = engine.replay("koth", 5, t.options, t.seed, [(e.seat, e.code) for e in t.log])
    assert again.to_dict() == t.state.to_dict()


async def test_the_deal_runs_at_the_deal_rate_without_waiting_for_people(rt, clock, listener):
    t = await new_table(rt, game="koth", options=ONE_ROUND)
    await rt.start(t.id, HOST)
    await clock.settle()
    assert TABLE in t.state.to_act() and t.deadlines.get(TABLE) is not None
    assert HOST not in t.deadlines  # declaring is optional: no deadline for the person
    dealt = lambda: sum(1 for e in t.log if e.code == "deal")  # noqa: E731
    before = dealt()
    await clock.advance(1.0)
    await clock.advance(1.0)
    await clock.advance(1.0)
    assert dealt() - before == 3  # one card a second, nobody having acted
    assert all(0 not in seats for _, seats in listener.turns if t.state.to_act() and TABLE in t.state.to_act())
    assert t.seats[0].missed == 0  # an optional decision left alone is not a missed turn


async def test_untimed_tables_still_deal(rt, clock):
    t = await new_table(rt, game="koth", options=ONE_ROUND, speed="untimed")
    await rt.start(t.id, HOST)
    await clock.settle()
    before = sum(1 for e in t.log if e.code == "deal")
    await clock.advance(5.0)
    assert sum(1 for e in t.log if e.code == "deal") > before
    assert t.to_act() == tuple(s for s in t.state.to_act() if s != TABLE)


async def test_table_pace_speeds_the_deal_but_not_the_people(make_runtime, clock):
    rt = make_runtime(table_pace=0.1)
    t = await new_table(rt, game="koth", options=ONE_ROUND)
    await rt.start(t.id, HOST)
    await clock.settle()
    dealt = lambda: sum(1 for e in t.log if e.code == "deal")  # noqa: E731
    before = dealt()
    await clock.advance(1.0)
    assert dealt() - before == 10  # a card every 0.1 s instead of every second
    # the host's 10 s to play a card are untouched by the table's pace
    await run_until(clock, lambda: t.state.phase == "play" and t.state.to_act() == (0,), step=0.1, limit=20000)
    assert not t.seats[0].auto and t.deadlines[0] - clock.now() > 9.0


def test_table_pace_must_be_positive(make_runtime):
    import pytest

    with pytest.raises(ValueError):
        make_runtime(table_pace=0)
