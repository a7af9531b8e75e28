"""Shards: which process runs which tables.

Discord splits a big bot's servers into shards — a server (guild) belongs to shard
``(guild_id >> 22) % shard_count`` — and sends each shard's events and interactions over its own
gateway session.  Deckhand follows the same split: a table belongs to the shard of its guild, and
a process runs (recovers, drives, answers) only the tables of the shards it *holds*.  Without
sharding there is one shard, 0, and it owns everything.

Which shards a process holds is decided elsewhere: with PostgreSQL by a lease per shard
(:mod:`tables.lease`), with SQLite by the database file's exclusive lock (one process, every shard).
:class:`Shards` only keeps the answer and says it in sentences.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from tables.live import TableError
from tables.table import Table

DEFAULT_POLL = 2.0  # seconds between two looks at the leases (tables/lease.py)
ELSEWHERE = ("This server's games are run by another Deckhand process at the moment (it may be taking "
             "over from one that stopped). Try again in a few seconds.")
# A shard just taken over whose tables are still being read back: the sentence a click gets while
# Deckhand starts (cogs/custom_ids.py), never "no such table" for a table that is about to be there.
STARTING = "Deckhand is starting up — try again in a moment."


def shard_of(guild_id: int | None, count: int) -> int:
    """Discord's shard of a guild (a table without a guild, or no sharding: shard 0)."""
    if count <= 1 or not guild_id:
        return 0
    return (int(guild_id) >> 22) % count


def parse_shards(count_text: str | None, ids_text: str | None) -> tuple[int, tuple[int, ...]]:
    """``SHARD_COUNT`` and ``SHARD_IDS`` (``"0,1"``, also space separated) as numbers; raises
    ``ValueError`` with a sentence.  Empty: one shard; no ids: every shard of the count."""
    raw_count = (count_text or "").strip()
    raw_ids = (ids_text or "").strip()
    try:
        count = int(raw_count) if raw_count else 1
        if count < 1:
            raise ValueError
    except ValueError:
        raise ValueError(f"SHARD_COUNT must be a whole number of shards, 1 or more, not {raw_count!r}.") from None
    if not raw_ids:
        return count, tuple(range(count))
    if not raw_count:
        raise ValueError("SHARD_IDS needs SHARD_COUNT too (how many shards there are in all).")
    ids: list[int] = []
    for part in raw_ids.replace(",", " ").split():
        try:
            n = int(part)
        except ValueError:
            raise ValueError(f"SHARD_IDS must list shard numbers like 0,1 — {part!r} is not one.") from None
        if not 0 <= n < count:
            raise ValueError(f"SHARD_IDS: shard {n} does not exist with SHARD_COUNT={count} "
                             f"(shards are numbered 0 to {count - 1}).")
        if n not in ids:
            ids.append(n)
    return count, tuple(sorted(ids))


def shard_settings(count_text: str | None, ids_text: str | None, poll_text: str | None, *, postgres: bool,
                   ) -> tuple[int | None, tuple[int, ...] | None, float]:
    """``SHARD_COUNT``, ``SHARD_IDS`` and ``DECKHAND_LEASE_POLL`` read for the bot: ``(None, None,
    poll)`` when not sharded.  ``ValueError`` with a sentence; a share of the shards needs
    PostgreSQL (with SQLite the one process runs them all)."""
    count, ids = parse_shards(count_text, ids_text)
    if len(ids) < count and not postgres:
        raise ValueError("With SQLite one process runs every shard (the database file is its alone): leave "
                         "SHARD_IDS empty, or use PostgreSQL (DATABASE_URL=postgresql://...) to split the "
                         "shards between processes.")
    raw = (poll_text or "").strip()
    try:
        poll = float(raw) if raw else DEFAULT_POLL
        if not 0 < poll <= 60:
            raise ValueError
    except ValueError:
        raise ValueError(f"DECKHAND_LEASE_POLL must be a number of seconds above 0 (at most 60), "
                         f"not {raw!r}.") from None
    sharded = bool((count_text or "").strip())
    return (count if sharded else None), (ids if sharded else None), poll


@dataclass
class Shards:
    """The shards this process is configured for (``ids``) and those it holds right now (``held``).

    ``leased``: ``held`` comes from leases (:mod:`tables.lease`) that another process may take over
    when this one loses them; then a stale write to a table of a held shard means a former holder
    wrote late, and the table is reloaded rather than let go.  ``expires``: when the leases' term
    runs out on this process's monotonic clock, unless renewed; ``on_expiry`` lets them go.
    ``restoring``: held shards whose tables are still being recovered (tables/lease.py)."""

    count: int = 1
    ids: tuple[int, ...] = (0,)
    held: set[int] = field(default_factory=set)
    leased: bool = False
    expires: float = math.inf
    on_expiry: Callable[[], None] | None = field(default=None, repr=False, compare=False)
    restoring: set[int] = field(default_factory=set)

    @classmethod
    def everything(cls) -> Shards:
        """No sharding: one process, one shard, held."""
        return cls(1, (0,), {0})

    @classmethod
    def of(cls, count: int, ids: Iterable[int] | None = None, *, leased: bool = False) -> Shards:
        chosen = tuple(sorted(set(ids))) if ids is not None else tuple(range(count))
        return cls(count, chosen, set() if leased else set(chosen), leased)

    @property
    def sharded(self) -> bool:
        return self.count > 1

    def shard(self, guild_id: int | None) -> int:
        return shard_of(guild_id, self.count)

    def check_term(self) -> bool:
        """Whether the leases' term ran out unnoticed (the process was frozen or stalled past it);
        then they are let go now (``on_expiry``: every held shard fenced), before the caller acts."""
        if self.held and self.on_expiry is not None and time.monotonic() > self.expires:
            self.on_expiry()
            return True
        return False

    def holds(self, shard: int) -> bool:
        """Whether this process holds ``shard`` now (its lease's term not run out)."""
        self.check_term()
        return shard in self.held

    def owns(self, guild_id: int | None) -> bool:
        """Whether this process runs the tables of this guild now."""
        return self.holds(self.shard(guild_id))

    def refuse_elsewhere(self, guild_id: int | None) -> None:
        """Refuse (a sentence, nothing changed) a command for a guild another process runs."""
        if not self.owns(guild_id):
            raise TableError(ELSEWHERE, "elsewhere")
        if self.shard(guild_id) in self.restoring:
            raise TableError(STARTING, "restoring")

    def fence(self, shard: int, tables: dict[str, Table], forget: Callable[[Table], None]) -> list[str]:
        """``shard`` is no longer this process's: every table of it is let go at once (``forget``
        stops its timers and programs), so nothing here drives it again."""
        self.held.discard(shard)
        gone = [t for t in list(tables.values()) if self.shard(t.shard_key) == shard]
        for t in gone:
            forget(t)
        return [t.id for t in gone]
