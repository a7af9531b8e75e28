"""When the public table message is edited: as soon as the bot can afford it, at the moments someone
who only watches needs when it cannot follow every move.

Players see every card in their live hand views, edited through their interactions' tokens.  The
table message is edited through the ``/game new`` answer's token while that lives (15 minutes), which
Discord's global limit (50 calls a second per bot token) does not count, and after that by an
ordinary REST edit, which it does.  Either way each table's message has an ``interval``: the
seconds between its paced edits that the budget in use allows, never under ``min_interval``
(1 s, the runtime's own redraw interval):

* REST-edited tables share ``share`` of the REST budget's spare rate (what is left after the
  requests that must go out), and tables whose messages share a channel share its edit limit (5 per
  5 s);
* token-edited tables share ``token_rate`` edits a second (Discord does not count them, but each is
  a drawing and a request for the bot's one event loop, next to the hand views' edits).

With few tables the interval is at its floor and the message **follows every move**: whatever
changed is shown once ``interval`` has passed since the last edit.  Only a crowded budget (an
interval over ``follow``, 2.5 s) makes the message choose its moments:

* at once: the table's phase (lobby, running, finished), its seats (a join, someone away or back),
  someone's time running out (the clock moved for them: rare, and watchers should know),
  or the game's phase (its state's ``phase``: passing or playing, a bury, a tax; or a deal, a hand
  or the game over);
* at a milestone (a trick or a round won, a new turn) once ``interval`` has passed since the last
  edit;
* after a quiet spell: a move once the table had been still for ``quiet`` seconds, and whatever is
  still unshown once nothing has moved for ``quiet`` seconds (the table says whom it waits for);
* at the latest ``2 × interval`` after the last edit, whatever happened.

Phases are shown at once in both modes, yet no edit of one message comes sooner than ``min_gap``
(1 s) after the last, nor as the sixth within 5.25 s: Discord allows 5 edits in 5 s.
Only public facts decide (the table's events, phase and seats), never anyone's cards.
"""

from __future__ import annotations

import collections
import math
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cogs.table import render
from engine.core import Event
from tables.table import Table

