"""Sharded gateways through the fake Discord: the bot as an AutoShardedBot identifies once per
shard (``shard: [id, count]``), and each guild's events and interactions reach the session of the
guild's shard.  One process with SQLite runs every shard."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time

import pytest

from bot import Deckhand
from cogs.ops.shards import TOKEN_BUDGET, budget_part
from cogs.pictures.faces import face_codes
from config import Config
from tables import Runtime
from tables.shards import ELSEWHERE, STARTING, Shards
from tables.shards.lease import Leases, ShardCountMismatch
from tests.e2e.conftest import production_fake
from tests.e2e.test_live_hand import FastClock
from tests.fakediscord import running_bot
from tests.fakediscord.botrunner import pointed_at
from tests.fakediscord.play import open_table, table_controls, table_id_of
from tests.tables.stores import PostgresStore


async def test_one_process_runs_both_shards_and_answers_in_guilds_of_each() -> None:
    fd = production_fake(shard_count=2)
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
        await fd.settle_clicks()
        fd.assert_clean()
    finally:
        await fd.close()


async def test_a_shard_let_go_answers_with_a_sentence_and_changes_nothing() -> None:
    """Between losing a shard's lease and its gateway session closing, a command or a click from
    that shard's guild is refused with a sentence; the table is not driven here any more."""
    fd = production_fake(shard_count=2)
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
                          await cid.click(table_controls(fd, message), "My hand")):
                assert reply.ephemeral and reply.text == ELSEWHERE
            assert (t.version, len(t.log)) == before
        await fd.settle_clicks()
        fd.assert_clean()
    finally:
        await fd.close()


async def test_a_shard_being_restored_answers_with_a_sentence_and_changes_nothing() -> None:
    """While a shard's tables are being restored (tables/shards/lease.py: ``Shards.restoring``), a command
    or a click from its guild gets the starting-up sentence, and nothing changes; once restored,
    the same click is answered."""
    fd = production_fake(shard_count=2)
    await fd.start()
    try:
        g1 = fd.add_guild("One", shard=1)
        cid = fd.add_member("Cid")
        cid.where = fd.add_channel("cards", guild=g1)
        async with running_bot(fd, runtime_options={"ai_delay": 0, "rng": random.Random(3)},
                               config={"shard_count": 2}) as bot:
            message = await open_table(cid, [], options="target=30")
            t = bot.runtime.tables[table_id_of(message)]
            before = (t.version, len(t.log), len(bot.runtime.tables))
            bot.runtime.shards.restoring.add(1)
            for reply in (await cid.slash("game list"), await cid.slash("game new", game="hearts"),
                          await cid.click(table_controls(fd, message), "My hand")):
                assert reply.ephemeral and reply.text == STARTING
            assert (t.version, len(t.log), len(bot.runtime.tables)) == before
            bot.runtime.shards.restoring.discard(1)
            reply = await cid.click(table_controls(fd, message), "My hand")
            assert not reply.failed and reply.message is not None and reply.message.buttons()
            assert reply.text not in (STARTING, ELSEWHERE)
        await fd.settle_clicks()
        fd.assert_clean()
    finally:
        await fd.close()


