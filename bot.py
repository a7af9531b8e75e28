"""Deckhand: card games with friends in a Discord server.  Run ``python bot.py`` (or ``make run``).

Configuration comes from the environment, or from a ``.env`` file next to this script
(see ``.env.example``):

* ``DISCORD_TOKEN`` — the bot token (required).
* ``DEV_GUILD_ID`` — a server id to sync slash commands to instantly while developing; without it
  commands are synced globally (Discord may take a while to show changes).
* ``LOG_LEVEL`` — ``DEBUG``, ``INFO`` (default), ``WARNING``, ...
* ``DATABASE_URL`` — where tables, game logs and stats are kept (default ``sqlite:///deckhand.db``:
  a file next to this script; relative paths are relative to this script's folder, not the
  working directory), or ``postgresql://user:password@host:5432/database`` for a PostgreSQL
  server (see :mod:`tables.storage`).  Created and migrated on start; running tables are restored
  from it.
* ``DATA_RETENTION_DAYS`` — finished tables and their logs older than this are deleted (default 90;
  0 keeps them for ever).  Results for ``/stats`` are always kept.
* ``DECKHAND_PROGRAMS`` — trusted programs a table host may seat (``/game ai program:``, in a game with program seats):
  ``name=command line;name2=command line`` (see :func:`tables.programs.parse_programs`).  Commands
  run without a shell, from this script's folder, with the seat's name as their first argument.
* ``DECKHAND_PROGRAM_TIMEOUT`` — seconds a program has for each card (default 2).
* ``DECKHAND_PROGRAM_ENV`` — names of environment variables programs may see besides ``PATH``,
  ``HOME`` and ``LANG`` (comma or space separated).  Nothing else of the bot's environment, its
  token least of all, reaches a program.
* ``SHARD_COUNT``, ``SHARD_IDS`` — run as Discord shards ``SHARD_IDS`` (e.g. ``0,1``; default all) of
  ``SHARD_COUNT`` (an ``AutoShardedBot``); a table belongs to its server's shard.  With PostgreSQL
  a process takes a lease per shard and one whose shards are held elsewhere waits as a hot standby
  (see docs/deploy.md); ``DECKHAND_LEASE_POLL`` is how often it checks, in seconds (default 2).
* ``DECKHAND_REST_BUDGET`` — REST calls a second the bot token may make, all its processes together
  (default 48, under Discord's 50); each process keeps to its shards' part of it.
* ``DECKHAND_AI_WORKERS`` — worker processes for the strong AI's search (default: one per core but
  one; 0: none, strong seats play the normal AI's move).
* ``DECKHAND_REVIEW_WORKERS`` — worker processes for reviews of finished games (``/game review``),
  at the lowest OS priority (default: one per core but one, at least 1).  That many reviews run at
  once; the others wait in line, first come, first served.
* ``DECKHAND_RULES_URL`` — a web page with Deckhand's rule book (e.g. the repository's
  ``docs/rules.md``), which **How to play** and ``/game rules`` link to; without it they point to
  ``/game rules`` only (a path in the repository opens nothing in Discord).
* ``DECKHAND_RUNTIME_DIR`` — a folder for the record of running programs (default: next to the
  SQLite database file), which the next start reads to kill whatever a crash left running.
* ``METRICS_ADDRESS`` — ``host:port`` (e.g. ``127.0.0.1:9109``) where the bot serves Prometheus
  metrics (``/metrics``) and health checks (``/healthz``, ``/readyz``); empty (the default): none
  (see docs/deploy.md, "Monitoring").
* ``LOG_FORMAT`` — ``text`` (the default) or ``json``: one JSON object a line, with the table,
  server and shard as fields where known.

Importing this module has no side effects: tests import it.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
from discord.ext import commands

from cogs import emoji as card_emoji
from cogs.command_sync import sync_commands
from cogs.components import DYNAMIC_ITEMS
from cogs.game import GameCog
from cogs.health import HealthServer, tag_interactions, watch_gateway
from cogs.listener import DiscordListener, RestBudget, pings_for
from cogs.live import LIFETIME, MARGIN, LiveViews
from cogs.sendgate import SendGate
from cogs.shards import TOKEN_BUDGET, GatedShards, ShardGate, budget_part
from cogs.stats import StatsCog
from cogs.translator import CatalogTranslator
from tables import logs
from tables.ai_pool import AIPool, default_workers
from tables.metrics import Metrics, parse_address
from tables.offers import Limits
from tables.procs import ProcessRecord, parse_env_names
from tables.programs import ProgramSettings, parse_programs
from tables.protocol import DEFAULT_TIMEOUT as DEFAULT_PROGRAM_TIMEOUT
from tables.runtime import Runtime
from tables.shards import DEFAULT_POLL, shard_settings
from tables.storage import DEFAULT_URL, PostgresURL, StorageError, open_storage, parse_url
from tools.invite import invite_url, no_token_message

log = logging.getLogger("deckhand")

ENV_FILE = Path(__file__).resolve().with_name(".env")
HERE = ENV_FILE.parent  # relative database paths are relative to this folder
DEFAULT_RETENTION_DAYS = 90.0
EXIT_CONFIG = 2

NO_TOKEN = no_token_message()  # the same lines `make run` prints before it builds anything


class ConfigError(Exception):
    """The configuration cannot work; the message says how to fix it."""


@dataclass(frozen=True)
class Config:
    token: str
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    # None (a Config built in code, as tests do): nothing is kept.  load_config always names a
    # database, DEFAULT_URL unless DATABASE_URL says otherwise.
    database_url: str | None = field(default=None, compare=False)
    retention_days: float = DEFAULT_RETENTION_DAYS  # 0: keep finished tables for ever
    # name -> command line: the only programs the bot ever runs (DECKHAND_PROGRAMS).
    programs: dict[str, str] = field(default_factory=dict)
    program_timeout: float = DEFAULT_PROGRAM_TIMEOUT
    # Caps per person, per server and on program processes (0: none).
    limits: Limits = field(default_factory=Limits)
    # Worker processes for the strong AI's search (0: none; strong seats then play normal moves).
    # Config(...) in code (tests) has none; load_config defaults to the machine's cores but one.
    ai_workers: int = field(default=0, compare=False)
    # Worker processes for reviews of finished games (DECKHAND_REVIEW_WORKERS), at the lowest OS
    # priority: that many reviews run at once, the others wait in line.  load_config: as ai_workers.
    review_workers: int = field(default=1, compare=False)
    # Card faces as application emoji, synced in the background at start-up (off: cards stay text).
    card_emoji: bool = True
    program_env: tuple[str, ...] = ()  # DECKHAND_PROGRAM_ENV
    runtime_dir: str | None = None  # DECKHAND_RUNTIME_DIR
    # SHARD_COUNT / SHARD_IDS (None: not sharded, one shard); DECKHAND_LEASE_POLL (seconds).
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    lease_poll: float = DEFAULT_POLL
    rest_budget: float = TOKEN_BUDGET  # DECKHAND_REST_BUDGET: the token's, split by shards held
    # How long Discord keeps an interaction token valid, and how long before that the bot stops using
    # one (cogs/live.py): Discord's own figures; a test's Discord with short-lived tokens sets both.
    token_lifetime: float = LIFETIME
    token_margin: float = MARGIN
    # DECKHAND_RULES_URL: the rule book's page people can open (None: How to play names /game rules only).
    rules_url: str | None = None
    # The operator's view (docs/deploy.md, "Monitoring"): METRICS_ADDRESS as (host, port), None: off
    # (port 0: any free one, for tests); LOG_FORMAT, "text" or "json".
    metrics_address: tuple[str, int] | None = None
    log_format: str = "text"

    def program_record(self) -> Path | None:
        """Where the running programs are recorded: in DECKHAND_RUNTIME_DIR, else next to the
        SQLite database file; nowhere for a database in memory (or none)."""
        if self.runtime_dir:
            return Path(self.runtime_dir) / "deckhand-programs"
        if not self.database_url:
            return None
        try:
            url = parse_url(self.database_url, HERE)
        except StorageError:
            return None
        if isinstance(url, PostgresURL):
            # No database file to sit beside: next to bot.py (processes sharing a machine set
            # DECKHAND_RUNTIME_DIR each).
            return HERE / "deckhand-programs"
        return None if url.path == ":memory:" else Path(f"{url.path}.programs")


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Read the configuration from ``env`` (default: the process environment)."""
    env = os.environ if env is None else env
    token = (env.get("DISCORD_TOKEN") or "").strip()
    if not token:
        raise ConfigError(NO_TOKEN)
    guild = (env.get("DEV_GUILD_ID") or "").strip()
    try:
        dev_guild_id = int(guild) if guild else None
    except ValueError:
        raise ConfigError(
            f"DEV_GUILD_ID must be a server id (a number; right-click the server with Developer Mode on, "
            f"then Copy Server ID), not {guild!r}. Leave it empty to sync commands globally."
        ) from None
    level = (env.get("LOG_LEVEL") or "INFO").strip().upper()
    if not isinstance(logging.getLevelName(level), int):
        raise ConfigError(f"LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, not {level!r}.")
    database_url = (env.get("DATABASE_URL") or "").strip() or DEFAULT_URL
    try:
        parse_url(database_url, HERE)
    except StorageError as e:
        raise ConfigError(str(e)) from None
    days = (env.get("DATA_RETENTION_DAYS") or "").strip()
    try:
        retention_days = float(days) if days else DEFAULT_RETENTION_DAYS
        if retention_days < 0 or retention_days != retention_days:
            raise ValueError
    except ValueError:
        raise ConfigError(f"DATA_RETENTION_DAYS must be a number of days (0 keeps everything), not {days!r}.") from None
    try:
        programs = parse_programs(env.get("DECKHAND_PROGRAMS"))
    except ValueError as e:
        raise ConfigError(f"DECKHAND_PROGRAMS: {e} The format is name=command line;name2=command line.") from None
    raw_timeout = (env.get("DECKHAND_PROGRAM_TIMEOUT") or "").strip()
    try:
        program_timeout = float(raw_timeout) if raw_timeout else DEFAULT_PROGRAM_TIMEOUT
        if not 0 < program_timeout <= 60:
            raise ValueError
    except ValueError:
        raise ConfigError(f"DECKHAND_PROGRAM_TIMEOUT must be a number of seconds above 0 (at most 60), "
                          f"not {raw_timeout!r}.") from None
    try:
        program_env = parse_env_names(env.get("DECKHAND_PROGRAM_ENV"))
    except ValueError as e:
        raise ConfigError(f"DECKHAND_PROGRAM_ENV: {e} List variable names separated by commas.") from None
    runtime_dir = (env.get("DECKHAND_RUNTIME_DIR") or "").strip() or None
    if runtime_dir is not None:
        runtime_dir = str(HERE / runtime_dir)  # relative to this script's folder, like the database
    limits = Limits(**{key: _count(env, name, getattr(Limits(), key)) for key, name in LIMIT_VARIABLES.items()})
    ai_workers = _count(env, "DECKHAND_AI_WORKERS", default_workers())
    raw_reviews = (env.get("DECKHAND_REVIEW_WORKERS") or "").strip()
    try:
        review_workers = int(raw_reviews) if raw_reviews else default_workers()
        if review_workers < 1:
            raise ValueError
    except ValueError:
        raise ConfigError(f"DECKHAND_REVIEW_WORKERS must be a whole number of at least 1 (the reviews of finished "
                          f"games that run at once), not {raw_reviews!r}.") from None
    shard_count, shard_ids, lease_poll = _shards(env, database_url)
    raw_budget = (env.get("DECKHAND_REST_BUDGET") or "").strip()
    try:
        rest_budget = float(raw_budget) if raw_budget else TOKEN_BUDGET
        if not 1 <= rest_budget <= 50:
            raise ValueError
    except ValueError:
        raise ConfigError(f"DECKHAND_REST_BUDGET must be the REST calls a second the bot token may make, all "
                          f"processes together (1 to 50; Discord allows 50), not {raw_budget!r}.") from None
    rules_url = (env.get("DECKHAND_RULES_URL") or "").strip() or None
    if rules_url is not None and (not rules_url.startswith(("https://", "http://")) or len(rules_url) > 512
                                  or any(ch.isspace() or ch in "<>" for ch in rules_url)):
        raise ConfigError(f"DECKHAND_RULES_URL must be a web address people can open (https://…, at most 512 "
                          f"characters), not {rules_url[:80]!r}. Leave it empty to point to /game rules only.")
    try:
        metrics_address = parse_address(env.get("METRICS_ADDRESS"))
        log_format = logs.parse_format(env.get("LOG_FORMAT"))
    except ValueError as e:
        raise ConfigError(str(e)) from None
    return Config(rules_url=rules_url, metrics_address=metrics_address, log_format=log_format,
                  shard_count=shard_count, shard_ids=shard_ids, lease_poll=lease_poll, rest_budget=rest_budget,
                  token=token, dev_guild_id=dev_guild_id, log_level=level, database_url=database_url,
                  retention_days=retention_days, programs=programs, program_timeout=program_timeout,
                  program_env=program_env, runtime_dir=runtime_dir, limits=limits, ai_workers=ai_workers,
                  review_workers=review_workers)


