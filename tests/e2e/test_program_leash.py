"""Issue 14 item 2 through the real bot: a program player that sneaks helpers out of its process
group (``setsid``, a double-forked daemon) and reads its environment.  The bot is killed with
SIGKILL mid-game: the program and its helpers die with it (issue 25: no restart needed), the next
bot starts the program afresh, and when the host ends the table every process of the new tree goes
too.  The bot's token, in its environment, never reaches the program."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import make_restart_world
from tests.fakediscord.play import table_id_of

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python_client.py"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux /proc and prctl")

# Starts two helpers that try to outlive it, says who they are and what it sees, then plays as the
# example client does.
ESCAPER = f"""
import json, os, runpy, subprocess, sys
out, name = sys.argv[1], sys.argv[2]
sleeper = [sys.executable, '-c', 'import time; time.sleep(120)']
detached = subprocess.Popen(sleeper, start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(w, str(os.getpid()).encode())
        os.execv(sys.executable, sleeper)
    os._exit(0)
daemon = int(os.read(r, 32))
with open(os.path.join(out, f'{{os.getpid()}}.json'), 'w') as f:
    json.dump({{'pids': [os.getpid(), detached.pid, daemon], 'env': dict(os.environ)}}, f)
sys.argv = [{str(CLIENT)!r}, name]
runpy.run_path({str(CLIENT)!r}, run_name='__main__')
"""


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):  # gone before, or while, it was read
        return True


async def wait_gone(pids: list[int], seconds: float = 5.0) -> list[int]:
    """The pids still running after ``seconds`` (empty: all gone)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not all(gone(p) for p in pids):
        await asyncio.sleep(0.05)
    return [p for p in pids if not gone(p)]


async def reports(out: Path, n: int, seconds: float = 15.0) -> list[dict]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        files = sorted(out.glob("*.json"))
        if len(files) >= n:
            try:
                return [json.loads(f.read_text()) for f in files]
            except json.JSONDecodeError:
                pass  # half written
        await asyncio.sleep(0.05)
    raise AssertionError(f"{n} program start(s) expected, saw {len(list(out.glob('*.json')))}")


async def test_a_program_and_its_helpers_never_outlive_the_bot_or_the_table(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "the-bot-token-in-its-environment")
    out = tmp_path / "starts"
    out.mkdir()
    script = tmp_path / "escaper.py"
    script.write_text(ESCAPER)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(out))}"
    seen: list[int] = []
    try:
        async with make_restart_world(tmp_path / "deckhand.db", config={"programs": {"esc": command}}) as w:
            new = await w.ali.slash("game new", game="tricks", options="target=50", speed="blitz")
            tid = table_id_of(new.message)
            assert "You joined table" in (await w.bob.slash("game join", id=tid)).text
            assert "esc" in (await w.ali.slash("game ai", program="esc")).text
            await w.ali.slash("game ai")
            assert "game is on" in (await w.ali.slash("game start")).text.lower()
            first = (await reports(out, 1))[0]
            seen += first["pids"]
            assert "DISCORD_TOKEN" not in first["env"]
            assert "the-bot-token" not in json.dumps(first["env"])
            assert set(first["env"]) <= {"PATH", "HOME", "LANG", "DECKHAND_PROGRAM_MARK"}

            await w.kill_bot()
            # The program and the helpers it hid die with the bot, before any new bot starts.
            assert await wait_gone(first["pids"], 2.0) == [], "processes of the program outlived a SIGKILLed bot"
            # The next bot starts the program afresh.
            await w.start_bot()
            second = [r for r in await reports(out, 2) if r["pids"] != first["pids"]][0]
            seen += second["pids"]
            assert not any(gone(p) for p in second["pids"])

            # The host ends the table: the new program's whole tree goes.
            await w.ready()
            ended = await w.ali.slash("game end", id=tid)
            assert not ended.failed, ended.text
            assert await wait_gone(second["pids"]) == [], "the program's helpers outlived its table"
    finally:
        for p in seen:
            try:
                os.kill(p, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
