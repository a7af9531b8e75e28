"""The operator's view through the real bot and the fake Discord (docs/deploy.md, "Monitoring"):
``/metrics`` parses as Prometheus text and its counters move when a game is played; ``/readyz``
says not ready while the gateway is down and ready again once it is back; ``/healthz`` answers."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import socket
import time
from typing import Any

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from tables import logs
from tables.shards.lease import CHECKING
from tests.e2e.conftest import make_world, production_fake
from tests.e2e.test_shard_failover import end_lease_session
from tests.fakediscord.botprocess import BotProcess
from tests.fakediscord.play import open_table, play_seat
from tests.fakediscord.privacy import cards_in
from tests.tables.stores import PostgresStore

METRICS = {"metrics_address": ("127.0.0.1", 0)}  # any free port: the bot's HealthServer says which


async def get(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}{path}") as r:
        return r.status, await r.text()


async def scrape(port: int) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of ``/metrics``: (sample name, its labels) -> value."""
    status, text = await get(port, "/metrics")
    assert status == 200
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def answer(port: int, path: str) -> tuple[int, str]:
    """As :func:`get`, with nothing listening yet (a process starting) as status 0."""
    try:
        return await get(port, path)
    except aiohttp.ClientConnectionError as e:
        return 0, repr(e)


async def until_status(port: int, path: str, status: int, timeout: float = 20.0) -> str:
    """Until ``path`` answers ``status`` (its text then); the loop checks every 20 ms."""
    end = time.monotonic() + timeout
    seen: list[int] = []
    while True:
        got, text = await answer(port, path)
        if got == status:
            return text
        seen.append(got)
        assert time.monotonic() < end, f"{path} never answered {status} within {timeout:g} s (answered {set(seen)})"
        await asyncio.sleep(0.02)


async def test_metrics_parse_and_count_a_game_played_through_the_bot() -> None:
    async with make_world(config=METRICS) as w:
        port = w.bot.health.port
        before = await scrape(port)
        table_message = await open_table(w.ali, [w.bob], options="target=1")
        table = w.table(table_message)
        game = table.game
        players = asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(1)),
                                 play_seat(w.bob, table_message, rng=random.Random(2)))
        await w.until(lambda: table.version >= 6, what="a few moves")
        during = await scrape(port)
        assert value(during, "deckhand_tables", game=game, phase="running") == 1
        assert value(during, "deckhand_tables", game=game, phase="lobby") == 0
        await players
        await w.until(lambda: "— finished" in table_message.text, 10.0, what="the finished table")
        await w.until(w.idle, 10.0, what="nothing under way")
        after = await scrape(port)

    answered = [i for i in w.fd.interactions.values() if i.callback_at is not None]
    moved = {name: value(after, name) - value(before, name) for name in (
        "deckhand_interactions_received_total", "deckhand_interactions_answered_total",
        "deckhand_interaction_answer_seconds_count", "deckhand_storage_write_seconds_count")}
    # Every interaction the people made was received and answered once, each answer timed.
    assert moved["deckhand_interactions_received_total"] == len(w.fd.interactions) > 10
    assert moved["deckhand_interactions_answered_total"] == len(answered) == len(w.fd.interactions)
    assert moved["deckhand_interaction_answer_seconds_count"] == len(answered)
    assert value(after, "deckhand_interaction_answer_seconds_bucket", le="+Inf") == \
        value(after, "deckhand_interaction_answer_seconds_count")
    assert value(after, "deckhand_interactions_late_total") == 0
    # The REST calls by route group are the fake's own count of them.
    calls = {g: value(after, "deckhand_rest_requests_total", group=g) - value(before, "deckhand_rest_requests_total",
                                                                               group=g)
             for g in ("interaction", "followup", "message", "thread")}
    assert calls["interaction"] == len(answered)
    assert calls["message"] > 0 and calls["thread"] >= 1
    assert sum(value(after, "deckhand_rest_429_total", group=g) for g in ("interaction", "message", "other")) == 0
    # Every move was stored: a write each, timed.
    assert moved["deckhand_storage_write_seconds_count"] >= len(table.log)
    # The gateway, the shard and the process.
    assert value(after, "deckhand_gateway_state", shard="0", state="connected") == 1
    assert value(after, "deckhand_shard_held", shard="0") == 1
    assert value(after, "deckhand_gateway_latency_seconds", shard="0") >= 0
    assert value(after, "process_cpu_seconds_total") > 0 and value(after, "process_resident_memory_bytes") > 0
    assert ("deckhand_review_queue", frozenset({("state", "waiting")})) in after


