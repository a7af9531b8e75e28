"""What the runtime's rooms share: one table's private bookkeeping, the background tasks, refusals
and the listener the Discord layer implements.

Nothing here decides anything; :mod:`tables.runtime` (lobby and acting), :mod:`tables.turns` (who
acts when), :mod:`tables.persistence` (storage), :mod:`tables.programs.seats` and
:mod:`tables.delivery` (listener calls) each own one part of a :class:`Live` and read the rest.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import words
from engine.core import AI, Decision, Event, IllegalAction, View
from engine.hints import Hint
from engine.words import Phrase
from tables.programs.driver import TablePrograms
from tables.table import Table
from words import N_

log = logging.getLogger("deckhand.tables")


class TableError(Exception):
    """A refusal.  ``message`` is a short friendly sentence in English; :meth:`say` is the same
    sentence in a person's language.  A refusal made from a catalog template (``N_("… {id} …")``,
    words/) passes its ``fields``; one made of a finished English sentence reads in English."""

    def __init__(self, message: str, code: str = "refused", **fields: Any) -> None:
        self.template = message
        self.fields = fields
        self.message = message.format(**fields) if fields else message
        super().__init__(self.message)
        self.code = code
        #: A refusal of the rules (:meth:`of`): their sentence, said in the game's domain.
        self.phrase: Phrase | None = None
        self.domain = words.DOMAIN

    @classmethod
    def of(cls, e: IllegalAction, game: str) -> TableError:
        """The engine's refusal ``e`` of a move in ``game``: its English sentence as the message,
        said to a person in the game's own words (its domain: ``words.say``)."""
        err = cls(e.reason, e.code)
        err.phrase, err.domain = e.phrase, game
        return err

    def say(self, locale: str) -> str:
        """The sentence in ``locale`` (a catalog name: words.resolve)."""
        if self.phrase is not None:
            return words.say(locale, self.phrase, self.domain)
        return words.translate(locale, self.template, **self.fields)


# A person's click counts only while its answer can still reach them: Discord shows "This
# interaction failed" 3 s after a click nobody answered, and a click the person saw fail must never
# take effect later (a process that was frozen, or stuck behind a slow write, waking up with old
# clicks queued).  The half second left is for the answer's own trip.
ANSWER_WITHIN = 2.5
TOO_LATE = N_("That click came too late to count; nothing changed. Make it again.")


def answer_by(age: float, now: float) -> float:
    """When (in the clock that says ``now``) a click that is ``age`` seconds old stops counting."""
    return now + ANSWER_WITHIN - max(0.0, age)


class Listener(Protocol):
    """What the Discord layer hears from the runtime.  Calls come from background tasks; an
    exception is logged and ignored, never seen by the table."""

    async def redraw(self, table: Table) -> float | None:
        """Show the table.  May return seconds after which to be called again although nothing
        more changed (part of this change waits to be shown); ``None``: nothing waits."""
        ...

    async def turn(self, table: Table, seats: tuple[int, ...]) -> None:
        """``seats`` are people who newly must act (never AI or away seats): ping them."""
        ...

    async def summary(self, table: Table, events: list[Event]) -> None:
        """The public ``hand_end``/``game_end`` events, or ``[]`` when a table is ended early."""
        ...

    # Optional (looked up with getattr, so older listeners keep working):
    # async def seat_changed(self, table: Table, seats: tuple[int, ...]) -> None — these seats' own
    # views changed (a new or ended decision, a move made for them, cards only they were told of,
    # leaving or coming back, the end of the game; not the person who just acted, whose answer
    # shows it); in order with ``turn``/``summary``.  Which seats had
    # private news is hidden: use each seat's signal for that seat's own view only, never for
    # anything others see.
    # A move the clock made for a person is marked ``LogEntry.timeout`` in ``table.log``.
    # async def broken(self, table: Table, reason: str) -> None — a stored table could not be
    # restored after a restart; tell its players (``table`` may have no state, only ids and seats).
    # async def unposted(self, table: Table) -> None — a table restored after a restart has no
    # message (the process stopped after storing a new lobby, before its message was posted):
    # post it and set ``table.message_id`` (stored like a re-posted message's new id).
    # def showing(self, table: Table) -> bool — asked before a finished table leaves memory (with a
    # storage, once its end is shown and stored: tables/finished.py); True while the Discord layer
    # still draws something of it that reads the table from the runtime by its id.
    # def released(self, table: Table) -> None — this process let go of the table (another one runs
    # it now: its shard's lease went, or someone else wrote it): called at once, synchronously;
    # nothing more of it may be posted from here (no nudge, ping or view edit), only the summaries
    # of what was played, which are history.


