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

from games.tricks.rules import Tricks
from tables.programs.driver import ProgramSettings, TablePrograms
from tables.programs.process import ProgramPlayer
from tables.programs.procs import MARK, ProcessRecord, parse_env_names, program_env
from tables.programs.protocol import EXIT, Answer

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux /proc and prctl")


def program(code: str) -> str:
    return " ".join(shlex.quote(w) for w in (sys.executable, "-c", textwrap.dedent(code)))


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # a zombie has stopped running
    except (FileNotFoundError, ProcessLookupError):  # gone before, or while, it was read
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
# Programs that fork in every way a program might.  Each answers its first query with the pids of
# every process it started; every process carries the test's tag in its environment (the bot passes
# DECKHAND_TEST_TAG on), so the test finds them all in /proc whoever their parent is by then.
FORKER = """
    import os, sys, time
    # Ten children in the program's own group, each with two children of its own (31 processes),
    # and a plain child started the ordinary way.
    import subprocess
    plain = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])
    r, w = os.pipe()
    for _ in range(10):
        if os.fork() == 0:
            for _ in range(2):
                if os.fork() == 0:
                    os.write(w, b'%d ' % os.getpid())
                    time.sleep(120)
                    os._exit(0)
            os.write(w, b'%d ' % os.getpid())
            time.sleep(120)
            os._exit(0)
    os.close(w)
    pids = []
    while len(pids) < 30:
        pids += os.read(r, 4096).split()
    sys.stdin.readline()
    print(os.getpid(), plain.pid, *(p.decode() for p in pids), flush=True)
    time.sleep(120)
"""
SETSID = """
    import os, subprocess, sys, time
    # A helper in a session of its own (out of the program's group), which starts a child of its own.
    code = ("import subprocess, sys, time; "
            "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
            "print(c.pid, flush=True); time.sleep(120)")
    helper = subprocess.Popen([sys.executable, '-c', code], start_new_session=True, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE)
    grandchild = int(helper.stdout.readline())
    sys.stdin.readline()
    print(os.getpid(), helper.pid, grandchild, flush=True)
    time.sleep(120)
"""
DOUBLE_FORK = """
    import os, sys, time
    # A daemon: a child calls setsid and forks, and exits; the grandchild is orphaned.
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(w, str(os.getpid()).encode())
            os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(120)'])
        os._exit(0)
    daemon = int(os.read(r, 32))
    sys.stdin.readline()
    print(os.getpid(), daemon, flush=True)
    time.sleep(120)
"""
KEEPS_FORKING = """
    import os, sys, time
    # A helper that never stops starting processes (at most 200, should the leash fail).
    if os.fork() == 0:
        os.setsid()
        for _ in range(200):
            if os.fork() == 0:
                time.sleep(120)
                os._exit(0)
            time.sleep(0.01)
        time.sleep(120)
        os._exit(0)
    sys.stdin.readline()
    print(os.getpid(), flush=True)
    time.sleep(120)
"""
PROGRAMS = {"forker": FORKER, "setsid": SETSID, "double fork": DOUBLE_FORK, "keeps forking": KEEPS_FORKING,
            "escaper": ESCAPER}

# A stand-in for the bot: starts programs as the bot does (ProgramPlayer, the operator's
# environment list, a record), prints the pids each one reports, and waits to die.
FAKE_BOT = """
    import asyncio, json, sys
    sys.path.insert(0, {root!r})
    from tables.programs.procs import ProcessRecord, program_env
    from tables.programs.protocol import EXIT, Answer
    from tables.programs.process import ProgramPlayer

    async def main():
        record = ProcessRecord({record!r})
        players = [ProgramPlayer(c, "Ann", timeout=30, env=program_env(["DECKHAND_TEST_TAG"]), record=record)
                   for c in {commands!r}]
        for p in players:
            await p.start()
        answers = [(await p.ask()).line for p in players]
        print(json.dumps([[p.pid, p.program_pid, a] for p, a in zip(players, answers)]), flush=True)
        await asyncio.sleep(120)

    asyncio.run(main())
"""


def tagged(tag: str) -> set[int]:
    """Every running process (zombies aside) whose environment carries ``tag``."""
    me = os.getpid()
    out = set()
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != me:
            try:
                with open(f"/proc/{name}/environ", "rb") as f:
                    env = f.read().split(b"\0")
            except OSError:
                continue
            if f"DECKHAND_TEST_TAG={tag}".encode() in env and not gone(int(name)):
                out.add(int(name))
    return out


async def all_tagged(tag: str, pids: list[int]) -> set[int]:
    """Every process carrying ``tag``, once ``pids`` are all among them: a process that has just
    been exec'd shows an empty environment for a moment (the parent learns of the exec first)."""
    for _ in range(500):
        found = tagged(tag)
        if set(pids) <= found:
            return found
        await asyncio.sleep(0.01)
    raise AssertionError(f"not every process of the program carries its tag: {set(pids) - tagged(tag)}")


