"""Shard leases on the real PostgreSQL (tables/shards/lease.py): one process holds a shard, a second one
configured for it stands by, and when the holder's lease session dies the holder stops driving the
shard's tables at once and the standby takes them over — every game then finishes exactly as it
would have without the takeover (no action lost, none applied twice)."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from tables import Phase, Runtime, SystemClock, TableError
from tables.shards import STARTING, Shards
from tables.shards.lease import Leases

from .stores import PostgresStore
from .test_recovery_kill import AI_DELAY, HOSTS, RNG, reference_logs, setup_tables, wait_real

POLL = 0.05


@pytest.fixture
async def pg(pg_server):
    store = await PostgresStore(pg_server).create()
    yield store
    await store.cleanup()


async def until(done, timeout: float = 20.0) -> float:
    began = time.monotonic()
    while not done():
        if time.monotonic() - began > timeout:
            raise AssertionError("timed out")
        await asyncio.sleep(0.005)
    return time.monotonic() - began


def kill_session(store: PostgresStore, leases: Leases) -> None:
    """What a dead process, a lost network or an operator does to the holder's lease session."""
    assert leases._conn is not None
    pid = leases._conn.get_server_pid()
    assert store.rows("SELECT pg_terminate_backend(?)", (pid,)) == [(True,)]


async def test_one_holds_the_other_waits_and_takes_over(pg) -> None:
    lost: list[int] = []
    a = Leases(pg.url, Shards.of(2, leased=True), lost=lost.append, poll=POLL)
    b = Leases(pg.url, Shards.of(2, [1], leased=True), poll=POLL)
    other_schema = await PostgresStore(pg.server_url).create()
    c = Leases(other_schema.url, Shards.of(2, leased=True), poll=POLL)  # another deployment
    try:
        a.start()
        assert await asyncio.wait_for(a.wait_for_any(), 10) and await until(lambda: a.held == {0, 1}) < 10
        b.start()
        c.start()
        await asyncio.wait_for(c.wait_for_any(), 10)
        assert await until(lambda: c.held == {0, 1}) < 10  # a lease is per schema: no clash
        await asyncio.sleep(POLL * 6)
        assert b.held == set()  # standing by
        kill_session(pg, a)
        await until(lambda: not a.held, 5)
        assert sorted(lost) == [0, 1]
        await asyncio.wait_for(b.wait_for_any(), 10)
        assert b.held == {1}
        # a connects again and takes back what nobody holds (shard 0), never shard 1.
        await until(lambda: a.held == {0}, 10)
        await asyncio.sleep(POLL * 4)
        assert a.held == {0} and b.held == {1}
        await b.close()  # a clean stop gives the lease back
        await until(lambda: a.held == {0, 1}, 10)
    finally:
        for leases in (a, b, c):
            await leases.close()
        await other_schema.cleanup()


