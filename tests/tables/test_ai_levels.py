"""AI levels at a table: a host seats ``strong`` AIs, whose moves come from the AI pool when its
search finishes within the AI's pause — else the ``normal`` move, and the pause is the same either
way (how long an AI takes must not depend on its cards)."""

from __future__ import annotations

import asyncio

import pytest

from engine.core import Action
from tables import Phase, TableError
from tables.history.records import rebuild, record_of
from tests import wargame

from .conftest import HOST, new_table, run_until


class FakePool:
    """Stands in for tables.ai.pool.AIPool: answers with the last offered move, at once or never."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.asked: list[tuple[str, int, str, float]] = []

    async def choose(self, game, state, seat, seed, *, level="strong", budget=None):
        self.asked.append((game, seat, level, budget))
        if not self.answer:
            await asyncio.Event().wait()
        d = state.decision(seat)
        return Action(d.kind, tuple(d.cards[-d.pick:])) if d.pick else d.actions[-1]


async def test_a_host_seats_strong_ais_and_their_level_is_kept(make_runtime):
    rt = make_runtime()
    t = await new_table(rt)
    assert await rt.add_ai(t.id, HOST, 1, level="strong") == 1
    assert await rt.add_ai(t.id, HOST, 1, level="normal") == 1
    assert [(s.name, s.level) for s in t.seats[1:]] == [("AI 1 (strong)", "strong"), ("AI 2", None)]
    with pytest.raises(TableError) as no:
        await rt.add_ai(t.id, HOST, 1, level="genius")
    assert no.value.code == "bad_level" and "`strong`" in no.value.message and len(t.seats) == 3
    back, _ = rebuild(record_of(t), [])
    assert [s.level for s in back.seats] == [None, "strong", None]


async def test_a_game_without_a_search_offers_no_strong_level(make_runtime):
    rt = make_runtime()
    with wargame.registered(), pytest.raises(TableError) as no:  # (every real game has a strong AI)
        t = await new_table(rt, game="war")
        await rt.add_ai(t.id, HOST, 1, level="strong")
    assert no.value.code == "bad_level"


@pytest.mark.parametrize("answers", [True, False])
async def test_a_strong_seat_plays_the_search_when_it_is_in_time(make_runtime, clock, answers):
    pool = FakePool(answer=answers)
    rt = make_runtime(ai_pool=pool, ai_delay=1.0)
    t = await new_table(rt)
    await rt.add_ai(t.id, HOST, 3, level="strong")
    await rt.start(t.id, HOST)
    started = clock.now()
    await run_until(clock, lambda: any(e.seat == 1 for e in t.log), step=0.25)
    first = next(e for e in t.log if e.seat == 1)
    assert first.time - started == pytest.approx(1.0)  # the AI's pause, searched or not
    assert pool.asked and pool.asked[0][2] == "strong" and pool.asked[0][3] <= 1.0
    normal = t.spec.ai()
    state = t.spec.game.create(4, t.options, t.seed)
    from engine.core import rng_for

    if answers:
        d = state.decision(1)
        assert first.code == Action(d.kind, tuple(d.cards[-d.pick:])).code
    else:
        assert first.code == normal.choose(state, 1, rng_for(t.seed, "ai", 0, 1)).code
    await rt.end(t.id, HOST)
    assert t.phase == Phase.FINISHED