async def test_a_shard_lost_posts_no_nudge_or_anything_else_for_its_tables() -> None:
    """Issue 29 item 10: a process posted "about 10 seconds left for your move" 8 s after losing the
    lease of the table's shard.  What the lease loss lets go of (``ShardGate``'s ``lost``: the
    tables fenced, the shard's gateway closed) takes its timers along: past the nudge's time and
    the deadline, the process sends Discord nothing more for that table."""
    factor = 10.0  # the runtime's clock: the relaxed pass (60 s) runs out in 6 s, its nudge at 5 s
    clock = FastClock(factor)
    fd = production_fake(shard_count=2)
    await fd.start()
    try:
        g1 = fd.add_guild("One", shard=1)
        cid = fd.add_member("Cid")
        cid.where = fd.add_channel("cards", guild=g1)
        options = {"ai_delay": 0, "rng": random.Random(3), "clock": clock, "redraw_interval": factor}
        async with running_bot(fd, runtime_options=options, config={"shard_count": 2}) as bot:
            message = await open_table(cid, [], options="target=100", speed="relaxed")
            tid = table_id_of(message)
            t = bot.runtime.tables[tid]
            listener = bot.runtime.listener
            nudge = listener._nudges[tid].task
            assert nudge is not None and not nudge.done(), "no nudge waiting: the test proves nothing"
            since = time.perf_counter()
            bot.gate._lost(1)  # what the lease loop calls when the lease of shard 1 goes
            listener.live.drop(tid, cid.id)  # (and Cid's view closes: he would be nudged)
            end = max(t.deadlines.values()) + 2 * factor
            await fd.wait_for(lambda: clock.now() > end, 30.0, "the nudge's time and the deadline to pass")
            assert not [m for m in cid.pings() if "seconds left" in m.content]
            posts = [r.route for r in fd.rest_calls(since=since) if r.method != "GET"]
            assert posts == [], posts
            assert nudge.done() and tid not in listener._nudges
            assert not any(s.missed for s in t.seats)
        await fd.settle_clicks()
        fd.assert_clean()
    finally:
        await fd.close()


async def test_on_postgresql_a_shard_is_connected_only_while_its_lease_is_held(pg_server) -> None:
    """A sharded bot for shards 0 and 1 while another process holds shard 1: it connects shard 0
    only; when shard 1 is freed it restores shard 1's tables and connects it; when its own lease
    session is ended it lets go of both shards (tables and gateway), then takes them back."""
    store = await PostgresStore(pg_server).create()
    other = Leases(store.url, Shards.of(2, [1], leased=True), poll=0.05)
    fd = production_fake(shard_count=2)
    await fd.start()
    try:
        other.start()
        await asyncio.wait_for(other.wait_for_any(), 10)
        g1 = fd.add_guild("One", shard=1)
        cid = fd.add_member("Cid")
        cid.where = fd.add_channel("cards", guild=g1)
        before = Runtime(storage=await store.open())
        lobby = await before.create(game="hearts", guild_id=g1, channel_id=cid.where.id, host_id=cid.id,
                                    host_name="Cid")
        await before.close()
        config = {"shard_count": 2, "database_url": store.url, "lease_poll": 0.05}
        async with running_bot(fd, runtime_options={"ai_delay": 0}, config=config) as bot:
            assert bot.shard_ids == [0] and sorted(fd.shard_sessions) == [0]
            assert lobby.id not in bot.runtime.tables
            # One shard of two: half the token's REST budget (the other process has the rest).
            assert (bot.gate.budget.rate, bot.gate.budget.burst) == budget_part(TOKEN_BUDGET, 0.5) == (18.0, 3.0)

            await other.close()  # its process stops: shard 1 is free
            # discord.py waits 5 s before any IDENTIFY but a launch's first (Discord's rate limit).
            await fd.wait_for(lambda: 1 in fd.shard_sessions and fd.shard_sessions[1].conn is not None, 20,
                              "shard 1 connected")
            assert lobby.id in bot.runtime.tables and bot.shard_ids == [0, 1]
            assert (bot.gate.budget.rate, bot.gate.budget.burst) == (36.0, 6.0)  # both shards: all of it
            listed = await cid.slash("game list")
            assert lobby.id in listed.text

            identified = fd.identifies
            fenced: list[tuple[int, list[str]]] = []
            fence = bot.runtime.fence
            bot.runtime.fence = lambda shard: fenced.append((shard, fence(shard))) or fenced[-1][1]
            pid = bot.gate.leases._conn.get_server_pid()
            assert store.rows("SELECT pg_terminate_backend(?)", (pid,)) == [(True,)]
            await fd.wait_for(lambda: len(fenced) == 2, 5, "both shards let go")
            assert sorted(fenced) == [(0, []), (1, [lobby.id])]
            try:
                await fd.wait_for(lambda: fd.identifies >= identified + 2 and lobby.id in bot.runtime.tables
                                  and all(s.conn is not None for s in fd.shard_sessions.values()), 25,
                                  "both shards taken back")
            except TimeoutError as e:
                raise AssertionError(f"{e}: identifies {fd.identifies - identified} more, held "
                                     f"{bot.gate.shards.held}, tables {list(bot.runtime.tables)}, sessions "
                                     f"{[(k, s.conn is not None) for k, s in fd.shard_sessions.items()]}, "
                                     f"errors {bot.error_log.lines()}") from None
            listed = await cid.slash("game list")
            assert lobby.id in listed.text
            assert not fd.overlaps
            # What the operator reads: each shard's loss, once; nothing else went wrong.
            lines = bot.error_log.lines()
            assert len(lines) == 4 and all(re.search(r"Lost the lease of shard|lease lost", e) for e in lines), lines
        await fd.settle_clicks()
        fd.assert_clean()
    finally:
        await other.close()
        await fd.close()
        await store.cleanup()


