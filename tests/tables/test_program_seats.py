"""Program seats at runtime tables (tables/programs/driver.py): the operator's programs playing Tricks.

Program I/O is real (subprocesses); the runtime's clock is fake and ``ai_delay`` is 0, so a game
runs as fast as the programs answer.  Misbehaving programs get a short deadline to stay quick.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from games.tricks.rules import Tricks
from tables import Phase, Runtime, TableError
from tables.history.records import rebuild, record_of
from tables.programs.driver import (
    DEFAULT_TABLE_STRIKES,
    ProgramSettings,
    catch_up_events,
    parse_programs,
    protocol_names,
)
from tables.programs.protocol import QUERY_CARD, event_lines, start_game

from .conftest import CHANNEL, GUILD, HOST, HOST_NAME, choose
from .test_storage import StoredClock, db

ROOT = Path(__file__).resolve().parents[2]
PY = shlex.quote(sys.executable)
CLIENT = f"{PY} {shlex.quote(str(ROOT / 'clients' / 'python_client.py'))}"
TARGET = {"target": 15}

# Misbehaving programs: each reads the protocol and answers every query badly (or not at all).
READ_LOOP = "import os, sys, time\nfor line in sys.stdin:\n    if 'QUERY' in line:\n"
BAD_PROGRAMS = {
    "garbage": READ_LOOP + "        print('hello world', flush=True)\n",
    "ten": READ_LOOP + "        print('|RESPONSE|card|10S|END|', flush=True)\n",
    "sleeper": READ_LOOP + "        time.sleep(30)\n",
    "exits": READ_LOOP + "        sys.exit(0)\n",
    "closes": "import os, time\nos.close(1)\ntime.sleep(30)\n",
    # Keeps its hand and plays a card of another suit whenever it could follow suit: a revoke.
    "revoker": (
        "import sys\nhand, trick = [], []\n"
        "for line in sys.stdin:\n"
        "    p = line.strip().split('|')\n"
        "    if len(p) < 5: continue\n"
        "    k, key, d = p[1], p[2], p[3:-2]\n"
        "    if key == 'cards': hand = d[0].split()\n"
        "    elif key == 'start trick': trick = []\n"
        "    elif key == 'played':\n"
        "        trick.append(d[1])\n"
        "        if d[1] in hand: hand.remove(d[1])\n"
        "    elif k == 'QUERY':\n"
        "        led = trick[0][1] if trick else None\n"
        "        off = [c for c in hand if led and c[1] != led]\n"
        "        same = [c for c in hand if led and c[1] == led]\n"
        "        pick = off[0] if off and same else hand[0]\n"
        "        print('|RESPONSE|card|' + pick + '|END|', flush=True)\n"
    ),
}


def script(tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(BAD_PROGRAMS[name])
    return f"{PY} {shlex.quote(str(path))}"


def alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead: only its exit status is left to collect.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


async def until(done, clock, seconds: float = 20.0, host_plays: Runtime | None = None, table=None) -> None:
    """Wait (real time: program I/O is real) until ``done()``; meanwhile the host, if asked, plays
    the first legal card whenever it is their turn."""
    end = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < end, "timed out"
        if host_plays is not None:
            sv = host_plays.seat_view(table.id, HOST)
            if sv.decision is not None:
                await host_plays.act(table.id, HOST, choose(sv.decision), version=table.version)
                continue
        await clock.settle()
        await asyncio.sleep(0.002)


def programs(commands: dict[str, str], **kw) -> ProgramSettings:
    kw.setdefault("record", True)
    return ProgramSettings(commands, **kw)


async def tricks_table(rt: Runtime, *program_names: str, ais: bool = True, host_leaves: bool = False):
    """A Tricks lobby hosted by Ann (seat 0), then the programs, then AIs in the free seats."""
    t = await rt.create(game="tricks", guild_id=GUILD, channel_id=CHANNEL, host_id=HOST, host_name=HOST_NAME,
                        options=TARGET)
    for name in program_names:
        await rt.add_ai(t.id, HOST, program=name)
    if ais:
        await rt.add_ai(t.id, HOST)
    return t


def heard(drv, seat: int) -> list[str]:
    """What the program at ``seat`` was sent (its answers and notes left out)."""
    return [x for x in drv.transcript(seat) if not x.startswith(("> ", "# "))]


def replay(t) -> list:
    state = Tricks.create(4, t.options, t.seed)
    events = list(state.opening_events())
    for e in t.log:
        events += state.apply(e.seat, Tricks.action_from_code(e.code))
    return [e for e in events if e.to is None]


def expected(t, seat: int) -> list[str]:
    """Every line a contest program at ``seat`` hears in this game, from the table's log."""
    names = protocol_names(t.names())
    state = Tricks.create(4, t.options, t.seed)
    out = [start_game(names)]

    def emit(events) -> None:
        for e in events:
            out.extend(line for to, line in event_lines(e, names) if to is None or to == seat)

    emit(state.opening_events())
    for e in t.log:
        if e.seat == seat:
            out.append(QUERY_CARD)
        emit(state.apply(e.seat, Tricks.action_from_code(e.code)))
    return out


