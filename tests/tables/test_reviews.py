"""Reviews of a person's play at the runtime (tables/ai/reviews.py, ``Runtime.review``): only for someone
who sat at the table, only once the game is over, run in the real AI pool, stored on both backends
so that a second request (even from another process) reads it instead of searching again."""

from __future__ import annotations

import re

import pytest

from cogs.table.stats import StatsCog, stats_line
from engine.review import JUDGED, Review
from tables import Phase, TableError
from tables.ai.pool import AIPool
from tables.ai.reviews import GAVE_UP, Reviews, pieces, summary
from tables.history.stats import summarise
from tests.cogs.fakes import FakeBot, FakeInteraction, FakeUser, World

from .conftest import GUILD, HOST, new_table
from .stores import StoredClock

BOB = 200
MCGILL = {"rules": "mcgill", "target": 1}  # no passing, one hand


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


async def play_to_the_end(rt, clock, t) -> None:
    """The host plays the last legal card of each of their decisions (a choice, not the clock's
    safe move), the AIs the rest, until the game is over."""
    for _ in range(2000):
        if t.phase == Phase.FINISHED:
            return
        d = t.state.decision(0) if 0 in t.to_act() else None
        if d is not None:
            await rt.act(t.id, HOST, d.actions[-1])
        else:
            await clock.advance(1.0)
    raise AssertionError("the game never ended")


class NoPool:
    """An AI pool that must not be asked (a stored review is read, not searched again)."""

    playouts = 10
    asked = 0

    async def run_background(self, fn, *args, budget=None):
        self.asked += 1
        raise AssertionError("the review was searched again")


def test_pieces_cut_the_budget_into_short_runs() -> None:
    assert pieces(list(range(10)), 0.5, 2.0) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert pieces([3, 9], 5.0, 2.0) == [[3], [9]]  # a share above the piece budget: one at a time


async def test_a_review_is_for_your_own_finished_game_and_is_stored(make_runtime, clock, store):
    pool = AIPool(workers=1, playouts=16)
    await pool.start()
    try:
        rt = make_runtime(storage=await store.open(), ai_pool=pool)
        rt.reviews.budget, rt.reviews.playouts = 4.0, 16  # a small budget: the test is about the plumbing
        t = await new_table(rt, options=MCGILL)
        await rt.start(t.id, HOST)
        await clock.advance(1.0)
        with pytest.raises(TableError) as no:
            await rt.review(t.id, GUILD, HOST)
        assert no.value.code == "running"
        await play_to_the_end(rt, clock, t)
        with pytest.raises(TableError) as no:
            await rt.review(t.id, GUILD, BOB)
        assert no.value.code == "not_seated"
        with pytest.raises(TableError) as no:
            await rt.review(t.id, GUILD + 1, HOST)  # another server's game is not found
        assert no.value.code == "unknown_table"

        tables_lane = dict(pool.counts)
        record, r = await rt.review(t.id, GUILD, HOST)
        mine = [i for i, e in enumerate(t.log) if e.seat == 0]
        assert [d.step for d in r.decisions] == mine and r.searched and r.units == "points"
        assert r.judged and all(d.mark in JUDGED or d.mark in ("only move",) for d in r.decisions)
        # The review ran in the background lane: the tables' workers never saw it.
        searched = pool.background_counts["searched"]
        assert searched >= 1 and pool.counts == tables_lane
        lines = summary(record, r)
        assert lines[0].startswith("Review of your play in Hearts") and f"{len(r.judged)} decisions judged" in lines[0]
        # No action codes (``play QS``), no seat numbers: cards as a player reads them.
        assert not any(re.search(r"\b[2-9TJQKA][CDHS]\b|seat", line, re.I) for line in lines), lines

        assert store.rows("SELECT seat, user_id, game, judged FROM reviews") == [(0, HOST, "hearts", len(r.judged))]
        # Asked again: read from the storage, no search.
        assert (await rt.review(t.id, GUILD, HOST))[1] == r and pool.background_counts["searched"] == searched
        got = await rt.reviews.losses(GUILD, HOST)
        assert set(got) == {"hearts"} and got["hearts"][1] == 1
        assert got["hearts"][0] == pytest.approx(r.average_loss)
        # /stats shows it beside the rating, in the game's units.
        w = World()
        w.runtime = rt
        cog = StatsCog(rt)
        i = FakeInteraction(w, FakeBot(w), FakeUser(HOST, "Ann"), w.channel("cards"), guild_id=GUILD)
        await cog.stats.callback(cog, i, None)
        [field] = i.last.embed.fields
        said = f"reviewed play **{r.average_loss:.2f}** points lost a decision (1 game)"
        assert field.value.split(" · ")[0] == said  # no rating computed here: the review comes first
        [g] = summarise(await rt.storage.player_results(GUILD, HOST))
        beside = stats_line(g, {"mu": 27.0, "sigma": 2.0}, got["hearts"]).split(" · ")
        assert beside[0].startswith("rating ") and beside[1] == said
        await rt.close()

        # Another process, the table long gone from memory: the stored review, still no search.
        idle = NoPool()
        rt2 = make_runtime(storage=await store.open(), ai_pool=idle)
        assert (await rt2.review(t.id, GUILD, HOST))[1] == r and idle.asked == 0
    finally:
        await pool.close()


