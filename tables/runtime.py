"""The table runtime: lobbies, turns, deadlines and AI players, on top of the pure engine.

Every change to a table happens under that table's :class:`asyncio.Lock` and goes through one
path (:meth:`Runtime._apply` then :meth:`Runtime._after_change`), whether a person, the AI or a
deadline made it, so the log replays exactly and ``version`` counts every move.

Background work is a handful of small tasks per table, each with a done-callback that logs and
contains failures:

* one deadline task sleeping until the earliest deadline (re-armed when the deadlines change);
* one AI task, waiting ``ai_delay`` before moving for every AI/away seat that must act;
* one redraw task, coalescing redraw requests to one per ``redraw_interval``;
* one notifier task delivering ``turn``/``summary`` callbacks in order, so a slow or failing
  Discord call never holds the lock or stops the game;
* in the lobby, one task that closes it when nobody started it in time (``lobby_ttl``);
* at a Tricks table with program seats, the programs' processes (:mod:`tables.programs`): asked
  for their card outside the lock, their answer applied under it if nothing changed meanwhile.

With a :class:`~tables.storage.Storage`, every change is committed before anyone hears of it: the
public methods write before they return (still under the lock), and listener calls wait for the
lock, so nothing is redrawn, pinged or summarised that a crash could take back.  :meth:`recover`
rebuilds the unfinished tables at start-up.  Without a storage nothing is kept (the tests' default).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
from collections import deque
from collections.abc import Collection, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import engine
from engine.core import AI, TABLE, Action, Decision, Event, Game, IllegalAction, rng_for
from tables import records, stats
from tables.clock import Clock, SystemClock
from tables.ids import new_id, normalise
from tables.programs import PROGRAM_GAMES, WHY, ProgramSettings, TablePrograms
from tables.records import Unrecoverable
from tables.replay import GameRecord
from tables.storage import DuplicateTable, StaleWrite, Storage, Stored
from tables.table import RECENT_EVENTS, SPEEDS, LogEntry, Phase, Seat, Table

log = logging.getLogger("deckhand.tables")

MISSES_TO_AWAY = 3
SUMMARY_EVENTS = frozenset({"hand_end", "game_end"})
DEFAULT_TIMER = 30.0
STALE = "That button is from an earlier turn; open your hand again with **My hand**."
LOBBY_TTL = 30 * 60.0  # a lobby nobody starts closes after this long
SNAPSHOT_EVERY = 200  # actions between state snapshots, besides one at every new deal
NOT_SAVED = "Sorry — I could not save that just now, so it did not happen. Please try again."
MOVED = "This table is now being run by another Deckhand process; try again in a moment."


class TableError(Exception):
    """A refusal.  ``message`` is a short friendly sentence shown to the user as-is."""

    def __init__(self, message: str, code: str = "refused") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class Listener(Protocol):
    """What the Discord layer hears from the runtime.  Calls come from background tasks; an
    exception is logged and ignored, never seen by the table."""

    async def redraw(self, table: Table) -> None: ...

    async def turn(self, table: Table, seats: tuple[int, ...]) -> None:
        """``seats`` are people who newly must act (never AI or away seats): ping them."""
        ...

    async def summary(self, table: Table, events: list[Event]) -> None:
        """The public ``hand_end``/``game_end`` events, or ``[]`` when a table is ended early."""
        ...

    # Optional (looked up with getattr, so older listeners keep working):
    # async def broken(self, table: Table, reason: str) -> None — a stored table could not be
    # restored after a restart; tell its players (``table`` may have no state, only ids and seats).


class NullListener:
    async def redraw(self, table: Table) -> None:
        pass

    async def turn(self, table: Table, seats: tuple[int, ...]) -> None:
        pass

    async def summary(self, table: Table, events: list[Event]) -> None:
        pass


class Recovery(NamedTuple):
    """What :meth:`Runtime.recover` did: the tables back in play, and ``(id, reason)`` of those
    that could not be restored."""

    restored: list[Table]
    broken: list[tuple[str, str]]


class SeatView(NamedTuple):
    table: Table
    seat: int
    view: dict[str, Any] | None  # None in the lobby
    decision: Decision | None
    deadline: float | None


@dataclass
class _Live:
    """The runtime's private bookkeeping for one table (never persisted)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    ai: AI | None = None
    # The decision each acting seat had after the last change, to tell a new decision from the
    # same one still waiting (simultaneous passing) — and the version at which it began.
    pending: dict[int, Decision | None] = field(default_factory=dict)
    # The clock key of the last missed deadline per seat: a turn of several actions counts once.
    missed_key: dict[int, str] = field(default_factory=dict)
    since: dict[int, int] = field(default_factory=dict)
    ai_task: asyncio.Task[None] | None = None
    stuck_at: int | None = None  # version at which an automatic move failed outright
    deadline_task: asyncio.Task[None] | None = None
    deadline_at: float | None = None
    redraw_task: asyncio.Task[None] | None = None
    redraw_wanted: bool = False
    notify_task: asyncio.Task[None] | None = None
    notes: deque[tuple[str, tuple[Any, ...]]] = field(default_factory=deque)
    lobby_task: asyncio.Task[None] | None = None
    # What the storage holds (when there is one): the row's (version, rev), how much of the log,
    # the version of the last snapshot, and whether this game's results are in.
    stored: bool = False
    saved_version: int = 0
    rev: int = 0
    saved_log: int = 0
    snap_version: int = 0
    snap_due: bool = False
    results_saved: bool = False
    programs: TablePrograms | None = None  # the program seats' processes, while the game runs


