"""Deckhand's configuration, read once from the environment: every setting, documented here once.

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
* ``DATA_RETENTION_DAYS`` — finished tables, their logs and reviews of play older than this are
  deleted (default 365; 0 keeps them for ever).  Results for ``/stats`` are kept (docs/privacy.md).
* ``SERVER_DATA_GRACE_DAYS`` — a server that removes Deckhand has everything kept for it deleted
  this many days later, unless it adds Deckhand back first (default 30; 0 keeps it for ever).
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

One typed, frozen :class:`Config` (bot.py, the composition root, builds everything from it);
:func:`load_config` checks each setting and says in one sentence how to fix a bad one.  Importing this
module has no side effects.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from cogs.live.hand import LIFETIME, MARGIN
from cogs.ops.shards import TOKEN_BUDGET
from tables import logs
from tables.ai.pool import default_workers
from tables.metrics import parse_address
from tables.offers import Limits
from tables.programs.driver import parse_programs
from tables.programs.procs import parse_env_names
from tables.programs.protocol import DEFAULT_TIMEOUT as DEFAULT_PROGRAM_TIMEOUT
from tables.shards import DEFAULT_POLL, shard_settings
from tables.storage import DEFAULT_URL, PostgresURL, StorageError, parse_url
from tools.invite import no_token_message

ENV_FILE = Path(__file__).resolve().with_name(".env")
HERE = ENV_FILE.parent  # relative database paths are relative to this folder
DEFAULT_RETENTION_DAYS = 365.0
DEFAULT_GRACE_DAYS = 30.0
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
    grace_days: float = DEFAULT_GRACE_DAYS  # a server that removed Deckhand: its data goes then (0: never)
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
    # one (cogs/live/hand.py): Discord's own figures; a test's Discord with short-lived tokens sets both.
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
    retention_days = _number(env, "DATA_RETENTION_DAYS", DEFAULT_RETENTION_DAYS, float, lambda v: v >= 0,
                             "a number of days (0 keeps everything)")
    grace_days = _number(env, "SERVER_DATA_GRACE_DAYS", DEFAULT_GRACE_DAYS, float, lambda v: v >= 0,
                         "a number of days (0 keeps a server's data for ever)")
    try:
        programs = parse_programs(env.get("DECKHAND_PROGRAMS"))
    except ValueError as e:
        raise ConfigError(f"DECKHAND_PROGRAMS: {e} The format is name=command line;name2=command line.") from None
    program_timeout = _number(env, "DECKHAND_PROGRAM_TIMEOUT", DEFAULT_PROGRAM_TIMEOUT, float, lambda v: 0 < v <= 60,
                              "a number of seconds above 0 (at most 60)")
    try:
        program_env = parse_env_names(env.get("DECKHAND_PROGRAM_ENV"))
    except ValueError as e:
        raise ConfigError(f"DECKHAND_PROGRAM_ENV: {e} List variable names separated by commas.") from None
    runtime_dir = (env.get("DECKHAND_RUNTIME_DIR") or "").strip() or None
    if runtime_dir is not None:
        runtime_dir = str(HERE / runtime_dir)  # relative to this script's folder, like the database
    limits = Limits(**{key: _count(env, name, getattr(Limits(), key)) for key, name in LIMIT_VARIABLES.items()})
    ai_workers = _count(env, "DECKHAND_AI_WORKERS", default_workers())
    review_workers = _number(env, "DECKHAND_REVIEW_WORKERS", default_workers(), int, lambda v: v >= 1,
                             "a whole number of at least 1 (the reviews of finished games that run at once)")
    shard_count, shard_ids, lease_poll = _shards(env, database_url)
    rest_budget = _number(env, "DECKHAND_REST_BUDGET", TOKEN_BUDGET, float, lambda v: 1 <= v <= 50,
                          "the REST calls a second the bot token may make, all processes together (1 to 50; "
                          "Discord allows 50)")
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
                  retention_days=retention_days, grace_days=grace_days, programs=programs,
                  program_timeout=program_timeout, program_env=program_env, runtime_dir=runtime_dir, limits=limits,
                  ai_workers=ai_workers, review_workers=review_workers)


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
    return _number(env, name, default, int, lambda v: v >= 0, "a whole number (0 for no limit)")


N = TypeVar("N", int, float)


def _number(env: Mapping[str, str], name: str, default: N, kind: Callable[[str], N], ok: Callable[[N], bool],
            must: str) -> N:
    """The setting ``name`` as a number of ``kind`` (``default`` when unset or empty), which ``ok``
    accepts; otherwise a :class:`ConfigError` saying it "must be ``must``".  The one range check of
    every numeric setting."""
    raw = (env.get(name) or "").strip()
    try:
        value = kind(raw) if raw else default
        if value != value or not ok(value):  # (NaN is no number of anything)
            raise ValueError
    except ValueError:
        raise ConfigError(f"{name} must be {must}, not {raw!r}.") from None
    return value