@pytest.fixture
def rt_programs(make_runtime):
    def make(commands: dict[str, str], **kw) -> Runtime:
        settings = programs(commands, **{k: kw.pop(k) for k in ("timeout", "strikes") if k in kw})
        return make_runtime(ai_delay=0, programs=settings, **kw)
    return make


# ==== configuration ================================================================================
def test_parse_programs_reads_names_and_command_lines():
    got = parse_programs(" py = python3 clients/python_client.py ; ; js=node clients/js_client.js --x=1;")
    assert got == {"py": "python3 clients/python_client.py", "js": "node clients/js_client.js --x=1"}
    assert parse_programs("") == {} and parse_programs(None) == {}
    assert parse_programs("a.b-c_9='my bot' --fast") == {"a.b-c_9": "'my bot' --fast"}


@pytest.mark.parametrize("text, words", [
    ("python3 bot.py", "name=command"),
    ("=python3 bot.py", "Program name"),
    ("my bot=python3 bot.py", "Program name"),
    ("a|b=python3 bot.py", "Program name"),
    ("x" * 33 + "=python3 bot.py", "Program name"),
    ("ai=python3 bot.py", "built-in AI"),
    ("a=x;a=y", "twice"),
    ("a=", "empty command"),
    ("a=  ", "empty command"),
    ("a=python3 'unclosed", "cannot read"),
])
def test_parse_programs_refuses_bad_entries(text, words):
    with pytest.raises(ValueError, match=words):
        parse_programs(text)


def test_protocol_names_are_safe_fields_and_all_different():
    assert protocol_names(["Ann", "AI 1", "a|b", "Ann"]) == ["Ann", "AI_1", "a_b", "Ann-2"]
    assert protocol_names(["", "Zoë", "x" * 50, "🎲"]) == ["player", "Zo_", "x" * 28, "_"]
    for names in (["Ann", "AI 1", "AI 2", "pybot"], ["a" * 40, "a" * 41, "b", "c"]):
        out = protocol_names(names)
        assert all("|" not in n and " " not in n and len(n) <= 32 for n in out) and len(set(out)) == 4


def test_catch_up_at_the_start_of_a_hand_is_the_opening():
    state = Tricks.create(4, TARGET, 5)
    assert catch_up_events(state) == state.opening_events()