@pytest.mark.parametrize("when", ["at once", "during the identify wait"])
async def test_a_shard_whose_lease_goes_while_its_gateway_is_down_is_not_reconnected(pg_server, when: str) -> None:
    """The gateway session of shard 1 drops and cannot be resumed, so discord.py must IDENTIFY again
    (after its 5 s wait); meanwhile — at once, or once that IDENTIFY's connection is open and waiting
    — the lease session ends and another process takes shard 1.  The bot takes shard 0 back and
    never identifies (nor resumes) shard 1: its events are the other process's now.
    (``ShardInfo.disconnect()`` alone did nothing: the socket was closed already.)"""
    store = await PostgresStore(pg_server).create()
    other = Leases(store.url, Shards.of(2, [1], leased=True), poll=0.05)
    fd = production_fake(shard_count=2)
    await fd.start()
    try:
        g1 = fd.add_guild("One", shard=1)
        cid = fd.add_member("Cid")
        cid.where = fd.add_channel("cards", guild=g1)
        # The bot sits out three polls (1.5 s) after a loss: the other process is first to shard 1.
        config = {"shard_count": 2, "database_url": store.url, "lease_poll": 0.5}
        async with running_bot(fd, runtime_options={"ai_delay": 0}, config=config) as bot:
            assert sorted(fd.shard_sessions) == [0, 1] and not fd.overlaps
            dropped, connections = time.time(), fd.connections
            await fd.drop_gateway(shard=1, invalidate=True)
            if when != "at once":
                # One connection for the refused RESUME, a second for the IDENTIFY, held 5 s.
                await fd.wait_for(lambda: fd.connections >= connections + 2, 10, "the IDENTIFY's connection")
            pid = bot.gate.leases._conn.get_server_pid()
            assert store.rows("SELECT pg_terminate_backend(?)", (pid,)) == [(True,)]
            other.start()
            await asyncio.wait_for(other.wait_for_any(), 10)
            await fd.wait_for(lambda: bot.gate.shards.held == {0} and fd.shard_sessions[0].conn is not None
                              and any(e[2] == 0 and e[0] > dropped for e in fd.session_log), 20,
                              "shard 0 taken back and connected")
            # Past discord.py's 5 s IDENTIFY wait for shard 1, and some: nothing on shard 1.
            await asyncio.sleep(7.0)
            assert [e for e in fd.session_log if e[2] == 1 and e[0] > dropped] == []
            assert fd.shard_sessions[1].conn is None and not fd.overlaps
            shard = bot.get_shard(1)
            assert shard is None or shard.is_closed()
            listed = await cid.slash("game list")  # Cid's shard has no session: Discord fails it
            assert listed.failed
        await fd.settle_clicks()
        fd.assert_clean(allow=("not answered within",))
    finally:
        await other.close()
        await fd.close()
        await store.cleanup()


