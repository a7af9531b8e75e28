"""Who acts when: the one path every change takes, deadlines, the AI's and the table's own moves,
the missed-turn ladder, and the lobby's expiry.

Every change to a table — a person's, the AI's, a program's or a deadline's — goes through
:meth:`Turns.apply` then :meth:`Turns.after_change`, under the table's lock, so the log replays
exactly and ``version`` counts every move.  Per table there is at most one deadline task (sleeping
until the earliest deadline, re-armed when the deadlines change) and one AI task (waiting
``ai_delay``, then moving for every AI or away seat that must act).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection

from engine.core import TABLE, Action, Decision, Event, IllegalAction, rng_for
from tables import ahead
from tables.ai.pool import AIPool
from tables.clock import Clock
from tables.delivery import Delivery
from tables.live import Live, Tasks
from tables.persistence import Persistence
from tables.programs.protocol import Answer
from tables.programs.seats import ProgramSeats
from tables.storage.base import Record
from tables.table import RECENT_EVENTS, SHOWN_SUMMARY, SPEEDS, LogEntry, Phase, Table

log = logging.getLogger("deckhand.tables")

MISSES_TO_AWAY = 3
SUMMARY_EVENTS = frozenset({"hand_end", "game_end"})
DEFAULT_TIMER = 30.0
LOBBY_TTL = 30 * 60.0  # a lobby nobody starts closes after this long


class Turns:
    def __init__(
        self,
        clock: Clock,
        tasks: Tasks,
        delivery: Delivery,
        persistence: Persistence,
        programs: ProgramSeats,
        live_of: Callable[[str], Live | None],
        *,
        ai_delay: float = 1.0,
        table_pace: float = 1.0,
        lobby_ttl: float | None = LOBBY_TTL,
        ai_pool: AIPool | None = None,
    ) -> None:
        """``table_pace``: multiplies the table's own timers (a live deal and its
        windows), never a person's."""
        if not table_pace > 0:
            raise ValueError("table_pace must be a positive number of times the table's own timers.")
        self.clock = clock
        self.tasks = tasks
        self.delivery = delivery
        self.persistence = persistence
        self.programs = programs
        self.live_of = live_of
        self.ai_delay = ai_delay
        self.table_pace = float(table_pace)
        #: Called with each table whose game ends (by its rules or early), under its lock: a
        #: tournament scores it (tables/tournaments.py).  Must not block.
        self.on_end: list[Callable[[Table], None]] = []
        self.lobby_ttl = lobby_ttl
        self.ai_pool = ai_pool

    def _live(self, t: Table) -> Live:
        live = self.live_of(t.id)
        assert live is not None, t.id
        return live

    # ==== the one path every change takes =====================================================
    def apply(self, t: Table, seat: int, action: Action, *, auto: bool, timeout: bool = False) -> list[Event]:
        """``timeout``: the clock moves for a person whose time ran out (the log entry says so, and
        the Discord layer tells the table)."""
        assert t.state is not None
        events = t.state.apply(seat, action)  # raises IllegalAction having changed nothing
        t.version += 1
        t.log.append(LogEntry(t.version, seat, action.code, self.clock.now(), auto, timeout))
        return events

    def auto_apply(self, t: Table, seat: int, *, timeout: bool = False) -> list[Event]:
        """The AI's move for ``seat`` — also the safe move at a deadline.  A failing AI must not
        stall a game people are playing, so it falls back to a random legal move."""
        live = self._live(t)
        state = t.state
        assert state is not None and t.seed is not None
        try:
            ai = live.ai if live.ai is not None else t.spec.ai()
            action = ai.choose(state, seat, rng_for(t.seed, "ai", t.version, seat))
            return self.apply(t, seat, action, auto=True, timeout=timeout)
        except Exception:
            log.exception("AI move failed at table %s seat %d; playing a random legal move", t.id, seat)
        action = state.random_action(seat, rng_for(t.seed, "fallback", t.version, seat))
        return self.apply(t, seat, action, auto=True, timeout=timeout)

    def _optional_move(self, t: Table, seat: int) -> Action | None:
        """What an AI seat wants to do while the table acts (declare during a deal), if anything."""
        live = self._live(t)
        assert t.state is not None and t.seed is not None
        ai = live.ai if live.ai is not None else t.spec.ai()
        try:
            return ai.choose_optional(t.state, seat, rng_for(t.seed, "ai", t.version, seat))
        except Exception:
            log.exception("AI optional move failed at table %s seat %d; skipping it", t.id, seat)
            return None

    def after_change(
        self, t: Table, events: list[Event], actors: Collection[int], quiet: Collection[int] = ()
    ) -> None:
        """Under the lock, after a move (or the start): record, notify, re-plan who acts when."""
        live = self._live(t)
        ProgramSeats.deliver(live, events)
        public = [e for e in events if e.to is None]
        if public:
            t.recent.extend(public)
            del t.recent[:-RECENT_EVENTS]
            if any(e.kind == "deal" for e in public):
                live.snap_due = True  # a new hand: replay after a restart starts here
        self.programs.sync(t, live)
        ends = [e for e in public if e.kind in SUMMARY_EVENTS]
        if ends:
            live.picks.clear()  # a card chosen ahead is for this hand only
            self.delivery.notify(t, "summary", t, ends)
        assert t.state is not None
        if t.state.is_over:
            self.finish(t)
            self.delivery.notify(t, "seat_changed", t, tuple(range(len(t.seats))))  # the end, for all
        else:
            # Cards a seat alone was told of (dealt, passed, received) changed its hand.
            told = {e.to for e in events if e.to is not None and e.to >= 0}
            self.reschedule(t, actors, quiet=quiet, touched=told)
        self.delivery.redraw(t)

    def resume(self, t: Table, live: Live, record: Record, since: dict[int, int]) -> None:
        """Bring a table rebuilt from the storage back to life: deadlines re-armed at their stored
        absolute times (an overdue one fires at once), AI seats moving, the message redrawn."""
        Persistence.resumed(t, live, record)
        self.programs.setup(t, live)  # started afresh, brought up to the current point
        if t.phase == Phase.RUNNING:
            state = t.state
            assert state is not None
            live.ai = t.spec.ai()
            # Seats face the decisions they faced before the restart: no new pings, same deadlines.
            live.pending = {s: state.decision(s) for s in state.to_act()}
            live.since = {s: since.get(s, t.version) for s in state.to_act()}
            self.reschedule(t)
        elif t.phase == Phase.LOBBY:
            self.arm_lobby_expiry(t, live)
        elif not t.shown & SHOWN_SUMMARY:
            # The game ended just before the bot stopped: its summary was never posted.
            self.delivery.notify(t, "summary", t, closing_events(t))
        # The bot that went may have edited this message a moment ago: keep to one edit a second.
        self.delivery.redraw(t, pause_first=True)

    def reschedule(
        self,
        t: Table,
        actors: Collection[int] = (),
        restart: Collection[int] = (),
        quiet: Collection[int] = (),
        touched: Collection[int] = (),
    ) -> None:
        """Deadlines for people, an AI task for AI/away seats, pings for people newly due.

        A seat still facing the very decision it faced before keeps its deadline (one passer
        choosing must not reset the others' clocks); ``actors`` just moved and ``restart`` came
        back, so theirs start afresh.

        The listener hears ``seat_changed`` for the seats whose own view changed: a new or ended
        decision, a move made for them, cards only they were told of (``touched``), a return —
        not the person who just acted (``quiet``): the answer to their action shows it.  Each
        seat's signal is for that seat's own view only (which seats had private news is hidden)."""
        live = self._live(t)
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
            # One clock for several decisions (a turn of several actions): acting does not restart it.
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
        seats_changed = {s for s in set(pending) | set(live.pending) if pending.get(s) != live.pending.get(s)}
        seats_changed.update(actors, restart, touched)
        # A person who just acted (``quiet``) sees the result in the answer to their own action.
        seats_changed = {s for s in seats_changed if 0 <= s < len(t.seats) and s not in quiet}
        live.pending, live.since, t.deadlines = pending, since, deadlines
        self._arm_deadlines(t)
        if seats_changed:
            self.delivery.notify(t, "seat_changed", t, tuple(sorted(seats_changed)))
        Tasks.cancel(live.ai_task)
        live.ai_task = None
        if auto_due and live.stuck_at != t.version:
            live.ai_task = self.tasks.spawn(self._ai_move(t, live, t.version), f"ai:{t.id}")
        if newly:
            self.delivery.notify(t, "turn", t, tuple(newly))
        if live.picks.chosen or live.picks.dropped:
            ahead.sweep(t, live.picks)
            if ahead.due(t, live.picks):  # a turn came with a card chosen ahead: as if clicked now
                self.tasks.spawn(self._ahead_move(t, live), f"ahead:{t.id}")

    def finish(self, t: Table, *, early: bool = False) -> None:
        live = self._live(t)
        t.phase = Phase.FINISHED
        t.ended_early = early
        t.finished_at = self.clock.now()
        t.deadlines = {}
        live.pending, live.since = {}, {}
        live.stop_timers()
        self.programs.stop(t, live)
        for tell in self.on_end:
            try:
                tell(t)
            except Exception:
                log.exception("A game-end hook failed for table %s", t.id)

    # ==== deadlines ============================================================================
    def _arm_deadlines(self, t: Table) -> None:
        live = self._live(t)
        earliest = min(t.deadlines.values(), default=None)
        if earliest is not None and live.hold_until > earliest:
            earliest = live.hold_until  # the last write failed: an overdue deadline waits too
        task = live.deadline_task
        current = asyncio.current_task()
        if earliest is not None and earliest == live.deadline_at and task is not None:
            if not task.done() and task is not current:
                return  # already sleeping until exactly that time
        Tasks.cancel(task)
        live.deadline_task, live.deadline_at = None, earliest
        if earliest is not None:
            live.deadline_task = self.tasks.spawn(self._deadline_wait(t, live, earliest), f"deadline:{t.id}")

    async def _deadline_wait(self, t: Table, live: Live, when: float) -> None:
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
                        events.extend(self.apply(t, TABLE, timer[1], auto=True))
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
                    forced = t.state.timeout_action(s)
                    if forced is not None:
                        events.extend(self.apply(t, s, forced, auto=True, timeout=True))
                    else:
                        events.extend(self.auto_apply(t, s, timeout=True))
                except Exception:
                    log.exception("Safe move failed at table %s seat %d; leaving it to the player", t.id, s)
                    t.deadlines.pop(s, None)  # never retry in a loop
                    continue
                actors.append(s)
                if t.state.is_over:
                    break
            if actors:
                self.after_change(t, events, actors)
                await self.persistence.commit_quietly(t)
            else:
                live.deadline_task = None
                live.deadline_at = None
                self._arm_deadlines(t)

    # ==== AI moves =============================================================================
    async def _ai_move(self, t: Table, live: Live, version: int) -> None:
        delay = max(self.ai_delay, live.hold_until - self.clock.now())
        pause = self.clock.sleep(delay) if delay > 0 else asyncio.sleep(0)
        answers: dict[int, Answer] = {}
        searches = self._start_searches(t, version, delay)
        try:
            if live.programs is None:
                await pause
            else:
                # A program is asked outside the lock (people's clicks go on meanwhile), during the
                # usual pause; its answer counts only if the table is still at ``version`` below.
                _, answers = await asyncio.gather(pause, self.programs.answers(t, live, version))
        except BaseException:
            for task in searches.values():  # the move was called off (the table let go): no search
                task.cancel()               # goes on without it
            raise
        # A search counts only if it finished within the pause: how long an AI takes must not
        # depend on its cards, so the pause is the same whatever the search found.
        searched = {s: found for s, task in searches.items() if task.done() and not task.cancelled()
                    and task.exception() is None and (found := task.result()) is not None}
        for task in searches.values():
            task.cancel()
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
                        events.extend(self.apply(t, s, optional, auto=True))
                    elif s in answers:
                        events.extend(self._program_move(t, live, s, answers[s]))
                    elif s in searched:
                        events.extend(self._searched_move(t, s, searched[s]))
                    else:
                        events.extend(self.auto_apply(t, s))
                    actors.append(s)
                    if state.is_over:
                        break
            except Exception:
                log.exception("AI could not move at table %s (version %d); waiting for a person", t.id, t.version)
                live.stuck_at = t.version
            if actors:
                self.after_change(t, events, actors)
                await self.persistence.commit_quietly(t)

    async def _ahead_move(self, t: Table, live: Live) -> None:
        """Play the cards chosen ahead whose turn came (tables/ahead.py), as the people's own moves;
        one no longer legal is dropped and said to its person alone (their own view's signal).
        Others see it as they would a click made the moment the turn came."""
        async with live.lock:
            if t.phase != Phase.RUNNING or t.state is None or self.live_of(t.id) is not live:
                return
            state = t.state
            events: list[Event] = []
            actors: list[int] = []
            refused: list[int] = []
            for s in ahead.due(t, live.picks):
                code = live.picks.chosen.pop(s)
                try:
                    events.extend(self.apply(t, s, ahead.action_of(t, s, code), auto=False))
                except IllegalAction:
                    live.picks.dropped[s] = code
                    refused.append(s)
                    continue
                live.picks.dropped.pop(s, None)
                t.seats[s].missed = 0  # (as when they click: whoever acts is present)
                actors.append(s)
                if state.is_over:
                    break
            if actors:
                # As after their own click: no new ping for whoever just played (which others would
                # see), only their own view's signal (it shows the card played).
                self.after_change(t, events, actors, quiet=actors)
            if actors or refused:
                self.delivery.notify(t, "seat_changed", t, tuple(sorted({*actors, *refused})))
            if actors:
                await self.persistence.commit_quietly(t)

    def _start_searches(self, t: Table, version: int, delay: float) -> dict[int, asyncio.Task[Action | None]]:
        """Searches for the ``strong`` AI seats that must move now, in the AI pool, within the pause."""
        pool, state = self.ai_pool, t.state
        if pool is None or state is None or delay <= 0 or TABLE in state.to_act():
            return {}
        out: dict[int, asyncio.Task[Action | None]] = {}
        for s in state.to_act():
            seat = t.seats[s] if s >= 0 else None
            if seat is None or not seat.is_ai or seat.level is None or seat.program:
                continue
            out[s] = asyncio.ensure_future(pool.choose(t.game, state, s, f"{t.seed}/ai/{version}/{s}",
                                                       level=seat.level, budget=0.75 * delay))
        return out

    def _searched_move(self, t: Table, seat: int, action: Action) -> list[Event]:
        try:
            return self.apply(t, seat, action, auto=True)
        except IllegalAction:
            log.exception("Table %s: the searched move for seat %d was refused; the AI moves", t.id, seat)
            return self.auto_apply(t, seat)

    def _program_move(self, t: Table, live: Live, seat: int, answer: Answer) -> list[Event]:
        """The program's card (or the engine's ``bad`` action); the built-in AI should the program
        be gone meanwhile or its move be refused."""
        action = self.programs.judge(t, live, seat, answer)
        if action is not None:
            try:
                return self.apply(t, seat, action, auto=True)
            except IllegalAction:
                log.exception("Table %s: the program's move for seat %d was refused; the AI moves", t.id, seat)
        return self.auto_apply(t, seat)

    # ==== lobby expiry =========================================================================
    def arm_lobby_expiry(self, t: Table, live: Live) -> None:
        if self.lobby_ttl is None or t.phase != Phase.LOBBY:
            return
        Tasks.cancel(live.lobby_task)
        live.lobby_task = self.tasks.spawn(self._lobby_wait(t, live), f"lobby:{t.id}")

    async def _lobby_wait(self, t: Table, live: Live) -> None:
        assert self.lobby_ttl is not None
        await self.clock.sleep(t.created_at + self.lobby_ttl - self.clock.now())
        async with live.lock:
            if live.lobby_task is not asyncio.current_task() or t.phase != Phase.LOBBY:
                return
            log.info("Table %s: nobody started the lobby in %.0f minutes; closing it", t.id, self.lobby_ttl / 60)
            self.finish(t, early=True)
            self.delivery.notify(t, "summary", t, [])
            self.delivery.redraw(t)
            await self.persistence.commit_quietly(t)


def closing_events(t: Table) -> list[Event]:
    """The events of a finished game's closing summary (its last hand's end and the game's), from
    the public events a rebuild replayed; none for a table ended early."""
    if t.ended_early:
        return []
    ends = [e for e in t.recent if e.kind in SUMMARY_EVENTS]
    return [e for e in ends if e.kind == "hand_end"][-1:] + [e for e in ends if e.kind != "hand_end"]
