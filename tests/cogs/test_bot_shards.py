"""bot.py with shards: SHARD_COUNT / SHARD_IDS / DECKHAND_LEASE_POLL read from the environment, and
the sharded bot is discord.py's AutoShardedBot for the shards it is configured for."""

from __future__ import annotations

import pytest
from discord.ext import commands

import bot
import config

PG = "postgresql://deckhand@db:5432/deckhand"


def test_no_shard_settings_means_one_plain_bot() -> None:
    cfg = config.load_config({"DISCORD_TOKEN": "t"})
    assert (cfg.shard_count, cfg.shard_ids, cfg.lease_poll, cfg.rest_budget) == (None, None, 2.0, 48.0)


def test_shard_settings() -> None:
    cfg = config.load_config({"DISCORD_TOKEN": "t", "DATABASE_URL": PG, "SHARD_COUNT": "4", "SHARD_IDS": "3,1",
                           "DECKHAND_LEASE_POLL": "0.5"})
    assert (cfg.shard_count, cfg.shard_ids, cfg.lease_poll) == (4, (1, 3), 0.5)
    # SQLite: one process runs every shard, so SHARD_COUNT alone is fine.
    cfg = config.load_config({"DISCORD_TOKEN": "t", "SHARD_COUNT": "2"})
    assert (cfg.shard_count, cfg.shard_ids) == (2, (0, 1))
    assert config.load_config({"DISCORD_TOKEN": "t", "DECKHAND_REST_BUDGET": "30"}).rest_budget == 30.0


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
    with pytest.raises(config.ConfigError, match=words):
        config.load_config({"DISCORD_TOKEN": "t", **env})


async def test_the_sharded_bot_is_an_auto_sharded_bot() -> None:
    deckhand = bot.ShardedDeckhand(config.Config("t", shard_count=4, shard_ids=(1, 3)))
    assert isinstance(deckhand, commands.AutoShardedBot) and isinstance(deckhand, bot.Deckhand)
    assert deckhand.shard_count == 4 and deckhand.shard_ids == [1, 3]


async def test_a_request_that_finds_the_lease_term_over_is_not_sent() -> None:
    """A process woken after its leases' term ran out (frozen, stalled) lets its shards go before
    its first request leaves (the HTTP trace hook), and that request is not sent; the SendGate's
    other work is unchanged."""
    import asyncio
    import time
    from types import SimpleNamespace

    import aiohttp
    from aiohttp import web

    from cogs.live.sendgate import SendGate
    from cogs.ops.shards import ShardGate

    seen: list[str] = []

    async def handle(request: web.Request) -> web.Response:
        seen.append(request.path)
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    gate = ShardGate(SimpleNamespace(runtime=None), None, None, None)
    fenced: list[int] = []

    def expire() -> None:  # what Leases does: every held shard lost (fenced)
        fenced.extend(sorted(gate.shards.held))
        gate.shards.held.clear()

    send_gate = SendGate()
    send_gate.ahead = gate.before_request
    try:
        async with aiohttp.ClientSession(trace_configs=[send_gate.trace()]) as session:
            gate.shards.on_expiry = expire
            gate.shards.expires = time.monotonic() + 60  # a term running: requests go
            async with session.get(f"http://127.0.0.1:{port}/channels/1/messages") as r:
                assert r.status == 200
            gate.shards.expires = time.monotonic() - 0.1  # the term ran out while nobody looked
            with pytest.raises(asyncio.CancelledError):
                await session.get(f"http://127.0.0.1:{port}/channels/1/messages/2")
            assert fenced == [0] and gate.shards.held == set()
            assert seen == ["/channels/1/messages"]  # the second never left
    finally:
        await runner.cleanup()