LIMIT_VARIABLES = {
    "tables_per_person": "DECKHAND_MAX_TABLES_PER_PERSON",
    "running_per_server": "DECKHAND_MAX_GAMES_PER_SERVER",
    "programs": "DECKHAND_MAX_PROGRAMS",
}


def _shards(env: Mapping[str, str], database_url: str) -> tuple[int | None, tuple[int, ...] | None, float]:
    try:
        return shard_settings(env.get("SHARD_COUNT"), env.get("SHARD_IDS"), env.get("DECKHAND_LEASE_POLL"),
                              postgres=isinstance(parse_url(database_url, HERE), PostgresURL))
    except ValueError as e:
        raise ConfigError(str(e)) from None


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    raw = (env.get(name) or "").strip()
    try:
        value = int(raw) if raw else default
        if value < 0:
            raise ValueError
    except ValueError:
        raise ConfigError(f"{name} must be a whole number (0 for no limit), not {raw!r}.") from None
    return value


class DeckhandListener(DiscordListener):
    """The Discord listener plus the runtime's optional ``broken`` notice."""

    async def broken(self, table: Any, reason: str) -> None:
        """A table could not be restored after a restart: say so where it was played."""
        try:
            where = self.where(table)
            if where is None:
                return
            ids = [s.user_id for s in table.seats if s.user_id is not None and not s.is_ai]
            text = (f"⚠️ Table `{table.id}` could not be restored after Deckhand restarted, so it has ended "
                    f"({reason[:300]}). Sorry about that! Start a new game with `/game new`.")
            await where.send(" ".join([*(f"<@{u}>" for u in ids), text]), allowed_mentions=pings_for(ids))
        except Exception:
            log.exception("Could not tell the players of table %s that it is broken", table.id)