# ==== seating a program ==============================================================================
async def test_only_the_host_seats_a_configured_program_by_name_at_tricks(rt_programs):
    rt = rt_programs({"pybot": CLIENT})
    assert rt.program_names() == ["pybot"]
    t = await tricks_table(rt, ais=False)
    await rt.join(t.id, 200, "Bob")
    with pytest.raises(TableError) as e:
        await rt.add_ai(t.id, 200, program="pybot")
    assert e.value.code == "not_host"
    for bad in ("nobody", CLIENT, "python3 -c 'import os; os.system(\"rm -rf /\")'", "pybot; ls", "../pybot"):
        with pytest.raises(TableError) as e:
            await rt.add_ai(t.id, HOST, program=bad)
        assert e.value.code == "unknown_program" and "`pybot`" in e.value.message
    assert [s.name for s in t.seats] == ["Ann", "Bob"]
    assert await rt.add_ai(t.id, HOST, program=" pybot ") == 1  # one copy unless a count is given
    assert await rt.add_ai(t.id, HOST, 5, program="pybot") == 1  # only one seat was left
    assert [(s.name, s.is_ai, s.program) for s in t.seats[2:]] == [("pybot", True, "pybot"),
                                                                    ("pybot-2", True, "pybot")]
    with pytest.raises(TableError) as e:
        await rt.add_ai(t.id, HOST, program="pybot")
    assert e.value.code == "full"


async def test_programs_play_tricks_only_and_only_when_configured(rt_programs, make_runtime):
    rt = rt_programs({"pybot": CLIENT})
    hearts = await rt.create(game="hearts", guild_id=GUILD, channel_id=CHANNEL, host_id=HOST, host_name=HOST_NAME)
    with pytest.raises(TableError) as e:
        await rt.add_ai(hearts.id, HOST, program="pybot")
    assert e.value.code == "not_program_game" and "Tricks" in e.value.message
    bare = make_runtime()
    t = await bare.create(game="tricks", guild_id=GUILD, channel_id=CHANNEL, host_id=HOST + 1, host_name="Cy")
    with pytest.raises(TableError) as e:
        await bare.add_ai(t.id, HOST + 1, program="pybot")
    assert e.value.code == "no_programs"
    assert bare.program_names() == []


async def test_a_program_seat_survives_storage_and_recovery(make_runtime, tmp_path):
    t0 = await make_runtime(programs={"pybot": CLIENT}).create(
        game="tricks", guild_id=GUILD, channel_id=CHANNEL, host_id=HOST, host_name=HOST_NAME)
    rt = make_runtime(programs={"pybot": CLIENT})
    t = await tricks_table(rt, "pybot")
    rec = record_of(t)
    assert '"program":"pybot"' in rec["seats"] and rec["seats"].count("program") == 1
    back, _ = rebuild(rec, [])
    assert [s.program for s in back.seats] == [None, "pybot", None, None]
    assert "program" not in record_of(t0)["seats"]  # other seats are stored exactly as before


# ==== playing ========================================================================================
async def test_a_program_plays_a_whole_game_hearing_exactly_the_contest_protocol(rt_programs, clock):
    """Ann (a person), the example Python client and two AIs finish a game to 15."""
    rt = rt_programs({"pybot": CLIENT})
    t = await tricks_table(rt, "pybot")
    await rt.start(t.id, HOST)
    drv = rt._live[t.id].programs
    assert drv is not None
    await until(lambda: t.phase == Phase.FINISHED, clock, host_plays=rt, table=t)
    assert t.state.is_over and max(t.state.scores) >= 15
    assert t.state.bad_cards == [0, 0, 0, 0] and t.seats[1].program == "pybot"
    assert any(e.seat == 1 for e in t.log) and all(e.auto for e in t.log if e.seat == 1)
    assert t.deadlines == {} and not any(1 in seats for _, seats in rt.listener.turns)  # never pinged
    lines = heard(drv, 1)
    assert lines[0] == "|INFO|start game|Ann|pybot|AI_1|AI_2|END|"
    assert lines == expected(t, 1)
    assert lines[-1].startswith("|INFO|end game|Ann ")
    pid = drv.pids()[1]
    await until(lambda: not alive(pid), clock, seconds=5)  # the process is gone once the game is over


