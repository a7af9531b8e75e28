"""The AI worker pool: searches run in real worker processes; a busy pool, a late search or a
failing one answer ``None`` at once (the caller then plays the normal AI's move), and a late search
keeps its worker until it really ends."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

import pytest

import engine
from games.hearts.rules import Hearts
from tables.ai_pool import AIPool, default_workers


def blocked_until(gate: str, cap: float = 60.0) -> None:
    """Hold a worker until the test creates the file ``gate``: how long the job runs is the test's
    decision, not a race against the clock (``cap`` only stops a broken test from leaking a worker)."""
    end = time.monotonic() + cap
    while not os.path.exists(gate) and time.monotonic() < end:
        time.sleep(0.01)


def slow_worker(game, data, seat, seed, level, budget, playouts):
    """A search that overruns its budget until the test lets it end (``seed`` names its gate)."""
    blocked_until(seed)
    return "play 2C"


async def until(done, seconds: float = 30.0) -> None:
    """Wait for ``done()`` (a generous deadline for "it happens at all", not a speed bet)."""
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.01)


def failing_worker(game, data, seat, seed, level, budget, playouts):
    raise RuntimeError("boom")


def mid_hand() -> Hearts:
    g = Hearts.create(4, {"target": 1}, 11)
    ai = engine.get("hearts").ai()
    rng = random.Random(11)
    while g.phase != "play" or g.trick_no < 3:
        for s in g.to_act():
            g.apply(s, ai.choose(g, s, rng))
    return g


def test_sized_to_the_machine() -> None:
    assert default_workers() >= 1
    assert AIPool(workers=2, max_concurrent=5).max_concurrent == 2


async def test_a_search_in_a_worker_returns_a_legal_move_within_its_budget() -> None:
    # The search keeps to its budget itself; the grace is a generous deadline so that a loaded
    # machine cannot make the search count as late (its speed is bench/'s business).
    pool = AIPool(workers=1, budget=0.5, grace=30.0)
    try:
        await pool.start()
        g = mid_hand()
        action = await pool.choose("hearts", g, g.turn, seed="x/1", budget=0.3)
        assert action is not None and action in g.decision(g.turn).actions
        assert pool.counts["searched"] == 1
        g.apply(g.turn, action)
    finally:
        await pool.close()


def answered_without_waiting(coro) -> object:
    """Run ``coro`` one step: its result if it finished without once yielding to the event loop
    ("at once" without a stopwatch), else the test fails."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise AssertionError("it waited for something")


