"""Issue 25: the AI pool's worker processes (tables/ai/pool.py) die with a SIGKILLed bot, promptly
and with no restart needed, as program seats do (tables/programs/leash.py).  The bot is killed here with a
plain SIGKILL of its own pid, not :meth:`BotProcess.kill`: nothing but the product may end the
workers."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import make_restart_world
from tests.e2e.test_program_leash import gone, wait_gone

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux /proc")


def multiprocessing_children(pid: int) -> dict[int, bytes]:
    """The children of ``pid`` that multiprocessing started (pool workers, the resource tracker),
    with their command lines."""
    out: dict[int, bytes] = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        children = [int(c) for t in tasks for c in (t / "children").read_text().split()]
    except (OSError, ValueError):
        return out
    for child in children:
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"multiprocessing" in cmdline:
            out[child] = cmdline
    return out


def threads(pid: int) -> int:
    try:
        return len(list(Path(f"/proc/{pid}/task").iterdir()))
    except OSError:
        return 0


async def workers_up(pid: int, seconds: float = 60.0, settle: float = 30.0) -> dict[int, bytes]:
    """The bot's multiprocessing children once both lanes' workers (the tables' and the
    background one) are up and past their imports: their initializer started the thread that
    watches the bot (a worker still importing when the bot dies ends as soon as it gets there), or
    ``settle`` seconds have passed (without that thread: the test then fails as it should)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = multiprocessing_children(pid)
        workers = [p for p, c in found.items() if b"spawn_main" in c]
        if len(workers) >= 2:
            settled = time.monotonic() + settle
            while time.monotonic() < settled and not all(threads(p) >= 2 for p in workers):
                await asyncio.sleep(0.05)
            return multiprocessing_children(pid)
        await asyncio.sleep(0.05)
    raise AssertionError(f"the bot's AI workers did not start: {multiprocessing_children(pid)}")


async def test_the_ai_workers_die_with_a_sigkilled_bot(tmp_path: Path) -> None:
    seen: list[int] = []
    try:
        async with make_restart_world(tmp_path / "deckhand.db", config={"ai_workers": 1}) as w:
            workers = await workers_up(w.bot.pid)
            seen += workers
            assert not any(gone(p) for p in seen)
            w.bot.proc.send_signal(signal.SIGKILL)
            # Not proc.wait(): asyncio waits for the process's pipes too, which lingering workers hold.
            assert await wait_gone([w.bot.pid], 5.0) == []
            left = await wait_gone(seen, 2.0)
            assert left == [], f"AI workers outlived a SIGKILLed bot: {[workers[p] for p in left]}"
            await w.kill_bot()  # the world's bookkeeping: the bot is down
    finally:
        for p in seen:
            try:
                os.kill(p, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
