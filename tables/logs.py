"""The bot's log lines: text (the default) or JSON lines (``LOG_FORMAT=json``), one object a line
with ``time``, ``level``, ``logger``, ``message`` and, where known, ``table_id``, ``guild_id`` and
``shard`` as fields of their own (docs/deploy.md, "Monitoring").

Where a line's table, server and shard come from, first found first:

* ``extra={"table_id": ..., "guild_id": ..., "shard": ...}`` given to the logging call;
* the context of the code that logs (:data:`GUILD`, set for the work an interaction starts:
  cogs/ops/health.py);
* the task that logs: a table's own tasks are named ``<what>:<table id>`` (tables/live.py ``Tasks``);
* the message itself: Deckhand's lines name a table as ``table %s``;

and a table's server and shard from the running tables (:func:`follow`).  The fields are ids only:
what a line says is what the text format says, and no log line ever names a card.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import re
import time
import weakref
from collections.abc import Callable
from typing import TextIO

FORMATS = ("text", "json")
FIELDS = ("table_id", "guild_id", "shard")
#: The server (guild) whose interaction the running code answers (cogs/ops/health.py sets it).
GUILD: contextvars.ContextVar[int | None] = contextvars.ContextVar("deckhand_log_guild", default=None)
TABLE_ID = re.compile(r"^[2-9A-Z]{6}$")  # tables/ids.py: six of its alphabet
_TABLE_ARG = re.compile(r"\btable `?%s", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +]*[0-9*]*(?:\.[0-9*]+)?[a-zA-Z%]")
TEXT_FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"

# table id -> (guild id, shard) of the running tables; set by the bot (follow), weakly held.
_where: weakref.WeakMethod[Callable[[str], tuple[int | None, int | None]]] | None = None


def parse_format(text: str | None) -> str:
    """``LOG_FORMAT`` (``text`` or ``json``; empty: ``text``); ``ValueError`` with a sentence."""
    value = (text or "").strip().lower() or "text"
    if value not in FORMATS:
        raise ValueError(f"LOG_FORMAT must be text or json, not {text!r}.")
    return value


def follow(where: Callable[[str], tuple[int | None, int | None]]) -> None:
    """Read a table's server and shard with ``where`` (a bound method of the bot's) from now on."""
    global _where
    _where = weakref.WeakMethod(where)


def table_of_task() -> str | None:
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no loop running in this thread
        return None
    if task is None:
        return None
    name = task.get_name()
    _, sep, tail = name.partition(":")
    if sep and TABLE_ID.match(tail):
        return tail
    return None


def table_of_message(record: logging.LogRecord) -> str | None:
    """The argument a ``table %s`` of the message's format stands for, if it is a table id."""
    if not isinstance(record.msg, str) or not isinstance(record.args, tuple):
        return None
    found = _TABLE_ARG.search(record.msg)
    if found is None:
        return None
    index = sum(1 for p in _PLACEHOLDER.findall(record.msg[:found.end() - 2]) if p != "%%")
    if index >= len(record.args):
        return None
    value = record.args[index]
    return value if isinstance(value, str) and TABLE_ID.match(value) else None


class Fields(logging.Filter):
    """Puts ``table_id``, ``guild_id`` and ``shard`` on each record where known (never drops one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        table = getattr(record, "table_id", None) or table_of_task() or table_of_message(record)
        guild = getattr(record, "guild_id", None)
        shard = getattr(record, "shard", None)
        if table is not None and (guild is None or shard is None):
            where = _where() if _where is not None else None
            if where is not None:
                found_guild, found_shard = where(table)
                guild = guild if guild is not None else found_guild
                shard = shard if shard is not None else found_shard
        if guild is None:
            guild = GUILD.get()
        record.table_id, record.guild_id, record.shard = table, guild, shard
        return True


class JsonLines(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the known fields, and
    the traceback of an exception (``exception``)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {  # (json.dumps writes what it cannot as str)
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                out[name] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            out["exception"] = record.exc_text
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def handler(fmt: str, stream: TextIO | None = None) -> logging.Handler:
    """A stream handler (stderr by default) writing ``fmt`` lines (``text`` or ``json``)."""
    out = logging.StreamHandler(stream)
    if fmt == "json":
        out.setFormatter(JsonLines())
        out.addFilter(Fields())
    else:
        out.setFormatter(logging.Formatter(TEXT_FORMAT))
    return out


def setup(fmt: str, level: str) -> None:
    """The process's logging: every logger's lines (discord.py's too) to stderr in ``fmt``."""
    root = logging.getLogger()
    root.setLevel(level)
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler(fmt))
