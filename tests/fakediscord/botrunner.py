"""Run the real bot (``bot.Deckhand``) against a :class:`~tests.fakediscord.server.FakeDiscord`.

discord.py is pointed at the fake the supported way — ``discord.http.Route.BASE`` (REST and the
interaction webhooks) and ``DiscordWebSocket.DEFAULT_GATEWAY`` (the fake's READY then hands out its
own ``resume_gateway_url``) — and restored afterwards.  Nothing of the bot is patched: it logs in,
syncs its commands, identifies, and from then on only hears what the fake sends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

import discord.http
import yarl
from discord.gateway import DiscordWebSocket

from .server import FakeDiscord


@contextlib.contextmanager
def pointed_at(fd: FakeDiscord) -> Iterator[None]:
    old_base, old_gateway = discord.http.Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = fd.api_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fd.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = old_base, old_gateway


class ErrorLog(logging.Handler):
    """Collects what the bot logs at ERROR and above (an exception it swallowed is still a bug)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("fakediscord"):
            return
        self.records.append(record)

    def lines(self) -> list[str]:
        out = []
        for r in self.records:
            line = f"{r.name}: {r.getMessage()}"
            if r.exc_info and r.exc_info[1] is not None:
                line += f" ({r.exc_info[1]!r})"
            out.append(line)
        return out


# What the bot's environment must not bring in from the test's (a developer's shell may hold a
# DATABASE_URL or a DECKHAND_* setting): the bot under test gets only what its test names.
PRODUCTION_KEYS = ("DISCORD_TOKEN", "DEV_GUILD_ID", "DATABASE_URL", "DATA_RETENTION_DAYS", "LOG_LEVEL",
                   "SHARD_COUNT", "SHARD_IDS", "METRICS_ADDRESS", "LOG_FORMAT")


def production_env(fd: FakeDiscord, database_url: str, *, sync_to_guild: bool = True,
                   base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment ``bot.py`` would read to run against ``fd``: its token, its database and,
    with ``sync_to_guild``, DEV_GUILD_ID (without it the bot syncs its commands globally, as in
    production).  ``base`` (e.g. ``os.environ``) is kept but for the bot's own settings."""
    env = {k: v for k, v in (base or {}).items() if k not in PRODUCTION_KEYS and not k.startswith("DECKHAND_")}
    env.update({"DISCORD_TOKEN": fd.token, "DATABASE_URL": database_url})
    if sync_to_guild:
        env["DEV_GUILD_ID"] = str(fd.guild_id)
    return env


async def commands_registered(fd: FakeDiscord, sync_to_guild: bool = True, timeout: float = 15.0) -> None:
    """Until Discord has the bot's slash commands (the bot syncs them once its gateway is READY;
    after a restart Discord has them from before): people type commands only once they exist."""
    where = fd.guild_id if sync_to_guild else None
    await fd.wait_for(lambda: fd.commands.get(where), timeout, "the bot's slash commands registered")


@contextlib.asynccontextmanager
async def running_bot(
    fd: FakeDiscord,
    *,
    runtime_options: Mapping[str, Any] | None = None,
    ready_timeout: float = 15.0,
    sync_to_guild: bool = True,
    config: Mapping[str, Any] | None = None,
    database_url: str | None = None,
    **client_options: Any,
) -> AsyncIterator[Any]:
    """The real Deckhand, logged in to ``fd`` and ready (its guild loaded, commands synced).
    Configured as ``bot.main`` does, from an environment (:func:`production_env`): a SQLite
    database (``database_url``; default a throwaway file) and the AI worker pool.  ``config``
    then changes fields of that ``Config`` (e.g. ``programs``)."""
    import dataclasses
    import tempfile

    from bot import Deckhand, ShardedDeckhand
    from config import load_config

    client_options.setdefault("guild_ready_timeout", 0.01)
    errors = ErrorLog()
    root = logging.getLogger()
    root.addHandler(errors)
    with pointed_at(fd), tempfile.TemporaryDirectory(prefix="deckhand-e2e-") as scratch:
        url = database_url or f"sqlite:///{scratch}/deckhand.db"
        cfg = load_config(production_env(fd, url, sync_to_guild=sync_to_guild))
        if config:
            cfg = dataclasses.replace(cfg, **config)
        bot = (ShardedDeckhand if cfg.shard_count else Deckhand)(cfg, runtime_options=runtime_options,
                                                                 **client_options)
        bot.error_log = errors  # type: ignore[attr-defined]
        task: asyncio.Task[None] | None = None
        try:
            await asyncio.wait_for(bot.login(fd.token), ready_timeout)
            task = asyncio.create_task(bot.connect(reconnect=True), name="deckhand-gateway")
            ready = asyncio.create_task(bot.wait_until_ready())
            done, _ = await asyncio.wait({task, ready}, timeout=ready_timeout, return_when=asyncio.FIRST_COMPLETED)
            if ready not in done:
                ready.cancel()
                if task in done:
                    task.result()  # raises what stopped it
                raise TimeoutError(f"the bot was not ready after {ready_timeout} s")
            await commands_registered(fd, sync_to_guild, ready_timeout)
            yield bot
        finally:
            with contextlib.suppress(Exception):
                await bot.close()
            if task is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(task, 5)
            root.removeHandler(errors)
