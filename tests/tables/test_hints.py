"""Hints at a table (tables/ai/hints.py, ``Runtime.hint``): only for the asker's own decision, searched
in the AI pool (the normal AI's choice when it is busy or the game has no strong AI), counted on the
seat and in the game's results for /stats — on both storage backends.  And the table option for the
default AI level (``Runtime.create(ai_level=)``)."""

from __future__ import annotations

import asyncio

import pytest

from cogs.table.stats import stats_line
from engine.core import TABLE, Action
from tables import Phase, TableError
from tables.ai.hints import MOVED_ON, NOT_YOUR_DECISION, TABLE_STEP
from tables.ai.pool import AIPool
from tables.history.records import rebuild, record_of
from tables.history.stats import summarise
from tests import wargame

from .conftest import GUILD, HOST, new_table, run_until
from .stores import StoredClock

BOB = 200
MCGILL = {"rules": "mcgill", "target": 1}  # no passing: a card to play at once


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


async def my_turn(rt, clock, t, seat: int = 0, choices: int = 2) -> None:
    """Play on (the person plays their first legal card) until ``seat`` has a decision of at
    least ``choices`` moves."""
    for _ in range(200):
        d = t.state.decision(seat) if seat in t.to_act() else None
        if d is not None and len(d.actions) >= choices:
            return
        if d is not None:
            await rt.act(t.id, t.seats[seat].user_id, d.actions[0])
        else:
            await clock.advance(1.0)
    raise AssertionError("the seat never had a choice")


class RecordingPool:
    """An AI pool that runs ``during`` (say, a person's move) instead of a search, then answers."""

    playouts = 10

    def __init__(self, during=None, answer=None) -> None:
        self.during, self.answer, self.asked = during, answer, 0

    async def run(self, fn, *args, budget=None):
        self.asked += 1
        if self.during is not None:
            await self.during()
        return self.answer

    async def choose(self, *a, **kw):  # strong AI seats (none here)
        return None


async def test_a_hint_is_for_your_own_decision_and_is_counted(make_runtime, clock):
    rt = make_runtime()
    t = await new_table(rt, options=MCGILL)
    with pytest.raises(TableError, match="game in play"):
        await rt.hint(t.id, HOST)
    await rt.start(t.id, HOST)
    await my_turn(rt, clock, t)
    d = t.state.decision(0)
    h = await rt.hint(t.id, HOST)
    assert h.level == "normal"  # no AI pool: the normal AI's choice, at once
    assert h.action in d.actions and h.reason
    assert t.seats[0].hints == 1
    with pytest.raises(TableError) as no:
        await rt.hint(t.id, BOB)
    assert no.value.code == "not_seated"
    await rt.act(t.id, HOST, h.action)
    with pytest.raises(TableError) as no:
        await rt.hint(t.id, HOST)  # the AIs play next
    assert no.value.message == NOT_YOUR_DECISION and t.seats[0].hints == 1
    # The count is stored with the seats (a restart keeps it); a seat without hints writes none.
    back, _ = rebuild(record_of(t), t.log)
    assert [s.hints for s in back.seats] == [1, 0, 0, 0]
    assert '"hints"' not in record_of(t)["seats"].split("}", 1)[1]


async def test_a_strong_hint_is_searched_in_the_pool_and_a_busy_pool_gives_the_normal_one(make_runtime, clock):
    pool = AIPool(workers=1, playouts=60)
    await pool.start()
    try:
        rt = make_runtime(ai_pool=pool)
        t = await new_table(rt, options=MCGILL)
        await rt.start(t.id, HOST)
        await my_turn(rt, clock, t)
        h = await rt.hint(t.id, HOST)
        assert h.level == "strong" and pool.counts["searched"] == 1
        assert h.action in t.state.decision(0).actions and h.action.code in h.means
        assert "the search" in h.reason
        # Asked again for the same decision: the same answer, no second search, counted once.
        assert await rt.hint(t.id, HOST) == h and pool.counts["searched"] == 1 and t.seats[0].hints == 1
        await rt.act(t.id, HOST, h.action)
        await my_turn(rt, clock, t)
        pool._play.running = pool.max_concurrent  # every worker taken by other searches
        busy = await rt.hint(t.id, HOST)
        assert busy.level == "normal" and busy.means == {} and pool.counts["busy"] == 1
        assert t.seats[0].hints == 2
        # The busy answer was the normal AI's: asked again, the search is tried again (not counted).
        pool._play.running = 0
        again = await rt.hint(t.id, HOST)
        assert again.level == "strong" and pool.counts["searched"] == 2 and t.seats[0].hints == 2
    finally:
        pool._play.running = 0
        await pool.close()


