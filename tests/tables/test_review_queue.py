"""Reviews wait in line (tables/ai/reviews.py, cogs/replay/review.py; issue 29 item 11): first come, first
served on the review workers, one review in line per person, the place in line and an estimate shown
while waiting, each judged decision stored as it completes (a retry resumes), and a review that
outlives the interaction's token kept and shown at once on the next ask.

The AI pool here is a stand-in whose background lane judges nothing until the test lets a piece
through (:class:`GatedPool`): which pieces were asked for, in what order and how many at once is
what these tests look at.  Time is the runtime's fake clock, which the interactions' tokens live on."""

from __future__ import annotations

import asyncio

import pytest

import engine
from engine.review import FINE, Judged, Review
from tables import Phase, TableError
from tests import wargame
from tests.cogs.fakes import FakeBot, FakeInteraction, FakeUser, World

from .conftest import GUILD, HOST, new_table
from .stores import StoredClock

BOB, CY = 200, 300
MCGILL = {"rules": "mcgill", "target": 1}  # no passing, one hand


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


class GatedPool:
    """An AI pool whose background lane takes any number of pieces and answers each only when the
    test lets one through (``release``); every piece asked for is written down as (table, steps)."""

    playouts = 10

    def __init__(self, workers: int = 1, gated: bool = True) -> None:
        self.background_workers = workers
        self.gated = gated
        self.calls: list[tuple[str, tuple[int, ...]]] = []
        self.running = self.most = 0
        self._gate = asyncio.Semaphore(0)

    def release(self, n: int = 1) -> None:
        for _ in range(n):
            self._gate.release()

    @property
    def judged(self) -> int:
        """Decisions the workers were asked to judge."""
        return sum(len(steps) for _, steps in self.calls)

    async def run_background(self, fn, *args, budget=None):
        game, _players, _options, _seed, actions, seat, review_seed, steps, _share, _playouts = args
        self.calls.append((review_seed.split("/")[0], tuple(steps)))
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            if self.gated:
                await self._gate.acquire()
        finally:
            self.running -= 1
        spec = engine.get(game)
        return Review(game, seat, spec.review_units, spec.review_thresholds,
                      [Judged(s, actions[s][1], FINE, 0.0, actions[s][1], 0.0, 0.0, 2) for s in steps]).to_dict()


async def finished_game(rt, clock, host: int = HOST, name: str = "Ann"):
    """A finished one-hand Hearts game hosted by ``host`` (seat 0; the AIs at the other seats): the
    host plays the last legal card of each of their decisions, never the clock's move."""
    t = await new_table(rt, host=host, name=name, options=MCGILL)
    await rt.start(t.id, host)
    for _ in range(2000):
        if t.phase == Phase.FINISHED:
            return t
        d = t.state.decision(0) if 0 in t.to_act() else None
        if d is not None:
            await rt.act(t.id, host, d.actions[-1])
        else:
            await clock.advance(1.0)
    raise AssertionError("the game never ended")


def decisions(t, seat: int = 0) -> list[int]:
    return [i for i, e in enumerate(t.log) if e.seat == seat and not e.auto]


async def let_through(pool: GatedPool, clock, until) -> None:
    """Let pieces through one at a time until ``until()`` (at most as many as there are decisions)."""
    for _ in range(500):
        if until():
            return
        pool.release()
        await clock.settle()
    assert until(), "the reviews never finished"


def cog_for(rt, clock):
    from cogs.table.game import GameCog

    w = World()
    w.runtime = rt
    w.now = clock.now  # the interactions' tokens live on the runtime's clock
    return w, FakeBot(w), GameCog(rt), w.channel("cards")


async def test_reviews_are_served_first_come_first_served_one_after_another(make_runtime, clock):
    pool = GatedPool(workers=1)
    rt = make_runtime(ai_pool=pool)
    people = [(HOST, "Ann"), (BOB, "Bob"), (CY, "Cy")]
    tables = [await finished_game(rt, clock, uid, name) for uid, name in people]
    finished: list[str] = []
    asks = []
    for t, (uid, _) in zip(tables, people, strict=True):  # asked in this order
        task = asyncio.create_task(rt.review(t.id, GUILD, uid))
        task.add_done_callback(lambda _t, tid=t.id: finished.append(tid))
        asks.append(task)
        await clock.settle()
    await let_through(pool, clock, lambda: all(a.done() for a in asks))
    ids = [t.id for t in tables]
    assert finished == ids
    # One review at a time on the one worker, each whole before the next: never interleaved.
    assert pool.most == 1
    order = [tid for tid, _ in pool.calls]
    assert order == sorted(order, key=ids.index)
    for t, a in zip(tables, asks, strict=True):
        assert [d.step for d in a.result()[1].decisions] == decisions(t)
        assert sum(len(s) for tid, s in pool.calls if tid == t.id) == len(decisions(t))


