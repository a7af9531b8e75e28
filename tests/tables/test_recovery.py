"""Start-up recovery: a new runtime on the same database carries every table on as if nothing had
happened — same moves, same deadlines — and a damaged table is reported, never a blocker."""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine.core import Event
from tables import Phase, Runtime
from tables.runtime import SNAPSHOT_EVERY

from .conftest import HOST, HOST_NAME, SHORT, Recorder, choose, new_table, run_until, seat_entries, started
from .stores import StoredClock

BOB = 200


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


class Broken(Recorder):
    """A listener that also hears about tables that could not be restored."""

    def __init__(self, clock) -> None:
        super().__init__(clock)
        self.broken_calls: list[tuple[str, str, int, list]] = []

    async def broken(self, table, reason) -> None:
        self.broken_calls.append((table.id, reason, table.channel_id, [s.user_id for s in table.seats]))


async def host_step(rt: Runtime, clock, t) -> bool:
    """One step of the host's plain policy: act at once when due, else let a second pass."""
    sv = rt.seat_view(t.id, HOST)
    if sv.decision is not None:
        await rt.act(t.id, HOST, choose(sv.decision), version=t.version)
        return True
    await clock.advance(1.0)
    return False


async def play(rt: Runtime, clock, tid: str, steps: int | None = None) -> None:
    t = rt.get(tid)
    n = 0
    while t.phase != Phase.FINISHED and (steps is None or n < steps):
        await host_step(rt, clock, t)
        n += 1


def moves(t) -> list[tuple[int, str]]:
    return [(e.seat, e.code) for e in t.log]


async def reference(make_runtime, clock, **kw):
    """The same game, same seed, same policy, no storage and no restart."""
    rt = make_runtime(rng=random.Random(7))
    t = await started(rt, **kw)
    await play(rt, clock, t.id)
    return t