@pytest.mark.parametrize("kind, said, why", [
    ("garbage", "hello world", f"{DEFAULT_TABLE_STRIKES} bad cards"),
    ("ten", "10S", f"{DEFAULT_TABLE_STRIKES} bad cards"),
    ("sleeper", "(timeout)", f"{DEFAULT_TABLE_STRIKES} bad cards"),
    ("exits", "(exit)", "exit"),
    ("closes", "(closed)", "closed"),
    ("revoker", None, f"{DEFAULT_TABLE_STRIKES} bad cards"),
])
async def test_a_misbehaving_program_gets_minus_100_and_the_game_goes_on(rt_programs, clock, tmp_path,
                                                                        kind, said, why):
    rt = rt_programs({"bad": script(tmp_path, kind)}, timeout=0.3)
    seen: list[str] = []

    class Watch:
        async def redraw(self, table):
            seen.extend(e.data[0] for e in table.recent if e.kind == "program_replaced" and e.seat == 1)

        async def turn(self, table, seats):
            pass

        async def summary(self, table, events):
            pass

    rt.listener = Watch()
    rt.redraw_interval = 0
    t = await tricks_table(rt, "bad")
    await rt.start(t.id, HOST)
    drv = rt._live[t.id].programs
    assert drv is not None
    await until(lambda: t.phase == Phase.FINISHED, clock, host_plays=rt, table=t)
    bad = [e for e in t.log if e.code.startswith("bad")]
    n = 1 if why in ("exit", "closed") else DEFAULT_TABLE_STRIKES
    assert len(bad) == n and {e.seat for e in bad} == {1} and all(e.auto for e in bad)
    assert t.state.bad_cards == [0, n, 0, 0]
    if said is not None:
        assert all(e.code == f"bad {said}" for e in bad)
    # -100 each, the hand abandoned and a fresh one dealt; then the built-in AI plays the seat.
    events = replay(t)
    for i, e in enumerate(events):
        if e.kind == "bad_card":
            assert e.seat == 1
            end, deal = events[i + 1], events[i + 2]
            assert end.kind == "hand_end" and end.data[1] == 1  # abandoned
            assert deal.kind == "deal" and deal.data[0] == end.data[0] + 1
    won = sum(1 for e in events if e.kind == "trick" and e.seat == 1)
    assert t.state.scores[1] == won - 100 * n and max(t.state.scores) >= 15
    assert t.seats[1].program is None  # replaced by the built-in AI for the rest of the game
    assert drv.retired() == {1: why}
    assert any("built-in AI" in x for x in seen), "the table says the program was replaced"
    # It heard the bad cards it played before the last one (after that it is gone).
    lines = heard(drv, 1)
    assert sum(1 for x in lines if x.startswith("|INFO|bad card|bad|")) == n - 1
    assert lines == expected(t, 1)[:len(lines)]
    pid = drv.pids()[1]
    await until(lambda: not alive(pid), clock, seconds=5)


# Plays the lowest legal card, but stalls past the deadline once (its first query), then answers.
STALLER = (
    "import sys, time\nhand, trick, stalled = [], [], False\n"
    "for line in sys.stdin:\n"
    "    p = line.strip().split('|')\n"
    "    if len(p) < 5: continue\n"
    "    k, key, d = p[1], p[2], p[3:-2]\n"
    "    if key == 'cards': hand = d[0].split()\n"
    "    elif key == 'start trick': trick = []\n"
    "    elif key == 'played':\n"
    "        trick.append(d[1])\n"
    "        if d[0] == sys.argv[1] and d[1] in hand: hand.remove(d[1])\n"
    "    elif k == 'QUERY':\n"
    "        if not stalled:\n"
    "            stalled = True\n"
    "            time.sleep(3.0)\n"
    "        same = [c for c in hand if trick and c[1] == trick[0][1]]\n"
    "        pick = min(same or hand, key=lambda c: '23456789TJQKA'.index(c[0]))\n"
    "        print('|RESPONSE|card|' + pick + '|END|', flush=True)\n"
)