async def test_two_workers_serve_two_reviews_at_once_and_the_third_waits(make_runtime, clock):
    pool = GatedPool(workers=2)
    rt = make_runtime(ai_pool=pool)
    people = [(HOST, "Ann"), (BOB, "Bob"), (CY, "Cy")]
    tables = [await finished_game(rt, clock, uid, name) for uid, name in people]
    jobs = []
    for t, (uid, _) in zip(tables, people, strict=True):
        jobs.append(await rt.reviews.request(await rt.history(t.id, GUILD), GUILD, uid))
        await clock.settle()
    assert [rt.reviews.place(j) for j in jobs] == [0, 0, 1]
    assert {tid for tid, _ in pool.calls} == {tables[0].id, tables[1].id} and pool.most == 2
    await let_through(pool, clock, lambda: all(j.done for j in jobs))
    assert pool.most == 2


async def test_one_review_in_line_per_person_more_gets_a_sentence(make_runtime, clock):
    pool = GatedPool(workers=1)
    rt = make_runtime(ai_pool=pool)
    first = await finished_game(rt, clock)
    second = await finished_game(rt, clock)
    w, bot, cog, channel = cog_for(rt, clock)
    ann = FakeUser(HOST, "Ann")
    asked = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    waiting = asyncio.create_task(cog.game_review.callback(cog, asked, first.id))
    await clock.settle()
    assert asked.last.ephemeral and asked.last.content.startswith("⏳ Reviewing your play now")
    again = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    more = asyncio.create_task(cog.game_review.callback(cog, again, second.id))
    await clock.settle()
    assert more.done() and again.replies and again.last.ephemeral
    from tables.ai.reviews import ONE_AT_A_TIME

    assert again.last.content == ONE_AT_A_TIME.format(table=first.id)
    # Nothing of the second game was queued or asked of the workers.
    assert {tid for tid, _ in pool.calls} == {first.id}
    assert (second.id, 0) not in rt.reviews._jobs
    with pytest.raises(TableError) as no:
        await rt.reviews.request(await rt.history(second.id, GUILD), GUILD, HOST)
    assert no.value.code == "one_review"
    # Asking again for the same review joins it (no second run, no refusal).
    same = await rt.reviews.request(await rt.history(first.id, GUILD), GUILD, HOST)
    assert not isinstance(same, Review) and same.key == (first.id, 0)

    await let_through(pool, clock, waiting.done)
    assert "review of your play" in asked.last.embed.title and asked.last.content is None
    assert {tid for tid, _ in pool.calls} == {first.id}
    # Once it is done the next one may be asked for.
    pool.gated = False
    _, r = await rt.review(second.id, GUILD, HOST)
    assert [d.step for d in r.decisions] == decisions(second)


async def test_the_waiting_line_says_the_place_and_when_and_moves_up(make_runtime, clock):
    from cogs.replay.review import waiting_line

    pool = GatedPool(workers=1)
    rt = make_runtime(ai_pool=pool)
    ann_game = await finished_game(rt, clock, HOST, "Ann")
    bob_game = await finished_game(rt, clock, BOB, "Bob")
    w, bot, cog, channel = cog_for(rt, clock)
    ann = FakeInteraction(w, bot, FakeUser(HOST, "Ann"), channel, guild_id=GUILD)
    bob = FakeInteraction(w, bot, FakeUser(BOB, "Bob"), channel, guild_id=GUILD)
    tasks = [asyncio.create_task(cog.game_review.callback(cog, ann, ann_game.id))]
    await clock.settle()
    tasks.append(asyncio.create_task(cog.game_review.callback(cog, bob, bob_game.id)))
    await clock.settle()
    reviews = rt.reviews
    ann_job = reviews._jobs[(ann_game.id, 0)]
    bob_job = reviews._jobs[(bob_game.id, 0)]
    ahead = reviews.estimate(ann_job)
    behind = reviews.estimate(bob_job)
    assert 0 < ahead < behind  # Bob's waits for Ann's
    assert ann.last.content == waiting_line(ann_game.id, 0, ahead)
    assert bob.last.content == waiting_line(bob_game.id, 1, behind)
    assert bob.last.content.startswith("⏳ Your review is next in line; it should be ready in ")
    assert "within 15 minutes, ask again with `/game review id:" in bob.last.content
    assert "1 minutes" not in bob.last.content
    # Ann's done: Bob's line says his is running now.
    await let_through(pool, clock, tasks[0].done)
    assert "review of your play" in ann.last.embed.title
    assert bob.last.content.startswith("⏳ Reviewing your play now; it should be ready ")
    await let_through(pool, clock, tasks[1].done)
    assert "review of your play" in bob.last.embed.title
    assert not any(i.errors for i in (ann, bob))


def test_the_waiting_line_in_words() -> None:
    from cogs.replay.review import waiting_line

    assert waiting_line("ABC123", 3, 30) == (
        "⏳ Your review is number 3 in line; it should be ready in less than a minute. It is kept once done: if "
        "it has not appeared here within 15 minutes, ask again with `/game review id:ABC123` and it shows at once.")
    assert "in about 1 minute." in waiting_line("ABC123", 1, 80)
    assert "in about 12 minutes." in waiting_line("ABC123", 0, 12 * 60 + 10)


