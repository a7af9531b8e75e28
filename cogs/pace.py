"""When the public table message is edited: at the moments someone who only watches needs, paced
to the bot's REST budget.

Players see every card in their live hand views, which are edited through interaction tokens that
Discord's global limit (50 calls a second per bot token) does not count.  The public table message
is an ordinary REST edit, so it changes only when a watcher needs it:

* at once: the table's phase (lobby, running, finished), its seats (a join, someone away or back),
  someone's time running out (the clock moved for them: rare, and watchers should know),
  or the game's phase (its state's ``phase``: passing or playing, a bury, a tax; or a deal, a hand
  or the game over);
* at a milestone (a trick or a round won, a new turn) once ``interval`` has passed since the last
  edit;
* after a quiet spell: a move once the table had been still for ``quiet`` seconds, and whatever is
  still unshown once nothing has moved for ``quiet`` seconds (the table says whom it waits for);
* at the latest ``2 × interval`` after the last edit, whatever happened.

Apart from the phases, edits of one message are at least ``interval`` apart, so the running tables
never ask for more than ``share`` of the budget between them.

``interval`` adapts to the number of running tables: they share ``share`` of the budget's spare
rate (what is left after the requests that must go out), so with a thousand tables each message is
edited less often and every table plays on.  Only public
facts decide (the table's events, phase and seats), never anyone's cards.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cogs import render
from engine.core import Event
from tables.table import Table

MIN_INTERVAL = 20.0  # seconds between paced edits of one table message, at the least
MIN_QUIET = 8.0  # a table still this long is shown as it is (and the next move at once)
SHARE = 0.75  # of what the REST budget has left after pings, summaries, threads and phases
RETRY = 1.0  # seconds before a paced edit that found no free token tries again (plus up to as much)

NONE, MOVE, MILESTONE, NOW = range(4)
# Public events that change the game's phase, and those that close a unit of play.
PHASE_EVENTS = frozenset({"deal", "hand_start", "exchange", "hand_end", "game_end", "round", "trump",
                          "declare", "ranking", "taxes_skipped", "win"})
MILESTONE_EVENTS = frozenset({"trick", "round_end", "turn", "out", "revolution", "fight"})


@dataclass
class _Table:
    phase: tuple[Any, ...]
    seats: tuple[tuple[int | None, str, bool, bool, bool], ...]
    version: int
    last_event: Event | None
    notes: int = 0  # the listener's clock lines so far (someone's time ran out: shown at once)
    shown_at: float = -math.inf  # the last edit
    pending: int = NONE  # the most a watcher misses since then
    changed_at: float = -math.inf  # the newest unshown change
    still_since: float = -math.inf  # when the table last changed before that (a quiet spell?)
    milestone_now: bool = False  # the newest change closed a unit of play


def _seats(table: Table) -> tuple[tuple[int | None, str, bool, bool, bool], ...]:
    return tuple((s.user_id, s.name, s.is_ai, s.away, s.left) for s in table.seats)


def events_after(recent: Sequence[Event], last: Event | None) -> list[Event]:
    """The public events newer than ``last`` (all of them when it has scrolled out)."""
    if last is None:
        return list(recent)
    for n in range(len(recent) - 1, -1, -1):
        if recent[n] is last:
            return list(recent[n + 1:])
    return list(recent)


class PublicPace:
    """Per table: what its message shows and what a watcher misses, and when to edit it."""

    def __init__(self, spare: Callable[[], float], *, min_interval: float = MIN_INTERVAL,
                 min_quiet: float = MIN_QUIET, share: float = SHARE, rng: random.Random | None = None) -> None:
        self._spare = spare
        self.min_interval = min_interval
        self.min_quiet = min_quiet
        self.share = share
        self._rng = rng or random.Random()
        self._tables: dict[str, _Table] = {}
        self._running: set[str] = set()  # running tables whose edits the budget pays for
        self._free: set[str] = set()  # tables whose message is edited through a token: no budget
        self.edits = 0  # paced or not, for the bench and tests

    @property
    def interval(self) -> float:
        """Seconds between paced edits of one table message: the running tables share part of the
        budget's spare rate, never more often than ``min_interval``."""
        rate = max(self._spare(), 1e-9)
        return max(self.min_interval, len(self._running) / (rate * self.share))

    @property
    def quiet(self) -> float:
        return max(self.min_quiet, self.interval / 2)

    def due(self, table: Table, now: float, notes: int = 0) -> float | None:
        """Take in what changed since the last call, and say in how many seconds the message
        should be edited (0: now), or ``None`` when it shows everything a watcher needs."""
        s = self._note(table, now, notes)
        if s.pending == NONE:
            return None
        if s.pending == NOW:
            return 0.0
        since = now - s.shown_at
        interval, quiet = self.interval, self.quiet
        if s.changed_at == now:
            if s.milestone_now and since >= interval:
                return 0.0  # a trick won, once the interval has passed
            if now - s.still_since >= quiet and since >= interval:
                return 0.0  # the first move after a quiet spell
        at = min(max(s.shown_at + interval, s.changed_at + quiet), s.shown_at + 2 * interval)
        return max(at - now, 0.0)

    def urgent(self, table_id: str) -> bool:
        """Whether the change waiting is one to show at once (it may wait for the budget's queue)."""
        s = self._tables.get(table_id)
        return s is not None and s.pending == NOW

    def retry(self) -> float:
        """When a paced edit that found no free token should try again (spread, so the tables
        that missed do not all come back in the same instant)."""
        return RETRY * (1 + self._rng.random())

    def shown(self, table: Table, now: float, notes: int = 0) -> None:
        """The message is being drawn from the table as it is now."""
        s = self._note(table, now, notes)
        s.shown_at = now
        s.pending = NONE
        self.edits += 1
        if s.phase[0] == "finished":
            self.forget(table.id)

    def forget(self, table_id: str) -> None:
        self._tables.pop(table_id, None)
        self._running.discard(table_id)
        self._free.discard(table_id)

    def free(self, table_id: str, free: bool) -> None:
        """Whether this table's edits cost the budget nothing now (its message is edited through an
        interaction's token): such a table does not share the budget's spare rate."""
        if free:
            self._free.add(table_id)
            self._running.discard(table_id)
        else:
            self._free.discard(table_id)

    def _note(self, table: Table, now: float, notes: int) -> _Table:
        # The table's phase, and the game's own (passing or playing, a deal, a bury, a tax...); and
        # where it is played (a new thread: the table message's link to it is shown at once).
        phase = (render.phase_of(table), getattr(table.state, "phase", None), getattr(table, "thread_id", None))
        seats = _seats(table)
        last = table.recent[-1] if table.recent else None
        s = self._tables.get(table.id)
        if s is None:
            s = self._tables[table.id] = _Table(phase, seats, table.version, last, notes, pending=NOW,
                                                changed_at=now)
        else:
            level = NONE
            if phase != s.phase or seats != s.seats or notes > s.notes:
                level = NOW
            elif table.version != s.version or last is not s.last_event:
                kinds = {e.kind for e in events_after(table.recent, s.last_event)}
                level = NOW if kinds & PHASE_EVENTS else MILESTONE if kinds & MILESTONE_EVENTS else MOVE
            if level != NONE:
                s.milestone_now = level >= MILESTONE
                s.still_since = s.changed_at
                s.changed_at = now
                s.pending = max(s.pending, level)
            s.phase, s.seats, s.version, s.last_event, s.notes = phase, seats, table.version, last, notes
        if phase[0] == "running" and table.id not in self._free:
            self._running.add(table.id)
        else:
            self._running.discard(table.id)
        return s
