"""``kill -9`` for real: a process runs three tables on a database (a SQLite file, or PostgreSQL)
and is killed with SIGKILL at random moments; each restart recovers and carries on; the finished
games equal the same games played in one go, with no action lost or applied twice.

The same file is the child process (``python -m tests.tables.test_recovery_kill DATABASE_URL start|resume``).
A later issue plays this through the fake Discord; here the runtime has no Discord at all.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from tables import FakeClock, Phase, Runtime, SystemClock
from tables.storage import open_storage

ROOT = Path(__file__).resolve().parents[2]
RNG = 4242
HOSTS = (501, 502, 503)
OPTIONS = {"target": 50}
AI_DELAY = 0.002


async def setup_tables(rt: Runtime, wait) -> list[str]:
    """Three Hearts tables whose hosts leave once the three AIs have passed, so the AI plays every
    seat from a point that does not depend on timing (``wait(done)`` lets time pass until done)."""
    tables = []
    for host in HOSTS:
        t = await rt.create(game="hearts", guild_id=1, channel_id=10, host_id=host, host_name=f"P{host}",
                            options=OPTIONS)
        await rt.start(t.id, host)
        tables.append(t)
    await wait(lambda: all(t.version == 3 for t in tables))
    for host, t in zip(HOSTS, tables, strict=True):
        await rt.leave(t.id, host)
    return [t.id for t in tables]


async def wait_real(done) -> None:
    while not done():
        await asyncio.sleep(0.001)


async def child(url: str, mode: str) -> None:
    storage = await open_storage(url)
    rt = Runtime(storage=storage, clock=SystemClock(), rng=random.Random(RNG), ai_delay=AI_DELAY)
    if mode == "start":
        print(json.dumps({"started": await setup_tables(rt, wait_real)}), flush=True)
    else:
        report = await rt.recover()
        print(json.dumps({"restored": {t.id: t.version for t in report.restored}, "broken": report.broken}),
              flush=True)
    while any(t.phase != Phase.FINISHED for t in rt.tables.values()):
        await asyncio.sleep(0.005)
    await rt.close()
    print(json.dumps({"done": True}), flush=True)


def run_child(url: str, mode: str, kill_after: float | None) -> dict:
    """Run the child; SIGKILL it ``kill_after`` seconds after its first line (None: let it finish)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.tables.test_recovery_kill", url, mode],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        first = json.loads(proc.stdout.readline() or "{}")
        if kill_after is None:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            first["finished"] = '"done"' in out
            return first
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        first["killed"] = proc.returncode == -signal.SIGKILL
        return first
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


async def reference_logs() -> dict[str, list[tuple[int, int, str]]]:
    clock = FakeClock()
    rt = Runtime(clock=clock, rng=random.Random(RNG), ai_delay=1.0)

    async def wait_fake(done) -> None:
        while not done():
            await clock.advance(0.5)

    ids = await setup_tables(rt, wait_fake)
    for _ in range(100_000):
        if all(rt.get(i).phase == Phase.FINISHED for i in ids):
            break
        await clock.advance(1.0)
    logs = {i: [(e.seq, e.seat, e.code) for e in rt.get(i).log] for i in ids}
    scores = {i: rt.get(i).state.outcome() for i in ids}
    await rt.close()
    return logs, scores


async def test_sigkill_at_random_points_loses_nothing(store):
    url = store.url
    want, outcomes = await reference_logs()
    pick = random.Random(int(os.environ.get("KILL_SEED", "7")))
    started = run_child(url, "start", pick.uniform(0.05, 0.4))
    assert started["killed"] and started["started"] == list(want)
    seen_versions = []
    for _ in range(3):
        report = run_child(url, "resume", pick.uniform(0.05, 0.4))
        assert report["broken"] == []
        seen_versions.append(report["restored"])
    final = run_child(url, "resume", None)
    assert final["finished"] and final["broken"] == []
    # At least one kill must have hit a game in progress, or the test proved nothing.
    assert any(v for v in seen_versions) or final["restored"]
    for tid, log in want.items():
        stored = store.rows("SELECT seq, seat, code FROM actions WHERE table_id = ? ORDER BY seq", (tid,))
        assert stored == log, f"table {tid} differs from the uninterrupted game"
        [(phase, version)] = store.rows("SELECT phase, version FROM tables WHERE id = ?", (tid,))
        assert (phase, version) == ("finished", len(log))
        results = store.rows("SELECT user_id, score, place FROM results WHERE table_id = ?", (tid,))
        o = outcomes[tid]
        assert results == [(HOSTS[list(want).index(tid)], o.scores[0], o.places[0])]  # once, the host's
    if store.kind == "sqlite":
        assert store.rows("PRAGMA integrity_check") == [("ok",)]

if __name__ == "__main__":
    asyncio.run(child(sys.argv[1], sys.argv[2]))