def kill_tagged(tag: str, pids: list[int]) -> None:
    """Clean-up whatever a test left, even one that failed: the reported pids, then everything
    that carries the tag, round after round (a process that keeps forking needs several)."""
    kill_for_good(pids)
    end = time.monotonic() + 10
    while (left := tagged(tag)) and time.monotonic() < end:
        kill_for_good(sorted(left))
        time.sleep(0.01)


def start_fake_bot(tmp_path: Path, commands: list[str], tag: str) -> subprocess.Popen[str]:
    code = textwrap.dedent(FAKE_BOT).format(root=str(ROOT), commands=commands,
                                            record=str(tmp_path / "deckhand.db.programs"))
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "DECKHAND_TEST_TAG": tag})


async def test_a_killed_bot_takes_every_process_of_its_programs_along(tmp_path: Path) -> None:
    tag = os.urandom(8).hex()
    commands = [program(code) for code in PROGRAMS.values()]
    bot = start_fake_bot(tmp_path, commands, tag)
    pids: list[int] = []
    try:
        line = await asyncio.wait_for(asyncio.to_thread(bot.stdout.readline), 60)
        started = json.loads(line)
        reported = {name: [int(x) for x in answer.split()]
                    for name, (_, _, answer) in zip(PROGRAMS, started, strict=True)}
        pids = [p for leash, prog, _ in started for p in (leash, prog)] + [p for ps in reported.values() for p in ps]
        assert len(reported["forker"]) == 32 and not any(gone(p) for p in pids)
        # The helpers really got away from the program's group, and the daemon from its parent.
        for name in ("setsid", "double fork", "escaper"):
            assert os.getpgid(reported[name][1]) != os.getpgid(reported[name][0]), name
        before = await all_tagged(tag, pids)
        assert len(before) > len(set(pids))  # the ever-forking helper's processes too
        assert len(ProcessRecord(tmp_path / "deckhand.db.programs").read()) == len(commands)

        bot.kill()  # SIGKILL: no clean-up code of the bot runs
        bot.wait()
        # The measure: nothing of any program is left 2 s later, with no new bot started.
        # (A dying process shows an empty environment before it shows as ended: both are looked at.)
        end = time.monotonic() + 2.0
        while (left := tagged(tag) | {p for p in pids if not gone(p)}) and time.monotonic() < end:
            await asyncio.sleep(0.02)
        assert not left, {p: _ppid_and_cmd(p) for p in left}
        # A later start finds nothing of them to sweep.
        assert ProcessRecord(tmp_path / "deckhand.db.programs").sweep() == 0
    finally:
        bot.kill()
        bot.wait()
        kill_tagged(tag, pids)


def _ppid_and_cmd(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")[:80]
    except OSError:
        return "?"


@pytest.mark.parametrize("kind", sorted(PROGRAMS))
async def test_closing_a_program_leaves_nothing_of_it(kind: str, monkeypatch) -> None:
    tag = os.urandom(8).hex()
    monkeypatch.setenv("DECKHAND_TEST_TAG", tag)
    p = ProgramPlayer(program(PROGRAMS[kind]), "Ann", timeout=30, env=program_env(["DECKHAND_TEST_TAG"]))
    pids: list[int] = []
    try:
        await p.start()
        pids = [int(x) for x in (await p.ask()).line.split()]
        assert p.leashed and pids[0] == p.program_pid
        await all_tagged(tag, pids)
        await p.close(grace=0)
        # close() returns once the leash has exited, and the leash exits once nothing is left below it.
        assert tagged(tag) == set() and all(gone(x) for x in pids)
    finally:
        await p.close(grace=0)
        kill_tagged(tag, pids)


async def test_a_program_that_exits_takes_its_helpers_along_and_its_status_is_kept() -> None:
    code = """
        import os, subprocess, sys
        helper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], start_new_session=True,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        sys.stdin.readline()
        print(helper.pid, flush=True)
        sys.stdin.readline()
        sys.exit(3)
    """
    p = ProgramPlayer(program(code), "Ann", timeout=10)
    await p.start()
    helper = int((await p.ask()).line)
    try:
        assert p.program_pid != p.pid and not gone(helper)
        assert await p.ask() == Answer(None, EXIT)
        assert await all_gone([helper, p.program_pid])
        assert await p.close() == 3
    finally:
        kill_for_good([helper])


async def test_a_killed_leash_still_takes_the_program_along_and_the_next_start_sweeps_the_rest(tmp_path: Path) -> None:
    """The leash is the first line; should it itself be SIGKILLed, the program dies by its parent-
    death signal, and what it hid is found by its mark in the record at the next start."""
    record = ProcessRecord(tmp_path / "deckhand.db.programs")
    p = ProgramPlayer(program(ESCAPER), "Ann", timeout=10, record=record)
    await p.start()
    pids = [int(x) for x in (await p.ask()).line.split()]
    try:
        assert pids[0] == p.program_pid
        os.kill(p.pid, signal.SIGKILL)
        assert await all_gone(pids[:1]), "the program outlived its leash"
        assert not gone(pids[1]) and not gone(pids[2])
        swept = ProcessRecord(record.path).sweep()
        assert swept >= 2
        assert await all_gone(pids), [x for x in pids if not gone(x)]
        assert ProcessRecord(record.path).read() == {}
    finally:
        await p.close(grace=0)
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
