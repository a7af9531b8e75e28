"""``/game ai program:`` through the cog with the light fakes, and the bot's program configuration.

Only the host of a Tricks table may seat a program, only one the operator configured, chosen by
name: whatever a chat user types is looked up as a name, never run."""

from __future__ import annotations

import asyncio
import os
import random
import shlex
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import bot
import config
from cogs.live.listener import DiscordListener
from cogs.table.game import GameCog
from tables.clock import FakeClock
from tables.programs.driver import ProgramSettings
from tables.runtime import Runtime
from tables.table import Phase
from tests.cogs.conftest import Harness
from tests.cogs.fakes import FakeBot, FakeUser, World

ROOT = Path(__file__).resolve().parents[2]
PY = shlex.quote(sys.executable)
CLIENT = f"{PY} {shlex.quote(str(ROOT / 'clients' / 'python_client.py'))}"


@pytest.fixture
async def hp(tmp_path: Path) -> AsyncIterator[Harness]:
    """The cog harness of tests/cogs/conftest.py, on a runtime with two configured programs."""
    quitter = tmp_path / "quitter.py"
    quitter.write_text("import sys\nfor line in sys.stdin:\n    if 'QUERY' in line:\n        sys.exit(0)\n")
    settings = ProgramSettings({"pybot": CLIENT, "quitter": f"{PY} {shlex.quote(str(quitter))}"}, timeout=1.0)
    world = World()
    fake_bot = FakeBot(world)
    clock = FakeClock()
    listener = DiscordListener(fake_bot)
    runtime = Runtime(listener=listener, clock=clock, rng=random.Random(7), ai_delay=0, programs=settings)
    world.runtime = runtime
    cog = GameCog(runtime, listener)
    fake_bot.cogs["GameCog"] = cog
    harness = Harness(world, fake_bot, clock, runtime, cog, listener, world.channel("cards"),
                      FakeUser(101, "Alice"), FakeUser(102, "Bob"), FakeUser(103, "Stranger"))
    yield harness
    await runtime.close()
    assert not world.violations, "\n".join(world.violations[:5])


async def open_lobby(h: Harness, game: str = "tricks", options: str | None = "target=5"):
    i = h.inter(h.alice)
    await h.cog.game_new.callback(h.cog, i, game=game, options=options, speed="normal")
    assert not i.errors and i.original is not None
    table = h.runtime.find(1, channel_id=h.channel.id)
    assert table is not None and table.game == game
    await h.settle()
    return table, i.original


async def game_ai(h: Harness, user: FakeUser, count: int | None = None, program: str | None = None):
    i = h.inter(user)
    await h.cog.game_ai.callback(h.cog, i, count=count, program=program)
    assert not i.errors and i.replies and all(m.ephemeral for m in i.replies)
    return i.last.content or ""


async def finish(h: Harness, table, seconds: float = 20.0) -> None:
    """Alice plays her turns with /play (the first legal card); programs and AIs play theirs."""
    end = time.monotonic() + seconds
    while table.phase != Phase.FINISHED:
        assert time.monotonic() < end, "the game did not finish"
        sv = h.runtime.seat_view(table.id, h.alice.id)
        if sv.decision is not None:
            i = h.inter(h.alice)
            await h.cog.play.callback(h.cog, i, cards=sv.decision.actions[0].code)
            assert i.replies and i.replies[-1].ephemeral
            continue
        await h.clock.advance(0.2)
        await asyncio.sleep(0.002)
    await h.settle(2)


# ==== who may seat what ==============================================================================
async def test_the_host_seats_a_configured_program_by_name(hp: Harness) -> None:
    table, lobby = await open_lobby(hp)
    said = await game_ai(hp, hp.alice, program="pybot")
    assert "`pybot`" in said and table.id in said
    assert [(s.name, s.is_ai, s.program) for s in table.seats] == [("Alice", False, None), ("pybot", True, "pybot")]
    await hp.settle()
    assert "pybot" in hp.table_message(table).text  # the lobby shows the seat


