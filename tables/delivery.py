"""Listener calls: what the Discord layer hears, in order, outside the table's lock.

Two small tasks per table: a redraw task that coalesces requests to one call per
``redraw_interval`` (and calls again when the listener says it left part of a change unshown for
later: it paces the public table message), and a notifier that delivers ``turn``/``summary`` calls
in the order they were made — so a slow or failing Discord call never holds the lock or stops the
game.  With a storage, a call waits while a change is being committed: nothing is shown that a
crash could take back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from tables.clock import Clock
from tables.live import Listener, Live, NullListener, Tasks
from tables.table import SHOWN_END, SHOWN_SUMMARY, Phase, Table

log = logging.getLogger("deckhand.tables")


class Delivery:
    def __init__(
        self,
        listener: Listener | None,
        clock: Clock,
        tasks: Tasks,
        live_of: Callable[[str], Live | None],
        *,
        redraw_interval: float = 1.0,
        wait_for_commit: bool = False,
        moved: Callable[[Table, Live], Coroutine[object, object, None]] | None = None,
    ) -> None:
        """``live_of``: the bookkeeping of a table still here (None once it is forgotten).
        ``moved``: called when the listener re-posted a table message (its ids changed), to store
        them."""
        self.listener: Listener = listener if listener is not None else NullListener()
        self.clock = clock
        self.tasks = tasks
        self.live_of = live_of
        self.redraw_interval = redraw_interval
        self.wait_for_commit = wait_for_commit
        self.moved = moved

    def redraw(self, t: Table, pause_first: bool = False) -> None:
        """Ask for the table message to be redrawn (coalesced: at most once per interval)."""
        live = self.live_of(t.id)
        if live is None:
            return
        live.redraw_wanted = True
        if live.redraw_task is None or live.redraw_task.done():
            live.redraw_task = self.tasks.spawn(self._redraw_loop(t, live, pause_first), f"redraw:{t.id}")

    async def _redraw_loop(self, t: Table, live: Live, pause_first: bool = False) -> None:
        # The first request redraws at once (unless ``pause_first``); any made during the pause
        # after it cause exactly one more redraw when the pause ends.
        if pause_first:
            await self.clock.sleep(self.redraw_interval)
        while live.redraw_wanted:
            live.redraw_wanted = False
            await self._call(t, "redraw", t)
            await self.clock.sleep(self.redraw_interval)

    def abandon(self, t: Table, live: Live) -> None:
        """The table is no longer this process's (its shard's lease went): drop its redraws and
        the calls not made yet (a ping waiting for the REST budget too) but the summaries, and tell
        the listener at once (its optional ``released``: its own timers of the table go too)."""
        released = getattr(self.listener, "released", None)
        if released is not None:
            try:
                released(t)
            except Exception:
                log.exception("Listener released failed for table %s", t.id)
        live.redraw_wanted = False
        Tasks.cancel(live.redraw_task)
        Tasks.cancel(live.recall_task)
        live.redraw_task = live.recall_task = None
        kept = [note for note in live.notes if note[0] == "summary"]
        live.notes.clear()
        live.notes.extend(kept)
        if live.calling != "summary":
            Tasks.cancel(live.notify_task)
            live.notify_task = None
            if kept:
                live.notify_task = self.tasks.spawn(self._notify_loop(t, live), f"notify:{t.id}")

    def notify(self, t: Table, method: str, *args: object) -> None:
        """Queue one listener call (``turn``, ``summary``, the optional ``seat_changed``) behind the
        table's earlier ones."""
        live = self.live_of(t.id)
        if live is None or not hasattr(self.listener, method):
            return
        live.notes.append((method, args))
        if live.notify_task is None or live.notify_task.done():
            live.notify_task = self.tasks.spawn(self._notify_loop(t, live), f"notify:{t.id}")

    async def _notify_loop(self, t: Table, live: Live) -> None:
        while live.notes:
            method, args = live.notes.popleft()
            live.calling = method
            try:
                await self._call(t, method, *args)
            finally:
                live.calling = None

    async def _call(self, t: Table, method: str, *args: object) -> None:
        live = self.live_of(t.id)
        if self.wait_for_commit and live is not None and live.lock.locked():
            # A change is being committed: show nothing of it before it is safely stored.
            async with live.lock:
                pass
        ids = (t.message_id, t.thread_id)
        try:
            again = await getattr(self.listener, method)(*args)
        except Exception:
            log.exception("Listener %s failed for table %s", method, t.id)
            return
        if method == "redraw" and live is not None:
            self._recall(t, live, again)
        shown = self._shows_the_end(t, method, args)
        if shown == SHOWN_END and self._unshown(t):
            shown = 0  # (the message could not be reached: the end waits to be shown)
        if shown and not t.shown & shown:
            t.shown |= shown
        else:
            shown = 0
        if (self.moved is not None and live is not None and live.stored
                and (shown or (t.message_id, t.thread_id) != ids)):
            # The listener re-posted a deleted table message (remember where it is now), or the
            # players have now seen more of the end (a restart need not show it again).
            self.tasks.spawn(self.moved(t, live), f"ids:{t.id}")

    def _recall(self, t: Table, live: Live, again: object) -> None:
        """The listener's answer to a redraw: a number of seconds after which to call it again even
        if nothing more changes (it is waiting to show what it has not shown yet)."""
        Tasks.cancel(live.recall_task)
        live.recall_task = None
        if isinstance(again, bool) or not isinstance(again, int | float) or again != again:
            return

        async def later() -> None:
            await self.clock.sleep(max(float(again), self.redraw_interval))
            live.recall_task = None
            self.redraw(t)

        live.recall_task = self.tasks.spawn(later(), f"recall:{t.id}")

    def _unshown(self, t: Table) -> bool:
        """The listener's optional ``unshown(table)``: the redraw it just made could not reach the
        table message (where the bot may only answer interactions and no token is left), so the end
        is not shown yet: the table stays stored as unfinished until it is."""
        unshown = getattr(self.listener, "unshown", None)
        if unshown is None:
            return False
        try:
            return bool(unshown(t))
        except Exception:
            log.exception("Listener unshown failed for table %s", t.id)
            return False

    @staticmethod
    def _shows_the_end(t: Table, method: str, args: tuple[Any, ...]) -> int:
        if t.phase != Phase.FINISHED:
            return 0
        if method == "redraw":
            return SHOWN_END
        if method == "summary":
            events = args[1] if len(args) > 1 else []
            if not events or any(e.kind == "game_end" for e in events):
                return SHOWN_SUMMARY
        return 0

    def tell_broken(self, t: Table, reason: str) -> None:
        """The optional ``broken`` call: a stored table could not be restored."""
        tell = getattr(self.listener, "broken", None)
        if tell is None:
            return

        async def call() -> None:
            try:
                await tell(t, reason)
            except Exception:
                log.exception("Listener broken failed for table %s", t.id)

        self.tasks.spawn(call(), f"broken:{t.id}")