async def test_the_standby_finishes_every_game_when_the_holder_dies(pg) -> None:
    want, outcomes = await reference_logs()

    async def process() -> tuple[Runtime, Leases]:
        storage = await pg.open()
        rt = Runtime(storage=storage, clock=SystemClock(), rng=random.Random(RNG), ai_delay=AI_DELAY,
                     shards=Shards.of(1, leased=True))

        async def gained(shard: int) -> None:
            await rt.recover()

        return rt, Leases(pg.url, rt.shards, gained=gained, lost=rt.fence, poll=POLL)

    ra, la = await process()
    rb, lb = await process()
    writes: list[tuple[str, float]] = []  # the holder's writes, started when
    real_write = ra.storage.write
    # While the standby is watched, the holder's games wait at their next write: still running when
    # the holder is killed, however slowly the standby's rounds come.
    paused: asyncio.Event | None = None

    async def write(table_id, *args, **kw):
        writes.append((table_id, time.monotonic()))
        if paused is not None:
            await paused.wait()
        return await real_write(table_id, *args, **kw)

    ra.storage.write = write
    rounds = 0  # the standby's lease rounds
    real_step = lb.step

    async def step():
        nonlocal rounds
        rounds += 1
        return await real_step()

    lb.step = step
    try:
        la.start()
        await asyncio.wait_for(la.wait_for_any(), 10)
        lb.start()
        ids = await setup_tables(ra, wait_real)
        assert ids == list(want)
        paused = asyncio.Event()
        seen = rounds
        await until(lambda: rounds >= seen + 3, 10)
        assert lb.held == set() and rb.tables == {}  # the standby drives nothing
        at_kill = {tid: ra.get(tid).version for tid in ids}
        assert any(ra.get(tid).phase == Phase.RUNNING for tid in ids), "the games ended before the kill"
        paused.set()
        kill_session(pg, la)
        await until(lambda: not ra.tables, 15)  # fenced: it lets go of every table at once (15 s: a loaded CI box)
        fenced_at = time.monotonic()
        await asyncio.wait_for(lb.wait_for_any(), 10)
        await until(lambda: set(rb.tables) == set(ids), 10)
        await until(lambda: all(rb.get(tid).phase == Phase.FINISHED for tid in ids), 60)
        await until(lambda: not rb.storage.busy, 10)  # the last write committed
        # Nothing of the former holder's started after it fenced itself.
        assert not [w for w in writes if w[1] > fenced_at]
        assert any(rb.get(tid).version > at_kill[tid] for tid in ids)  # the standby did play on
        for tid, log in want.items():
            stored = pg.rows("SELECT seq, seat, code FROM actions WHERE table_id = ? ORDER BY seq", (tid,))
            assert stored == log, f"table {tid} differs from the game played in one go"
            assert pg.rows("SELECT phase, version FROM tables WHERE id = ?", (tid,)) == [("finished", len(log))]
            o = outcomes[tid]
            results = pg.rows("SELECT user_id, score, place FROM results WHERE table_id = ?", (tid,))
            assert results == [(HOSTS[ids.index(tid)], o.scores[0], o.places[0])]
        assert la.held == set()  # the former holder stands by now
    finally:
        for leases, rt in ((la, ra), (lb, rb)):
            await leases.close()
            await rt.close()


async def test_every_process_on_a_database_uses_the_same_shard_count(pg) -> None:
    """The first process stores its SHARD_COUNT; one with another count refuses while any process
    runs (a sentence saying what to do); once they have all stopped — a killed one included — the
    next start may change it, and then the old count is refused."""
    from tables.shards.lease import ShardCountMismatch

    two = Leases(pg.url, Shards.of(2, [0], leased=True), poll=POLL)
    three = Leases(pg.url, Shards.of(3, [0], leased=True), poll=POLL)
    again: Leases | None = None
    try:
        await two.join()
        assert pg.rows("SELECT value FROM shard_settings WHERE name = 'shard_count'") == [(2,)]
        with pytest.raises(ShardCountMismatch, match=r"SHARD_COUNT=3 here, but .* use SHARD_COUNT=2\. Every process"):
            await three.join()
        assert three._conn is None and not three.held
        # Another with the same count (a standby) is welcome, and the count stays.
        same = Leases(pg.url, Shards.of(2, [1], leased=True), poll=POLL)
        await same.join()
        await same.close()
        with pytest.raises(ShardCountMismatch):
            await three.join()

        kill_session(pg, two)  # the last process running dies: nobody uses 2 any more
        await until(lambda: two._conn is None or two._conn.is_closed())
        await three.join()
        assert pg.rows("SELECT value FROM shard_settings WHERE name = 'shard_count'") == [(3,)]
        again = Leases(pg.url, Shards.of(2, [0], leased=True), poll=POLL)
        with pytest.raises(ShardCountMismatch, match="use SHARD_COUNT=3"):
            await again.join()
    finally:
        for leases in (two, three, again):
            if leases is not None:
                await leases.close()


