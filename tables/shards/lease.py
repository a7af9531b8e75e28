"""Leases: exactly one process drives a shard's tables, and a standby takes over when it dies.

A lease on a shard is a PostgreSQL *session* advisory lock, taken with ``pg_try_advisory_lock`` on
a connection of its own (not the storage's pool): PostgreSQL releases it the moment that session
ends — the process was killed, its machine went away, or its backend was terminated — and only
then can another process take it.  Keys: ``(namespace, shard)``, where the namespace is a hash of
the database schema Deckhand's tables live in, so two deployments in two schemas of one database
(or the tests, a schema each) never share a lease.

:class:`Leases` polls every ``poll`` seconds: it tries to take the shards it is configured for and
does not hold (a process that holds none yet is a *hot standby*: storage open, migrations checked,
everything ready, waiting), and checks that its lease connection still answers.  A shard gained
calls ``gained(shard)`` (recover its tables, then connect it to Discord) in a task of its own, so
the loop renews the term however long that takes; a lease lost — the
connection closed, or a check that failed or took longer than ``poll`` — calls ``lost(shard)`` at
once, synchronously, so the process stops driving the shard's tables before anything else runs.
Then it connects again and waits for the lease like any standby — after a few rounds' pause, so a
healthy standby, already waiting, takes the shard first.

Every process on one database must split the guilds the same way, so they must agree on
``SHARD_COUNT``: each lease connection checks it first (:meth:`Leases.join`).  The count is stored
in the schema (table ``shard_settings``, made here: it belongs to the leases, which SQLite never
uses) on the first start; a process with another count while any process runs refuses with
:class:`ShardCountMismatch`.  With none running — every process stopped, the count changed
everywhere, as docs/deploy.md says — the first to start stores the new count.  "Running" is a
session advisory lock every process holds *shared* on its lease connection (key
``(namespace, ALIVE)``), so a killed process stops counting the moment its session ends.

A lock alone cannot tell a holder that stopped from one that runs: a frozen process (SIGSTOP, a
stalled virtual machine) keeps its session — its kernel still answers TCP — and so its lock, and
its shard's games would stall for as long as it is frozen.  So a lease also has a *term*: a row of
``shard_leases`` (shard, the holder's backend pid, an epoch counted up at every take, ``expires_at``
on the database's clock), renewed by the holder every round for ``term`` seconds (five rounds, at
least 2.5 s) and renewable only before it expires.  A standby that finds a shard's lock taken but
its term over ends the holder's session (``pg_terminate_backend`` of the pid holding the lock:
every process uses the one database role) and takes the lock the next round.  The holder counts
its term on its own monotonic clock from the moment it *sent* the renewal, so it always runs out
here before the database's: whatever this process does next — a command or a click
(:meth:`Shards.owns`), a gateway reconnect, any request to Discord (``cogs.ops.shards.ShardGate``) —
first finds the term over and lets go of the shards (:meth:`Shards.check_term`) before it acts.

Fencing is belt and braces: a write is version-guarded (:mod:`tables.storage`), so even a former
holder that has not noticed its loss yet cannot apply an action twice — its write fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable

import asyncpg

from tables.shards import DEFAULT_POLL, Shards
from tables.storage.base import StorageError

log = logging.getLogger("deckhand.lease")

REJOIN_PAUSE = 3  # poll rounds a process that lost its leases waits before it competes again
NAMESPACE_SQL = "SELECT hashtext('deckhand.shards:' || current_schema())"
ALIVE, CHECKING = -1, -2  # second keys beside the shards' (0, 1, ...): a process runs; a count check
TERM_ROUNDS = 5  # a lease's term, in poll rounds: a holder misses a few renewals before it is let go
MIN_TERM = 2.5  # seconds: a short poll must not make a busy machine's holder lose its shards
LEASES_TABLE = ("CREATE TABLE IF NOT EXISTS shard_leases (shard INT PRIMARY KEY, holder INT NOT NULL, "
                "epoch BIGINT NOT NULL, expires_at TIMESTAMPTZ NOT NULL)")
# The term of every held lease, renewed together; one that expired stays expired (a standby may be
# ending this session).
RENEW_SQL = ("UPDATE shard_leases SET expires_at = now() + $2 * interval '1 second' "
             "WHERE shard = ANY($1::int[]) AND holder = pg_backend_pid() AND expires_at > now() RETURNING shard")
TAKE_SQL = ("INSERT INTO shard_leases (shard, holder, epoch, expires_at) "
            "VALUES ($1, pg_backend_pid(), 1, now() + $2 * interval '1 second') "
            "ON CONFLICT (shard) DO UPDATE SET holder = EXCLUDED.holder, epoch = shard_leases.epoch + 1, "
            "expires_at = EXCLUDED.expires_at RETURNING epoch")
# The session holding a shard's lock whose term is over (a two-int advisory lock: classid, objid, 2).
EXPIRED_HOLDER_SQL = ("SELECT l.pid, extract(epoch FROM now() - s.expires_at) FROM shard_leases s "
                      "JOIN pg_locks l ON l.pid = s.holder WHERE s.shard = $2 AND s.expires_at < now() "
                      "AND l.locktype = 'advisory' AND l.classid = $1::bigint::oid AND l.objid = $2 "
                      "AND l.objsubid = 2 AND l.granted")


class ShardCountMismatch(StorageError):
    """This process's ``SHARD_COUNT`` is not the one the processes running on its database use."""