async def test_a_program_that_stalls_once_plays_one_bad_card_not_several(rt_programs, clock, tmp_path):
    # Issue 13 item 8: its late answer belongs to the query that timed out and is dropped; taken as
    # the next query's answer it would be a card of the abandoned hand, a bad card again, and so on.
    path = tmp_path / "staller.py"
    path.write_text(STALLER)
    # A 2 s deadline, a 3 s stall: the late answer lands a second before the next query's deadline,
    # and a loaded machine still answers every other query in time.
    rt = rt_programs({"staller": f"{PY} {shlex.quote(str(path))}"}, timeout=2.0)
    t = await tricks_table(rt, "staller")
    await rt.start(t.id, HOST)
    drv = rt._live[t.id].programs
    assert drv is not None
    await until(lambda: t.phase == Phase.FINISHED, clock, host_plays=rt, table=t)
    assert [e.code for e in t.log if e.code.startswith("bad")] == ["bad (timeout)"]
    assert t.state.bad_cards == [0, 1, 0, 0] and t.seats[1].program == "staller"  # never retired
    assert drv.seats[1].player.late == 1
    assert sum(1 for e in t.log if e.seat == 1 and e.code.startswith("play")) > 13


async def test_a_slow_program_never_holds_the_table_lock(rt_programs, clock, tmp_path):
    # The program answers only once the test opens its gate: while it thinks, Ann's refusal must
    # come back (a refusal that waited for the program would never come).
    slow, gate = tmp_path / "slow.py", tmp_path / "gate"
    source = (ROOT / "clients" / "python_client.py").read_text()
    wait = (f"    while not __import__('os').path.exists({str(gate)!r}):\n"
            "        __import__('time').sleep(0.01)\n")
    slow.write_text(source.replace("def send(*fields):\n", "def send(*fields):\n" + wait))
    assert "path.exists" in slow.read_text()
    rt = rt_programs({"slow": f"{PY} {shlex.quote(str(slow))}"}, timeout=60)
    t = await tricks_table(rt, "slow")
    await rt.start(t.id, HOST)
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))  # Ann leads; the program is next
    live = rt._live[t.id]
    await until(lambda: live.programs is not None and live.programs._asks, clock)
    with pytest.raises(TableError) as e:
        await asyncio.wait_for(rt.act(t.id, HOST, "2C"), 20)  # (20 s: "at all", never a speed bet)
    assert e.value.code == "not_your_turn"
    assert not live.lock.locked() and t.version == 1
    gate.touch()
    await until(lambda: t.version >= 2, clock)
    assert t.log[1].seat == 1 and t.log[1].code.startswith("play")


async def test_ending_the_table_while_a_program_thinks_applies_nothing_and_kills_it(rt_programs, clock, tmp_path):
    rt = rt_programs({"sleepy": script(tmp_path, "sleeper")}, timeout=10)
    t = await tricks_table(rt, "sleepy")
    await rt.start(t.id, HOST)
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    drv = rt._live[t.id].programs
    await until(lambda: drv._asks, clock)
    pid = drv.pids()[1]
    assert alive(pid)
    await rt.end(t.id, HOST)
    await until(lambda: not alive(pid), clock, seconds=5)
    await asyncio.sleep(0.05)
    assert t.phase == Phase.FINISHED and t.version == 1 and len(t.log) == 1


async def test_closing_the_runtime_kills_every_program(rt_programs, clock, tmp_path):
    rt = rt_programs({"pybot": CLIENT, "sleepy": script(tmp_path, "sleeper")}, timeout=10)
    t = await tricks_table(rt, "pybot", "sleepy", ais=False)
    await rt.start(t.id, HOST)
    drv = rt._live[t.id].programs
    await until(lambda: drv.started, clock)
    pids = list(drv.pids().values())
    assert all(alive(p) for p in pids)
    await rt.close()
    assert not any(alive(p) for p in pids)


