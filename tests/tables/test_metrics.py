"""tables/metrics.py and tables/logs.py without Discord: the counters a REST answer moves, the
readiness in words, the settings, and the JSON log lines' fields."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tables import logs
from tables.metrics import DISCORD_EPOCH, Metrics, parse_address, route_group
from tables.shards import Shards


def snowflake(at: float) -> int:
    return int((at - DISCORD_EPOCH) * 1000) << 22


def samples(metrics: Metrics) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {(s.name, frozenset(s.labels.items())): s.value
            for f in text_string_to_metric_families(metrics.render().decode()) for s in f.samples}


def test_answers_are_counted_by_group_latency_and_lateness() -> None:
    metrics = Metrics(now=lambda: 1_700_000_010.0)
    callback = "/api/v10/interactions/{}/tok/callback"
    metrics.request_done(callback.format(snowflake(1_700_000_009.8)), 204)  # 0.2 s
    metrics.request_done(callback.format(snowflake(1_700_000_006.5)), 204)  # 3.5 s: late, still answered
    metrics.request_done(callback.format(snowflake(1_700_000_000.0)), 404)  # Discord had failed it
    metrics.request_done("/api/v10/channels/1/messages/2", 429)
    metrics.request_done("/api/v10/webhooks/1/tok/messages/@original", 200)
    got = samples(metrics)
    assert got[("deckhand_interactions_answered_total", frozenset())] == 2
    assert got[("deckhand_interactions_late_total", frozenset())] == 2
    assert got[("deckhand_interaction_answer_seconds_count", frozenset())] == 2
    assert got[("deckhand_interaction_answer_seconds_bucket", frozenset({("le", "0.1")}))] == 0
    assert got[("deckhand_interaction_answer_seconds_bucket", frozenset({("le", "0.25")}))] == 1
    assert got[("deckhand_interaction_answer_seconds_sum", frozenset())] == pytest.approx(3.7, abs=0.01)
    assert got[("deckhand_rest_requests_total", frozenset({("group", "interaction")}))] == 3
    assert got[("deckhand_rest_429_total", frozenset({("group", "message")}))] == 1
    assert got[("deckhand_rest_requests_total", frozenset({("group", "followup")}))] == 1
    assert route_group("/api/v10/channels/1/threads") == "thread"


def test_readiness_in_words() -> None:
    metrics = Metrics()
    assert metrics.readiness() == (False, "starting")
    metrics.shards = Shards.of(2)  # no leases: every shard held
    metrics.gateway[0] = "connected"
    assert metrics.readiness() == (False, "shard(s) 1 not connected to Discord")
    metrics.gateway[1] = "connected"
    assert metrics.readiness() == (True, "running shard(s) 0,1")
    metrics.gateway[0] = "disconnected"
    assert metrics.readiness()[0] is False


def test_settings() -> None:
    assert parse_address("127.0.0.1:9109") == ("127.0.0.1", 9109)
    assert parse_address("[::1]:9109") == ("::1", 9109)
    assert parse_address(" ") is None
    for bad in ("9109", "localhost", "host:port", ":9109", "127.0.0.1:70000"):
        with pytest.raises(ValueError, match="METRICS_ADDRESS must be host:port"):
            parse_address(bad)
    assert logs.parse_format("") == "text" and logs.parse_format("JSON") == "json"
    with pytest.raises(ValueError, match="LOG_FORMAT must be text or json"):
        logs.parse_format("yaml")


async def test_json_lines_carry_the_fields_from_the_message_the_task_or_the_context() -> None:
    out = io.StringIO()
    log = logging.getLogger("deckhand.test.json")
    log.propagate = False
    log.addHandler(logs.handler("json", out))
    log.setLevel(logging.INFO)
    where = {"ABC234": (77, 1)}

    class Bot:
        def where(self, table_id: str) -> tuple[int | None, int | None]:
            return where.get(table_id, (None, None))

    bot = Bot()
    logs.follow(bot.where)
    try:
        log.warning("Seat %d of table %s missed %s", 2, "ABC234", "it")
        token = logs.GUILD.set(55)
        try:
            log.info("A command with no table")
        finally:
            logs.GUILD.reset(token)

        async def in_a_table_task() -> None:
            try:
                raise RuntimeError("boom")
            except RuntimeError:
                log.exception("Redraw failed")

        await asyncio.get_running_loop().create_task(in_a_table_task(), name="redraw:ABC234")
        log.info("Told", extra={"table_id": "XYZ789", "guild_id": 5, "shard": 0})
    finally:
        log.handlers.clear()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(x.get("table_id"), x.get("guild_id"), x.get("shard")) for x in lines] == [
        ("ABC234", 77, 1), (None, 55, None), ("ABC234", 77, 1), ("XYZ789", 5, 0)]
    assert lines[0]["message"] == "Seat 2 of table ABC234 missed it" and lines[0]["level"] == "WARNING"
    assert "RuntimeError: boom" in lines[2]["exception"]
