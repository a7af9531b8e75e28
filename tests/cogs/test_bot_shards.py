"""bot.py with shards: SHARD_COUNT / SHARD_IDS / DECKHAND_LEASE_POLL read from the environment, and
the sharded bot is discord.py's AutoShardedBot for the shards it is configured for."""

from __future__ import annotations

import pytest
from discord.ext import commands

import bot

PG = "postgresql://deckhand@db:5432/deckhand"


def test_no_shard_settings_means_one_plain_bot() -> None:
    cfg = bot.load_config({"DISCORD_TOKEN": "t"})
    assert (cfg.shard_count, cfg.shard_ids, cfg.lease_poll, cfg.rest_budget) == (None, None, 2.0, 48.0)


def test_shard_settings() -> None:
    cfg = bot.load_config({"DISCORD_TOKEN": "t", "DATABASE_URL": PG, "SHARD_COUNT": "4", "SHARD_IDS": "3,1",
                           "DECKHAND_LEASE_POLL": "0.5"})
    assert (cfg.shard_count, cfg.shard_ids, cfg.lease_poll) == (4, (1, 3), 0.5)
    # SQLite: one process runs every shard, so SHARD_COUNT alone is fine.
    cfg = bot.load_config({"DISCORD_TOKEN": "t", "SHARD_COUNT": "2"})
    assert (cfg.shard_count, cfg.shard_ids) == (2, (0, 1))
    assert bot.load_config({"DISCORD_TOKEN": "t", "DECKHAND_REST_BUDGET": "30"}).rest_budget == 30.0


@pytest.mark.parametrize("env, words", [
    ({"SHARD_COUNT": "2", "SHARD_IDS": "1"}, "With SQLite one process runs every shard"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "2", "DATABASE_URL": PG}, "shard 2 does not exist"),
    ({"SHARD_COUNT": "none"}, "SHARD_COUNT must be a whole number"),
    ({"SHARD_IDS": "0", "DATABASE_URL": PG}, "SHARD_IDS needs SHARD_COUNT"),
    ({"DECKHAND_LEASE_POLL": "0"}, "DECKHAND_LEASE_POLL must be"),
    ({"DECKHAND_REST_BUDGET": "60"}, "DECKHAND_REST_BUDGET must be"),
    ({"DECKHAND_REST_BUDGET": "lots"}, "all processes together"),
])
def test_bad_shard_settings_say_how_to_fix_them(env: dict[str, str], words: str) -> None:
    with pytest.raises(bot.ConfigError, match=words):
        bot.load_config({"DISCORD_TOKEN": "t", **env})


async def test_the_sharded_bot_is_an_auto_sharded_bot() -> None:
    deckhand = bot.ShardedDeckhand(bot.Config("t", shard_count=4, shard_ids=(1, 3)))
    assert isinstance(deckhand, commands.AutoShardedBot) and isinstance(deckhand, bot.Deckhand)
    assert deckhand.shard_count == 4 and deckhand.shard_ids == [1, 3]