async def test_a_program_that_cannot_start_is_replaced_at_once(rt_programs, clock, tmp_path):
    rt = rt_programs({"ghost": str(tmp_path / "no-such-program")})
    t = await tricks_table(rt, "ghost")
    await rt.start(t.id, HOST)
    await until(lambda: t.seats[1].program is None, clock)
    assert [e.data for e in t.recent if e.kind == "program_replaced"] == [
        ("by the built-in AI: it could not be started",)]
    await until(lambda: t.phase == Phase.FINISHED, clock, host_plays=rt, table=t)
    assert t.state.bad_cards == [0, 0, 0, 0]  # no penalty: it never played


# ==== recovery ======================================================================================
@pytest.fixture
def stored_clock() -> StoredClock:
    return StoredClock()


async def test_after_a_restart_the_program_starts_afresh_at_the_current_point(make_runtime, stored_clock,
                                                                              tmp_path):
    clock = stored_clock
    settings = programs({"pybot": CLIENT})
    path = tmp_path / "d.db"
    rt = make_runtime(storage=await db(path), clock=clock, ai_delay=0, programs=settings)
    t = await tricks_table(rt, "pybot")
    await rt.start(t.id, HOST)

    def mid_trick() -> bool:  # the host to play, mid-hand, the program already in this trick
        s = t.state
        return (s.turn == 0 and s.trick_no >= 2 and any(seat == 1 for seat, _ in s.trick))

    end = time.monotonic() + 20
    while not mid_trick():
        assert time.monotonic() < end and t.phase == Phase.RUNNING
        sv = rt.seat_view(t.id, HOST)
        if sv.decision is not None and not mid_trick():
            await rt.act(t.id, HOST, choose(sv.decision), version=t.version)
        await clock.settle()
        await asyncio.sleep(0.002)
    old_pid = rt._live[t.id].programs.pids()[1]
    version = t.version
    await rt.close()  # the bot stops; the program goes with it
    assert not alive(old_pid)

    rt2 = make_runtime(storage=await db(path), clock=clock, ai_delay=0, programs=settings)
    report = await rt2.recover()
    assert [x.id for x in report.restored] == [t.id]
    t2 = rt2.get(t.id)
    assert t2.version == version and t2.seats[1].program == "pybot"
    drv = rt2._live[t2.id].programs
    await until(lambda: drv.started, clock)
    s = t2.state
    names = protocol_names(t2.names())
    lead = s.leader
    want = [start_game(names), f"|INFO|start hand|{s.hand_no}|END|",
            "|INFO|cards|" + " ".join(c.code for c in s.hands[1]) + "|END|",
            f"|INFO|start trick|{s.trick_no}|" + "|".join(names[(lead + i) % 4] for i in range(4)) + "|END|",
            *(f"|INFO|played|{names[seat]}|{c.code}|END|" for seat, c in s.trick)]
    assert drv.transcript(1) == want
    assert drv.pids()[1] != old_pid
    await until(lambda: t2.phase == Phase.FINISHED, clock, host_plays=rt2, table=t2)
    assert t2.state.bad_cards == [0, 0, 0, 0]  # it knew its hand and the trick: only legal cards
    assert t2.seats[1].program == "pybot"


async def test_a_program_no_longer_configured_is_replaced_after_a_restart(make_runtime, stored_clock, tmp_path):
    clock = stored_clock
    path = tmp_path / "d.db"
    rt = make_runtime(storage=await db(path), clock=clock, ai_delay=0, programs=programs({"pybot": CLIENT}))
    t = await tricks_table(rt, "pybot")
    await rt.start(t.id, HOST)
    await rt.close()
    rt2 = make_runtime(storage=await db(path), clock=clock, ai_delay=0)  # the operator removed it
    await rt2.recover()
    t2 = rt2.get(t.id)
    assert t2.seats[1].program is None and rt2._live[t.id].programs is None
    assert any(e.kind == "program_replaced" and "no longer" in e.data[0] for e in t2.recent)
    await until(lambda: t2.phase == Phase.FINISHED, clock, host_plays=rt2, table=t2)


def test_strikes_default_is_small_for_tables():
    assert DEFAULT_TABLE_STRIKES in range(1, 6)
    assert ProgramSettings().timeout == 2.0

