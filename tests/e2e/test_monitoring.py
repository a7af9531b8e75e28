"""The operator's view through the real bot and the fake Discord (docs/deploy.md, "Monitoring"):
``/metrics`` parses as Prometheus text and its counters move when a game is played; ``/readyz``
says not ready while the gateway is down and ready again once it is back; ``/healthz`` answers."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import time

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from tables import logs
from tests.e2e.conftest import make_world
from tests.fakediscord.play import open_table, play_seat
from tests.fakediscord.privacy import cards_in

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


async def until_status(port: int, path: str, status: int, timeout: float = 20.0) -> str:
    """Until ``path`` answers ``status`` (its text then); the loop checks every 20 ms."""
    end = time.monotonic() + timeout
    seen: list[int] = []
    while True:
        got, text = await get(port, path)
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