async def test_a_holder_that_stops_renewing_lets_go_before_it_acts_and_is_taken_over(pg, caplog) -> None:
    """A frozen holder keeps its session, so its lock; but its lease has a term.  Here a holder's
    loop stops while its connection (and so its lock) stays open, as a SIGSTOPped process's would.
    Its term over, the first thing it is asked about the shard finds that out and fences first.
    And a standby ends such a holder's session once the term is over and takes the shard, with a
    new epoch (in this one process the holder hears of its session's end at once; a frozen one
    hears of it only on waking, after the term check)."""
    lost: list[int] = []
    a = Leases(pg.url, Shards.of(1, leased=True), lost=lost.append, poll=POLL)
    b = Leases(pg.url, Shards.of(1, leased=True), lost=lost.append, poll=POLL)
    c = Leases(pg.url, Shards.of(1, leased=True), poll=POLL)
    try:
        a.start()
        await asyncio.wait_for(a.wait_for_any(), 10)
        assert a.term == 2.5 and a.epochs == {0: 1}
        await asyncio.sleep(1.0)  # renewed every round: held
        assert a.shards.owns(None) and not lost
        assert a._task is not None
        a._task.cancel()  # a stops; nobody else is there to end its session
        await asyncio.sleep(a.term + 0.3)
        assert a.held == {0} and not lost  # it has run nothing since: not noticed yet
        assert not a.shards.owns(None)  # the first thing it does: the term is over, let go
        assert lost == [0] and a.held == set()

        b.start()
        await asyncio.wait_for(b.wait_for_any(), 10)
        assert b.epochs == {0: 2}
        c.start()
        await asyncio.sleep(1.0)
        assert c.held == set()  # b renews: c stands by
        assert b._task is not None
        b._task.cancel()
        term_over = b.shards.expires  # b's term, counted from its last renewal
        await asyncio.wait_for(c.wait_for_any(), 10)
        assert time.monotonic() >= term_over  # not before b's term was over
        assert c.epochs == {0: 3}
        await until(lambda: lost == [0, 0], 5)  # b hears its session ended
        assert "has not renewed its lease" in caplog.text
        assert pg.rows("SELECT epoch FROM shard_leases WHERE shard = 0") == [(3,)]
    finally:
        for leases in (a, b, c):
            await leases.close()


async def test_a_restore_longer_than_the_term_keeps_the_lease(pg) -> None:
    """A shard gained is restored while the loop goes on renewing its lease: a restore slower than
    the term (here a slow database read, injected by the test) ends with the holder still holding
    it, the same epoch, no standby in, and the tables playing.  Meanwhile a click on the shard's
    tables gets the sentence for a table not there yet, and nothing changes."""
    first = Runtime(storage=await pg.open(), clock=SystemClock(), rng=random.Random(RNG), lobby_ttl=None)
    ids = [(await first.create(game="hearts", guild_id=1, channel_id=10, host_id=h, host_name=f"P{h}")).id
           for h in HOSTS]
    await first.close()

    rt = Runtime(storage=await pg.open(), clock=SystemClock(), rng=random.Random(RNG), ai_delay=AI_DELAY,
                 lobby_ttl=None, shards=Shards.of(1, leased=True))
    lost: list[int] = []
    restored = asyncio.Event()

    async def gained(shard: int) -> None:
        await rt.recover()
        restored.set()

    def fence(shard: int) -> None:
        lost.append(shard)
        rt.fence(shard)

    holder = Leases(pg.url, rt.shards, gained=gained, lost=fence, poll=POLL)
    standby = Leases(pg.url, Shards.of(1, leased=True), poll=POLL)
    real_read = rt.storage.unfinished
    reading = asyncio.Event()

    async def slow_read(*args, **kw):
        reading.set()
        await asyncio.sleep(holder.term + 1.5)
        return await real_read(*args, **kw)

    rt.storage.unfinished = slow_read
    try:
        holder.start()
        await until(lambda: holder.held == {0}, 10)
        standby.start()
        await asyncio.wait_for(reading.wait(), 10)
        began = time.monotonic()
        try:  # a click on a table of the shard while it is being restored
            rt.shards.refuse_elsewhere(1)
            refused = None
        except TableError as e:
            refused = str(e)
        assert rt.tables == {}
        await asyncio.wait_for(restored.wait(), holder.term + 30)
        assert time.monotonic() - began > holder.term  # the restore did outlast the term
        await asyncio.sleep(POLL * 4)
        assert lost == [] and holder.held == {0} and holder.epochs == {0: 1}
        assert standby.held == set()
        assert pg.rows("SELECT epoch FROM shard_leases WHERE shard = 0") == [(1,)]
        assert refused == STARTING
        await asyncio.wait_for(holder.wait_for_any(), 5)
        rt.shards.refuse_elsewhere(1)  # restored: clicks are answered again
        assert set(rt.tables) == set(ids)
        for n, tid in enumerate(ids):
            await rt.add_ai(tid, HOSTS[n])
            await rt.start(tid, HOSTS[n])
        await until(lambda: all(rt.get(tid).version == 3 for tid in ids), 20)  # the programs passed
        await until(lambda: not rt.storage.busy, 10)
        for tid in ids:
            assert pg.rows("SELECT phase, version FROM tables WHERE id = ?", (tid,)) == [("running", 3)]
        assert holder.held == {0} and standby.held == set() and lost == []
    finally:
        for leases in (holder, standby):
            await leases.close()
        await rt.close()