def _md(name: str) -> str:
    """A display name made safe inside a Discord message we write."""
    return "".join("\\" + ch if ch in "\\*_~`|>" else ch for ch in name)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class Runtime:
    def __init__(
        self,
        listener: Listener | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        ai_delay: float = 1.0,
        redraw_interval: float = 1.0,
        keep_finished: float = 3600.0,
        storage: Storage | None = None,
        lobby_ttl: float | None = LOBBY_TTL,
        retention: float | None = None,
        prune_every: float = 3600.0,
        programs: ProgramSettings | Mapping[str, str] | None = None,
        table_pace: float = 1.0,
    ) -> None:
        """``storage``: where tables are kept across restarts (``None``: nothing is kept); the
        runtime owns it and :meth:`close` closes it.  ``lobby_ttl``: seconds before an unstarted
        lobby closes (``None``: never).  ``retention``: seconds a finished table and its log are
        kept in the storage (``None``: for ever; results for /stats are always kept), checked every
        ``prune_every`` seconds once :meth:`recover` has run.  ``programs``: the programs a host
        may seat at a Tricks table, by name (:class:`~tables.programs.ProgramSettings`, or just a
        name → command line mapping); only the operator's configuration may give these.
        ``table_pace``: multiplies the table's own timers (King of the Hill's live deal and its
        windows), never a person's — so tests and demos can deal 100 cards in a second while people
        keep their real time to think."""
        self.listener: Listener = listener if listener is not None else NullListener()
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.rng = rng if rng is not None else random.Random()
        self.ai_delay = ai_delay
        self.redraw_interval = redraw_interval
        self.keep_finished = keep_finished  # finished tables stay readable this long
        self.storage = storage
        self.lobby_ttl = lobby_ttl
        self.retention = retention
        self.prune_every = prune_every
        if not table_pace > 0:
            raise ValueError("table_pace must be a positive number of times the table's own timers.")
        self.table_pace = float(table_pace)
        if programs is None or isinstance(programs, ProgramSettings):
            self.programs = programs or ProgramSettings()
        else:
            self.programs = ProgramSettings(dict(programs))
        self.tables: dict[str, Table] = {}
        self._live: dict[str, _Live] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing_programs: set[TablePrograms] = set()
        self._housekeeping: asyncio.Task[None] | None = None

    # ==== lookups ==============================================================================
    def get(self, table_id: str) -> Table:
        tid = normalise(table_id)
        t = self.tables.get(tid)
        if t is None:
            raise TableError(f"There is no table with id `{tid or '?'}`.", "unknown_table")
        return t

    def find(self, guild_id: int, channel_id: int | None = None, user_id: int | None = None) -> Table | None:
        """The unfinished table meant by a command without an id.  In a channel (or a table's
        thread): the one the user sits at, else an open lobby, else the newest.  Without a
        channel: the user's own table in the guild."""
        live = [t for t in self.tables.values() if t.guild_id == guild_id and t.phase != Phase.FINISHED]
        if channel_id is not None:
            live = [t for t in live if channel_id in t.channel_ids]
        elif user_id is None:
            return None
        if user_id is not None:
            mine = [t for t in live if t.seat_of(user_id) is not None]
            if mine or channel_id is None:
                live = mine
        if not live:
            return None

        def rank(t: Table) -> tuple[bool, bool, float]:
            s = t.seat_of(user_id)
            present = s is not None and not t.seats[s].left
            return present, t.phase == Phase.LOBBY, t.created_at

        # max() keeps the first of equals; reversed() makes that the most recently created.
        return max(reversed(live), key=rank)

    def program_names(self) -> list[str]:
        """The programs a host may seat (at Tricks tables), as the operator named them."""
        return self.programs.names

    def list(self, guild_id: int) -> list[Table]:
        return [t for t in self.tables.values() if t.guild_id == guild_id and t.phase != Phase.FINISHED]

    def seat_view(self, table_id: str, user_id: int) -> SeatView:
        t = self.get(table_id)
        seat = t.seat_of(user_id)
        if seat is None:
            raise TableError("You are not seated at this table.", "not_seated")
        if t.state is None:
            return SeatView(t, seat, None, None, None)
        decision = t.state.decision(seat) if t.phase == Phase.RUNNING else None
        return SeatView(t, seat, t.state.view(seat), decision, t.deadlines.get(seat))

    # ==== the lobby ============================================================================
    async def create(
        self,
        *,
        game: str,
        guild_id: int,
        channel_id: int,
        host_id: int,
        host_name: str,
        options: dict[str, Any] | None = None,
        speed: str = "normal",
    ) -> Table:
        name = str(game).strip().lower()
        try:
            entry = engine.get(name)
        except KeyError:
            known = ", ".join(sorted(engine.games()))
            raise TableError(f"There is no game called `{game}`. Games: {known}.", "unknown_game") from None
        try:
            opts = entry.game.read_options(options)
        except ValueError as e:
            raise TableError(str(e), "bad_option") from None
        speed_key = str(speed).strip().lower()
        if speed_key not in SPEEDS:
            raise TableError(f"Speed must be one of: {', '.join(SPEEDS)}.", "bad_speed")
        self._refuse_if_elsewhere(guild_id, host_id, None)
        self._prune()
        t = Table(
            id=new_id(self.rng, self.tables),
            game=name,
            options=opts,
            speed=speed_key,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            seats=[Seat(host_id, host_name)],
            created_at=self.clock.now(),
        )
        live = _Live()
        if self.storage is not None:
            for _ in range(5):
                try:
                    await self.storage.insert_table(records.record_of(t))
                    break
                except DuplicateTable:  # an old table in the storage has that id: pick another
                    t.id = new_id(self.rng, self.tables)
                except Exception:
                    log.exception("Could not store the new table %s", t.id)
                    raise TableError(NOT_SAVED, "not_saved") from None
            else:
                raise TableError(NOT_SAVED, "not_saved")
            live.stored = True
        self.tables[t.id] = t
        self._live[t.id] = live
        self._arm_lobby_expiry(t, live)
        self._request_redraw(t)
        return t

    async def join(self, table_id: str, user_id: int, name: str) -> Table:
        t = self.get(table_id)
        async with self._live[t.id].lock:
            seat = t.seat_of(user_id)
            if t.phase == Phase.LOBBY:
                if seat is not None:
                    raise TableError("You already have a seat at this table.", "already_seated")
                if t.free_seats() <= 0:
                    raise TableError(f"Table `{t.id}` is full.", "full")
                self._refuse_if_elsewhere(t.guild_id, user_id, t)
                t.seats.append(Seat(user_id, name))
                await self._commit(t)
                self._request_redraw(t)
                return t
            if t.phase == Phase.FINISHED:
                raise TableError("That table has closed.", "finished")
            if seat is None:
                raise TableError(
                    "That game has already started; you can join the next one when it ends.", "started"
                )
            s = t.seats[seat]
            if not s.away:
                raise TableError("You are already playing at this table.", "already_seated")
            self._come_back(t, seat)
            await self._commit(t)
            return t

    async def leave(self, table_id: str, user_id: int) -> Table:
        t = self.get(table_id)
        async with self._live[t.id].lock:
            seat = t.seat_of(user_id)
            if seat is None:
                raise TableError("You are not seated at this table.", "not_seated")
            if t.phase == Phase.FINISHED:
                raise TableError("That table has already closed.", "finished")
            if t.phase == Phase.LOBBY:
                del t.seats[seat]
                humans = t.humans()
                if humans and t.host_id == user_id:
                    t.host_id = t.seats[humans[0]].user_id  # type: ignore[assignment]
                if not humans:
                    self._finish(t, early=True)
                await self._commit(t)
                self._request_redraw(t)  # before forgetting the table: its message should say so
                if not humans:
                    self.tables.pop(t.id, None)
                    self._live.pop(t.id, None)
                return t
            s = t.seats[seat]
            if s.left:
                raise TableError("You have already left this game; join again to take your seat back.", "left")
            s.away = s.left = True
            if t.host_id == user_id:
                # Someone still playing must be able to end the table.
                present = [i for i in t.humans() if not t.seats[i].left]
                if present:
                    t.host_id = t.seats[present[0]].user_id  # type: ignore[assignment]
            self._reschedule(t)
            await self._commit(t)
            self._request_redraw(t)
            return t

    async def add_ai(self, table_id: str, user_id: int, count: int | None = None, *,
                     program: str | None = None) -> int:
        """Seat ``count`` AI players (default: every free seat), or with ``program`` that many
        copies (default one) of a program the operator configured, chosen by its name only."""
        t = self.get(table_id)
        async with self._live[t.id].lock:
            self._require_host(t, user_id, "add AI players")
            if program is not None:
                program = self._program_of(t, program)
            if t.phase != Phase.LOBBY:
                raise TableError("AI players can only be added before the game starts.", "started")
            free = t.free_seats()
            if free <= 0:
                raise TableError("There is no free seat for an AI.", "full")
            n = (free if program is None else 1) if count is None else count
            if n < 1:
                raise TableError("Add at least one AI player.", "bad_count")
            n = min(n, free)
            for _ in range(n):
                if program is None:
                    t.seats.append(Seat(None, self._ai_name(t), is_ai=True))
                else:
                    t.seats.append(Seat(None, self._program_seat_name(t, program), is_ai=True, program=program))
            await self._commit(t)
            self._request_redraw(t)
            return n

    async def start(self, table_id: str, user_id: int) -> Table:
        t = self.get(table_id)
        live = self._live[t.id]
        async with live.lock:
            self._require_host(t, user_id, "start the game")
            if t.phase == Phase.RUNNING:
                raise TableError("The game has already started.", "started")
            if t.phase == Phase.FINISHED:
                raise TableError("This table has closed.", "finished")
            entry = t.entry
            players = max(len(t.seats), t.min_seats)
            seed = self.rng.getrandbits(63)
            try:
                state = entry.game.create(players, t.options, seed)
            except ValueError as e:
                raise TableError(str(e), "cannot_start") from None
            while len(t.seats) < players:
                t.seats.append(Seat(None, self._ai_name(t), is_ai=True))
            t.seed, t.state, t.phase = seed, state, Phase.RUNNING
            live.ai = entry.ai()
            self._cancel(live.lobby_task)
            live.lobby_task = None
            self._setup_programs(t, live)
            self._after_change(t, [], ())
            await self._commit(t)
            return t

    async def end(self, table_id: str, user_id: int, *, admin: bool = False) -> Table:
        t = self.get(table_id)
        async with self._live[t.id].lock:
            if t.phase == Phase.FINISHED:
                raise TableError("This table has already ended.", "finished")
            if not admin and user_id != t.host_id:
                raise TableError(
                    f"Only the host, {_md(t.host_name)}, or a server manager can end this table.", "not_host"
                )
            self._finish(t, early=True)
            self._notify(t, "summary", t, [])
            self._request_redraw(t)
            await self._commit(t)
            return t

    # ==== playing ==============================================================================
    async def act(
        self, table_id: str, user_id: int, action: str | Action, *, version: int | None = None
    ) -> list[Event]:
        """Apply a person's move.  ``version`` is the table version their button or hand view was
        made at: it is stale once that seat's decision has changed since (so a pass chosen while
        others pass at the same time still counts, but a card button from an earlier trick does
        not).  Returns every event, private ones included: the caller filters by ``to``."""
        t = self.get(table_id)
        live = self._live[t.id]
        async with live.lock:
            self._require_running(t)
            seat = t.seat_of(user_id)
            if seat is None:
                raise TableError("You are not seated at this table.", "not_seated")
            if version is not None and (version > t.version or version < live.since.get(seat, t.version)):
                raise TableError(STALE, "stale")
            state = t.state
            assert state is not None
            if seat not in state.to_act():
                raise TableError(self._not_your_turn(t), "not_your_turn")
            s = t.seats[seat]
            if s.left:
                self._refuse_if_elsewhere(t.guild_id, user_id, t)
            try:
                if isinstance(action, str):
                    action = state.parse_action(seat, action)
                self._check_offered(state, seat, action)
                events = self._apply(t, seat, action, auto=False)
            except IllegalAction as e:
                raise TableError(e.reason, e.code) from None
            # Whoever acts is present again.
            s.missed = 0
            s.away = s.left = False
            self._after_change(t, events, (seat,), quiet=(seat,))
            await self._commit(t)
            return events

    async def back(self, table_id: str, user_id: int) -> Table:
        t = self.get(table_id)
        async with self._live[t.id].lock:
            seat = t.seat_of(user_id)
            if seat is None:
                raise TableError("You are not seated at this table.", "not_seated")
            if t.phase != Phase.RUNNING:
                raise TableError("There is no game running at this table.", "not_running")
            self._come_back(t, seat)
            await self._commit(t)
            return t

    async def close(self) -> None:
        tasks = [task for task in self._tasks if not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        # Every program process goes, whatever its table was doing (a close is safe to repeat).
        programs = [live.programs for live in self._live.values() if live.programs is not None]
        programs += list(self._closing_programs)
        self._closing_programs = set()
        await asyncio.gather(*(p.close() for p in programs), return_exceptions=True)
        if self.storage is not None:
            await self.storage.close()

    async def attach(self, table_id: str, *, message_id: int | None = None, thread_id: int | None = None) -> Table:
        """Record where the Discord layer posted the table message / opened its thread (kept across
        restarts, so the message can be edited again)."""
        t = self.get(table_id)
        live = self._live[t.id]
        async with live.lock:
            if message_id is not None:
                t.message_id = message_id
            if thread_id is not None:
                t.thread_id = thread_id
            await self._commit_quietly(t)
        return t

    async def history(self, table_id: str, guild_id: int | None = None) -> GameRecord:
        """A game's record (seed, seats, whole log) for ``/game replay``: from memory while the table
        is here, else from the storage.  Only tables of ``guild_id`` when it is given."""
        tid = normalise(table_id)
        missing = TableError(f"There is no game with id `{tid or '?'}` in my records.", "unknown_table")
        t = self.tables.get(tid)
        if t is not None:
            if guild_id is not None and t.guild_id != guild_id:
                raise missing
            return GameRecord.of_table(t)
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

    # ==== storage: writes, recovery, housekeeping ==============================================
    async def _commit(self, t: Table) -> None:
        """Under the table's lock, after a change: write it (new log entries, the row, a snapshot at
        a new deal, the results when the game just ended) before anyone is told.  If it cannot be
        written, the table is put back as stored and the change is refused with ``TableError``."""
        storage = self.storage
        live = self._live.get(t.id)
        if storage is None or live is None or not live.stored:
            return
        changes = records.changes_of(t, live.since)
        changes["rev"] = live.rev + 1
        state = t.state
        if (state is not None and t.phase == Phase.RUNNING and t.version > live.snap_version
                and (live.snap_due or t.version - live.snap_version >= SNAPSHOT_EVERY)):
            changes["snapshot"] = records.snapshot_of(state)
            changes["snapshot_version"] = t.version
        results: list[dict[str, Any]] = []
        ended = t.phase == Phase.FINISHED and not t.ended_early and state is not None and state.is_over
        if ended and not live.results_saved:
            results = stats.results_of(t, t.finished_at if t.finished_at is not None else self.clock.now())
        actions = t.log[live.saved_log:]
        try:
            await storage.write(t.id, changes, actions, expect=(live.saved_version, live.rev), results=results)
        except StaleWrite as e:
            log.warning("Table %s was written by someone else (%s); this process lets it go", t.id, e)
            self._forget(t)
            raise TableError(MOVED, "moved") from None
        except Exception:
            log.exception("Could not store table %s at version %d", t.id, t.version)
            await self._restore(t, live)
            raise TableError(NOT_SAVED, "not_saved") from None
        live.rev += 1
        live.saved_version = t.version
        live.saved_log = len(t.log)
        if "snapshot" in changes:
            live.snap_version = t.version
            live.snap_due = False
        live.results_saved = live.results_saved or ended

    async def _commit_quietly(self, t: Table) -> None:
        """:meth:`_commit` for background work (AI, deadlines): a failure is logged, not raised."""
        try:
            await self._commit(t)
        except TableError:
            pass

    async def _save_ids(self, t: Table, live: _Live) -> None:
        async with live.lock:
            if self.tables.get(t.id) is t:
                await self._commit_quietly(t)

    async def _restore(self, t: Table, live: _Live) -> None:
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
        for task in (live.ai_task, live.deadline_task, live.lobby_task):
            self._cancel(task)
        live.ai_task = live.deadline_task = live.lobby_task = None
        live.deadline_at = None
        for f in dataclasses.fields(Table):
            setattr(t, f.name, getattr(fresh, f.name))
        self._resume(t, live, stored.record, since)

    def _forget(self, t: Table) -> None:
        live = self._live.pop(t.id, None)
        if self.tables.get(t.id) is t:
            del self.tables[t.id]
        if live is not None:
            for task in (live.ai_task, live.deadline_task, live.lobby_task):
                self._cancel(task)
            self._stop_programs(t, live)

    def _resume(self, t: Table, live: _Live, record: dict[str, Any], since: dict[int, int]) -> None:
        """Bring a table rebuilt from the storage back to life: deadlines re-armed at their stored
        absolute times (an overdue one fires at once), AI seats moving, the message redrawn."""
        live.stored = True
        live.rev = int(record.get("rev") or 0)
        live.saved_version = t.version
        live.saved_log = len(t.log)
        live.snap_version = int(record.get("snapshot_version") or 0) if record.get("snapshot") else 0
        live.results_saved = t.phase == Phase.FINISHED
        self._setup_programs(t, live)  # started afresh, brought up to the current point
        if t.phase == Phase.RUNNING:
            state = t.state
            assert state is not None
            live.ai = t.entry.ai()
            # Seats face the decisions they faced before the restart: no new pings, same deadlines.
            live.pending = {s: state.decision(s) for s in state.to_act()}
            live.since = {s: since.get(s, t.version) for s in state.to_act()}
            self._reschedule(t)
        elif t.phase == Phase.LOBBY:
            self._arm_lobby_expiry(t, live)
        # The bot that went may have edited this message a moment ago: keep to one edit a second.
        self._request_redraw(t, pause_first=True)

    async def recover(self) -> Recovery:
        """At start-up: rebuild every unfinished table in the storage and carry on with it.  A table
        that cannot be rebuilt is marked broken (and its players told, through the listener's
        optional ``broken``); it never stops the others.  Also starts the storage housekeeping."""
        report = Recovery([], [])
        if self.storage is None:
            return report
        for item in await self.storage.unfinished():
            tid = item.record.get("id")
            if isinstance(tid, str) and tid in self.tables:
                continue  # already live in this process
            try:
                t, since = records.rebuild(item.record, item.log)
                before = dict(t.deadlines)
                live = _Live()
                self.tables[t.id] = t
                self._live[t.id] = live
                try:
                    self._resume(t, live, item.record, since)
                except Exception:
                    self._forget(t)
                    raise
            except Exception as e:
                reason = e.reason if isinstance(e, Unrecoverable) else f"{type(e).__name__}: {e}"
                await self._broken(item, reason)
                report.broken.append((str(tid), reason))
                continue
            report.restored.append(t)
            if t.deadlines != before:  # a seat that had none (e.g. it was away) has one now
                async with live.lock:
                    await self._commit_quietly(t)
        if report.broken:
            log.warning("Restored %d tables; %d could not be restored", len(report.restored), len(report.broken))
        else:
            log.info("Restored %d tables", len(report.restored))
        self._start_housekeeping()
        return report

    async def _broken(self, item: Stored, reason: str) -> None:
        tid = item.record.get("id")
        log.error("Table %s cannot be restored: %s", tid, reason)
        assert self.storage is not None
        try:
            await self.storage.mark_broken(str(tid), reason, self.clock.now())
        except Exception:
            log.exception("Could not mark table %s broken", tid)
        tell = getattr(self.listener, "broken", None)
        stub = records.stub(item.record)
        if tell is not None and stub is not None:
            async def call() -> None:
                try:
                    await tell(stub, reason)
                except Exception:
                    log.exception("Listener broken failed for table %s", tid)

            self._spawn(call(), f"broken:{tid}")

    def _start_housekeeping(self) -> None:
        if self.storage is None or self.retention is None:
            return
        if self._housekeeping is None or self._housekeeping.done():
            self._housekeeping = self._spawn(self._housekeep(), "housekeeping")

    async def _housekeep(self) -> None:
        while True:
            try:
                await self.prune_storage()
            except Exception:
                log.exception("Pruning old tables failed; trying again later")
            await self.clock.sleep(self.prune_every)

    async def prune_storage(self) -> int:
        """Delete finished tables and logs older than ``retention`` (results stay); returns how
        many tables went."""
        self._prune()
        if self.storage is None or self.retention is None:
            return 0
        gone = await self.storage.prune(self.clock.now() - self.retention)
        if gone:
            log.info("Pruned %d finished tables older than %.0f days", gone, self.retention / 86400)
        return gone

    # ==== lobby expiry =========================================================================
    def _arm_lobby_expiry(self, t: Table, live: _Live) -> None:
        if self.lobby_ttl is None or t.phase != Phase.LOBBY:
            return
        self._cancel(live.lobby_task)
        live.lobby_task = self._spawn(self._lobby_wait(t, live), f"lobby:{t.id}")

    async def _lobby_wait(self, t: Table, live: _Live) -> None:
        assert self.lobby_ttl is not None
        await self.clock.sleep(t.created_at + self.lobby_ttl - self.clock.now())
        async with live.lock:
            if live.lobby_task is not asyncio.current_task() or t.phase != Phase.LOBBY:
                return
            log.info("Table %s: nobody started the lobby in %.0f minutes; closing it", t.id, self.lobby_ttl / 60)
            self._finish(t, early=True)
            self._notify(t, "summary", t, [])
            self._request_redraw(t)
            await self._commit_quietly(t)

    # ==== refusals =============================================================================
    def _require_host(self, t: Table, user_id: int, what: str) -> None:
        if user_id != t.host_id:
            raise TableError(f"Only the host, {_md(t.host_name)}, can {what}.", "not_host")

    def _require_running(self, t: Table) -> None:
        if t.phase == Phase.LOBBY:
            raise TableError("The game has not started yet.", "not_running")
        if t.phase == Phase.FINISHED:
            raise TableError("This game is over.", "finished")

    def _refuse_if_elsewhere(self, guild_id: int, user_id: int, here: Table | None) -> None:
        # One table per person per server keeps /hand and /play unambiguous.
        for other in self.tables.values():
            if other is here or other.guild_id != guild_id or other.phase == Phase.FINISHED:
                continue
            s = other.seat_of(user_id)
            if s is not None and not other.seats[s].left:
                raise TableError(
                    f"You are already seated at table `{other.id}` ({other.entry.game.title}); "
                    "leave it first with `/game leave`.",
                    "elsewhere",
                )

    def _not_your_turn(self, t: Table) -> str:
        acting = [_md(t.seats[s].name) for s in t.to_act()]  # players only: never the table's step
        if not acting:
            return "Nobody can move right now."
        if len(acting) == 1:
            return f"It is not your turn — {acting[0]} is playing."
        return f"It is not your turn — waiting for {_and(acting)}."

    # ==== the one path every change takes =====================================================
    def _apply(self, t: Table, seat: int, action: Action, *, auto: bool) -> list[Event]:
        assert t.state is not None
        events = t.state.apply(seat, action)  # raises IllegalAction having changed nothing
        t.version += 1
        t.log.append(LogEntry(t.version, seat, action.code, self.clock.now(), auto))
        return events

    def _auto_apply(self, t: Table, seat: int) -> list[Event]:
        """The AI's move for ``seat`` — also the safe move at a deadline.  A failing AI must not
        stall a game people are playing, so it falls back to a random legal move."""
        live = self._live[t.id]
        state = t.state
        assert state is not None and t.seed is not None
        try:
            ai = live.ai if live.ai is not None else t.entry.ai()
            action = ai.choose(state, seat, rng_for(t.seed, "ai", t.version, seat))
            return self._apply(t, seat, action, auto=True)
        except Exception:
            log.exception("AI move failed at table %s seat %d; playing a random legal move", t.id, seat)
        action = state.random_action(seat, rng_for(t.seed, "fallback", t.version, seat))
        return self._apply(t, seat, action, auto=True)

    @staticmethod
    def _check_offered(state: Game, seat: int, action: Action) -> None:
        """A person may take only what their decision offers.  The engine would accept more from
        the runtime itself (Tricks' ``bad`` card, applied for a program), and a component's custom
        id arrives from the client, so a crafted click must not reach those."""
        decision = state.decision(seat)
        if decision is None:
            return
        if decision.pick:
            offered = action.kind == decision.kind
        else:
            # Compared by code too: a game may build equal actions as different objects.
            offered = action in decision.actions or action.code in {a.code for a in decision.actions}
        if offered:
            return
        # Not offered: say why in the game's own words ("You must follow suit"), which only the
        # engine knows — asked of a copy, so nothing changes whatever it answers.
        try:
            type(state).from_dict(state.to_dict()).apply(seat, action)
        except IllegalAction as e:
            raise IllegalAction(e.reason, e.code) from None
        except Exception:
            log.exception("Explaining a refused %r for seat %d failed", action.kind, seat)  # no cards in logs
        raise IllegalAction("That is not something you can do right now.", "not_offered")

    def _optional_move(self, t: Table, seat: int) -> Action | None:
        """What an AI seat wants to do while the table acts (declare during a deal), if anything."""
        live = self._live[t.id]
        assert t.state is not None and t.seed is not None
        ai = live.ai if live.ai is not None else t.entry.ai()
        try:
            return ai.choose_optional(t.state, seat, rng_for(t.seed, "ai", t.version, seat))
        except Exception:
            log.exception("AI optional move failed at table %s seat %d; skipping it", t.id, seat)
            return None

    def _after_change(
        self, t: Table, events: list[Event], actors: Collection[int], quiet: Collection[int] = ()
    ) -> None:
        """Under the lock, after a move (or the start): record, notify, re-plan who acts when."""
        live = self._live[t.id]
        if live.programs is not None:
            live.programs.deliver(events)  # queued: the programs hear it with their next query
        public = [e for e in events if e.to is None]
        if public:
            t.recent.extend(public)
            del t.recent[:-RECENT_EVENTS]
            if any(e.kind == "deal" for e in public):
                live.snap_due = True  # a new hand: replay after a restart starts here
        self._sync_programs(t, live)
        ends = [e for e in public if e.kind in SUMMARY_EVENTS]
        if ends:
            self._notify(t, "summary", t, ends)
        assert t.state is not None
        if t.state.is_over:
            self._finish(t)
        else:
            self._reschedule(t, actors, quiet=quiet)
        self._request_redraw(t)

    def _reschedule(
        self,
        t: Table,
        actors: Collection[int] = (),
        restart: Collection[int] = (),
        quiet: Collection[int] = (),
    ) -> None:
        """Deadlines for people, an AI task for AI/away seats, pings for people newly due.

        A seat still facing the very decision it faced before keeps its deadline (one passer
        choosing must not reset the others' clocks); ``actors`` just moved and ``restart`` came
        back, so theirs start afresh."""
        live = self._live[t.id]
        state = t.state
        assert state is not None
        now = self.clock.now()
        factor = SPEEDS[t.speed]
        pending: dict[int, Decision | None] = {}
        since: dict[int, int] = {}
        deadlines: dict[int, float] = {}
        newly: list[int] = []
        auto_due = False
        acting = state.to_act()
        # While the table itself acts (dealing, a closing window), the seats' decisions are optional:
        # no deadline, no ping, and an AI moves only if it wants to.  See engine.core.Game.table_timer.
        table_step = TABLE in acting
        for s in acting:
            d = state.decision(s)
            pending[s] = d
            changed = s in actors or s not in live.pending or live.pending[s] != d
            since[s] = t.version if changed else live.since.get(s, t.version)
            if s == TABLE:
                timer = state.table_timer()
                if not changed and s in t.deadlines:
                    deadlines[s] = t.deadlines[s]  # players' moves do not restart the table's clock
                else:
                    # "untimed" slows people down, not the dealer: the table keeps its own pace.
                    deadlines[s] = now + (timer[0] if timer is not None else 0.0) * (factor or 1.0) * self.table_pace
                continue
            if t.seats[s].auto:
                auto_due = True
                continue
            if table_step:
                continue
            fresh = changed or s in restart
            before = live.pending.get(s)
            # One clock for several decisions (a Siege turn): acting does not restart it.
            same_clock = (d is not None and d.clock_key is not None and before is not None
                          and before.clock_key == d.clock_key and s not in restart)
            if fresh and not same_clock and s not in quiet:
                newly.append(s)
            if factor is None:
                continue
            if (not fresh or same_clock) and s in t.deadlines:
                deadlines[s] = t.deadlines[s]
            else:
                deadlines[s] = now + (d.timer if d is not None else DEFAULT_TIMER) * factor
        live.pending, live.since, t.deadlines = pending, since, deadlines
        self._arm_deadlines(t)
        self._cancel(live.ai_task)
        live.ai_task = None
        if auto_due and live.stuck_at != t.version:
            live.ai_task = self._spawn(self._ai_move(t, live, t.version), f"ai:{t.id}")
        if newly:
            self._notify(t, "turn", t, tuple(newly))

    def _finish(self, t: Table, *, early: bool = False) -> None:
        live = self._live[t.id]
        t.phase = Phase.FINISHED
        t.ended_early = early
        t.finished_at = self.clock.now()
        t.deadlines = {}
        live.pending, live.since = {}, {}
        self._cancel(live.ai_task)
        self._cancel(live.deadline_task)
        self._cancel(live.lobby_task)
        live.ai_task = live.deadline_task = live.lobby_task = None
        live.deadline_at = None
        self._stop_programs(t, live)

    def _come_back(self, t: Table, seat: int) -> None:
        s = t.seats[seat]
        if s.left:
            self._refuse_if_elsewhere(t.guild_id, s.user_id, t)  # type: ignore[arg-type]
        s.away = s.left = False
        s.missed = 0
        self._reschedule(t, restart=(seat,))
        self._request_redraw(t)

    # ==== deadlines ============================================================================
    def _arm_deadlines(self, t: Table) -> None:
        live = self._live[t.id]
        earliest = min(t.deadlines.values(), default=None)
        task = live.deadline_task
        current = asyncio.current_task()
        if earliest is not None and earliest == live.deadline_at and task is not None:
            if not task.done() and task is not current:
                return  # already sleeping until exactly that time
        self._cancel(task)
        live.deadline_task, live.deadline_at = None, earliest
        if earliest is not None:
            live.deadline_task = self._spawn(self._deadline_wait(t, live, earliest), f"deadline:{t.id}")

    async def _deadline_wait(self, t: Table, live: _Live, when: float) -> None:
        await self.clock.sleep(when - self.clock.now())
        async with live.lock:
            if live.deadline_task is not asyncio.current_task() or t.phase != Phase.RUNNING:
                return  # superseded while waiting for the lock
            assert t.state is not None
            now = self.clock.now()
            due = sorted((d, s) for s, d in t.deadlines.items() if d <= now)
            events: list[Event] = []
            actors: list[int] = []
            for _, s in due:
                if s not in t.state.to_act():
                    continue
                if s == TABLE:
                    timer = t.state.table_timer()
                    if timer is not None:
                        events.extend(self._apply(t, TABLE, timer[1], auto=True))
                        actors.append(s)
                    continue
                seat = t.seats[s]
                due_decision = t.state.decision(s)
                key = due_decision.clock_key if due_decision is not None else None
                if key is None or live.missed_key.get(s) != key:
                    seat.missed += 1
                    if key is not None:
                        live.missed_key[s] = key
                if seat.missed >= MISSES_TO_AWAY:
                    seat.away = True
                try:
                    events.extend(self._auto_apply(t, s))
                except Exception:
                    log.exception("Safe move failed at table %s seat %d; leaving it to the player", t.id, s)
                    t.deadlines.pop(s, None)  # never retry in a loop
                    continue
                actors.append(s)
                if t.state.is_over:
                    break
            if actors:
                self._after_change(t, events, actors)
                await self._commit_quietly(t)
            else:
                live.deadline_task = None
                live.deadline_at = None
                self._arm_deadlines(t)

    # ==== AI moves =============================================================================
    async def _ai_move(self, t: Table, live: _Live, version: int) -> None:
        pause = self.clock.sleep(self.ai_delay) if self.ai_delay > 0 else asyncio.sleep(0)
        answers: dict[int, Any] = {}
        if live.programs is None:
            await pause
        else:
            # A program is asked outside the lock (people's clicks go on meanwhile), during the
            # usual pause; its answer counts only if the table is still at ``version`` below.
            _, answers = await asyncio.gather(pause, self._program_answers(t, live, version))
        async with live.lock:
            if t.phase != Phase.RUNNING or t.version != version:
                return
            state = t.state
            assert state is not None
            events: list[Event] = []
            actors: list[int] = []
            try:
                # Simultaneous decisions (passing) are all made at once.
                for s in tuple(state.to_act()):
                    if s == TABLE or not t.seats[s].auto or s not in state.to_act():
                        continue
                    if TABLE in state.to_act():
                        optional = self._optional_move(t, s)
                        if optional is None:
                            continue
                        events.extend(self._apply(t, s, optional, auto=True))
                    elif s in answers:
                        events.extend(self._program_apply(t, live, s, answers[s]))
                    else:
                        events.extend(self._auto_apply(t, s))
                    actors.append(s)
                    if state.is_over:
                        break
            except Exception:
                log.exception("AI could not move at table %s (version %d); waiting for a person", t.id, t.version)
                live.stuck_at = t.version
            if actors:
                self._after_change(t, events, actors)
                await self._commit_quietly(t)

    # ==== program seats (tables/programs.py) ===================================================
    def _program_of(self, t: Table, name: str) -> str:
        """The configured program a host named, or a refusal.  Only names are ever accepted here:
        a command line typed in a chat is just an unknown name."""
        if t.game not in PROGRAM_GAMES:
            raise TableError("Programs can only play Tricks; this table plays "
                             f"{t.entry.game.title}.", "not_program_game")
        known = self.programs.names
        if not known:
            raise TableError("No programs are set up on this bot (its operator lists them in its "
                             "configuration).", "no_programs")
        wanted = str(name).strip()
        if wanted not in self.programs.commands:
            shown = _md(wanted[:40]) or "?"
            raise TableError(f"There is no program called `{shown}`. Programs: "
                             f"{', '.join(f'`{n}`' for n in known)}.", "unknown_program")
        return wanted

    def _program_seat_name(self, t: Table, program: str) -> str:
        used = {s.name for s in t.seats}
        name, n = program, 2
        while name in used:
            name, n = f"{program}-{n}", n + 1
        return name

    def _setup_programs(self, t: Table, live: _Live) -> None:
        """(Re)start a running table's programs from scratch: at the start of the game, after a
        restart, after a failed write put the table back.  The processes start in the background."""
        self._stop_programs(t, live)
        if t.phase != Phase.RUNNING or t.state is None:
            return
        seats = {i: s.program for i, s in enumerate(t.seats) if s.is_ai and s.program}
        if not seats:
            return
        commands: dict[int, str] = {}
        for i, name in seats.items():
            command = self.programs.commands.get(name) if t.game in PROGRAM_GAMES else None
            if command is None:
                self._program_note(t, i, "not configured")
            else:
                commands[i] = command
        if not commands:
            return
        try:
            drv = TablePrograms(self.programs, commands, t.names(), lambda: t.state, label=t.id)
        except Exception:
            log.exception("Table %s: cannot seat its programs", t.id)
            for i in commands:
                self._program_note(t, i, "failed")
            return
        live.programs = drv
        self._spawn(self._start_programs(t, live, drv), f"programs:{t.id}")

    async def _start_programs(self, t: Table, live: _Live, drv: TablePrograms) -> None:
        await drv.start()
        if drv.retired():  # a program that could not start: say so now, not at its first turn
            async with live.lock:
                if live.programs is drv and t.phase == Phase.RUNNING and self._sync_programs(t, live):
                    self._request_redraw(t)
                    await self._commit_quietly(t)

    def _stop_programs(self, t: Table, live: _Live) -> None:
        drv, live.programs = live.programs, None
        if drv is not None:
            # Runtime.close() closes it again should this task be cancelled: keep it reachable.
            self._closing_programs.add(drv)
            self._spawn(self._close_programs(drv), f"programs-close:{t.id}")

    async def _close_programs(self, drv: TablePrograms) -> None:
        await drv.close()
        self._closing_programs.discard(drv)

    def _program_note(self, t: Table, seat: int, why: str) -> None:
        """Hand a program's seat to the built-in AI for good, and say so on the table."""
        s = t.seats[seat]
        if s.program is None:
            return
        s.program = None
        text = WHY.get(why, why)
        t.recent.append(Event("program_replaced", seat, (f"by the built-in AI: {text}",)))
        del t.recent[:-RECENT_EVENTS]
        log.info("Table %s: the program of seat %d is replaced by the built-in AI (%s)", t.id, seat, why)

    def _sync_programs(self, t: Table, live: _Live) -> bool:
        """Under the lock: seats whose program was retired become built-in AI seats."""
        drv = live.programs
        if drv is None:
            return False
        changed = False
        for seat, why in drv.retired().items():
            if t.seats[seat].program is not None:
                self._program_note(t, seat, why)
                changed = True
        return changed

    async def _program_answers(self, t: Table, live: _Live, version: int) -> dict[int, Any]:
        """Outside the lock: the answers of the programs that must play now, by seat."""
        drv = live.programs
        if drv is None or t.phase != Phase.RUNNING or t.version != version or t.state is None:
            return {}
        out: dict[int, Any] = {}
        for s in t.state.to_act():
            if s < 0 or not drv.playing(s):
                continue
            try:
                answer = await drv.answer(s, version)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Table %s: the program of seat %d could not be asked", t.id, s)
                drv.retire(s, "failed")
                continue
            if answer is not None:
                out[s] = answer
        return out

    def _program_apply(self, t: Table, live: _Live, seat: int, answer: Any) -> list[Event]:
        """Under the lock, the version unchanged: the program's card, or the engine's ``bad`` action
        for anything else.  Should the program be gone meanwhile, the built-in AI moves."""
        drv = live.programs
        state = t.state
        assert state is not None
        action = drv.judge(seat, answer, state.legal_plays(seat)) if drv is not None else None  # type: ignore[attr-defined]
        if action is not None:
            try:
                return self._apply(t, seat, action, auto=True)
            except IllegalAction:
                log.exception("Table %s: the program's move for seat %d was refused; the AI moves", t.id, seat)
        return self._auto_apply(t, seat)

    # ==== listener calls =======================================================================
    def _request_redraw(self, t: Table, pause_first: bool = False) -> None:
        live = self._live.get(t.id)
        if live is None:
            return
        live.redraw_wanted = True
        if live.redraw_task is None or live.redraw_task.done():
            live.redraw_task = self._spawn(self._redraw_loop(t, live, pause_first), f"redraw:{t.id}")

    async def _redraw_loop(self, t: Table, live: _Live, pause_first: bool = False) -> None:
        # The first request redraws at once (unless ``pause_first``); any made during the pause
        # after it cause exactly one more redraw when the pause ends.
        if pause_first:
            await self.clock.sleep(self.redraw_interval)
        while live.redraw_wanted:
            live.redraw_wanted = False
            await self._call(t, "redraw", t)
            await self.clock.sleep(self.redraw_interval)

    def _notify(self, t: Table, method: str, *args: Any) -> None:
        live = self._live.get(t.id)
        if live is None:
            return
        live.notes.append((method, args))
        if live.notify_task is None or live.notify_task.done():
            live.notify_task = self._spawn(self._notify_loop(t, live), f"notify:{t.id}")

    async def _notify_loop(self, t: Table, live: _Live) -> None:
        while live.notes:
            method, args = live.notes.popleft()
            await self._call(t, method, *args)

    async def _call(self, t: Table, method: str, *args: Any) -> None:
        live = self._live.get(t.id)
        if self.storage is not None and live is not None and live.lock.locked():
            # A change is being committed: show nothing of it before it is safely stored.
            async with live.lock:
                pass
        ids = (t.message_id, t.thread_id)
        try:
            await getattr(self.listener, method)(*args)
        except Exception:
            log.exception("Listener %s failed for table %s", method, t.id)
        if live is not None and live.stored and (t.message_id, t.thread_id) != ids:
            # The listener re-posted a deleted table message: remember where it is now.
            self._spawn(self._save_ids(t, live), f"ids:{t.id}")

    # ==== housekeeping =========================================================================
    def _spawn(self, coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("Table task %s failed", task.get_name(), exc_info=exc)

    @staticmethod
    def _cancel(task: asyncio.Task[None] | None) -> None:
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    def _ai_name(self, t: Table) -> str:
        used = {s.name for s in t.seats}
        n = 1
        while f"AI {n}" in used:
            n += 1
        return f"AI {n}"

    def _prune(self) -> None:
        cutoff = self.clock.now() - self.keep_finished
        for tid, t in list(self.tables.items()):
            if t.phase == Phase.FINISHED and t.finished_at is not None and t.finished_at < cutoff:
                del self.tables[tid]
                self._live.pop(tid, None)
