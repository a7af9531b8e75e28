"""Persistence: every change committed before anyone hears of it, tables rebuilt at start-up, and
the storage's housekeeping — over a :class:`~tables.storage.Storage` (or nothing, in tests).

The runtime calls :meth:`Persistence.commit` under a table's lock after each change.  A write that
fails puts the table back exactly as stored (the change did not happen) through the runtime's
``resume``; a write that finds the row moved on means another process runs the table now, and the
runtime's ``forget`` lets it go.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
from collections.abc import Callable

from tables import records, stats
from tables.clock import Clock
from tables.delivery import Delivery
from tables.ids import echo
from tables.live import Live, Recovery, TableError, Tasks
from tables.records import Unrecoverable
from tables.replay import GameRecord
from tables.shards import Shards
from tables.storage import DuplicateTable, StaleWrite, Storage, StorageGone, Stored
from tables.storage_base import Record
from tables.table import Phase, Table

log = logging.getLogger("deckhand.tables")

SNAPSHOT_EVERY = 200  # actions between state snapshots, besides one at every new deal
NOT_SAVED = "Sorry — I could not save that just now, so it did not happen. Please try again."
MOVED = "This table is now being run by another Deckhand process; try again in a moment."
# A table whose writes fail waits this long before its next automatic move, doubling up to the cap.
BACKOFF_FIRST = 1.0
BACKOFF_MAX = 60.0
LOG_FAILURE_EVERY = 60.0  # seconds between two logged write failures of one table
WATCH_EVERY = 60.0  # seconds between two checks that the database is still there
PAUSED = ("⚠️ Deckhand cannot save right now — the game is paused. It goes on by itself as soon as "
          "saving works again.")
GONE = ("⚠️ Deckhand lost its database (deleted or replaced) — moves cannot be saved, so the game is "
        "paused until Deckhand's operator restores it and restarts the bot.")
GONE_REFUSAL = ("Deckhand lost its database, so nothing can be saved: the tables are paused until the "
                "bot's operator restores it and restarts the bot.")

# resume(table, live, stored record, since): bring a table rebuilt from the storage back to life.
Resume = Callable[[Table, Live, Record, dict[int, int]], None]


class Persistence:
    def __init__(
        self,
        storage: Storage | None,
        clock: Clock,
        tasks: Tasks,
        delivery: Delivery,
        live_of: Callable[[str], Live | None],
        *,
        forget: Callable[[Table], None],
        resume: Resume,
        retention: float | None = None,
        prune_every: float = 3600.0,
        shards: Shards | None = None,
    ) -> None:
        self.storage = storage
        self.shards = shards if shards is not None else Shards.everything()
        self.clock = clock
        self.tasks = tasks
        self.delivery = delivery
        self.live_of = live_of
        self.forget = forget
        self.resume = resume
        self.retention = retention
        self.prune_every = prune_every
        self._housekeeping: asyncio.Task[None] | None = None
        self._watch: asyncio.Task[None] | None = None

    # ==== writes ===============================================================================
    async def insert(self, t: Table, live: Live, new_id: Callable[[], str]) -> None:
        """Store a new lobby; an id the storage already has (an old table) is replaced by a fresh one."""
        if self.storage is None:
            return
        for _ in range(5):
            try:
                await self.storage.insert_table(records.record_of(t))
                break
            except DuplicateTable:
                t.id = new_id()
            except Exception:
                log.exception("Could not store the new table %s", t.id)
                raise TableError(NOT_SAVED, "not_saved") from None
        else:
            raise TableError(NOT_SAVED, "not_saved")
        live.stored = True

    async def commit(self, t: Table) -> None:
        """Under the table's lock, after a change: write it (new log entries, the row, a snapshot at
        a new deal, the results when the game just ended) before anyone is told.  If it cannot be
        written, the table is put back as stored and the change is refused with ``TableError``."""
        storage = self.storage
        live = self.live_of(t.id)
        if storage is None or live is None or not live.stored:
            return
        changes = records.changes_of(t, live.since)
        changes["rev"] = live.rev + 1
        state = t.state
        if (state is not None and t.phase == Phase.RUNNING and t.version > live.snap_version
                and (live.snap_due or t.version - live.snap_version >= SNAPSHOT_EVERY)):
            changes["snapshot"] = records.snapshot_of(state)
            changes["snapshot_version"] = t.version
        results: list[Record] = []
        ended = t.phase == Phase.FINISHED and not t.ended_early and state is not None and state.is_over
        if ended and not live.results_saved:
            results = stats.results_of(t, t.finished_at if t.finished_at is not None else self.clock.now())
        actions = t.log[live.saved_log:]
        try:
            await storage.write(t.id, changes, actions, expect=(live.saved_version, live.rev), results=results)
        except StorageGone:
            # Every later write fails the same way, and the storage logged it loudly once: no retries.
            # The change is undone (as far as the storage can still be read), then the table stops.
            live.hold_until = math.inf
            await self._restore(t, live)
            self._gone(t, live)
            raise TableError(GONE_REFUSAL, "storage_gone") from None
        except StaleWrite as e:
            if self.shards.leased and self.shards.owns(t.shard_key):
                # This process holds the shard's lease, so the row moved on under a former holder
                # that wrote late (before it noticed its loss): the stored row is the truth.
                log.warning("Table %s was written late by a former holder (%s); reloaded", t.id, e)
                await self._restore(t, live)
                raise TableError(NOT_SAVED, "not_saved") from None
            log.warning("Table %s was written by someone else (%s); this process lets it go", t.id, e)
            self.forget(t)
            raise TableError(MOVED, "moved") from None
        except Exception:
            self._failed(t, live)
            await self._restore(t, live)
            t.paused = PAUSED
            raise TableError(NOT_SAVED, "not_saved") from None
        if live.backoff:
            log.warning("Table %s is saved again; the game goes on", t.id)
            live.backoff, live.hold_until, live.failure_logged_at = 0.0, 0.0, None
            if t.paused:
                t.paused = None
                self.delivery.redraw(t)
        live.rev += 1
        live.saved_version = t.version
        live.saved_shown = changes.get("shown", 0)  # (a test may write as an older version did)
        live.saved_log = len(t.log)
        if "snapshot" in changes:
            live.snap_version = t.version
            live.snap_due = False
        live.results_saved = live.results_saved or ended

    def refuse_if_gone(self) -> None:
        """Before any change: with the database gone, nothing could be saved, so nothing happens."""
        if self.storage is not None and getattr(self.storage, "gone", None):
            raise TableError(GONE_REFUSAL, "storage_gone")

    def _gone(self, t: Table, live: Live) -> None:
        """The database is gone: the table stops for good in this process (no automatic move would
        ever be saved) and says so."""
        live.hold_until = math.inf
        Tasks.cancel(live.ai_task)
        Tasks.cancel(live.deadline_task)
        live.ai_task = live.deadline_task = None
        live.deadline_at = None
        if t.paused != GONE:
            t.paused = GONE
            self.delivery.redraw(t)

    def _failed(self, t: Table, live: Live) -> None:
        """A write failed (a full disk, say): hold the table's automatic moves back for a while —
        retrying at once would only fail again, in a loop — and log it, but not every time."""
        now = self.clock.now()
        live.backoff = min(live.backoff * 2, BACKOFF_MAX) if live.backoff else BACKOFF_FIRST
        live.hold_until = now + live.backoff
        if live.failure_logged_at is None or now - live.failure_logged_at >= LOG_FAILURE_EVERY:
            live.failure_logged_at = now
            log.exception("Could not store table %s at version %d; the table waits %.0f s before trying "
                          "again (logged at most once a minute)", t.id, t.version, live.backoff)
        else:
            log.debug("Could not store table %s at version %d (again)", t.id, t.version)

    async def commit_quietly(self, t: Table) -> None:
        """:meth:`commit` for background work (AI, deadlines): a failure is logged, not raised."""
        try:
            await self.commit(t)
        except TableError:
            pass

    async def save_ids(self, t: Table, live: Live) -> None:
        """Store the table message's new ids (the listener re-posted it)."""
        async with live.lock:
            if self.live_of(t.id) is live:
                await self.commit_quietly(t)

    async def _restore(self, t: Table, live: Live) -> None:
        """After a failed write: put the table back exactly as stored (the change did not happen)."""
        assert self.storage is not None
        try:
            stored = await self.storage.load(t.id)
            if stored is None:
                raise Unrecoverable("it is not in the storage any more")
            fresh, since = records.rebuild(stored.record, stored.log)
        except Exception:
            # The storage is unreachable: keep the table as it is; the next write that works writes
            # everything not yet stored (the log entries after ``saved_log``).
            log.exception("Could not reload table %s after a failed write; it stays unsaved for now", t.id)
            return
        live.stop_timers()
        shown = t.shown  # what people were shown stays shown (else the summary is posted again, and again)
        for f in dataclasses.fields(Table):
            setattr(t, f.name, getattr(fresh, f.name))
        t.shown |= shown
        self.resume(t, live, stored.record, since)

    @staticmethod
    def resumed(t: Table, live: Live, record: Record) -> None:
        """A table rebuilt from ``record``: what the storage holds is exactly what is here."""
        live.stored = True
        live.rev = int(record.get("rev") or 0)
        live.saved_version = t.version
        live.saved_log = len(t.log)
        live.saved_shown = int(record.get("shown") or 0)
        live.snap_version = int(record.get("snapshot_version") or 0) if record.get("snapshot") else 0
        live.results_saved = t.phase == Phase.FINISHED

    # ==== reads ================================================================================
    async def recover(self, tables: dict[str, Table], lives: dict[str, Live]) -> Recovery:
        """Rebuild every unfinished stored table not already in ``tables``, add it there and resume
        it; one that cannot be rebuilt is reported broken and never stops the others."""
        report = Recovery([], [])
        if self.storage is None:
            return report
        # Only this process's shards' tables are read: the database picks them by their guilds.
        mine = await self.storage.unfinished(sorted(self.shards.held), self.shards.count)
        for item in mine:
            tid = item.record.get("id")
            key = None if item.record.get("place") == "private" else item.record.get("guild_id")
            if (isinstance(tid, str) and tid in tables) or not self.shards.owns(key):
                continue  # already live in this process (or a shard let go meanwhile)
            try:
                # Replaying a game is CPU work: in a thread, so that a recovery of many tables never
                # holds the event loop for long (the lease loop renews the term meanwhile:
                # tables/lease.py).  The rebuilt table is new, shared with nothing until added below.
                t, since = await asyncio.to_thread(records.rebuild, item.record, item.log)
                if t.id in tables or not self.shards.owns(t.shard_key):
                    continue  # the same checks, after the wait
                before = dict(t.deadlines)
                live = Live()
                tables[t.id] = t
                lives[t.id] = live
                try:
                    self.resume(t, live, item.record, since)
                except Exception:
                    self.forget(t)
                    raise
            except Exception as e:
                reason = e.reason if isinstance(e, Unrecoverable) else f"{type(e).__name__}: {e}"
                await self.broken(item, reason)
                report.broken.append((str(tid), reason))
                continue
            report.restored.append(t)
            if t.deadlines != before:  # a seat that had none (e.g. it was away) has one now
                async with live.lock:
                    await self.commit_quietly(t)
        if report.broken:
            log.warning("Restored %d tables; %d could not be restored", len(report.restored), len(report.broken))
        else:
            log.info("Restored %d tables", len(report.restored))
        return report

    async def broken(self, item: Stored, reason: str) -> None:
        """A stored table that cannot be rebuilt: marked so for good, its players told."""
        tid = item.record.get("id")
        log.error("Table %s cannot be restored: %s", tid, reason)
        assert self.storage is not None
        try:
            await self.storage.mark_broken(str(tid), reason, self.clock.now())
        except Exception:
            log.exception("Could not mark table %s broken", tid)
        stub = records.stub(item.record)
        if stub is not None:
            self.delivery.tell_broken(stub, reason)

    async def record(self, tid: str, guild_id: int | None) -> GameRecord:
        """A finished (or forgotten) game's record from the storage, for ``/game replay``."""
        missing = TableError(f"There is no game with id `{echo(tid) or '?'}` in my records.", "unknown_table")
        if self.storage is None:
            raise missing
        try:
            stored = await self.storage.load(tid)
        except Exception:
            log.exception("Could not read table %s from the storage", tid)
            raise TableError("I could not read my records just now; please try again.", "storage") from None
        if stored is None or (guild_id is not None and stored.record.get("guild_id") != guild_id):
            raise missing
        try:
            return GameRecord.of_stored(stored.record, stored.log)
        except ValueError as e:
            raise TableError(f"The record of `{tid}` is damaged: {e}.", "damaged") from None

    async def row(self, tid: str, guild_id: int) -> Record | None:
        """A stored table's row (``None``: no such table in this server, or no storage), for
        **Play again** on a finished table that left memory."""
        if self.storage is None:
            return None
        try:
            stored = await self.storage.load(tid)
        except Exception:
            log.exception("Could not read table %s from the storage", tid)
            raise TableError("I could not read my records just now; please try again.", "storage") from None
        if stored is None or stored.record.get("guild_id") != guild_id:
            return None
        return dict(stored.record)

    # ==== housekeeping =========================================================================
    def start_housekeeping(self, prune_memory: Callable[[], None], tables: dict[str, Table]) -> None:
        if self.storage is None:
            return
        if self._watch is None or self._watch.done():
            self._watch = self.tasks.spawn(self._watch_storage(tables), "storage-watch")
        if self.retention is None:
            return
        if self._housekeeping is None or self._housekeeping.done():
            self._housekeeping = self.tasks.spawn(self._housekeep(prune_memory), "housekeeping")

    async def _watch_storage(self, tables: dict[str, Table]) -> None:
        """A deleted or replaced database would otherwise go unnoticed until a table next saves."""
        check = getattr(self.storage, "check", None)
        if check is None:
            return
        while True:
            await self.clock.sleep(WATCH_EVERY)
            try:
                await check()
            except StorageGone:
                for t in list(tables.values()):
                    live = self.live_of(t.id)
                    if live is not None and t.phase == Phase.RUNNING:
                        self._gone(t, live)
                return
            except Exception:
                log.exception("Checking the database failed; trying again later")

    async def _housekeep(self, prune_memory: Callable[[], None]) -> None:
        while True:
            try:
                prune_memory()
                await self.prune()
            except Exception:
                log.exception("Pruning old tables failed; trying again later")
            await self.clock.sleep(self.prune_every)

    async def prune(self) -> int:
        """Delete finished tables and logs older than ``retention`` (results stay); returns how
        many tables went."""
        if self.storage is None or self.retention is None:
            return 0
        gone = await self.storage.prune(self.clock.now() - self.retention)
        if gone:
            log.info("Pruned %d finished tables older than %.0f days", gone, self.retention / 86400)
        return gone

    async def close(self) -> None:
        if self.storage is not None:
            await self.storage.close()
