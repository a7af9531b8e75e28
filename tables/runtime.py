"""The table runtime's one entry point: lookups, the lobby, and acting — on top of the pure engine.

The cogs call :class:`Runtime` and nothing else in ``tables``.  It owns the tables and their locks,
checks who may do what, and hands the rest to one room per concern:

* :mod:`tables.turns` — the one path every change takes, deadlines, AI and table moves, the
  missed-turn ladder, the lobby's expiry;
* :mod:`tables.persistence` — commit before anything is shown, recovery, housekeeping;
* :mod:`tables.programs.seats` — program players at the tables of a game with program seats;
* :mod:`tables.delivery` — listener calls, in order and outside the lock;
* :mod:`tables.live` — what they share (a table's bookkeeping, background tasks, refusals).

Every change happens under the table's :class:`asyncio.Lock`.  With a
:class:`~tables.storage.Storage`, every change is committed before anyone hears of it; without one
nothing is kept (the tests' default).
"""

from __future__ import annotations

import builtins
import logging

from engine.core import Action, Event, IllegalAction
from engine.review import Review
from tables import ahead, clicks, offers
from tables.ai.hints import Hint
from tables.history import records
from tables.history.replay import GameRecord
from tables.ids import echo, normalise
from tables.live import (
    TOO_LATE,
    Listener,
    NullListener,
    Recovery,
    SeatView,
    TableError,
)
from tables.live import answer_by as click_deadline
from tables.lobby import Lobby
from tables.persistence import MOVED, NOT_SAVED, SNAPSHOT_EVERY
from tables.table import SHOWN_END, Phase, Table
from tables.tournaments import WITHHELD
from tables.turns import DEFAULT_TIMER, LOBBY_TTL, MISSES_TO_AWAY, SUMMARY_EVENTS
from words import N_

log = logging.getLogger("deckhand.tables")

__all__ = [
    "DEFAULT_TIMER", "LOBBY_TTL", "MISSES_TO_AWAY", "MOVED", "NOT_SAVED", "SNAPSHOT_EVERY", "STALE",
    "SUMMARY_EVENTS", "Listener", "NullListener", "Recovery", "Runtime", "SeatView", "TableError",
]

STALE = "That button is from an earlier turn; open your hand again with **My hand**."