class Deckhand(commands.Bot):
    """The bot: its dependencies are built in :meth:`setup_hook`, once the event loop runs."""

    def __init__(self, config: Config, *, runtime_options: Mapping[str, Any] | None = None,
                 freeze_heap: bool = False, **client_options: Any) -> None:
        # runtime_options go to the table Runtime (tests: ai_delay=0, ...); client_options to discord.py
        # (tests: guild_ready_timeout).  Production passes neither.
        # Default intents only: slash commands and components need no privileged intent.
        # No message pings anyone unless it says whom (issue 14 item 10): names are user-chosen
        # and may hold mention markup, and a message edited without allowed_mentions would parse it.
        client_options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        # Every request Discord's global limit counts waits for this gate just before it is sent.
        self.send_gate = SendGate()
        client_options.setdefault("http_trace", self.send_gate.trace())
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(), help_command=None,
                         **client_options)
        self.config = config
        self.runtime_options = dict(runtime_options or {})
        # The bot process (main) freezes its start-up heap; a test process running many bots does not.
        self.freeze_heap = freeze_heap
        self.runtime: Runtime | None = None
        self.ai_pool: AIPool | None = None
        self._ai_warm: asyncio.Task[None] | None = None
        self.emoji_task: asyncio.Task[str] | None = None
        self.sync_task: asyncio.Task[None] | None = None  # the slash commands' sync, started at READY
        self._telling: set[asyncio.Future[None]] = set()
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
        listener = DeckhandListener(self, budget=budget, live=LiveViews(
            lifetime=self.config.token_lifetime, margin=self.config.token_margin))
        self.runtime = Runtime(listener=listener, **options)
        card_emoji.REGISTRY.clear()
        await self._watch(options)
        await self.add_cog(GameCog(self.runtime, listener, rules_url=self.config.rules_url))
        await self.add_cog(StatsCog(self.runtime))
        await self.tree.set_translator(CatalogTranslator())  # the commands in every language (issue 31)
        # Table buttons and hand controls keep working after a restart: they are rebuilt from their ids.
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self.freeze_heap:
            # Everything built so far (modules, classes, the runtime and cogs) lives as long as the
            # bot: out of the collector's sight, a full collection no longer walks it, which took the
            # longest pauses (40-70 ms) out of interaction answers under load.  Before recovery:
            # recovered tables end some day, and a frozen cycle would never be collected.
            gc.collect()
            gc.freeze()
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

    async def _watch(self, options: Mapping[str, Any]) -> None:
        """The operator's view: JSON logs' fields, and with METRICS_ADDRESS the metrics and the
        health checks, served from now on (a standby answers them while it waits)."""
        if self.config.log_format == "json":
            logs.follow(self._where)
            tag_interactions(self)
        if self.metrics is None or self.config.metrics_address is None:
            return
        metrics = self.metrics
        metrics.runtime, metrics.ai_pool = self.runtime, self.ai_pool
        if self.gate is not None:
            metrics.shards, metrics.leases = self.gate.shards, self.gate.leases
        if options.get("storage") is not None:
            metrics.time_calls(options["storage"], ("insert_table", "write"), metrics.storage_writes)
        if self.ai_pool is not None:
            metrics.time_calls(self.ai_pool, ("choose",), metrics.ai_decisions)
        watch_gateway(self, metrics)
        self.health = HealthServer(metrics, *self.config.metrics_address)
        await self.health.start()

    def _where(self, table_id: str) -> tuple[int | None, int | None]:
        """A running table's server and shard (JSON logs' fields), or Nones."""
        table = self.runtime.tables.get(table_id) if self.runtime is not None else None
        if table is None or self.runtime is None:
            return None, None
        return table.guild_id, self.runtime.shards.shard(table.shard_key)

    async def register_commands(self) -> None:
        """Register the slash commands (the development server's, else global); never raises:
        the commands Discord already has keep working meanwhile."""
        guild = None if self.config.dev_guild_id is None else discord.Object(id=self.config.dev_guild_id)
        try:
            synced = await sync_commands(self, self.tree, guild)
            if synced is None:
                log.info("Discord has these slash commands already: nothing to sync")
            elif guild is not None:
                log.info("Synced %d commands to the development server %s", synced, guild.id)
            else:
                log.info("Synced %d global commands (Discord may take a while to show them)", synced)
        except Exception:
            log.exception("Could not sync the slash commands; the ones Discord already has stay")

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        # A moderator deleted a game's thread: the game goes on in its channel, where the table
        # message gets My hand back (a thread's link would lead nowhere).
        if self.runtime is not None:
            await self.runtime.detach_thread(payload.thread_id)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if self.metrics is not None:
            self.metrics.interactions_received += 1
        # A host whose table's channel refuses the bot's posts hears it here, once (cogs/listener.py).
        listener = getattr(self.runtime, "listener", None)
        if isinstance(listener, DiscordListener) and listener.has_notices:
            task = asyncio.ensure_future(listener.tell_host(interaction))
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)

    async def on_ready(self) -> None:
        if self.sync_task is None:  # READY again after a reconnect: synced already
            self.sync_task = asyncio.create_task(self.register_commands(), name="deckhand-command-sync")
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
            live = getattr(self.runtime.listener, "live", None)
            if live is not None:
                await live.close()  # pending edits of hand views: nothing to keep across a restart
            closing = getattr(self.runtime.listener, "close", None)
            if closing is not None:
                await closing()  # nudges and ping removals under way
            watchers = getattr(self.runtime.listener, "watchers", None)
            if watchers is not None:
                await watchers.close()  # watchers' views, likewise (and their expiry timers)
        if self.health is not None:
            await self.health.close()
        if self.gate is not None:
            await self.gate.close()  # the leases go last: our last writes are in before a standby starts
        await super().close()


class ShardedDeckhand(Deckhand, GatedShards, commands.AutoShardedBot):
    """The bot as Discord shards ``SHARD_IDS`` of ``SHARD_COUNT`` (those whose leases it holds: a
    shard is connected only while its lease is, cogs/shards.py)."""

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