async def test_a_failed_restore_gives_the_lease_back_and_tries_again(pg, caplog) -> None:
    lost: list[int] = []
    tries: list[int] = []

    async def gained(shard: int) -> None:
        tries.append(shard)
        if len(tries) == 1:
            raise RuntimeError("the database went away mid-restore")

    leases = Leases(pg.url, Shards.of(1, leased=True), gained=gained, lost=lost.append, poll=POLL)
    try:
        leases.start()
        await asyncio.wait_for(leases.wait_for_any(), 10)
        assert tries == [0, 0] and lost == [0] and leases.held == {0}
        assert "its lease is given back" in caplog.text
        # Taken again after the first was given back: a new epoch.
        assert leases.epochs == {0: 2}
    finally:
        await leases.close()


async def test_a_long_recovery_at_start_keeps_the_lease(pg, monkeypatch) -> None:
    """At start the bot recovers its tables after taking its leases (bot.py): rebuilding is CPU work
    that holds the event loop, and with many tables it took longer than the term.  The loop gets its
    turn between two tables, so the lease is renewed all along.  (Each rebuild is made slow here by
    the test: a blocking sleep of 25 ms stands for its CPU, a few times a real table's.)"""
    from tables.history import records

    first = Runtime(storage=await pg.open(), clock=SystemClock(), rng=random.Random(RNG), lobby_ttl=None)
    ids = [(await first.create(game="hearts", guild_id=1, channel_id=10 + n, host_id=700 + n,
                               host_name=f"P{n}")).id for n in range(120)]
    await first.close()

    rt = Runtime(storage=await pg.open(), clock=SystemClock(), rng=random.Random(RNG), lobby_ttl=None,
                 shards=Shards.of(1, leased=True))
    lost: list[int] = []
    holder = Leases(pg.url, rt.shards, lost=lost.append, poll=POLL)
    standby = Leases(pg.url, Shards.of(1, leased=True), poll=POLL)
    real_rebuild = records.rebuild

    def slow_rebuild(*args, **kw):
        time.sleep((holder.term + 0.5) / len(ids))
        return real_rebuild(*args, **kw)

    monkeypatch.setattr(records, "rebuild", slow_rebuild)
    try:
        holder.start()
        await asyncio.wait_for(holder.wait_for_any(), 10)
        standby.start()
        began = time.monotonic()
        report = await rt.recover()
        assert time.monotonic() - began > holder.term  # the recovery did outlast the term
        assert sorted(t.id for t in report.restored) == sorted(ids)
        await asyncio.sleep(POLL * 4)
        assert lost == [] and holder.held == {0} and holder.epochs == {0: 1} and standby.held == set()
        assert rt.shards.owns(1) and set(rt.tables) == set(ids)
    finally:
        for leases in (holder, standby):
            await leases.close()
        await rt.close()
