"""Sharded gateways through the fake Discord: the bot as an AutoShardedBot identifies once per
shard (``shard: [id, count]``), and each guild's events and interactions reach the session of the
guild's shard.  One process with SQLite runs every shard."""

from __future__ import annotations

import json
import random

from tables.shards import ELSEWHERE
from tests.e2e.conftest import FAST_LIMITS
from tests.fakediscord import FakeDiscord, running_bot
from tests.fakediscord.play import open_table, table_id_of


async def test_one_process_runs_both_shards_and_answers_in_guilds_of_each() -> None:
    fd = FakeDiscord(shard_count=2, ratelimit_scale=FAST_LIMITS)
    await fd.start()
    try:
        g0, g1 = fd.add_guild("Zero", shard=0), fd.add_guild("One", shard=1)
        assert (fd.shard_of(g0), fd.shard_of(g1)) == (0, 1)
        rooms = {0: fd.add_channel("cards", guild=g0), 1: fd.add_channel("cards", guild=g1)}
        ali, cid = fd.add_member("Ali"), fd.add_member("Cid")
        ali.where, cid.where = rooms[0], rooms[1]
        async with running_bot(fd, runtime_options={"ai_delay": 0, "rng": random.Random(3)},
                               config={"shard_count": 2}) as bot:
            assert sorted(fd.shard_sessions) == [0, 1] and bot.shard_ids == [0, 1]
            assert fd.identifies == 2 and not fd.overlaps
            tables = {}
            for shard, person in ((0, ali), (1, cid)):
                message = await open_table(person, [], options="target=30")
                tables[shard] = bot.runtime.tables[table_id_of(message)]
                assert message.channel_id == rooms[shard].id
            assert {s: bot.runtime.shards.shard(t.guild_id) for s, t in tables.items()} == {0: 0, 1: 1}
            # Each shard's session carried its own guild's interactions, and only those.
            for shard, session in fd.shard_sessions.items():
                guilds = {json.loads(text)["d"]["guild_id"] for _, event, text, _ in session.buffer
                          if event == "INTERACTION_CREATE"}
                assert guilds == {str(g0 if shard == 0 else g1)}
        fd.assert_clean()
    finally:
        await fd.close()


async def test_a_shard_let_go_answers_with_a_sentence_and_changes_nothing() -> None:
    """Between losing a shard's lease and its gateway session closing, a command or a click from
    that shard's guild is refused with a sentence; the table is not driven here any more."""
    fd = FakeDiscord(shard_count=2, ratelimit_scale=FAST_LIMITS)
    await fd.start()
    try:
        g1 = fd.add_guild("One", shard=1)
        cid = fd.add_member("Cid")
        cid.where = fd.add_channel("cards", guild=g1)
        async with running_bot(fd, runtime_options={"ai_delay": 0, "rng": random.Random(3)},
                               config={"shard_count": 2}) as bot:
            message = await open_table(cid, [], options="target=30")
            tid = table_id_of(message)
            t = bot.runtime.tables[tid]
            before = (t.version, len(t.log))
            assert bot.runtime.fence(1) == [tid] and tid not in bot.runtime.tables
            for reply in (await cid.slash("game list"), await cid.slash("game new", game="hearts"),
                          await cid.click(message, "My hand")):
                assert reply.ephemeral and reply.text == ELSEWHERE
            assert (t.version, len(t.log)) == before
        fd.assert_clean()
    finally:
        await fd.close()