async def test_an_unsharded_bot_on_postgresql_stops_when_it_loses_its_lease(pg_server) -> None:
    """Without SHARD_COUNT the bot has one shard: losing its lease means stopping (a supervisor starts
    it again, as a standby), never driving its tables without the lease."""
    store = await PostgresStore(pg_server).create()
    fd = production_fake()
    await fd.start()
    try:
        ali = fd.add_member("Ali")
        config = {"database_url": store.url, "lease_poll": 0.05}
        async with running_bot(fd, runtime_options={"ai_delay": 0}, config=config) as bot:
            assert not bot.gate.sharded and bot.gate.shards.held == {0}
            await open_table(ali, [], options="target=30")
            assert bot.runtime.tables
            pid = bot.gate.leases._conn.get_server_pid()
            assert store.rows("SELECT pg_terminate_backend(?)", (pid,)) == [(True,)]
            await fd.wait_for(lambda: bot.is_closed(), 5, "the bot stopped")
            assert not bot.runtime.tables and bot.gate.lost_all
    finally:
        await fd.close()
        await store.cleanup()


def test_the_token_budget_split_between_processes_stays_under_discords_limit() -> None:
    """What one process may send within a second (its burst, a second's refill, an urgent debt of a
    burst) summed over the processes that hold the shards stays within the token's budget."""
    assert budget_part(TOKEN_BUDGET, 1.0) == (36.0, 6.0)  # one process: as before sharding
    for count in (2, 3, 4, 8, 16):
        parts = [budget_part(TOKEN_BUDGET, 1 / count) for _ in range(count)]
        assert sum(rate + 2 * burst for rate, burst in parts) <= TOKEN_BUDGET + 1e-9, (count, parts)
        assert all(rate > 0 and burst >= 1 for rate, burst in parts)
    assert budget_part(TOKEN_BUDGET, 0.0) == (0.5, 1.0)  # a standby: a trickle, nothing to send


async def test_a_standby_uploads_no_card_emoji_until_it_holds_its_shard(pg_server) -> None:
    """Application emoji are the token's, not a shard's: the process running the bot syncs them; a
    standby started beside it waits, connected to nothing and uploading nothing, and syncs only
    once it holds the lease."""
    store = await PostgresStore(pg_server).create()
    holder = Leases(store.url, Shards.of(1, [0], leased=True), poll=0.05)
    fd = production_fake()
    await fd.start()
    bot = None
    try:
        holder.start()
        await asyncio.wait_for(holder.wait_for_any(), 10)
        with pointed_at(fd):
            bot = Deckhand(Config(token=fd.token, dev_guild_id=fd.guild_id, database_url=store.url, lease_poll=0.05),
                           runtime_options={"ai_delay": 0}, guild_ready_timeout=0.01)
            login = asyncio.create_task(bot.login(fd.token))
            await asyncio.sleep(1.0)  # twenty lease polls
            assert not login.done() and bot.gate is not None and not bot.gate.shards.held
            assert bot.emoji_task is None
            assert not [r for r in fd.requests if "emojis" in r.route] and not fd.app_emojis
            assert bot.gate.budget.rate == budget_part(TOKEN_BUDGET, 0)[0]

            await holder.close()  # the running process stops: the standby takes over
            await asyncio.wait_for(login, 20)
            assert bot.gate.shards.held == {0} and bot.emoji_task is not None
            assert await asyncio.wait_for(bot.emoji_task, 60) == "ready"
            assert sum(1 for name in fd.app_emojis if name.startswith("dk_")) == len(face_codes())
            assert bot.gate.budget.rate == 36.0
    finally:
        if bot is not None:
            await bot.close()
        await holder.close()
        await fd.close()
        await store.cleanup()


async def test_a_bot_with_another_shard_count_than_the_running_ones_refuses_to_start(pg_server) -> None:
    store = await PostgresStore(pg_server).create()
    running = Leases(store.url, Shards.of(2, [0], leased=True), poll=0.05)
    fd = production_fake(shard_count=3)
    await fd.start()
    try:
        await running.join()
        running.start()
        config = {"shard_count": 3, "database_url": store.url, "lease_poll": 0.05}
        try:
            async with running_bot(fd, runtime_options={"ai_delay": 0}, config=config):
                raise AssertionError("the bot started")
        except ShardCountMismatch as e:
            assert "SHARD_COUNT=3 here" in str(e) and "use SHARD_COUNT=2" in str(e)
        assert fd.identifies == 0 and not fd.shard_sessions  # nothing reached the gateway
    finally:
        await running.close()
        await fd.close()
        await store.cleanup()