async def test_busy_pool_answers_none_at_once_and_late_search_gives_none(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    pool = AIPool(workers=1, budget=0.2, grace=0.1, worker=slow_worker)
    try:
        await pool.start()
        g = mid_hand()
        first = asyncio.create_task(pool.choose("hearts", g, g.turn, seed=str(gate)))
        await until(lambda: pool.running == 1)
        assert answered_without_waiting(pool.choose("hearts", g, g.turn, seed="b")) is None  # busy
        # Late: abandoned after budget + grace while its worker is still held (it cannot end before
        # the gate opens), so the pool did not wait for it.
        assert await first is None
        assert not gate.exists() and pool.counts["busy"] == 1 and pool.counts["late"] == 1
        # The abandoned search still holds its worker until it ends, so the pool stays busy ...
        assert pool.running == 1
        assert answered_without_waiting(pool.choose("hearts", g, g.turn, seed="c")) is None
        assert pool.counts["busy"] == 2
        # ... and is free again once it ends.
        gate.touch()
        await until(lambda: pool.running == 0)
    finally:
        gate.touch()
        await pool.close()


async def test_a_failing_search_gives_none() -> None:
    pool = AIPool(workers=1, budget=0.5, grace=2.0, worker=failing_worker)
    try:
        await pool.start()
        g = mid_hand()
        assert await pool.choose("hearts", g, g.turn, seed="a") is None
        assert pool.counts["failed"] == 1
    finally:
        await pool.close()


async def test_unknown_level_fails_softly() -> None:
    pool = AIPool(workers=1, budget=0.5, grace=2.0)
    try:
        await pool.start()
        g = mid_hand()
        assert await pool.choose("hearts", g, g.turn, seed="a", level="grandmaster") is None
        assert pool.counts["failed"] == 1
    finally:
        await pool.close()


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_levels_are_offered_by_the_engine(level: str) -> None:
    assert level in engine.levels("hearts")
    assert engine.ai_for("hearts", level) is not None


def own_niceness(_: int) -> int:
    return os.nice(0)


async def test_background_work_has_its_own_lowest_priority_worker_and_never_makes_a_search_busy(
        tmp_path: Path) -> None:
    held_gate, slow_gate = tmp_path / "held", tmp_path / "slow"
    pool = AIPool(workers=1, budget=0.5, grace=30.0)  # (a generous grace: no search counts as late)
    try:
        await pool.start()
        g = mid_hand()
        # Other work holds the tables' only worker: background work still runs, in its own worker ...
        held = asyncio.create_task(pool.run(blocked_until, str(held_gate), budget=5.0))
        await until(lambda: pool.running == 1)
        nice = await pool.run_background(own_niceness, 0, budget=30.0)
        assert nice is not None and nice >= os.nice(0)
        if os.nice(0) < 19:  # (a process already at the lowest priority has nowhere lower to go)
            assert nice > os.nice(0)
        assert pool.running == 1 and not held.done()  # (it ran while the tables' worker was held)
        held_gate.touch()
        await held
        await until(lambda: pool.running == 0)
        # ... and background work holding its worker leaves the tables' worker free.
        slow = asyncio.create_task(pool.run_background(blocked_until, str(slow_gate), budget=30.0))
        await asyncio.sleep(0)  # (its first step takes the background worker)
        assert await pool.run_background(time.sleep, 0.0, budget=5.0) is None  # its lane is busy ...
        assert pool.background_counts["busy"] == 1
        assert await pool.choose("hearts", g, g.turn, seed="b", budget=0.3) is not None  # ... not the tables'
        assert pool.counts["busy"] == 0 and pool.counts["searched"] == 2
        assert not slow.done()
        slow_gate.touch()
        await slow
    finally:
        held_gate.touch()
        slow_gate.touch()
        await pool.close()


async def test_without_a_background_lane_background_work_shares_the_tables_workers(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    pool = AIPool(workers=1, budget=0.5, grace=30.0, background_workers=0)
    try:
        await pool.start()
        slow = asyncio.create_task(pool.run_background(blocked_until, str(gate), budget=30.0))
        await until(lambda: pool.running == 1)
        g = mid_hand()
        assert await pool.choose("hearts", g, g.turn, seed="b", budget=0.3) is None
        assert pool.counts["busy"] == 1
        gate.touch()
        await slow
    finally:
        gate.touch()
        await pool.close()


def stuck_worker(game, data, seat, seed, level, budget, playouts):
    """A search that writes its pid, runs until the gate ``seed`` opens (or 20 s), then says so."""
    Path(seed + ".pid").write_text(str(os.getpid()))
    blocked_until(seed, cap=20.0)
    Path(seed + ".ended").touch()
    return "play 2C"


async def test_close_kills_a_running_search_instead_of_waiting_for_it(tmp_path: Path) -> None:
    """A bot told to stop must not wait for a search (or a review at the lowest priority) to end:
    close() kills the worker.  The search here would only end when its gate opens, which never
    happens, or after 20 s; close() returns with the worker dead and the search never ended."""
    gate = tmp_path / "gate"
    pool = AIPool(workers=1, budget=0.2, grace=0.1, worker=stuck_worker)
    await pool.start()
    g = mid_hand()
    assert await pool.choose("hearts", g, g.turn, seed=str(gate)) is None  # late, still running
    pid_file = Path(str(gate) + ".pid")
    await until(pid_file.exists)
    pid = int(pid_file.read_text())
    await pool.close()
    assert not Path(str(gate) + ".ended").exists()
    await until(lambda: not _alive(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child not yet reaped is a zombie: gone for this test's purpose.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_a_pool_closed_while_its_workers_warm_up_starts_quietly() -> None:
    """A bot stopped right after it started closes its pool while the workers are still importing
    the engine: they are killed on purpose, so the warm-up ends without an error."""
    pool = AIPool(workers=2)
    starting = asyncio.ensure_future(pool.start())
    await asyncio.sleep(0)  # the warm-up is submitted
    await pool.close()
    await starting  # no BrokenProcessPool
