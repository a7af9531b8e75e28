"""Deckhand: card games with friends on Discord.  Run ``python bot.py`` (or ``make run``).

The composition root: it reads the configuration (config.py documents every setting), builds the
runtime, the Discord listener and the cogs from it, and starts the bot.  Importing this module has
no side effects: tests import it.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import Mapping
from typing import Any

import discord
from discord.ext import commands

from cogs.live.hand import LiveViews
from cogs.live.listener import DiscordListener, RestBudget
from cogs.live.sendgate import SendGate
from cogs.ops.health import HealthServer, watch
from cogs.ops.shards import TOKEN_BUDGET, GatedShards, ShardGate, budget_part
from cogs.pictures import emoji as card_emoji
from cogs.sync.command_sync import register_commands
from cogs.table.custom_ids import AnsweringTree
from cogs.wiring import add_cogs
from config import ENV_FILE, EXIT_CONFIG, HERE, Config, ConfigError, load_config
from tables import logs
from tables.ai.pool import AIPool
from tables.metrics import Metrics
from tables.offers import Limits
from tables.programs.driver import ProgramSettings
from tables.programs.procs import ProcessRecord
from tables.runtime import Runtime
from tables.storage import StorageError, open_storage
from tools.invite import invite_url

log = logging.getLogger("deckhand")
#: The bot process's GIL switch interval (sys.setswitchinterval; Python's default is 5 ms).
SWITCH_INTERVAL = 0.0005


def intents() -> discord.Intents:
    """Discord's default intents but the server messages' events: Deckhand reads no message (its
    commands are slash commands, it edits its messages by id, a deleted one shows as a 404 when it is
    edited, a deleted thread comes with the GUILDS intent), yet every message posted or edited in
    every channel it can see came over the gateway, each decoded into a discord.py Message (some
    thirty objects) and handed to a prefix-command check (issue 35).  No privileged intent."""
    chosen = discord.Intents.default()
    chosen.guild_messages = False
    return chosen


class Deckhand(commands.Bot):
    """The bot: its dependencies are built in :meth:`setup_hook`, once the event loop runs."""

    def __init__(self, config: Config, *, runtime_options: Mapping[str, Any] | None = None,
                 freeze_heap: bool = False, **client_options: Any) -> None:
        # runtime_options go to the table Runtime (tests: ai_delay=0, ...); client_options to discord.py
        # (tests: guild_ready_timeout).  Production passes neither.
        # No privileged intent: slash commands and components need none (intents()).
        # No message pings anyone unless it says whom (issue 14 item 10): names are user-chosen
        # and may hold mention markup, and a message edited without allowed_mentions would parse it.
        client_options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        # No message cache: Deckhand never reads a message back from it (it edits by id, and an
        # interaction brings its own), and discord.py's 1,000 cached messages, each some thirty
        # objects (its components, embeds, lists of mentions), were a third of the heap a full
        # garbage collection walks while the tables play (issue 35).
        client_options.setdefault("max_messages", None)
        # Every request Discord's global limit counts waits for this gate just before it is sent.
        self.send_gate = SendGate()
        client_options.setdefault("http_trace", self.send_gate.trace())
        super().__init__(command_prefix=commands.when_mentioned, intents=intents(), help_command=None,
                         tree_cls=AnsweringTree, **client_options)
        self.config = config
        self.runtime_options = dict(runtime_options or {})
        # The bot process (main) freezes its start-up heap; a test process running many bots does not.
        self.freeze_heap = freeze_heap
        self.runtime: Runtime | None = None
        self.ai_pool: AIPool | None = None
        self._ai_warm: asyncio.Task[None] | None = None
        self.emoji_task: asyncio.Task[str] | None = None
        self.sync_task: asyncio.Task[None] | None = None  # the slash commands' sync, started at READY
        self.gate: ShardGate | None = None
        # METRICS_ADDRESS: the counters (their hot paths bump plain numbers) and their HTTP server.
        self.metrics = Metrics() if config.metrics_address is not None else None
        self.health: HealthServer | None = None
        if self.metrics is not None:
            self.send_gate.observe = self.metrics.request_done

    async def setup_hook(self) -> None:
        options: dict[str, Any] = {}
        if self.config.database_url:
            options["storage"] = await open_storage(self.config.database_url, base=HERE, exclusive=True)
            options["retention"] = self.config.retention_days * 86400 if self.config.retention_days else None
            options["departed_grace"] = self.config.grace_days * 86400 if self.config.grace_days else None
        # Whatever programs a killed predecessor left running go first, configured or not now.
        record_path = self.config.program_record()
        processes = ProcessRecord(record_path) if record_path is not None else None
        if processes is not None:
            await asyncio.to_thread(processes.sweep)
        if self.config.programs:
            options["programs"] = ProgramSettings(dict(self.config.programs), timeout=self.config.program_timeout,
                                                  cwd=str(HERE), env_names=self.config.program_env,
                                                  processes=processes)
            log.info("Programs a host may seat: %s", ", ".join(sorted(self.config.programs)))
        options["limits"] = self.config.limits
        from tools import native  # which engine build runs (the import logged it before logging was set up)

        log.info("Engine: %s (%s)", native.BUILD, native.REASON)
        if self.config.ai_workers:
            # The strong AI searches in worker processes, started in the background: until they
            # are up (or if they fail) strong seats play the normal move, never wait.
            self.ai_pool = AIPool(workers=self.config.ai_workers, background_workers=self.config.review_workers)
            options["ai_pool"] = self.ai_pool
            self._ai_warm = asyncio.get_running_loop().create_task(self._warm_ai_pool(self.ai_pool))
        # Which shards (and so which servers' tables) this process runs: PostgreSQL leases decide.
        self.gate = ShardGate(self, self.config.shard_count, self.config.shard_ids, options.get("storage"),
                              poll=self.config.lease_poll, rest_budget=self.config.rest_budget)
        options["shards"] = self.gate.shards
        self.send_gate.ahead = self.gate.before_request  # a lease whose term ran out: nothing more is sent
        options.update(self.runtime_options)
        if isinstance(options["limits"], dict):  # from a test's or a bench's JSON
            options["limits"] = Limits(**options["limits"])
        budget = RestBudget(gate=self.send_gate)
        self.gate.pace(budget)  # this process's part of the token's budget (its shards held)
        self.send_gate.follow(budget, budget_part(TOKEN_BUDGET, 1.0)[0])  # and of its send rate
        listener = DiscordListener(self, budget=budget, live=LiveViews(
            lifetime=self.config.token_lifetime, margin=self.config.token_margin))
        self.runtime = Runtime(listener=listener, **options)
        card_emoji.REGISTRY.clear()
        self.health = await watch(self, self.config, options.get("storage"))
        await add_cogs(self, self.runtime, listener, rules_url=self.config.rules_url, metrics=self.metrics)
        if self.freeze_heap:
            # Everything built so far (modules, classes, the runtime and cogs) lives as long as the
            # bot: out of the collector's sight, a full collection no longer walks it, which took the
            # longest pauses (40-70 ms) out of interaction answers under load.  Before recovery:
            # recovered tables end some day, and a frozen cycle would never be collected.
            gc.collect()
            gc.freeze()
            # The database's thread (aiosqlite) takes the GIL back after each SQLite call; while the
            # loop runs Python it waited up to the default 5 ms switch interval every time, so a
            # commit (which a click's answer waits for) took several of those when the bot was busy.
            sys.setswitchinterval(SWITCH_INTERVAL)
        # A hot standby waits here, connected to nothing, until it holds a shard's lease.
        await self.gate.hold()
        # Cards read as text until this background sync has every face as an emoji (never waited
        # on).  Only now: a standby uploads nothing while the process it stands by for runs.
        if self.config.card_emoji:
            self.emoji_task = asyncio.create_task(card_emoji.sync_card_emoji(self, take=budget.take),
                                                  name="deckhand-card-emoji")
        # Every table of those shards that was running (or waiting in its lobby) carries on.
        await self.runtime.recover()
        if self.config.dev_guild_id is not None:
            self.tree.copy_global_to(guild=discord.Object(id=self.config.dev_guild_id))
        # The commands are synced once the gateway is READY (on_ready), not here: setup_hook runs
        # before the gateway connects, and discord.py holds a request that empties its bucket until
        # the bucket resets.  Discord allows two syncs in 20 s, so a bot restarted soon after its last
        # start waited ~16 s here, with no interaction reaching it (issue 25).

    def table_place(self, table_id: str) -> tuple[int | None, int | None]:
        """A running table's server and shard (JSON logs' fields), or Nones."""
        table = self.runtime.tables.get(table_id) if self.runtime is not None else None
        if table is None or self.runtime is None:
            return None, None
        return table.guild_id, self.runtime.shards.shard(table.shard_key)

    async def on_ready(self) -> None:
        if self.sync_task is None:  # READY again after a reconnect: synced already
            self.sync_task = asyncio.create_task(register_commands(self, self.tree, self.config.dev_guild_id),
                                                 name="deckhand-command-sync")
        log.info("Logged in as %s (%s) in %d servers", self.user, getattr(self.user, "id", "?"), len(self.guilds))
        if self.application_id is not None:
            log.info("Invite Deckhand to a server: %s", invite_url(self.application_id))

    async def _warm_ai_pool(self, pool: AIPool) -> None:
        try:
            await pool.start()
        except Exception:
            log.exception("The AI pool did not start; strong AI seats play the normal move")

    async def close(self) -> None:
        if self.ai_pool is not None:
            try:
                await self.ai_pool.close()
            except Exception:
                log.exception("The AI pool did not close cleanly")
        if self.sync_task is not None:
            self.sync_task.cancel()  # it may be waiting out the sync's rate-limit window
        if self.emoji_task is not None:
            self.emoji_task.cancel()
            card_emoji.REGISTRY.clear()  # its ids belong to this login (tests run many bots in one process)
        if self.runtime is not None:
            try:
                await self.runtime.close()
            except Exception:
                log.exception("The runtime did not close cleanly")
            if isinstance(self.runtime.listener, DiscordListener):
                await self.runtime.listener.shutdown()
        if self.health is not None:
            await self.health.close()
        if self.gate is not None:
            await self.gate.close()  # the leases go last: our last writes are in before a standby starts
        await super().close()


class ShardedDeckhand(Deckhand, GatedShards, commands.AutoShardedBot):
    """The bot as Discord shards ``SHARD_IDS`` of ``SHARD_COUNT`` (those whose leases it holds: a
    shard is connected only while its lease is, cogs/ops/shards.py)."""

    def __init__(self, config: Config, **options: Any) -> None:
        options.setdefault("shard_count", config.shard_count)
        options.setdefault("shard_ids", list(config.shard_ids or range(config.shard_count or 1)))
        super().__init__(config, **options)


def main(env: Mapping[str, str] | None = None) -> int:
    """Start the bot; return an exit status (2 for a configuration problem, with a readable reason)."""
    if env is None:
        try:
            from dotenv import load_dotenv

            # Only the .env beside this file: the bot does not pick up whatever .env the cwd has.
            if ENV_FILE.is_file():
                load_dotenv(ENV_FILE, override=False)
        except ImportError:
            pass
    try:
        config = load_config(env)
    except ConfigError as e:
        print(e, file=sys.stderr)
        return EXIT_CONFIG
    if config.log_format == "json":
        logs.setup("json", config.log_level)
    else:
        discord.utils.setup_logging(level=logging.getLevelName(config.log_level), root=True)
    bot = (ShardedDeckhand if config.shard_count else Deckhand)(config, freeze_heap=True)
    try:
        bot.run(config.token, log_handler=None)
    except discord.LoginFailure:
        print(
            "Discord rejected DISCORD_TOKEN. Copy a fresh token from the Bot page of your application at "
            "https://discord.com/developers/applications into .env as DISCORD_TOKEN=... and try again.",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    except StorageError as e:
        print(f"Deckhand cannot use its database: {e}", file=sys.stderr)
        return EXIT_CONFIG
    return 1 if bot.gate is not None and bot.gate.lost_all else 0  # lost its lease: start me again


if __name__ == "__main__":
    sys.exit(main())