async def test_a_game_without_a_strong_ai_never_asks_the_pool(make_runtime, clock):
    pool = RecordingPool()
    rt = make_runtime(ai_pool=pool)
    with wargame.registered():  # (every real game has a strong AI)
        t = await new_table(rt, game="war")
        await rt.start(t.id, HOST)
        for _ in range(300):
            if 0 in t.to_act() and t.state.decision(0) is not None and TABLE not in t.state.to_act():
                break
            await clock.advance(1.0)
        h = await rt.hint(t.id, HOST)
    assert h.level == "normal" and pool.asked == 0 and t.seats[0].hints == 1


async def test_a_double_click_runs_one_search_and_counts_once(make_runtime, clock):
    rt = make_runtime()
    t = await new_table(rt, options=MCGILL)
    await rt.start(t.id, HOST)
    await my_turn(rt, clock, t)
    d = t.state.decision(0)
    running = []

    async def searching() -> None:
        running.append(1)
        assert len(running) == 1, "two searches at once for one seat"
        await asyncio.sleep(0.01)
        running.pop()

    pool = rt.hints.ai_pool = RecordingPool(during=searching, answer=(d.actions[-1].code, "why", {"x": 1.0}))
    first, second = await asyncio.gather(rt.hint(t.id, HOST), rt.hint(t.id, HOST))
    assert first == second and first.action == d.actions[-1] and first.level == "strong"
    assert pool.asked == 1 and t.seats[0].hints == 1
    # A third time, later: the same answer, still one search, still one decision counted.
    assert await rt.hint(t.id, HOST) == first and pool.asked == 1 and t.seats[0].hints == 1