async def test_only_the_host_may_seat_a_program(hp: Harness) -> None:
    table, _ = await open_lobby(hp)
    join = hp.inter(hp.bob)
    await hp.cog.game_join.callback(hp.cog, join, id=table.id)
    said = await game_ai(hp, hp.bob, program="pybot")
    assert "Only the host" in said
    assert [s.name for s in table.seats] == ["Alice", "Bob"]


async def test_programs_play_tricks_only(hp: Harness) -> None:
    table, _ = await open_lobby(hp, "hearts", None)
    said = await game_ai(hp, hp.alice, program="pybot")
    assert "only play Tricks" in said
    assert len(table.seats) == 1


@pytest.mark.parametrize("typed", [
    "nobody",
    CLIENT,
    "python3 -c \"open('MARKER', 'w')\"",
    "pybot;touch MARKER",
    "pybot && touch MARKER",
    "$(touch MARKER)",
    "../pybot",
])
async def test_a_chat_user_can_never_pass_a_command_line(hp: Harness, typed: str, tmp_path: Path,
                                                         monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    table, _ = await open_lobby(hp)
    said = await game_ai(hp, hp.alice, program=typed)
    assert "There is no program called" in said and "`pybot`" in said and "`quitter`" in said
    assert len(table.seats) == 1
    await game_ai(hp, hp.alice)  # AIs fill the table; the game runs with no program at all
    i = hp.inter(hp.alice)
    await hp.cog.game_start.callback(hp.cog, i)
    await hp.settle()
    assert table.phase == Phase.RUNNING and hp.runtime._live[table.id].programs is None
    assert not (tmp_path / "MARKER").exists()


async def test_program_autocomplete_offers_the_configured_names_only(hp: Harness) -> None:
    i = hp.inter(hp.alice)
    got = await hp.cog.game_ai_program_autocomplete(i, "")
    assert [(c.name, c.value) for c in got] == [("pybot", "pybot"), ("quitter", "quitter")]
    got = await hp.cog.game_ai_program_autocomplete(i, "PY")
    assert [c.value for c in got] == ["pybot"]
    assert await hp.cog.game_ai_program_autocomplete(i, "python3") == []


# ==== playing ========================================================================================
async def test_a_program_plays_a_whole_game_at_a_discord_table(hp: Harness) -> None:
    table, lobby = await open_lobby(hp)
    await game_ai(hp, hp.alice, program="pybot")
    assert "AI" in await game_ai(hp, hp.alice)
    await hp.click(hp.alice, lobby, f"dh:t:start:{table.id}")
    await hp.settle()
    assert table.phase == Phase.RUNNING
    drv = hp.runtime._live[table.id].programs
    assert drv is not None
    await finish(hp, table)
    assert table.state.is_over and not table.ended_early and table.state.bad_cards == [0, 0, 0, 0]
    assert any(e.seat == 1 for e in table.log)
    final = hp.table_message(table).text
    assert "Final standings" in final and "pybot" in final
    # Nobody pings a program: every turn notice mentions Alice only.
    where = hp.where(table)
    assert all("<@" not in m.text or "<@101>" in m.text for m in where.sent)
    pid = drv.pids()[1]
    assert pid is not None
    await until_gone(pid)


async def until_gone(pid: int, seconds: float = 10.0) -> None:
    """Wait until the process is gone and reaped (a deadline for "it happens at all", not a bet on
    how soon)."""
    end = time.monotonic() + seconds
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        assert time.monotonic() < end, f"program {pid} still runs after the game ended"
        await asyncio.sleep(0.02)


async def test_a_program_that_quits_is_replaced_and_the_table_says_so(hp: Harness) -> None:
    table, lobby = await open_lobby(hp)
    await game_ai(hp, hp.alice, program="quitter")
    await game_ai(hp, hp.alice)
    await hp.click(hp.alice, lobby, f"dh:t:start:{table.id}")
    end = time.monotonic() + 10
    while table.seats[1].program is not None:
        assert time.monotonic() < end
        sv = hp.runtime.seat_view(table.id, hp.alice.id)
        if sv.decision is not None:
            await hp.runtime.act(table.id, hp.alice.id, sv.decision.actions[0])
        await hp.clock.advance(0.2)
        await asyncio.sleep(0.002)
    await hp.settle(2)
    text = hp.table_message(table).text
    assert "quitter" in text and "replaced by the built-in AI" in text and "exited" in text
    assert "bad card" in text
    assert table.state.bad_cards[1] == 1 and table.state.scores[1] <= -100
    await finish(hp, table)


# ==== the bot's configuration ========================================================================
def test_programs_come_from_the_operator_configuration() -> None:
    cfg = config.load_config({"DISCORD_TOKEN": "t",
                           "DECKHAND_PROGRAMS": "py=python3 clients/python_client.py; js=node clients/js_client.js"})
    assert cfg.programs == {"py": "python3 clients/python_client.py", "js": "node clients/js_client.js"}
    assert cfg.program_timeout == 2.0
    assert config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_PROGRAM_TIMEOUT": "0.5"}).program_timeout == 0.5
    assert config.load_config({"DISCORD_TOKEN": "t"}).programs == {}
    # Issue 14 item 2: what programs may see of the environment, where the running ones are listed.
    cfg = config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_PROGRAM_ENV": "PYTHONPATH, JAVA_HOME",
                           "DATABASE_URL": "sqlite:////var/lib/dh/deckhand.db"})
    assert cfg.program_env == ("PYTHONPATH", "JAVA_HOME")
    assert str(cfg.program_record()) == "/var/lib/dh/deckhand.db.programs"
    cfg = config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_RUNTIME_DIR": "/run/deckhand"})
    assert str(cfg.program_record()) == "/run/deckhand/deckhand-programs"
    assert config.load_config({"DISCORD_TOKEN": "t", "DATABASE_URL": "sqlite:///:memory:"}).program_record() is None


