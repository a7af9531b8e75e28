"""Issue 14 item 2: a program player's processes never outlive their game or the bot, and never
see the bot's secrets.  Real subprocesses throughout: programs that print their environment, that
start a child in a session of its own, that daemonize, and a bot process killed with SIGKILL."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engine.tricks import Tricks
from tables.procs import MARK, ProcessRecord, parse_env_names, program_env
from tables.programs import ProgramSettings, TablePrograms
from tables.protocol import ProgramPlayer

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux /proc and prctl")


def program(code: str) -> str:
    return " ".join(shlex.quote(w) for w in (sys.executable, "-c", textwrap.dedent(code)))


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # a zombie has stopped running
    except FileNotFoundError:
        return True


async def all_gone(pids: list[int], seconds: float = 3.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if all(gone(p) for p in pids):
            return True
        await asyncio.sleep(0.02)
    return all(gone(p) for p in pids)


def kill_for_good(pids: list[int]) -> None:
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# A program that starts helpers that try to get away, then tells their pids when queried.
ESCAPER = """
    import os, subprocess, sys, time
    sleeper = [sys.executable, '-c', 'import time; time.sleep(60)']
    # setsid: its own session and group, out of reach of a kill of the program's group.
    detached = subprocess.Popen(sleeper, start_new_session=True, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL)
    # A daemon: forks twice, the middle one exits, the grandchild is re-parented away from us.
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(w, str(os.getpid()).encode())
            os.execv(sys.executable, sleeper)
        os._exit(0)
    daemon = int(os.read(r, 32))
    sys.stdin.readline()
    print(os.getpid(), detached.pid, daemon, flush=True)
    time.sleep(60)
"""


# ==== the environment =============================================================================
def test_a_program_environment_is_path_home_lang_and_what_the_operator_lists() -> None:
    env = {"PATH": "/bin", "HOME": "/home/d", "LANG": "C.UTF-8", "DISCORD_TOKEN": "secret",
           "DATABASE_URL": "postgresql://u:pw@h/db", "OPENAI_KEY": "k", "PYTHONPATH": "/x"}
    assert program_env((), env) == {"PATH": "/bin", "HOME": "/home/d", "LANG": "C.UTF-8"}
    assert program_env(("PYTHONPATH", "MISSING"), env) == {"PATH": "/bin", "HOME": "/home/d", "LANG": "C.UTF-8",
                                                          "PYTHONPATH": "/x"}
    assert parse_env_names("PYTHONPATH, JAVA_HOME  LD_LIBRARY_PATH") == ("PYTHONPATH", "JAVA_HOME", "LD_LIBRARY_PATH")
    for bad in ("DISCORD_TOKEN", "A-B", "1X", "DATABASE_URL"):
        with pytest.raises(ValueError):
            parse_env_names(bad)


async def test_a_program_at_a_table_never_sees_the_bot_token(monkeypatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "the-bot-token")
    monkeypatch.setenv("DECKHAND_TEST_SHARED", "shared-with-programs")
    monkeypatch.setenv("DECKHAND_TEST_PRIVATE", "not-shared")
    printer = program("""
        import json, os, sys
        sys.stdin.readline()
        for line in sys.stdin:
            if 'QUERY' in line:
                print(json.dumps(dict(os.environ)), flush=True)
    """)
    settings = ProgramSettings({"env": printer}, timeout=10, env_names=("DECKHAND_TEST_SHARED",))
    state = Tricks.create(4, {"target": 15}, 3)
    drv = TablePrograms(settings, {state.turn: printer}, ["Ali", "Bob", "Cy", "Di"], lambda: state)
    try:
        answer = await drv.answer(state.turn, 0)
    finally:
        await drv.close()
    assert answer is not None and answer.line is not None, answer
    seen = json.loads(answer.line)
    assert "DISCORD_TOKEN" not in seen and "the-bot-token" not in answer.line
    assert "DECKHAND_TEST_PRIVATE" not in seen
    assert seen["DECKHAND_TEST_SHARED"] == "shared-with-programs"
    assert set(seen) <= {"PATH", "HOME", "LANG", "DECKHAND_TEST_SHARED", MARK}
    assert seen["PATH"] == os.environ["PATH"]


# ==== the end of a game ============================================================================
async def test_closing_a_program_kills_helpers_that_left_its_group_and_its_tree() -> None:
    p = ProgramPlayer(program(ESCAPER), "Ann", timeout=10)
    await p.start()
    pids = [int(x) for x in (await p.ask()).line.split()]
    try:
        assert not any(gone(x) for x in pids)
        assert os.getpgid(pids[1]) != os.getpgid(pids[0])  # really out of the program's group
        await p.close(grace=0.1)
        assert await all_gone(pids), [x for x in pids if not gone(x)]
    finally:
        kill_for_good(pids)


# ==== a bot that dies ==============================================================================
# A stand-in for the bot: starts the escaper as a program player, with a record, and waits to die.
FAKE_BOT = """
    import asyncio, sys
    sys.path.insert(0, {root!r})
    from tables.procs import ProcessRecord
    from tables.protocol import ProgramPlayer

    async def main():
        p = ProgramPlayer({command!r}, "Ann", timeout=10, record=ProcessRecord({record!r}))
        await p.start()
        print((await p.ask()).line, flush=True)
        await asyncio.sleep(60)

    asyncio.run(main())
"""


async def test_a_killed_bot_takes_its_program_along_and_the_next_start_sweeps_the_rest(tmp_path: Path) -> None:
    record = tmp_path / "deckhand.db.programs"
    code = textwrap.dedent(FAKE_BOT).format(root=str(ROOT), command=program(ESCAPER), record=str(record))
    bot = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    pids: list[int] = []
    try:
        line = await asyncio.wait_for(asyncio.to_thread(bot.stdout.readline), 20)
        pids = [int(x) for x in line.split()]
        assert len(ProcessRecord(record).read()) == 1
        bot.kill()  # SIGKILL: no clean-up code runs
        bot.wait()
        # The program itself dies with the bot (parent-death signal) ...
        assert await all_gone(pids[:1]), "the program outlived the bot"
        # ... its escaped helpers are left for the next start, which finds them in the record.
        assert not gone(pids[1]) and not gone(pids[2])
        swept = ProcessRecord(record).sweep()
        assert swept >= 2
        assert await all_gone(pids), [x for x in pids if not gone(x)]
        assert ProcessRecord(record).read() == {}
    finally:
        bot.kill()
        kill_for_good(pids)


async def test_the_sweep_leaves_a_reused_pid_alone(tmp_path: Path) -> None:
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        record = tmp_path / "programs"
        record.write_text(f"0123456789abcdef {bystander.pid}\n")  # a recorded pid now used by someone else
        assert ProcessRecord(record).sweep() == 0
        await asyncio.sleep(0.1)
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()
