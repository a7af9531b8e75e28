"""Issue 25: the bot's spawned worker processes (the AI pool's, the replay viewer's) die with a
SIGKILLed bot.  A harness process plays the bot: it starts the workers, prints their pids and waits;
the test SIGKILLs it and looks in /proc.  (The whole bot: tests/e2e/test_ai_workers.py.)"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
from pathlib import Path

import pytest

from tests.e2e.test_program_leash import gone, wait_gone

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux /proc")

HARNESS = {
    "ai pool": """
        import asyncio, os, sys, time
        from tables.ai.pool import AIPool

        async def main():
            pool = AIPool(workers=1, background_workers=1)
            await pool.start()
            pids = {await pool.run(os.getpid, budget=10), await pool.run_background(os.getpid, budget=10)}
            print(*sorted(pids), flush=True)
            time.sleep(60)

        asyncio.run(main())
    """,
    "replay viewer": """
        import os, time
        from cogs.replay.view import Replays

        pool = Replays()._pool()
        print(pool.submit(os.getpid).result(timeout=60), flush=True)
        time.sleep(60)
    """,
}


@pytest.mark.parametrize("which", sorted(HARNESS))
async def test_workers_die_with_their_sigkilled_parent(which: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", textwrap.dedent(HARNESS[which]), cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    workers: list[int] = []
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 60)
        workers = [int(p) for p in line.split()]
        assert workers and workers != [proc.pid] and not any(gone(p) for p in workers), line
        os.kill(proc.pid, signal.SIGKILL)
        assert await wait_gone([proc.pid], 5.0) == []
        assert await wait_gone(workers, 2.0) == [], f"the {which}'s workers outlived their SIGKILLed parent"
    finally:
        for p in [proc.pid, *workers]:
            try:
                os.kill(p, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        await asyncio.wait_for(proc.wait(), 10)  # its pipe closes once every worker is gone
