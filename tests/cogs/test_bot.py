"""bot.py: configuration, the exit without a token, and what setup_hook wires together."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import discord
import pytest

import bot
import config
from cogs.live.listener import DiscordListener
from cogs.table.components import DYNAMIC_ITEMS
from cogs.table.game import GameCog
from tools.invite import invite_url

ROOT = Path(__file__).resolve().parents[2]


def test_no_token_exits_2_with_a_few_helpful_lines(tmp_path: Path) -> None:
    # A copy of bot.py in an empty directory: it reads only the .env beside itself, so a developer's
    # real .env (next to the real bot.py) cannot leak into this run.
    shutil.copy(ROOT / "bot.py", tmp_path / "bot.py")
    result = subprocess.run(
        [sys.executable, str(tmp_path / "bot.py")],
        cwd=tmp_path, env={"PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    out = result.stderr.strip()
    assert "Traceback" not in result.stderr + result.stdout
    assert 2 <= len(out.splitlines()) <= 8  # a few lines
    for words in ("DISCORD_TOKEN=", ".env", "discord.com/developers", "README", invite_url()):
        assert words in out


def test_config_reading() -> None:
    assert config.load_config({"DISCORD_TOKEN": " t0k "}) == config.Config("t0k", None, "INFO")
    cfg = config.load_config({"DISCORD_TOKEN": "t", "DEV_GUILD_ID": "123", "LOG_LEVEL": "debug"})
    assert cfg.dev_guild_id == 123 and cfg.log_level == "DEBUG"
    for bad in ({}, {"DISCORD_TOKEN": "  "}, {"DISCORD_TOKEN": "t", "DEV_GUILD_ID": "my server"},
                {"DISCORD_TOKEN": "t", "LOG_LEVEL": "loud"}):
        with pytest.raises(config.ConfigError):
            config.load_config(bad)
    assert bot.main({}) == 2


def test_the_rule_book_page_is_a_web_address() -> None:
    url = "https://github.com/example/deckhand/blob/main/docs/rules.md"
    assert config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_RULES_URL": f" {url} "}).rules_url == url
    assert config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_RULES_URL": ""}).rules_url is None
    for bad in ("docs/rules.md", "javascript:alert(1)", "https://a b", "https://x/" + "a" * 600):
        with pytest.raises(config.ConfigError, match="DECKHAND_RULES_URL"):
            config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_RULES_URL": bad})


def test_review_workers_follow_the_cores_unless_set() -> None:
    from tables.ai.pool import default_workers

    assert config.load_config({"DISCORD_TOKEN": "t"}).review_workers == default_workers()
    assert config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_REVIEW_WORKERS": " 3 "}).review_workers == 3
    for bad in ("0", "-1", "two"):
        with pytest.raises(config.ConfigError, match="DECKHAND_REVIEW_WORKERS must be a whole number"):
            config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_REVIEW_WORKERS": bad})


async def test_setup_hook_wires_runtime_cog_components_and_sync() -> None:
    deckhand = bot.Deckhand(config.Config("t", dev_guild_id=42))
    intents = deckhand.intents
    assert not (intents.members or intents.presences or intents.message_content)
    synced: list[object] = []

    async def fake_sync(*, guild=None):
        synced.append(guild)
        return []

    deckhand.tree.sync = fake_sync  # no network in tests
    await deckhand.setup_hook()
    try:
        assert isinstance(deckhand.runtime.listener, DiscordListener)
        cog = deckhand.get_cog("GameCog")
        assert isinstance(cog, GameCog) and cog.runtime is deckhand.runtime
        registered = set(deckhand._connection._view_store._dynamic_items.values())
        assert set(DYNAMIC_ITEMS) <= registered
        # Not before the gateway is READY: setup_hook holds the gateway back, and a sync made
        # soon after the last start waits out its rate-limit window (issue 25).
        assert synced == [] and deckhand.sync_task is None
        await deckhand.on_ready()
        await deckhand.sync_task
        await deckhand.on_ready()  # READY again (a reconnect): no second sync
        assert [getattr(g, "id", None) for g in synced] == [42]
        names = {c.qualified_name for c in deckhand.tree.walk_commands(guild=discord.Object(42))}
        assert {"game new", "game join", "game leave", "game ai", "game start", "game end", "game list",
                "game rules", "hand", "play"} <= names
    finally:
        await deckhand.runtime.close()


async def test_a_failed_command_sync_is_logged_and_stops_nothing(caplog: pytest.LogCaptureFixture) -> None:
    deckhand = bot.Deckhand(config.Config("t", dev_guild_id=42))

    async def refused(*, guild=None):
        raise discord.DiscordServerError(type("R", (), {"status": 503, "reason": "Service Unavailable"})(), "down")

    deckhand.tree.sync = refused
    await deckhand.setup_hook()
    try:
        await deckhand.on_ready()
        await deckhand.sync_task  # returns: the commands Discord has keep working
        assert "Could not sync the slash commands" in caplog.text
    finally:
        await deckhand.runtime.close()


async def test_the_bot_process_freezes_its_start_up_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Full collections walked the whole start-up heap (the longest pauses in interaction answers);
    the bot freezes it once set up — only when asked, as main() does, never in a test process."""
    import gc

    from tables.runtime import Runtime

    steps: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: steps.append("freeze"))
    recover = Runtime.recover

    async def recording_recover(self):
        steps.append("recover")
        return await recover(self)

    monkeypatch.setattr(Runtime, "recover", recording_recover)

    async def no_sync(*, guild=None):
        return []

    for freeze in (False, True):
        deckhand = bot.Deckhand(config.Config("t", dev_guild_id=42), freeze_heap=freeze)
        deckhand.tree.sync = no_sync
        await deckhand.setup_hook()
        await deckhand.runtime.close()
    # Frozen before recovery: a recovered table ends some day, and frozen cycles are never collected.
    assert steps == ["recover", "freeze", "recover"]