@pytest.mark.parametrize("restarts", [1, 4])
async def test_a_restarted_game_ends_exactly_as_one_never_interrupted(make_runtime, clock, store, restarts):
    want = await reference(make_runtime, clock, options=SHORT)
    rt = make_runtime(storage=await store.open(), rng=random.Random(7))
    t = await started(rt, options=SHORT)
    assert t.seed == want.seed
    pick = random.Random(restarts)
    total = len(want.log)
    done = 0
    for _ in range(restarts):
        await play(rt, clock, t.id, steps=pick.randrange(5, max(6, total // restarts)))
        if t.phase == Phase.FINISHED:
            break
        done += 1
        version = t.version
        await rt.close()  # the process goes away (its tasks die with it)
        rt = make_runtime(storage=await store.open(), rng=random.Random(1000))
        report = await rt.recover()
        assert [x.id for x in report.restored] == [t.id] and report.broken == []
        t = rt.get(t.id)
        assert t.version == version and len(t.log) == version
    await play(rt, clock, t.id)
    assert done == restarts
    assert t.state.outcome() == want.state.outcome()
    assert moves(t) == moves(want)  # not one action lost, none applied twice
    assert [e.seq for e in t.log] == list(range(1, len(t.log) + 1))
    assert store.log(t.id) == [(e.seq, e.seat, e.code, int(e.auto)) for e in want.log]


async def test_recovered_table_is_redrawn_and_not_pinged_again(make_runtime, clock, store, listener):
    rt = make_runtime(storage=await store.open())
    t = await started(rt, options=SHORT)
    await rt.attach(t.id, message_id=42, thread_id=43)
    await run_until(clock, lambda: t.state.phase == "play" and 0 in t.to_act())
    await rt.close()
    after = Recorder(clock)
    rt2 = make_runtime(storage=await store.open(), listener=after)
    await rt2.recover()
    await clock.settle()
    # not at once: the bot that went may have edited the message a moment ago (one edit a second)
    assert after.redraws == []
    await clock.advance(rt2.redraw_interval)
    t2 = rt2.get(t.id)
    assert (t2.message_id, t2.thread_id) == (42, 43)
    assert [r[1] for r in after.redraws] == [t.id]
    assert after.turns == []  # the person was pinged before the restart; not again
    assert t2.recent and t2.recent == t.recent[-len(t2.recent):]
    assert rt2.seat_view(t.id, HOST).decision == rt.seat_view(t.id, HOST).decision


async def test_a_deadline_keeps_its_remaining_time_across_a_restart(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await started(rt, options=SHORT)
    due = t.deadlines[0]
    await clock.advance(20)
    await rt.close()
    await clock.advance(15)  # the bot is down for 15 seconds
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    t2 = rt2.get(t.id)
    assert t2.deadlines == {0: due}
    assert rt2.seat_view(t.id, HOST).deadline == due
    await clock.advance(due - clock.now() - 0.1)
    assert seat_entries(t2, 0) == []
    await clock.advance(0.2)
    [entry] = seat_entries(t2, 0)
    assert entry.auto and entry.time == due and t2.seats[0].missed == 1


async def test_an_overdue_deadline_fires_once_at_once(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await new_table(rt, options=SHORT)
    await rt.join(t.id, BOB, "Bob")
    await rt.start(t.id, HOST)
    due = dict(t.deadlines)
    assert set(due) == {0, 1}
    await rt.close()
    await clock.advance(3600)  # down for an hour: both deadlines passed
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    restarted = clock.now()
    await clock.settle()
    t2 = rt2.get(t.id)
    for seat in (0, 1):
        [entry] = seat_entries(t2, seat)  # exactly one safe move each
        assert entry.auto and entry.code.startswith("pass") and entry.time == restarted
        assert t2.seats[seat].missed == 1
    # The next decisions get fresh deadlines from now, not from before the outage.
    await run_until(clock, lambda: 0 in t2.to_act() or 1 in t2.to_act())
    assert all(d > restarted for d in t2.deadlines.values())
    assert store.table(t.id)["version"] == t2.version


async def test_one_passers_deadline_and_pass_menu_survive_a_restart(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await new_table(rt, options=SHORT)
    await rt.join(t.id, BOB, "Bob")
    await rt.start(t.id, HOST)
    opened = t.version
    first = dict(t.deadlines)
    await clock.advance(10)
    await rt.act(t.id, BOB, choose(rt.seat_view(t.id, BOB).decision), version=opened)
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    t2 = rt2.get(t.id)
    assert t2.deadlines == {0: first[0]}
    # Ann's pass menu, opened before the restart, is still good: her decision has not changed.
    await rt2.act(t.id, HOST, choose(rt2.seat_view(t.id, HOST).decision), version=opened)
    assert t2.state.phase == "play"


async def test_an_away_seat_is_still_played_by_the_ai_after_a_restart(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await started(rt, options=SHORT)
    await rt.leave(t.id, HOST)
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    t2 = rt2.get(t.id)
    assert t2.seats[0].away and t2.seats[0].left and t2.deadlines == {}
    await run_until(clock, lambda: t2.phase == Phase.FINISHED)
    assert store.table(t.id)["phase"] == "finished"


async def test_a_lobby_survives_and_still_expires_on_time(make_runtime, clock, store, listener):
    rt = make_runtime(storage=await store.open())
    t = await new_table(rt)
    await rt.join(t.id, BOB, "Bob")
    await rt.attach(t.id, message_id=9)
    await clock.advance(20 * 60)
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    t2 = rt2.get(t.id)
    assert t2.phase == Phase.LOBBY and [s.user_id for s in t2.seats] == [HOST, BOB] and t2.message_id == 9
    await clock.advance(10 * 60 - 1)
    assert t2.phase == Phase.LOBBY
    await clock.advance(2)
    assert t2.phase == Phase.FINISHED and t2.ended_early
    assert store.table(t.id)["phase"] == "finished"
    # The players hear of it: a summary (rendered as "closed before the game started") and a redraw.
    assert (t.id, []) in listener.summaries
    assert listener.redraws[-1][1:] == (t.id, 0, Phase.FINISHED)


async def test_a_long_game_recovers_from_its_snapshot(make_runtime, clock, store, monkeypatch):
    rt = make_runtime(storage=await store.open())
    t = await started(rt)
    await rt.leave(t.id, HOST)
    await run_until(clock, lambda: t.state.hand_no >= 2 and t.state.phase == "play")
    await rt.close()
    row = store.table(t.id)
    assert 0 < row["snapshot_version"] <= row["version"]
    assert row["version"] - row["snapshot_version"] < SNAPSHOT_EVERY
    replayed = []
    entry = engine.get("hearts")

    class Counting(entry.game):  # Hearts may be compiled (tools/native.py): a subclass, not a patch
        def apply(self, seat, action):
            replayed.append(action)
            return super().apply(seat, action)

    monkeypatch.setitem(engine.core._REGISTRY, "hearts", engine.core.GameSpec(Counting, entry.ai))
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    monkeypatch.undo()
    assert len(replayed) == row["version"] - row["snapshot_version"]  # only the tail is replayed
    assert rt2.get(t.id).state.to_dict() == t.state.to_dict()


def corrupt(store, sql: str, params=()) -> None:
    store.execute(sql, params)


async def three_tables(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    ts = []
    for host in (HOST, HOST + 1, HOST + 2):
        t = await started(rt, host=host, options=SHORT)
        await rt.attach(t.id, message_id=1000 + host)
        ts.append(t)
    await run_until(clock, lambda: all(t.state.phase == "play" and t.version >= 8 for t in ts))
    await rt.close()
    return ts


@pytest.mark.parametrize("damage, why", [
    ("UPDATE tables SET seats = substr(seats, 1, 30) WHERE id = ?", "seats"),
    ("DELETE FROM actions WHERE table_id = ? AND seq = 2", "jumps"),
    ("DELETE FROM actions WHERE table_id = ? AND seq = (SELECT MAX(seq) FROM actions WHERE table_id = ?)", "missing"),
    ("UPDATE actions SET code = 'play ZZ' WHERE table_id = ? AND seq = 6", "action 6"),
    ("UPDATE actions SET code = 'play 2C' WHERE table_id = ? AND seq = 6", "action 6"),
    ("UPDATE tables SET game = 'chess' WHERE id = ?", "chess"),
    ("UPDATE tables SET options = '{\"target\": \"lots\"' WHERE id = ?", "options"),
    ("UPDATE tables SET version = version + 3 WHERE id = ?", "missing"),
    ("UPDATE tables SET seed = NULL, snapshot = NULL WHERE id = ?", "seed"),
    ("UPDATE tables SET deadlines = 'xx' WHERE id = ?", "deadlines"),
])
async def test_a_damaged_table_is_reported_broken_and_the_others_recover(make_runtime, clock, store, damage, why):
    a, b, c = await three_tables(make_runtime, clock, store)
    corrupt(store, damage, (b.id,) * damage.count("?"))
    hears = Broken(clock)
    rt = make_runtime(storage=await store.open(), listener=hears)
    report = await rt.recover()
    await clock.settle()
    assert sorted(x.id for x in report.restored) == sorted([a.id, c.id])
    [(tid, reason)] = report.broken
    assert tid == b.id and why in reason
    assert b.id not in rt.tables
    # Its players are told, where the table was.
    [(told, told_reason, channel, users)] = hears.broken_calls
    assert (told, told_reason, channel) == (b.id, reason, b.channel_id)
    if why != "seats":
        assert HOST + 1 in users
    assert store.table(b.id)["broken"] == reason
    # The others play on to the end.
    back = [rt.get(t.id) for t in (a, c)]  # (a finished table soon leaves memory: its object stays)
    for t in back:
        await rt.leave(t.id, t.host_id)
    await run_until(clock, lambda: all(t.phase == Phase.FINISHED for t in back))
    await clock.advance(2.0)  # their ends drawn and posted: nothing left to show after a restart
    await clock.settle()
    await rt.close()
    # A broken table is not tried again at the next start.
    rt2 = make_runtime(storage=await store.open())
    report = await rt2.recover()
    assert report.restored == [] and report.broken == []


async def test_a_damaged_snapshot_costs_only_a_longer_replay(make_runtime, clock, store, caplog):
    rt = make_runtime(storage=await store.open())
    t = await started(rt)
    await rt.leave(t.id, HOST)
    await run_until(clock, lambda: t.state.hand_no >= 1 and t.state.phase == "play")
    await rt.close()
    assert store.table(t.id)["snapshot"]
    corrupt(store, "UPDATE tables SET snapshot = substr(snapshot, 1, 50) WHERE id = ?", (t.id,))
    rt2 = make_runtime(storage=await store.open())
    report = await rt2.recover()
    assert [x.id for x in report.restored] == [t.id]
    assert rt2.get(t.id).state.to_dict() == t.state.to_dict()
    assert any("ignoring its snapshot" in r.getMessage() for r in caplog.records)


async def test_a_listener_without_broken_still_works(make_runtime, clock, store):
    a, b, c = await three_tables(make_runtime, clock, store)
    corrupt(store, "UPDATE tables SET seats = 'nonsense' WHERE id = ?", (a.id,))
    rt = make_runtime(storage=await store.open())  # the plain Recorder has no broken()
    report = await rt.recover()
    await clock.settle()
    assert len(report.restored) == 2 and [x[0] for x in report.broken] == [a.id]


async def test_recovering_without_storage_does_nothing(rt):
    report = await rt.recover()
    assert report == ([], [])


async def test_the_events_after_recovery_match(make_runtime, clock, store):
    # The table message after a restart shows the same recent events of the current hand.
    rt = make_runtime(storage=await store.open())
    t = await started(rt, options=SHORT)
    await rt.leave(t.id, HOST)
    await run_until(clock, lambda: t.state.phase == "play" and t.state.trick_no >= 3)
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    t2 = rt2.get(t.id)

    def since_deal(events: list[Event]) -> list[Event]:
        idx = max(i for i, e in enumerate(events) if e.kind == "deal") if any(e.kind == "deal" for e in events) else 0
        return events[idx:]

    assert since_deal(t2.recent)[-5:] == t.recent[-5:]
    assert json.loads(store.table(t.id)["seats"])[0]["name"] == HOST_NAME


async def test_a_deleted_thread_is_forgotten_and_stays_forgotten_after_a_restart(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await started(rt, options=SHORT)
    other = await started(rt, host=BOB, options=SHORT)
    await rt.attach(t.id, message_id=42, thread_id=43)
    await rt.attach(other.id, message_id=52, thread_id=53)
    assert await rt.detach_thread(999) == []  # a thread of no table's: nothing changes
    assert [x.id for x in await rt.detach_thread(43)] == [t.id]
    assert (t.thread_id, other.thread_id) == (None, 53)
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    assert (rt2.get(t.id).message_id, rt2.get(t.id).thread_id) == (42, None)
    assert rt2.get(other.id).thread_id == 53


async def test_a_tables_log_holds_nothing_the_garbage_collector_walks(make_runtime, clock, store):
    """A running table's log grows by a row a move and lives as long as the table: as LogEntry
    objects its rows were what every full collection walked most (issue 35).  Its rows are plain
    tuples of numbers and strings, which the collector stops tracking — read back as LogEntry —
    also in a table recovered after a restart."""
    import gc

    from tables.table import LogEntry

    def tracked(log) -> list:  # (the rows the log holds; a list subclass also names its class)
        return [r for r in gc.get_referents(log) if gc.is_tracked(r) and not isinstance(r, type)]

    rt = make_runtime(storage=await store.open())
    t = await started(rt, options=SHORT)
    await play(rt, clock, t.id, steps=12)
    assert len(t.log) > 4 and all(isinstance(e, LogEntry) for e in t.log)
    gc.collect()
    assert tracked(t.log) == []
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    t2 = rt2.get(t.id)
    assert moves(t2) == moves(t) and t2.log[-1] == t.log[-1] and t2.log[-1].seq == t.version
    gc.collect()
    assert tracked(t2.log) == []
    await play(rt2, clock, t.id, steps=4)
    gc.collect()
    assert tracked(t2.log) == []