async def test_readyz_is_not_ready_while_the_gateway_is_down() -> None:
    async with make_world(config=METRICS) as w:
        port = w.bot.health.port
        assert await get(port, "/healthz") == (200, "ok\n")
        status, text = await get(port, "/readyz")
        assert (status, text) == (200, "ready: running shard(s) 0\n")
        # The session ends and cannot be resumed: discord.py identifies again after 5 s.
        await w.fd.drop_gateway(invalidate=True)
        text = await until_status(port, "/readyz", 503)
        assert text == "not ready: shard(s) 0 not connected to Discord\n"
        assert (await get(port, "/healthz"))[0] == 200  # the loop answers all the while
        await until_status(port, "/readyz", 200)
        assert w.fd.identifies == 2
        # And the game goes on.
        listed = await w.stranger.slash("game list")
        assert not listed.failed


async def test_json_log_lines_parse_and_carry_the_table_server_and_shard() -> None:
    from tests.e2e.test_thread_faults import finished, started

    out = io.StringIO()
    handler = logs.handler("json", out)
    handler.setLevel(logging.INFO)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        async with make_world(config={"log_format": "json"}) as w:
            table_message, table, players = await started(w)
            # A moderator locks the game's thread: the bot's posts there are refused, and it says so.
            w.fd.lock_thread(w.thread_of(table_message).id)
            await finished(w, table_message, players)
            await w.until(lambda: "is locked" in out.getvalue(), 10.0, what="the warning about the locked thread")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines and all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    locked = [line for line in lines if "is locked" in line["message"]]
    assert locked, [line["message"] for line in lines]
    assert locked[0]["level"] == "WARNING"
    assert (locked[0]["table_id"], locked[0]["guild_id"], locked[0]["shard"]) == (table.id, w.fd.guild_id, 0)
    # No log line names a card (hidden or not: logs are no place for them).
    named = [line for line in lines if any(cards_in(str(v)) for v in line.values())]
    assert not named, named[:3]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def until_text(port: int, path: str, text: str, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    seen: set[str] = set()
    while (got := await answer(port, path))[1] != text:
        seen.add(got[1])
        assert time.monotonic() < end, f"{path} never said {text!r} (it said {seen})"
        await asyncio.sleep(0.02)


async def test_readyz_follows_the_shard_leases_of_two_processes(pg_server) -> None:
    """P runs both shards, S stands by (both ready); P's lease session ends and, while the lease
    connection cannot come back, P is not ready; S takes the shards over (ready, running them);
    once P watches the leases again it is a ready standby."""
    store = await PostgresStore(pg_server).create()
    fd = production_fake(shard_count=2)
    await fd.start()
    bots: list[BotProcess] = []
    ports = [free_port(), free_port()]

    def config(port: int) -> dict[str, Any]:
        return {"shard_count": 2, "shard_ids": [0, 1], "lease_poll": 0.1, "metrics_address": ["127.0.0.1", port]}

    try:
        p = await BotProcess.start(fd, database=store.url, seed=3, config=config(ports[0]), ready_timeout=60.0)
        bots.append(p)
        s = await BotProcess.start(fd, database=store.url, seed=4, config=config(ports[1]), ready_timeout=None)
        bots.append(s)
        assert await get(ports[0], "/readyz") == (200, "ready: running shard(s) 0,1\n")
        await until_text(ports[1], "/readyz", "ready: standing by for shard(s) 0,1\n")
        standby = await scrape(ports[1])
        assert value(standby, "deckhand_shard_held", shard="0") == value(standby, "deckhand_shard_held", shard="1") == 0

        # A new lease connection checks SHARD_COUNT under this lock first: held, P's cannot come back.
        [(namespace,)] = store.rows("SELECT hashtext('deckhand.shards:' || current_schema())")
        store.rows("SELECT pg_advisory_lock(?::int, ?::int)", (namespace, CHECKING))
        end_lease_session(store, 0)  # one session holds both of P's leases
        text = await until_status(ports[0], "/readyz", 503)
        assert text.startswith("not ready: the shard leases are not held or watched")
        await s.ready(60.0)
        await until_text(ports[1], "/readyz", "ready: running shard(s) 0,1\n")
        taken = await scrape(ports[1])
        assert value(taken, "deckhand_gateway_state", shard="1", state="connected") == 1
        lost = await scrape(ports[0])
        assert value(lost, "deckhand_shard_held", shard="0") == value(lost, "deckhand_shard_held", shard="1") == 0
        assert (await get(ports[0], "/readyz"))[0] == 503 and (await get(ports[0], "/healthz"))[0] == 200

        store.rows("SELECT pg_advisory_unlock(?::int, ?::int)", (namespace, CHECKING))
        await until_text(ports[0], "/readyz", "ready: standing by for shard(s) 0,1\n")
    finally:
        for bot in bots:
            await bot.kill()
        await fd.close()
        await store.cleanup()