async def test_the_bot_process_lets_the_database_thread_in_quickly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SQLite thread needs the GIL back after every call of a commit that a click's answer
    waits for: the bot process shortens the switch interval (the default 5 ms was a wait per
    call while the loop ran Python) — only the process's own bot, never in a test process."""
    import gc
    import sys

    set_to: list[float] = []
    monkeypatch.setattr(sys, "setswitchinterval", set_to.append)
    monkeypatch.setattr(gc, "freeze", lambda: None)  # (the test process's heap stays as it is)

    async def no_sync(*, guild=None):
        return []

    for own in (False, True):
        deckhand = bot.Deckhand(config.Config("t", dev_guild_id=42), freeze_heap=own)
        deckhand.tree.sync = no_sync
        await deckhand.setup_hook()
        await deckhand.runtime.close()
    assert set_to == [bot.SWITCH_INTERVAL] and bot.SWITCH_INTERVAL <= 0.001


def test_main_asks_for_the_frozen_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[dict] = []

    class Stop(Exception):
        pass

    def fake(config, **kw):
        made.append(kw)
        raise Stop

    monkeypatch.setattr(bot, "Deckhand", fake)
    with pytest.raises(Stop):
        bot.main({"DISCORD_TOKEN": "t"})
    assert made == [{"freeze_heap": True}]


def test_metrics_address_and_log_format() -> None:
    cfg = config.load_config({"DISCORD_TOKEN": "t"})
    assert cfg.metrics_address is None and cfg.log_format == "text"
    cfg = config.load_config({"DISCORD_TOKEN": "t", "METRICS_ADDRESS": "127.0.0.1:9109", "LOG_FORMAT": "json"})
    assert cfg.metrics_address == ("127.0.0.1", 9109) and cfg.log_format == "json"
    for bad in ({"METRICS_ADDRESS": "9109"}, {"LOG_FORMAT": "xml"}):
        with pytest.raises(config.ConfigError):
            config.load_config({"DISCORD_TOKEN": "t", **bad})
