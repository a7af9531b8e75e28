"""The operator's endpoints, on the bot's own event loop (``METRICS_ADDRESS``, docs/deploy.md
"Monitoring"): ``/metrics`` (Prometheus), ``/healthz`` (the loop answers) and ``/readyz`` (this
process does what it is configured to: :meth:`tables.metrics.Metrics.readiness`).

Served by aiohttp on the loop itself: a scrape reads the counters the loop writes without a lock,
and ``/healthz`` answering *is* the proof that the loop is not stuck.  The gateway's state per
shard comes from discord.py's events (:func:`watch_gateway`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from aiohttp import web

from tables import logs
from tables.metrics import CONTENT_TYPE_LATEST, Metrics

if TYPE_CHECKING:
    from config import Config
    from tables.storage.base import Storage

log = logging.getLogger("deckhand.health")


class HealthServer:
    """``/metrics``, ``/healthz`` and ``/readyz`` on ``host:port`` (port 0: any free one, :attr:`port`)."""

    def __init__(self, metrics: Metrics, host: str, port: int) -> None:
        self.metrics = metrics
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as e:
            await runner.cleanup()
            log.error("Cannot serve the metrics on %s:%d (%s): set METRICS_ADDRESS to a free address, or leave it "
                      "empty", self.host, self.port, e)
            raise
        self._runner = runner
        sockets = getattr(site._server, "sockets", None) or ()
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        log.info("Metrics and health checks on http://%s:%d (/metrics, /healthz, /readyz)", self.host, self.port)

    async def close(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _metrics(self, _request: web.Request) -> web.Response:
        body = self.metrics.render()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, _request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def _readyz(self, _request: web.Request) -> web.Response:
        ready, why = self.metrics.readiness()
        return web.Response(text=f"{'ready' if ready else 'not ready'}: {why}\n", status=200 if ready else 503)


def watch_gateway(bot: Any, metrics: Metrics) -> None:
    """Keep ``metrics.gateway`` (shard -> connected / disconnected / connecting) from the events
    discord.py dispatches: ``connect`` comes with READY, ``resumed`` after a RESUME."""
    state = metrics.gateway
    listen = bot.add_listener  # (commands.Bot's)
    if isinstance(bot, discord.AutoShardedClient):
        async def on_shard_connect(shard: int) -> None:
            state[shard] = "connected"

        async def on_shard_resumed(shard: int) -> None:
            state[shard] = "connected"

        async def on_shard_disconnect(shard: int) -> None:
            state[shard] = "disconnected"

        listen(on_shard_connect)
        listen(on_shard_resumed)
        listen(on_shard_disconnect)
        metrics.latencies = lambda: list(bot.latencies)
    else:
        async def on_connect() -> None:
            state[0] = "connected"

        async def on_resumed() -> None:
            state[0] = "connected"

        async def on_disconnect() -> None:
            state[0] = "disconnected"

        listen(on_connect)
        listen(on_resumed)
        listen(on_disconnect)
        metrics.latencies = lambda: [(0, bot.latency)]


def tag_interactions(bot: Any) -> None:
    """JSON logs (``LOG_FORMAT=json``): the work an interaction starts (its command or click runs in
    tasks discord.py creates while it reads the event) carries the interaction's server as the
    ``guild_id`` of its log lines (tables/logs.py)."""
    parsers = bot._connection.parsers  # the very dict the gateway reads its handlers from
    parse = parsers["INTERACTION_CREATE"]

    def tagged(data: Any) -> None:
        guild = data.get("guild_id")
        token = logs.GUILD.set(int(guild) if guild else None)
        try:
            parse(data)
        finally:
            logs.GUILD.reset(token)

    parsers["INTERACTION_CREATE"] = tagged


async def watch(bot: Any, config: Config, storage: Storage | None) -> HealthServer | None:
    """The operator's view: JSON logs' fields, and with METRICS_ADDRESS the metrics and the health
    checks, served from now on (a standby answers them while it waits); the server, if any."""
    if config.log_format == "json":
        logs.follow(bot.table_place)  # a bound method: the log holds it weakly
        tag_interactions(bot)
    metrics = bot.metrics
    if metrics is None or config.metrics_address is None:
        return None
    metrics.runtime, metrics.ai_pool = bot.runtime, bot.ai_pool
    if bot.gate is not None:
        metrics.shards, metrics.leases = bot.gate.shards, bot.gate.leases
    if storage is not None:
        metrics.time_calls(storage, ("insert_table", "write"), metrics.storage_writes)
    if bot.ai_pool is not None:
        metrics.time_calls(bot.ai_pool, ("choose",), metrics.ai_decisions)
    watch_gateway(bot, metrics)
    server = HealthServer(metrics, *config.metrics_address)
    await server.start()
    return server