async def test_a_pool_that_stays_busy_gets_a_sentence(make_runtime, clock, monkeypatch):
    import tables.ai.reviews as reviews

    class Busy:
        playouts = 10

        async def run_background(self, fn, *args, budget=None):
            return None

    monkeypatch.setattr(reviews, "PATIENCE", 1.0)
    monkeypatch.setattr(reviews, "RETRY", 0.01)
    rt = make_runtime(ai_pool=Busy())
    t = await new_table(rt, options=MCGILL)
    await rt.start(t.id, HOST)
    await play_to_the_end(rt, clock, t)
    with pytest.raises(TableError) as no:
        await rt.review(t.id, GUILD, HOST)
    assert no.value.message == GAVE_UP


async def test_without_workers_or_storage_a_review_runs_in_a_thread_and_is_kept(make_runtime, clock):
    rt = make_runtime()
    rt.reviews.budget, rt.reviews.playouts = 2.0, 8
    t = await new_table(rt, options=MCGILL)
    await rt.start(t.id, HOST)
    await play_to_the_end(rt, clock, t)
    _, r = await rt.review(t.id, GUILD, HOST)
    assert r.judged and isinstance(r, Review)
    assert isinstance(rt.reviews, Reviews) and (await rt.review(t.id, GUILD, HOST))[1] is r  # kept in memory


async def test_the_game_review_command(make_runtime, clock):
    from cogs.table.game import GameCog

    rt = make_runtime()
    rt.reviews.budget, rt.reviews.playouts = 2.0, 8
    w = World()
    w.runtime = rt
    bot, cog, channel = FakeBot(w), GameCog(rt), w.channel("cards")
    t = await new_table(rt, options=MCGILL)
    await rt.start(t.id, HOST)
    await clock.advance(1.0)
    early = FakeInteraction(w, bot, FakeUser(HOST, "Ann"), channel, guild_id=GUILD)
    await cog.game_review.callback(cog, early, t.id)
    assert early.last.ephemeral and "still running" in early.last.content
    await play_to_the_end(rt, clock, t)
    stranger = FakeInteraction(w, bot, FakeUser(BOB, "Bob"), channel, guild_id=GUILD)
    await cog.game_review.callback(cog, stranger, t.id)
    assert stranger.last.ephemeral and "Only the people who played" in stranger.last.content
    i = FakeInteraction(w, bot, FakeUser(HOST, "Ann"), channel, guild_id=GUILD)
    await cog.game_review.callback(cog, i, t.id)
    msg = i.last
    assert msg.ephemeral and f"table {t.id}" in msg.embed.title and "review of your play" in msg.embed.title
    assert "decisions judged" in msg.embed.description and "never from the cards shown later" in msg.embed.footer.text
    # The replay viewer's Review my play: the same review (stored: at once), in a message of its own.
    click = FakeInteraction(w, bot, FakeUser(HOST, "Ann"), channel, guild_id=GUILD)
    await cog.on_replay(click, t.id, 7, "review", [])
    assert click.last.ephemeral and click.last.embed.description == msg.embed.description
    stranger = FakeInteraction(w, bot, FakeUser(BOB, "Bob"), channel, guild_id=GUILD)
    await cog.on_replay(stranger, t.id, 7, "review", [])
    assert stranger.last.ephemeral and "Only the people who played" in stranger.last.content
    assert not w.violations


