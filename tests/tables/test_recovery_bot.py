"""The bot's side of persistence: DATABASE_URL and DATA_RETENTION_DAYS, setup_hook opening the
database and restoring tables, and the notice a broken table's players get."""

from __future__ import annotations

import random
from pathlib import Path

import discord
import pytest

import bot
import config
from cogs.live.listener import DiscordListener
from cogs.table.stats import StatsCog
from tables import Runtime
from tables.history.records import stub
from tables.storage import DEFAULT_URL, SQLiteStorage
from tables.storage.postgres import PostgresStorage
from tests.cogs.fakes import FakeBot, World

from .conftest import HOST, started


def test_database_settings_are_read_from_the_environment():
    cfg = config.load_config({"DISCORD_TOKEN": "t"})
    assert cfg.database_url == DEFAULT_URL and cfg.retention_days == 365 and cfg.grace_days == 30
    cfg = config.load_config({"DISCORD_TOKEN": "t", "DATABASE_URL": "sqlite:////srv/d.db",
                              "DATA_RETENTION_DAYS": "7.5"})
    assert cfg.database_url == "sqlite:////srv/d.db" and cfg.retention_days == 7.5
    assert config.load_config({"DISCORD_TOKEN": "t", "DATA_RETENTION_DAYS": "0"}).retention_days == 0
    assert config.load_config({"DISCORD_TOKEN": "t", "SERVER_DATA_GRACE_DAYS": "2"}).grace_days == 2
    with pytest.raises(config.ConfigError, match="SERVER_DATA_GRACE_DAYS"):
        config.load_config({"DISCORD_TOKEN": "t", "SERVER_DATA_GRACE_DAYS": "-1"})
    cfg = config.load_config({"DISCORD_TOKEN": "t", "DATABASE_URL": "postgresql://deckhand:pw@db:5432/deckhand"})
    assert cfg.database_url == "postgresql://deckhand:pw@db:5432/deckhand"
    assert cfg.program_record() == config.HERE / "deckhand-programs"  # no database file to sit beside
    for bad in ({"DATABASE_URL": "mysql://db/x"}, {"DATABASE_URL": "postgresql://db:port/x"},
                {"DATABASE_URL": "deckhand.db"},
                {"DATA_RETENTION_DAYS": "forever"}, {"DATA_RETENTION_DAYS": "-1"}):
        with pytest.raises(config.ConfigError):
            config.load_config({"DISCORD_TOKEN": "t", **bad})
    # A relative path is next to bot.py, wherever the bot is started from.
    from tables.storage import parse_url

    assert parse_url(DEFAULT_URL, config.HERE).path == str(Path(bot.__file__).resolve().parent / "deckhand.db")


async def test_setup_hook_opens_the_database_and_restores_tables(store):
    first = Runtime(storage=await store.open(), rng=random.Random(3))
    t = await started(first)
    await first.close()

    deckhand = bot.Deckhand(config.Config("t", dev_guild_id=42, database_url=store.url, retention_days=30))

    async def fake_sync(*, guild=None):
        return []

    deckhand.tree.sync = fake_sync
    await deckhand.setup_hook()
    try:
        rt = deckhand.runtime
        kind = SQLiteStorage if store.kind == "sqlite" else PostgresStorage
        assert isinstance(rt.storage, kind) and rt.retention == 30 * 86400
        restored = rt.get(t.id)
        assert restored.version == t.version and restored.seats[0].user_id == HOST
        assert isinstance(deckhand.get_cog("StatsCog"), StatsCog)
        names = {c.qualified_name for c in deckhand.tree.walk_commands(guild=discord.Object(42))}
        assert {"stats", "leaderboard", "game replay"} <= names
    finally:
        await deckhand.runtime.close()


async def test_without_a_database_url_nothing_is_kept():
    deckhand = bot.Deckhand(config.Config("t"))

    async def fake_sync(*, guild=None):
        return []

    deckhand.tree.sync = fake_sync
    await deckhand.setup_hook()
    try:
        assert deckhand.runtime.storage is None
    finally:
        await deckhand.runtime.close()


async def test_a_broken_tables_players_are_told_where_it_was():
    world = World()
    channel = world.channel("cards")
    listener = DiscordListener(FakeBot(world))
    table = stub({"id": "ABC234", "channel_id": channel.id, "guild_id": 1, "game": "hearts",
                  "seats": '[{"user_id": 101, "name": "Ann"}, {"user_id": null, "name": "AI 1"}]'})
    await listener.broken(table, "the log jumps from action 4 to 6 (actions lost)")
    [msg] = channel.sent
    assert "<@101>" in msg.content and "ABC234" in msg.content and "actions lost" in msg.content
    assert "/game new" in msg.content and not world.violations
    # Rows too damaged to say where the table was are only logged.
    assert stub({"id": "ABC234", "channel_id": "ten"}) is None


def test_caps_come_from_the_environment() -> None:
    cfg = config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_MAX_TABLES_PER_PERSON": "5",
                              "DECKHAND_MAX_PROGRAMS": "0"})
    assert cfg.limits.tables_per_person == 5 and cfg.limits.programs == 0
    assert cfg.limits.running_per_server == bot.Limits().running_per_server
    with pytest.raises(config.ConfigError, match="DECKHAND_MAX_GAMES_PER_SERVER"):
        config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_MAX_GAMES_PER_SERVER": "lots"})


def test_a_stub_keeps_the_stored_game_whatever_it_is() -> None:
    """No game stands in for another (issue 30): an unknown stored game stays as stored."""
    assert stub({"id": "ABC234", "channel_id": 5, "game": "chess"}).game == "chess"