async def test_the_same_decision_counts_once_while_others_pass_and_after_a_restart(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await new_table(rt)  # classic Hearts: everyone passes three cards at once
    await rt.start(t.id, HOST)
    d = t.state.decision(0)
    assert d.kind == "pass" and t.state.to_act() == (0, 1, 2, 3)
    await rt.hint(t.id, HOST)
    version = t.version
    await run_until(clock, lambda: t.state.to_act() == (0,))  # the AIs pass
    assert t.version > version and t.state.decision(0) == d
    await rt.hint(t.id, HOST)  # the table moved, the person's decision did not
    assert t.seats[0].hints == 1 and t.seats[0].hinted_at is not None
    # Stored: a restart does not make the same question count again.
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    back = rt2.get(t.id)
    assert (back.seats[0].hints, back.seats[0].hinted_at) == (1, t.seats[0].hinted_at)
    await rt2.hint(t.id, HOST)
    assert back.seats[0].hints == 1
    # Passing begins the next decision: a hint for it counts.
    await rt2.act(t.id, HOST, Action("pass", tuple(d.cards[:3])))
    await run_until(clock, lambda: 0 in back.to_act() and len(back.state.decision(0).actions) >= 1)
    await rt2.hint(t.id, HOST)
    assert back.seats[0].hints == 2
    await rt2.close()


async def test_a_hint_that_comes_after_the_person_moved_is_not_given(make_runtime, clock):
    rt = make_runtime()
    t = await new_table(rt, options=MCGILL)
    await rt.start(t.id, HOST)
    await my_turn(rt, clock, t)
    d = t.state.decision(0)

    async def person_plays() -> None:
        await rt.act(t.id, HOST, d.actions[0])

    rt.hints.ai_pool = RecordingPool(during=person_plays, answer=(d.actions[-1].code, "why", {}))
    with pytest.raises(TableError) as no:
        await rt.hint(t.id, HOST)
    assert no.value.message == MOVED_ON and t.seats[0].hints == 0


async def test_no_hint_while_the_table_deals(make_runtime, clock):
    rt = make_runtime(table_pace=1.0)
    t = await new_table(rt, game="koth", options={"rounds": 1, "ready_round": 0})
    await rt.join(t.id, BOB, "Bob")
    await rt.start(t.id, HOST)
    assert TABLE in t.state.to_act()
    # The same sentence for everyone, whatever their cards allow them to declare.
    for user in (HOST, BOB):
        with pytest.raises(TableError) as no:
            await rt.hint(t.id, user)
        assert no.value.message == TABLE_STEP
    await rt.end(t.id, HOST)


async def test_hints_are_in_the_results_and_the_stats(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await new_table(rt, options=MCGILL)
    await rt.join(t.id, BOB, "Bob")
    await rt.start(t.id, HOST)
    await my_turn(rt, clock, t)
    h = await rt.hint(t.id, HOST)
    await rt.hint(t.id, HOST)  # the same decision: counted once
    await rt.act(t.id, HOST, h.action)
    await my_turn(rt, clock, t)
    await rt.hint(t.id, HOST)  # a new one
    for user in (HOST, BOB):
        await rt.leave(t.id, user)  # the AI finishes the hand for them
    await run_until(clock, lambda: t.phase == Phase.FINISHED)
    await clock.settle()
    assert store.rows("SELECT seat, hints FROM results WHERE table_id = ? ORDER BY seat", (t.id,)) == [(0, 2), (1, 0)]
    storage = rt.storage
    (mine,) = summarise(await storage.player_results(GUILD, HOST))
    (bob,) = summarise(await storage.player_results(GUILD, BOB))
    assert (mine.games, mine.hinted, mine.hinted_wins) == (1, 1, int(mine.wins == 1))
    assert bob.hinted == 0 and "hints" not in stats_line(bob)
    assert "**1** game, 1 with hints" in stats_line(mine)
    if mine.wins:
        assert "1 won with hints" in stats_line(mine)


def test_stats_say_how_many_games_and_wins_had_hints():
    rows = [{"game": "hearts", "won": w, "place": 1 if w else 3, "score": 10, "hints": n, "figures": "{}"}
            for w, n in ((1, 2), (1, 0), (0, 1), (0, 0))]
    (g,) = summarise(rows)
    assert (g.games, g.wins, g.hinted, g.hinted_wins) == (4, 2, 2, 1)
    line = stats_line(g)
    assert "**4** games, 2 with hints" in line and "**2** wins (50%), 1 won with hints" in line
    (old,) = summarise([{k: v for k, v in r.items() if k != "hints"} for r in rows])  # rows from before hints
    assert old.hinted == 0 and "hints" not in stats_line(old)


# ==== the table's default AI level ===============================================================
async def test_the_table_option_sets_the_level_of_ais_added_without_one(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await new_table(rt, ai_level="strong")
    assert t.ai_level == "strong"
    await rt.add_ai(t.id, HOST, 1)  # no level: the table's
    await rt.add_ai(t.id, HOST, 1, level="normal")  # said: normal
    await rt.start(t.id, HOST)  # the empty seat: the table's
    assert [(s.name, s.level) for s in t.seats[1:]] == [("AI 1 (strong)", "strong"), ("AI 2", None),
                                                        ("AI 3 (strong)", "strong")]
    # Kept across a restart.
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    assert rt2.get(t.id).ai_level == "strong"
    assert [s.level for s in rt2.get(t.id).seats] == [None, "strong", None, "strong"]
    plain = await new_table(rt2, host=BOB, name="Bob")
    assert plain.ai_level is None
    await rt2.add_ai(plain.id, BOB, 1)
    assert plain.seats[1].level is None


async def test_a_game_without_a_strong_ai_refuses_the_option(make_runtime):
    rt = make_runtime()
    with wargame.registered(), pytest.raises(TableError) as no:
        await new_table(rt, game="war", ai_level="strong")
    assert no.value.code == "bad_level"
    assert no.value.message.startswith("War has only the normal AI")
    assert not rt.tables
    with wargame.registered():
        t = await new_table(rt, game="war", ai_level="normal")
    assert t.ai_level is None


async def test_a_siege_hint_is_searched_and_says_why_in_words(make_runtime, clock):
    """Siege has a strong AI too: its hint is searched in the pool and its reason is in words (card
    labels and pile marks, never a card code or a seat number)."""
    import re

    pool = AIPool(workers=1, playouts=30)
    await pool.start()
    try:
        rt = make_runtime(ai_pool=pool)
        t = await new_table(rt, game="siege")
        await rt.start(t.id, HOST)
        for _ in range(300):
            d = t.state.decision(0) if 0 in t.to_act() else None
            if d is not None and len(d.actions) >= 2 and TABLE not in t.state.to_act():
                break
            await clock.advance(1.0)
        h = await rt.hint(t.id, HOST)
        assert h.level == "strong" and pool.counts["searched"] == 1
        assert h.action in t.state.decision(0).actions
        assert "the search" in h.reason, h.reason
        assert not re.search(r"\b(?:[2-9TJQA][HSDCX])\b|seat", h.reason), h.reason
    finally:
        await pool.close()