class Runtime(Lobby):
    """Tables, seats and moves: what the cogs call.  Its state and lookups are
    :class:`~tables.runtime_core.RuntimeCore`'s, the lobby :class:`~tables.lobby.Lobby`'s."""

    # ==== playing ==============================================================================
    def answer_by(self, age: float) -> float:
        """The deadline (``act(answer_by=...)``) of a click that is ``age`` seconds old now."""
        return click_deadline(age, self.clock.now())

    def refuse_late(self, deadline: float | None) -> None:
        """Refuse (code ``late``, nothing changed) a click whose answer could no longer reach the
        person: the one rule for every click, checked again just before it would be applied."""
        if deadline is not None and self.clock.now() > deadline:
            raise TableError(TOO_LATE, "late")

    async def act(
        self, table_id: str, user_id: int, action: str | Action, *, version: int | None = None,
        answer_by: float | None = None,
    ) -> builtins.list[Event]:  # builtins: the method list above shadows it in this class
        """Apply a person's move.  ``version`` is the table version their button or hand view was
        made at: it is stale once that seat's decision has changed since (so a pass chosen while
        others pass at the same time still counts, but a card button from an earlier trick does
        not).  ``answer_by`` (:meth:`answer_by`): the move is refused unless it is applied by then
        — a click that waited here for the table's lock longer than its answer can wait.  Returns
        every event, private ones included: the caller filters by ``to``."""
        t = self.get(table_id)
        live = self._live[t.id]
        async with live.lock:
            self.refuse_late(answer_by)
            offers.require_running(t)
            self.persistence.refuse_if_gone()
            seat = t.seat_of(user_id)
            if seat is None:
                raise TableError(N_("You are not seated at this table."), "not_seated")
            if version is not None and clicks.stale(t, version, live.since.get(seat, t.version)):
                raise TableError(STALE, "stale")
            state = t.state
            assert state is not None
            if seat not in state.to_act():
                raise offers.not_your_turn_error(t)
            s = t.seats[seat]
            if s.left:
                offers.refuse_if_elsewhere(self._claims(), t.guild_id, user_id, t)
            try:
                if isinstance(action, str):
                    action = state.parse_action(seat, action)
                offers.check_offered(state, seat, action)
                events = self.turns.apply(t, seat, action, auto=False)
            except IllegalAction as e:
                raise TableError.of(e, t.game) from None
            # Whoever acts is present again.
            s.missed = 0
            s.away = s.left = False
            live.picks.forget(seat)  # (a card chosen ahead: they chose this instead)
            self.turns.after_change(t, events, (seat,), quiet=(seat,))
            await self.persistence.commit(t)
            return events

    async def play_ahead(self, table_id: str, user_id: int, code: str | None, *,
                         answer_by: float | None = None) -> builtins.list[Event] | None:
        """Choose (``code``, a card's play) or cancel (``None``) this person's card ahead of their
        turn (tables/ahead.py).  Nothing of the table changes, so nobody else can tell.  When their
        turn has come meanwhile the card is their move now (:meth:`act`'s events); else ``None``."""
        t = self.get(table_id)
        live = self._live[t.id]
        async with live.lock:
            self.refuse_late(answer_by)
            seat = t.seat_of(user_id)
            if seat is None:
                raise TableError(N_("You are not seated at this table."), "not_seated")
            if code is None:
                live.picks.forget(seat)
                return None
            state = t.state
            now = t.phase == Phase.RUNNING and state is not None and seat in state.to_act()
            if not now:
                ahead.choose(t, live.picks, seat, code)
                return None
        return await self.act(table_id, user_id, code, answer_by=answer_by)

    async def review(self, table_id: str, guild_id: int, user_id: int) -> tuple[GameRecord, Review]:
        """The review of this person's play in a finished game of ``guild_id`` (tables/ai/reviews.py):
        stored, or run in the AI pool now; a refusal (``TableError``) when they did not play there
        or the game is not over."""
        record = await self.history(table_id, guild_id)
        return record, await self.reviews.get(record, guild_id, user_id)

    async def hint(self, table_id: str, user_id: int) -> Hint:
        """What the strong AI would do for this person's decision, and why (tables/ai/hints.py)."""
        t = self.get(table_id)
        return await self.hints.give(t, self._live[t.id], user_id)

    async def back(self, table_id: str, user_id: int) -> Table:
        t = self.get(table_id)
        async with self._live[t.id].lock:
            seat = t.seat_of(user_id)
            if seat is None:
                raise TableError(N_("You are not seated at this table."), "not_seated")
            if t.phase != Phase.RUNNING:
                raise TableError(N_("There is no game running at this table."), "not_running")
            if not t.seats[seat].away:
                raise TableError(N_("You are not away — you are playing your seat already."), "not_away")
            self._come_back(t, seat)
            await self.persistence.commit(t)
            return t

    async def close(self) -> None:
        await self.tasks.close()
        await self.reviews.close()  # what they judged so far is stored: the next ask resumes
        # Every program process goes, whatever its table was doing (a close is safe to repeat).
        await self.program_seats.close_all(list(self._live.values()))
        await self.persistence.close()

    async def attach(self, table_id: str, *, message_id: int | None = None, thread_id: int | None = None) -> Table:
        """Record where the Discord layer posted the table message / opened its thread (kept across
        restarts, so the message can be edited again)."""
        t = self.get(table_id)
        live = self._live[t.id]
        async with live.lock:
            if message_id is not None:
                t.message_id = message_id
                if t.phase == Phase.FINISHED and not t.shown & SHOWN_END:
                    self.delivery.redraw(t)  # a new message for an end never shown: drawn, then stored so
            if thread_id is not None:
                t.thread_id = thread_id
                self.delivery.redraw(t)  # the table message links to the thread now
            await self.persistence.commit_quietly(t)
        return t

    async def detach_thread(self, thread_id: int) -> builtins.list[Table]:
        """The Discord layer heard that a table's thread was deleted: those tables play on in their
        channel (the table message gets its own controls back, notices go to the channel)."""
        out = []
        for t in [t for t in self.tables.values() if t.thread_id == thread_id]:
            live = self._live[t.id]
            async with live.lock:
                if t.thread_id != thread_id:
                    continue
                t.thread_id = None
                self.delivery.redraw(t)
                await self.persistence.commit_quietly(t)
            out.append(t)
        return out

    async def history(self, table_id: str, guild_id: int | None = None, user_id: int | None = None) -> GameRecord:
        """A game's record (seed, seats, whole log) for ``/game replay``: from memory while the table
        is here, else from the storage.  Only tables of ``guild_id`` when it is given; ``user_id``:
        the person asking (refused a table of a duplicate round they still play: tables/tournaments.py)."""
        tid = normalise(table_id)
        if user_id is not None and self.tournaments.withheld(tid, user_id):
            raise TableError(WITHHELD, "withheld", id=tid)
        missing = TableError(f"There is no game with id `{echo(tid) or '?'}` in my records.", "unknown_table")
        t = self.tables.get(tid)
        if t is not None:
            if guild_id is not None and t.guild_id != guild_id:
                raise missing
            return GameRecord.of_table(t)
        return await self.persistence.record(tid, guild_id)

    # ==== recovery (the storage's side is tables/persistence.py) ================================
    async def recover(self) -> Recovery:
        """At start-up: rebuild every unfinished table in the storage and carry on with it.  A table
        that cannot be rebuilt is marked broken (and its players told, through the listener's
        optional ``broken``); it never stops the others; one that has no message yet is posted
        (the listener's optional ``unposted``).  Also starts the storage housekeeping."""
        report = await self.persistence.recover(self.tables, self._live)
        for t in report.restored:
            if t.message_id is None and t.phase != Phase.FINISHED:
                # Stored, but its message never reached Discord (the process stopped in between):
                # nobody could see or join it, so it is posted now (issue 29 item 8).
                self.delivery.notify(t, "unposted", t)
        await self.tournaments.recover(self._stored_table, self.shards.owns)
        self.persistence.start_housekeeping(self._prune, self.tables)
        if self.storage is not None and self.privacy.grace is not None and self._sweep is None:
            self._sweep = self.tasks.spawn(self.privacy.sweep_daily(), "departed-servers")
        return report


    async def _stored_table(self, table_id: str) -> Table | None:
        """A finished table as the storage holds it (a tournament scores a game that ended while the
        bot was down), or ``None``."""
        if self.storage is None:
            return None
        try:
            stored = await self.storage.load(table_id)
            return None if stored is None else records.rebuild(stored.record, stored.log)[0]
        except Exception:
            log.exception("Could not read table %s back for its tournament", table_id)
            return None

    async def prune_storage(self) -> int:
        """Delete finished tables and logs older than ``retention`` (results stay); returns how
        many tables went."""
        self._prune()
        return await self.persistence.prune()