class NullListener:
    async def redraw(self, table: Table) -> float | None:
        return None

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
    view: View | None  # None in the lobby
    decision: Decision | None
    deadline: float | None
    # Play ahead (tables/ahead.py), this seat's own: the card it chose before its turn (an action
    # code), and one it chose that could not be played when its turn came (said to it alone).
    ahead: str | None = None
    dropped: str | None = None


@dataclass
class Picks:
    """One table's cards chosen ahead (tables/ahead.py), by seat: kept in memory only."""

    chosen: dict[int, str] = field(default_factory=dict)  # seat -> the card's action code
    dropped: dict[int, str] = field(default_factory=dict)  # seat -> a chosen card its turn refused

    def forget(self, seat: int) -> None:
        self.chosen.pop(seat, None)
        self.dropped.pop(seat, None)

    def clear(self) -> None:
        self.chosen.clear()
        self.dropped.clear()


@dataclass
class Live:
    """The runtime's private bookkeeping for one table (never persisted)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    ai: AI | None = None
    # -- tables.turns: the decision each acting seat had after the last change, to tell a new
    # decision from the same one still waiting (simultaneous passing), and the version at which
    # it began; the clock key of the last missed deadline per seat (a turn of several actions
    # counts once).
    pending: dict[int, Decision | None] = field(default_factory=dict)
    missed_key: dict[int, str] = field(default_factory=dict)
    since: dict[int, int] = field(default_factory=dict)
    ai_task: asyncio.Task[None] | None = None
    stuck_at: int | None = None  # version at which an automatic move failed outright
    # -- tables.ai.hints: per seat, the latest hint asked for (the decision's ``since``, its task), so a
    # second click joins the search under way and a repeated question gets the same answer.
    hints: dict[int, tuple[int, asyncio.Task[Hint]]] = field(default_factory=dict)
    deadline_task: asyncio.Task[None] | None = None
    deadline_at: float | None = None
    lobby_task: asyncio.Task[None] | None = None
    # -- tables.delivery
    redraw_task: asyncio.Task[None] | None = None
    redraw_wanted: bool = False
    drawing: bool = False  # the redraw task is making its call now (else it is pausing, or gone)
    recall_task: asyncio.Task[None] | None = None  # the listener asked to be called again then
    notify_task: asyncio.Task[None] | None = None
    notes: deque[tuple[str, tuple[object, ...]]] = field(default_factory=deque)
    calling: str | None = None  # the listener call the notify task is making now
    # -- tables.persistence: what the storage holds (when there is one): the row's (version, rev),
    # how much of the log, the version of the last snapshot, and whether this game's results are in.
    stored: bool = False
    saved_version: int = 0
    rev: int = 0
    saved_log: int = 0
    snap_version: int = 0
    snap_due: bool = False
    results_saved: bool = False
    saved_shown: int = 0  # what of the end the storage says was shown (Table.shown as last written)
    # After a failed write: no deadline or AI move before ``hold_until`` (the back-off doubles up
    # to a cap while writes keep failing), and the failure logged at most once a minute.
    hold_until: float = 0.0
    backoff: float = 0.0
    failure_logged_at: float | None = None
    # -- tables.programs.seats: the program seats' processes, while the game runs
    programs: TablePrograms | None = None
    # -- tables.ahead: the cards people chose before their turn (never stored: a restart drops them)
    picks: Picks = field(default_factory=Picks)

    def stop_timers(self) -> None:
        """Cancel the AI, deadline and lobby tasks (not deliveries: what was decided is still told)."""
        for task in (self.ai_task, self.deadline_task, self.lobby_task):
            Tasks.cancel(task)
        self.ai_task = self.deadline_task = self.lobby_task = None
        self.deadline_at = None


class Tasks:
    """The runtime's background tasks: each is kept until done, and a failure is logged, never
    raised into a table."""

    def __init__(self) -> None:
        self.running: set[asyncio.Task[None]] = set()

    def spawn(self, coro: Coroutine[object, object, None], name: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self.running.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[None]) -> None:
        self.running.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("Table task %s failed", task.get_name(), exc_info=exc)

    @staticmethod
    def cancel(task: asyncio.Task[None] | None) -> None:
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def close(self) -> None:
        tasks = [task for task in self.running if not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def md(name: str) -> str:
    """A display name made safe inside a Discord message we write."""
    return "".join("\\" + ch if ch in "\\*_~`|>" else ch for ch in name)


def and_join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