async def test_a_review_cut_short_resumes_without_judging_again(make_runtime, clock, store):
    pool = GatedPool(workers=1)
    rt = make_runtime(storage=await store.open(), ai_pool=pool)
    t = await finished_game(rt, clock)
    mine = decisions(t)
    asked = asyncio.create_task(rt.review(t.id, GUILD, HOST))
    await clock.settle()
    await let_through(pool, clock, lambda: store.rows("SELECT COUNT(*) FROM review_progress") == [(3,)])
    await rt.close()  # the bot stops mid-review
    assert asked.cancelled() or asked.done()
    kept = store.rows("SELECT step FROM review_progress ORDER BY step")
    assert [s for (s,) in kept] == mine[:3] and store.rows("SELECT COUNT(*) FROM reviews") == [(0,)]

    # The next process: the three stored decisions are not judged again.
    again = GatedPool(workers=1, gated=False)
    rt2 = make_runtime(storage=await store.open(), ai_pool=again)
    _, r = await rt2.review(t.id, GUILD, HOST)
    assert again.judged == len(mine) - 3
    assert {s for _, steps in again.calls for s in steps} == set(mine[3:])
    assert [d.step for d in r.decisions] == mine and all(d.mark == FINE for d in r.decisions)
    assert store.rows("SELECT COUNT(*) FROM review_progress") == [(0,)]
    assert store.rows("SELECT seat, judged FROM reviews") == [(0, len(mine))]


async def test_a_review_that_outlives_the_token_is_kept_and_shown_at_once(make_runtime, clock, store):
    pool = GatedPool(workers=1)
    rt = make_runtime(storage=await store.open(), ai_pool=pool)
    t = await finished_game(rt, clock)
    w, bot, cog, channel = cog_for(rt, clock)
    ann = FakeUser(HOST, "Ann")
    first = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    waiting = asyncio.create_task(cog.game_review.callback(cog, first, t.id))
    await clock.settle()
    assert first.last.content.startswith("⏳ Reviewing your play now")
    pool.release(2)
    await clock.settle()
    from cogs.replay.review import kept_line

    # Past the token's 15 minutes, the review not done: the message says it is kept, and no more.
    await clock.advance(15 * 60 + 1)
    assert waiting.done() and not waiting.cancelled() and waiting.exception() is None
    assert first.last.content == kept_line(t.id) and first.last.embed is None
    # The review finishes later and is stored, the first message untouched.
    await let_through(pool, clock, lambda: store.rows("SELECT COUNT(*) FROM reviews") == [(1,)])
    await clock.settle()
    assert first.last.content == kept_line(t.id) and first.last.embed is None
    asked = len(pool.calls)
    # Asked again: at once, from the storage.
    second = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.game_review.callback(cog, second, t.id)
    assert "review of your play" in second.last.embed.title and "decisions judged" in second.last.embed.description
    assert len(pool.calls) == asked
    assert not first.errors and not second.errors


async def test_a_game_without_a_search_answers_at_once_even_with_a_review_in_line(make_runtime, clock):
    from tables.history.replay import GameRecord

    pool = GatedPool(workers=1)
    rt = make_runtime(ai_pool=pool)
    t = await finished_game(rt, clock)
    job = await rt.reviews.request(await rt.history(t.id, GUILD), GUILD, HOST)
    assert not isinstance(job, Review) and not job.done
    war = GameRecord(id="WAR1", game="war", options={}, seed=3, names=["Ann", "AI"], ai=[False, True], log=[],
                     user_ids=[HOST, None])
    with wargame.registered():  # (every real game has a strong AI)
        said = await rt.reviews.request(war, GUILD, HOST)
    assert isinstance(said, Review) and not said.searched and "cannot be reviewed" in said.note
    await let_through(pool, clock, lambda: job.done)


async def test_a_bot_stopping_mid_review_tells_those_waiting_to_ask_again(make_runtime, clock):
    from cogs.replay.review import stopped_line

    pool = GatedPool(workers=1)
    rt = make_runtime(ai_pool=pool)
    ann_game = await finished_game(rt, clock, HOST, "Ann")
    bob_game = await finished_game(rt, clock, BOB, "Bob")
    w, bot, cog, channel = cog_for(rt, clock)
    ann = FakeInteraction(w, bot, FakeUser(HOST, "Ann"), channel, guild_id=GUILD)
    bob = FakeInteraction(w, bot, FakeUser(BOB, "Bob"), channel, guild_id=GUILD)
    waits = [asyncio.create_task(cog.game_review.callback(cog, ann, ann_game.id))]
    await clock.settle()
    waits.append(asyncio.create_task(cog.game_review.callback(cog, bob, bob_game.id)))
    await clock.settle()
    await rt.close()  # Ann's running, Bob's in line
    await clock.settle()
    assert all(t.done() and t.exception() is None for t in waits)
    assert ann.last.content == stopped_line(ann_game.id) and bob.last.content == stopped_line(bob_game.id)
