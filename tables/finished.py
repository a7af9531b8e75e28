"""Finished tables: when they leave memory, and the little that stays of them.

With a storage, a finished table leaves ``Runtime.tables`` as soon as its end is shown and stored:
its closing summary posted and its table message drawn finished (``Table.shown == SHOWN_ALL``),
that written to the storage, no listener call of it queued or under way, and the listener (its
optional ``showing(table)``) no longer drawing anything of it — a hand view being edited to show the
end reads the table by its id.  Until then it is checked again every :data:`RELEASE_EVERY` seconds
(and after ``keep_finished`` it goes anyway, as without a storage).

What stays is an :class:`Ended` stub (ids, seats' people, whether a game was played), so whatever
people do with an old table — a button on its message or on a hand view, ``/hand`` after the game —
still gets a clear sentence; ``/game replay`` and ``/stats`` read the storage.  Kept in memory, a
finished table's log, state and bookkeeping only made every full garbage collection longer.

Without a storage nothing else holds a finished game, so it stays for ``keep_finished`` seconds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from tables.clock import Clock
from tables.delivery import Delivery
from tables.live import Live, Tasks
from tables.persistence import Persistence
from tables.table import SHOWN_ALL, Phase, Table

log = logging.getLogger("deckhand.tables")

RELEASE_EVERY = 1.0  # seconds between two looks at whether a finished table's end is delivered


class AnyTable(Protocol):
    """What both a table in memory (:class:`~tables.table.Table`) and the :class:`Ended` stub of one
    that left it offer: code that may get either (an old button, ``/hand`` after the game) reads only this."""

    @property
    def id(self) -> str: ...
    @property
    def guild_id(self) -> int: ...
    @property
    def seed(self) -> int | None: ...  # None: closed before its game started
    @property
    def finished_at(self) -> float | None: ...
    @property
    def phase(self) -> Phase: ...

    def seat_of(self, user_id: int | None) -> int | None: ...


class Ended:
    """What stays in memory of a finished table that left it: enough to say it is over."""

    __slots__ = ("channel_id", "finished_at", "game", "guild_id", "id", "seed", "thread_id", "users")
    phase = Phase.FINISHED

    def __init__(self, t: Table) -> None:
        self.id = t.id
        self.guild_id = t.guild_id
        self.channel_id, self.thread_id = t.channel_id, t.thread_id  # (who may know of it: those who read there)
        self.game = t.game  # (How to play on its old hand views still names the game)
        self.seed = t.seed  # None: closed before its game started
        self.finished_at = t.finished_at
        self.users = tuple(None if s.is_ai else s.user_id for s in t.seats)

    def seat_of(self, user_id: int | None) -> int | None:
        if user_id is None:
            return None
        return next((i for i, u in enumerate(self.users) if u == user_id), None)


class Finished:
    def __init__(self, persistence: Persistence, delivery: Delivery, tasks: Tasks, clock: Clock,
                 live_of: Callable[[str], Live | None], *, forget: Callable[[Table], None]) -> None:
        self.persistence = persistence
        self.delivery = delivery
        self.tasks = tasks
        self.clock = clock
        self.live_of = live_of
        self.forget = forget
        self.ended: dict[str, Ended] = {}
        self._releasing: set[str] = set()

    def get(self, table_id: str) -> Ended | None:
        """The stub of a finished table that left memory (while ``keep_finished`` lasts)."""
        return self.ended.get(table_id)

    async def save_ids(self, t: Table, live: Live) -> None:
        """The delivery's ``moved``: store the table message's ids or what of the end was shown —
        and once the whole end is shown and stored, let the table go."""
        await self.persistence.save_ids(t, live)
        if (self.persistence.storage is not None and t.phase == Phase.FINISHED and self._stored(t, live)
                and t.id not in self._releasing):
            self._releasing.add(t.id)
            self.tasks.spawn(self._release(t, live), f"release:{t.id}")

    def prune(self, cutoff: float) -> None:
        for tid, e in list(self.ended.items()):
            if e.finished_at is None or e.finished_at < cutoff:
                del self.ended[tid]

    @staticmethod
    def _stored(t: Table, live: Live) -> bool:
        return (live.stored and live.saved_shown == SHOWN_ALL and live.saved_version == t.version
                and live.saved_log == len(t.log))

    def _delivered(self, t: Table, live: Live) -> bool:
        busy = (live.notify_task, live.redraw_task, live.recall_task)
        if live.notes or live.redraw_wanted or live.lock.locked() or any(x is not None and not x.done() for x in busy):
            return False
        showing = getattr(self.delivery.listener, "showing", None)
        try:
            return showing is None or not showing(t)
        except Exception:
            log.exception("Listener showing failed for table %s", t.id)
            return True

    async def _release(self, t: Table, live: Live) -> None:
        try:
            while self.live_of(t.id) is live and t.phase == Phase.FINISHED:
                if self._stored(t, live) and self._delivered(t, live):
                    self.ended[t.id] = Ended(t)
                    self.forget(t)
                    return
                await self.clock.sleep(RELEASE_EVERY)
        finally:
            self._releasing.discard(t.id)