def mismatch(stored: int, mine: int) -> str:
    return (f"SHARD_COUNT={mine} here, but the Deckhand processes running on this database use SHARD_COUNT="
            f"{stored}. Every process on one database must use the same SHARD_COUNT (a server's tables "
            f"belong to its shard of that count): set SHARD_COUNT={stored}, or stop every process and "
            f"start them all with the new count.")


class Leases:
    """The shard leases of one process, on one dedicated asyncpg connection to ``dsn``."""

    def __init__(
        self,
        dsn: str,
        shards: Shards,
        *,
        gained: Callable[[int], Awaitable[None]] | None = None,
        lost: Callable[[int], None] | None = None,
        poll: float = DEFAULT_POLL,
    ) -> None:
        self.dsn = dsn
        self.shards = shards
        self.gained = gained
        self.lost = lost
        self.poll = poll
        self.term = max(TERM_ROUNDS * poll, MIN_TERM)
        self.epochs: dict[int, int] = {}  # shard -> the epoch of this process's lease on it
        self.namespace: int | None = None
        shards.on_expiry = self._expired
        self._conn: asyncpg.Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._changed = asyncio.Event()
        self._pause = 0  # rounds to sit out after losing the leases
        # Shards gained are restored by a task of their own: a restore may outlast the term, and the
        # loop must go on renewing meanwhile.  One at a time; no shard is taken while one runs.
        self._restore: asyncio.Task[None] | None = None
        self._give_back: list[tuple[asyncpg.Connection, int]] = []  # failed restores: unlock next round

    @property
    def held(self) -> set[int]:
        return self.shards.held

    # ==== the loop ===============================================================================
    def start(self) -> None:
        """Take what can be taken now and keep polling in the background."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="deckhand-leases")

    async def wait_for_any(self) -> set[int]:
        """Until this process holds at least one of its shards, restored (a standby waits here)."""
        while not self.held or self.shards.restoring:
            if self._task is not None and self._task.done():
                self._task.result()  # the loop died: say why
                raise RuntimeError("the lease loop stopped")
            self._changed.clear()
            await self._changed.wait()
        return set(self.held)

    async def _run(self) -> None:
        announced = failing = False
        while not self._closed:
            try:
                if self._pause > 0:
                    self._pause -= 1
                else:
                    await self.step()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                # Unreachable database: what this process held it holds no more (the session
                # that held it is gone or unusable), and it tries again next round.
                self._drop(f"{type(e).__name__}: {e}")
                if not failing:
                    log.warning("Cannot reach the database for the shard leases (%s: %s); trying again every "
                                "%.1f s", type(e).__name__, e, self.poll)
                failing = True
            else:
                failing = False
            if not announced and self.shards.ids and not self.held:
                announced = True
                log.warning("Standing by: shard(s) %s are held by another process; checking every %.1f s",
                            ",".join(map(str, self.missing())), self.poll)
            await asyncio.sleep(self.poll)

    def healthy(self) -> bool:
        """Whether the leases are watched as configured (``/readyz``, tables/metrics.py): the lease
        connection is up and this process is not sitting out rounds after a loss."""
        return self._conn is not None and not self._conn.is_closed() and self._pause == 0 and not self._closed

    def restoring(self) -> bool:
        """Whether shards gained are being restored (``gained``) right now."""
        return self._restore is not None and not self._restore.done()

    def missing(self) -> list[int]:
        return [s for s in self.shards.ids if s not in self.held]

    async def step(self) -> list[int]:
        """One round: check the held leases, try the missing ones; returns the shards gained."""
        if self.shards.check_term():
            return []  # this process was not running for longer than its term: let go, rejoin later
        conn = await self._connection()
        while self._give_back:
            took, shard = self._give_back.pop()
            if took is conn:  # else that session, and its lock, are gone already
                await conn.fetchval("SELECT pg_advisory_unlock($1::int, $2::int)", self.namespace, shard)
        # The term is counted from before the database renews it, so it ends here first.
        sent = time.monotonic()
        if self.held:
            # A renewal that does not answer within the poll interval counts as a lost lease: the
            # server may already have given it to someone else.
            try:
                renewed = await asyncio.wait_for(conn.fetch(RENEW_SQL, sorted(self.held), self.term),
                                                 timeout=max(self.poll, 0.5))
            except Exception as e:
                self._drop(f"the lease connection stopped answering ({type(e).__name__})")
                raise
            if self.shards.check_term():
                return []  # stopped while renewing: the answer may come after the term ended
            if len(renewed) != len(self.held):
                self._drop("its term had run out")
                return []
            self.shards.expires = sent + self.term
        won: list[int] = []
        if self._closed or self.restoring():
            return won
        for shard in self.missing():
            if await conn.fetchval("SELECT pg_try_advisory_lock($1::int, $2::int)", self.namespace, shard):
                won.append(shard)
            else:
                await self._end_expired(conn, shard)
        # Every term written before any shard counts as held: a start-up takes all its shards at once.
        for shard in won:
            self.epochs[shard] = int(await conn.fetchval(TAKE_SQL, shard, self.term))
        if won:
            self.shards.expires = sent + self.term
        for shard in won:
            self.held.add(shard)
            log.warning("Holding the lease of shard %d of %d", shard, self.shards.count)
        if won and self.gained is not None:
            # Clicks on these shards' tables get a sentence until they are back (Shards.restoring).
            self.shards.restoring.update(won)
            self._restore = asyncio.get_running_loop().create_task(self._take_over(conn, won),
                                                                    name="deckhand-lease-restore")
        if won:
            self._changed.set()
        return won

    async def _take_over(self, conn: asyncpg.Connection, shards: list[int]) -> None:
        """Restore the shards just gained (``gained``), one after the other, while the loop renews."""
        assert self.gained is not None
        for shard in shards:
            try:
                if shard in self.held:  # not lost meanwhile
                    await self.gained(shard)
            except Exception:
                # Holding a shard this process does not serve would keep everyone out of it: let go
                # of what was taken; the loop gives the lease back next round and tries again.
                log.exception("Taking over shard %d failed; its lease is given back", shard)
                if shard in self.held:
                    self.held.discard(shard)
                    self._give_back.append((conn, shard))
                    if self.lost is not None:
                        self.lost(shard)
            finally:
                self.shards.restoring.discard(shard)
                self._changed.set()

    async def _end_expired(self, conn: asyncpg.Connection, shard: int) -> None:
        """The holder of ``shard`` has not renewed its lease within its term: end its session (its
        lock goes with it) so the shard is taken over next round rather than stall while it is
        frozen.  Whatever it does on waking, it finds its term over first (:meth:`Shards.check_term`)."""
        assert self.namespace is not None
        row = await conn.fetchrow(EXPIRED_HOLDER_SQL, self.namespace & 0xFFFFFFFF, shard)
        if row is None:
            return
        pid, late = row
        log.warning("Shard %d: its holder has not renewed its lease for %.1f s past its term; ending that "
                    "process's lease session to take the shard over", shard, float(late))
        await conn.fetchval("SELECT pg_terminate_backend($1)", pid)

    def _expired(self) -> None:
        # Called from Shards.check_term, before anything this process does for a shard.
        late = time.monotonic() - self.shards.expires
        self._drop(f"its term ran out {late:.1f} s ago: this process was stopped or stalled and did not renew it")

    async def join(self) -> None:
        """Connect and check this process's ``SHARD_COUNT`` against the database's (raises
        :class:`ShardCountMismatch` with the sentence to show); the lease loop does it on every
        new connection, this is for start-up, to refuse at once."""
        await self._connection()

    async def _check_count(self, conn: asyncpg.Connection) -> None:
        mine = self.shards.count
        async with conn.transaction():
            # One check at a time, so two processes starting together see each other.
            await conn.execute("SELECT pg_advisory_xact_lock($1::int, $2::int)", self.namespace, CHECKING)
            await conn.execute("CREATE TABLE IF NOT EXISTS shard_settings "
                               "(name TEXT PRIMARY KEY, value BIGINT NOT NULL)")
            await conn.execute(LEASES_TABLE)
            stored = await conn.fetchval("SELECT value FROM shard_settings WHERE name = 'shard_count'")
            if stored is None:
                await conn.execute("INSERT INTO shard_settings (name, value) VALUES ('shard_count', $1)", mine)
            elif stored != mine:
                # Anyone running holds the ALIVE key shared: the exclusive one is ours only if nobody is.
                if not await conn.fetchval("SELECT pg_try_advisory_xact_lock($1::int, $2::int)",
                                           self.namespace, ALIVE):
                    raise ShardCountMismatch(mismatch(int(stored), mine))
                await conn.execute("UPDATE shard_settings SET value = $1 WHERE name = 'shard_count'", mine)
                log.warning("SHARD_COUNT is now %d (it was %d; no process was running with the old count)",
                            mine, stored)
            await conn.execute("SELECT pg_advisory_lock_shared($1::int, $2::int)", self.namespace, ALIVE)

    async def _connection(self) -> asyncpg.Connection:
        if self._conn is not None and not self._conn.is_closed():
            return self._conn
        self._conn = None
        conn = await asyncpg.connect(self.dsn, timeout=max(self.poll, 5.0))
        try:
            self.namespace = int(await conn.fetchval(NAMESPACE_SQL))
            await self._check_count(conn)
        except BaseException:
            conn.terminate()
            raise
        conn.add_termination_listener(self._terminated)
        self._conn = conn
        return conn

    def _terminated(self, conn: asyncpg.Connection) -> None:
        # Called by asyncpg as soon as the connection is closed (by us, the server or the network).
        if conn is self._conn and not self._closed:
            self._drop("the lease connection closed")

    def _drop(self, why: str) -> None:
        """Every lease of this process is gone: fence each shard at once, close the connection."""
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            conn.terminate()  # its session (and any lease it still has) ends now
        lost = sorted(self.held)
        self.held.clear()
        self.shards.expires = -math.inf
        if lost:
            self._pause = REJOIN_PAUSE
        for shard in lost:
            log.error("Lost the lease of shard %d (%s): its tables stop here now", shard, why)
            if self.lost is not None:
                try:
                    self.lost(shard)
                except Exception:
                    log.exception("Fencing shard %d failed", shard)
        if lost:
            self._changed.set()

    def retire(self) -> None:
        """Compete no more (a process that stops after a loss): no later round takes a lease."""
        self._closed = True

    async def close(self) -> None:
        """Give the leases back (ending the session does it) and stop polling."""
        self._closed = True
        for task in (self._task, self._restore):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        conn, self._conn = self._conn, None
        self.held.clear()
        if conn is not None and not conn.is_closed():
            try:
                await asyncio.wait_for(conn.close(), timeout=5)
            except Exception:
                conn.terminate()