@pytest.mark.parametrize("env", [
    {"DECKHAND_PROGRAMS": "python3 bot.py"},
    {"DECKHAND_PROGRAMS": "my bot=python3 bot.py"},
    {"DECKHAND_PROGRAMS": "a=x;a=y"},
    {"DECKHAND_PROGRAMS": "a="},
    {"DECKHAND_PROGRAMS": "a=python3 'open"},
    {"DECKHAND_PROGRAM_TIMEOUT": "soon"},
    {"DECKHAND_PROGRAM_TIMEOUT": "0"},
    {"DECKHAND_PROGRAM_TIMEOUT": "-1"},
    {"DECKHAND_PROGRAM_ENV": "DISCORD_TOKEN"},
    {"DECKHAND_PROGRAM_ENV": "NOT-A-NAME"},
])
def test_bad_program_configuration_is_refused_with_a_sentence(env) -> None:
    with pytest.raises(config.ConfigError) as e:
        config.load_config({"DISCORD_TOKEN": "t", **env})
    assert "DECKHAND_PROGRAM" in str(e.value)


async def test_setup_hook_hands_the_programs_to_the_runtime() -> None:
    deckhand = bot.Deckhand(config.Config("t", dev_guild_id=42, programs={"py": CLIENT}, program_timeout=1.5))

    async def fake_sync(*, guild=None):
        return []

    deckhand.tree.sync = fake_sync  # no network in tests
    await deckhand.setup_hook()
    try:
        rt = deckhand.runtime
        assert rt.program_names() == ["py"]
        assert rt.programs.timeout == 1.5 and rt.programs.commands == {"py": CLIENT}
        assert rt.programs.cwd == str(config.HERE)
    finally:
        await deckhand.runtime.close()