def test_the_summary_names_the_costly_move_and_the_better_one_in_plain_words() -> None:
    from engine.review import review
    from tables.history.replay import GameRecord
    from tables.table import LogEntry
    from tests.engine.test_review import hearts_game_with_planted_queen

    seed, at, log = hearts_game_with_planted_queen()
    record = GameRecord(id="ABC123", game="hearts", options={"target": 1}, seed=seed, names=["Ann", "B", "C", "D"],
                        ai=[False, True, True, True], log=[LogEntry(i + 1, s, c, 0.0) for i, (s, c) in enumerate(log)])
    later = next(i for i in range(at + 1, len(log)) if log[i][0] == 0)
    flags = [(s, c, i == later) for i, (s, c) in enumerate(log)]  # one later move made for the person
    r = review("hearts", 4, {"target": 1}, seed, flags, 0, "x", playouts=120, steps=[at, later])
    lines = summary(record, r)
    assert lines[0] == "Review of your play in Hearts (table ABC123): 1 decision judged — 0 fine, 0 inaccuracies, " \
                       "1 mistake."
    assert any(line.startswith("1 move was made for you") for line in lines)
    worst = lines[-1]
    assert "you played Q♠; " in worst and "♠ was better by about " in worst and worst.endswith("points (a mistake).")
    assert worst.startswith("Hand 1, trick ")
    # The message's menu opens the replay viewer right after the move (the viewer's own jump ids).
    from cogs.replay.review import review_message
    from cogs.table.custom_ids import JUMP_TEMPLATE
    from tables.ai.reviews import places

    embed, view = review_message(record, r, places(record, [at, later]))
    [menu] = view.children
    assert re.fullmatch(JUMP_TEMPLATE, menu.item.custom_id)
    [option] = menu.item.options
    assert option.value == str(at + 1) and option.label == f"{worst.split(':')[0]} — mistake"
    assert embed.description == "\n".join(lines)


async def test_a_whole_hearts_game_is_reviewed_within_a_cpu_minute() -> None:
    """Issue 35: a Hearts game to 100 is reviewed within 60 CPU seconds — the decisions' shares of
    the runtime's budget add up to no more (each decision's search stops at its share)."""
    import random

    import engine
    from tables.ai.reviews import GAME_BUDGET, ReviewJob
    from tables.history.replay import GameRecord
    from tables.table import LogEntry

    e = engine.get("hearts")
    g = e.game.create(4, {"target": 100}, 5)
    ai, rng = e.ai(), random.Random(5)
    log: list[LogEntry] = []
    while not g.is_over:
        s = g.to_act()[0]
        a = ai.choose(g, s, rng)
        g.apply(s, a)
        log.append(LogEntry(len(log) + 1, s, a.code, 0.0))
    record = GameRecord(id="CPU1", game="hearts", options={"target": 100}, seed=5, names=["A", "B", "C", "D"],
                        ai=[False, True, True, True], log=log, user_ids=[HOST, None, None, None])
    runs = Reviews(None, None, StoredClock())
    assert runs.budget == GAME_BUDGET <= 60.0
    job = ReviewJob(record, 0, GUILD, HOST, runs.budget)
    mine = [e for e in log if e.seat == 0]
    assert len(mine) > 60  # a long game: the budget, not the per-decision cap, sets the share
    assert job.share * len(mine) <= 60.0


def test_the_plan_gives_what_a_decision_did_not_need_to_the_ones_after_it() -> None:
    """The game's budget is spent piece by piece: a piece that took less than its shares (one legal
    move, a pass, equivalent cards) leaves the rest to the decisions after it, and what is charged
    never runs past the budget."""
    from tables.ai.reviews import DECISION_CAP, PIECE_BUDGET, Plan

    plan = Plan(list(range(40)), 20.0)
    assert plan.share == 0.5
    first = plan.next_piece()
    assert first == list(range(int(PIECE_BUDGET // 0.5)))
    plan.charge(first, 0.1)  # four decisions that needed almost nothing
    assert plan.share == pytest.approx(19.9 / 36) and plan.share > 0.5
    spent = 0.1
    while piece := plan.next_piece():
        cost = plan.share * len(piece)
        plan.charge(piece, cost)
        spent += cost
    assert plan.left == [] and spent == pytest.approx(20.0)
    plan = Plan([1, 2], 100.0)
    assert plan.share == DECISION_CAP  # a short game gets no more than a long one's decision
    plan.charge(plan.next_piece(), 200.0)  # overspent: what is left is judged out of time, not searched
    assert plan.share == 0.0 and plan.next_piece() == [2]