# Seconds between paced edits of one table message, at the least: the runtime's redraw interval
# (tables.delivery calls the listener at most once a second anyway).
MIN_INTERVAL = 1.0
MIN_GAP = 1.0  # seconds between any two edits of one message, phases included
WINDOW = (5, 5.0)  # Discord's limit on one channel's message edits: 5 in 5 s; never reached...
WINDOW_MARGIN = 0.25  # ...with this margin for a request sent a little late or read a little early
FOLLOW = 2.5  # with an interval up to this, every move is shown once the interval has passed
CHANNEL_GAP = 1.1  # seconds per REST-edited table message in one channel (Discord: 5 edits per 5 s)
TOKEN_RATE = 40.0  # token edits of table messages a second, all tables together
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
    phase: tuple[object, ...]
    seats: tuple[tuple[int | None, str, bool, bool, bool], ...]
    version: int
    last_event: Event | None
    notes: int = 0  # the listener's clock lines so far (someone's time ran out: shown at once)
    shown_at: float = -math.inf  # the last edit
    recent_edits: collections.deque[float] = field(default_factory=lambda: collections.deque(maxlen=WINDOW[0]))
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
                 min_quiet: float = MIN_QUIET, share: float = SHARE, token_rate: float = TOKEN_RATE,
                 min_gap: float = MIN_GAP, follow: float = FOLLOW, channel_gap: float = CHANNEL_GAP,
                 rng: random.Random | None = None) -> None:
        self._spare = spare
        self.min_interval = min_interval
        self.min_quiet = min_quiet
        self.share = share
        self.token_rate = token_rate
        self.min_gap = min_gap
        self.follow = follow
        self.channel_gap = channel_gap
        self._rng = rng or secrets.SystemRandom()  # retry jitter; no unseeded random.Random in product code
        self._tables: dict[str, _Table] = {}
        self._running: set[str] = set()  # running tables whose edits the budget pays for
        self._running_free: set[str] = set()  # running tables edited through a token
        self._free: set[str] = set()  # tables whose message is edited through a token: no budget
        self._channel: dict[str, int] = {}  # running REST-edited table -> its message's channel id
        self._per_channel: dict[int, int] = {}  # channel id -> its running REST-edited tables
        self.edits = 0  # paced or not, for the bench and tests

    @property
    def interval(self) -> float:
        """Seconds between paced edits of a REST-edited table message: the running tables share part
        of the budget's spare rate, never more often than ``min_interval``."""
        rate = max(self._spare(), 1e-9)
        return max(self.min_interval, len(self._running) / (rate * self.share))

    @property
    def token_interval(self) -> float:
        """Seconds between paced edits of a table message edited through a token: the running ones
        share ``token_rate``, never more often than ``min_interval``."""
        return max(self.min_interval, len(self._running_free) / max(self.token_rate, 1e-9))

    def interval_of(self, table_id: str) -> float:
        """The interval of this table's message: by how it is edited, and with how many others in
        its channel when that is by REST."""
        if table_id in self._free:
            return self.token_interval
        shared = self._per_channel.get(self._channel[table_id], 1) if table_id in self._channel else 1
        return max(self.interval, shared * self.channel_gap) if shared > 1 else self.interval

    @property
    def quiet(self) -> float:
        return max(self.min_quiet, self.interval / 2)

    def due(self, table: Table, now: float, notes: int = 0) -> float | None:
        """Take in what changed since the last call, and say in how many seconds the message
        should be edited (0: now), or ``None`` when it shows everything a watcher needs."""
        s = self._note(table, now, notes)
        if s.pending == NONE:
            return None
        # Phases too wait for these (a burst of them is drawn as one edit).
        gap = s.shown_at + self.min_gap - now
        if len(s.recent_edits) == WINDOW[0]:
            gap = max(gap, s.recent_edits[0] + WINDOW[1] + WINDOW_MARGIN - now)
        if s.pending == NOW:
            return max(gap, 0.0)
        since = now - s.shown_at
        interval = self.interval_of(table.id)
        if interval <= self.follow:
            return max(s.shown_at + interval - now, gap, 0.0)  # few tables: every move, soon
        quiet = max(self.min_quiet, interval / 2)
        if s.changed_at == now and since >= interval and (s.milestone_now or now - s.still_since >= quiet):
            return max(gap, 0.0)  # a trick won, or the first move after a quiet spell
        at = min(max(s.shown_at + interval, s.changed_at + quiet), s.shown_at + 2 * interval)
        return max(at - now, gap, 0.0)

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
        s.recent_edits.append(now)
        s.pending = NONE
        self.edits += 1
        if s.phase[0] == "finished":
            self.forget(table.id)

    def forget(self, table_id: str) -> None:
        self._tables.pop(table_id, None)
        self._free.discard(table_id)
        self._set_running(table_id, None, False)

    def free(self, table_id: str, free: bool) -> None:
        """Whether this table's edits cost the budget nothing now (its message is edited through an
        interaction's token): such a table shares ``token_rate``, not the budget's spare rate."""
        if free:
            self._free.add(table_id)
        else:
            self._free.discard(table_id)
        if table_id in self._running or table_id in self._running_free:
            self._set_running(table_id, self._channel.get(table_id), True)

    def _set_running(self, table_id: str, channel: int | None, running: bool) -> None:
        old = self._channel.pop(table_id, None)
        if table_id in self._running and old is not None:
            self._per_channel[old] -= 1
            if not self._per_channel[old]:
                del self._per_channel[old]
        self._running.discard(table_id)
        self._running_free.discard(table_id)
        if not running:
            return
        if table_id in self._free:
            self._running_free.add(table_id)
            return
        self._running.add(table_id)
        if channel is not None:
            self._channel[table_id] = channel
            self._per_channel[channel] = self._per_channel.get(channel, 0) + 1

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
        self._set_running(table.id, getattr(table, "channel_id", None), phase[0] == "running")
        return s
