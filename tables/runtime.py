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

import asyncio
import builtins
import random
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Action, Event, IllegalAction, Options
from engine.review import Review
from tables import clicks, offers, rematch
from tables.ai.hints import Hint, Hints
from tables.ai.pool import AIPool
from tables.ai.reviews import Reviews
from tables.clock import Clock, SystemClock
from tables.delivery import Delivery
from tables.finished import Finished
from tables.history.ratings import Ratings
from tables.history.replay import GameRecord
from tables.ids import echo, new_id, normalise
from tables.kept import Kept
from tables.live import (
    TOO_LATE,
    Listener,
    Live,
    NullListener,
    Recovery,
    SeatView,
    TableError,
    Tasks,
    md,
)
from tables.live import answer_by as click_deadline
from tables.persistence import MOVED, NOT_SAVED, SNAPSHOT_EVERY, Persistence
from tables.privacy import GRACE, Privacy
from tables.programs.driver import ProgramSettings
from tables.programs.seats import ProgramSeats
from tables.rematch import Plan, Rematch
from tables.servers import Servers
from tables.shards import Shards
from tables.storage import Storage
from tables.table import Phase, Seat, Table
from tables.turns import DEFAULT_TIMER, LOBBY_TTL, MISSES_TO_AWAY, SUMMARY_EVENTS, Turns
from words import N_

__all__ = [
    "DEFAULT_TIMER", "LOBBY_TTL", "MISSES_TO_AWAY", "MOVED", "NOT_SAVED", "SNAPSHOT_EVERY", "STALE",
    "SUMMARY_EVENTS", "Listener", "NullListener", "Recovery", "Runtime", "SeatView", "TableError",
]

STALE = "That button is from an earlier turn; open your hand again with **My hand**."


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
        departed_grace: float | None = GRACE,
        prune_every: float = 3600.0,
        programs: ProgramSettings | Mapping[str, str] | None = None,
        table_pace: float = 1.0,
        limits: offers.Limits | None = None,
        ai_pool: AIPool | None = None,
        shards: Shards | None = None,
    ) -> None:
        """``storage``: where tables are kept across restarts (``None``: nothing is kept); the
        runtime owns it and :meth:`close` closes it.  ``lobby_ttl``: seconds before an unstarted
        lobby closes (``None``: never).  ``retention``: seconds a finished table and its log are
        kept in the storage (``None``: for ever; results for /stats are always kept), checked every
        ``prune_every`` seconds once :meth:`recover` has run.  ``departed_grace``: seconds before the
        data of a server that removed Deckhand is deleted (``None``: never; tables/privacy.py).
        ``programs``: the programs a host may seat at a table of a game with program seats, by name
        (:class:`~tables.programs.driver.ProgramSettings`, or just a name → command line mapping);
        only the operator's configuration may give these.
        ``table_pace``: multiplies the table's own timers (a live deal and its
        windows), never a person's — so tests and demos can deal 100 cards in a second while people
        keep their real time to think.  ``limits``: caps per person, per server and on program
        processes (:class:`~tables.offers.Limits`).  ``ai_pool``: where ``strong`` AI seats search
        (:class:`~tables.ai.pool.AIPool`, started and closed by its owner); without one they play
        the ``normal`` move.  ``shards``: the shards this process holds (:mod:`tables.shards`; default
        one shard, everything): it creates, recovers and answers only tables of their guilds."""
        self.shards = shards if shards is not None else Shards.everything()
        self.limits = limits if limits is not None else offers.Limits()
        self.clock: Clock = clock if clock is not None else SystemClock()
        # Seeds and table ids come from the operating system's secure generator (``secrets``): a
        # seed is printed in every replay, so it must not be guessable from others.  Tests inject a
        # seeded ``random.Random`` for a known deal.
        self.rng = rng if rng is not None else secrets.SystemRandom()
        self.keep_finished = keep_finished  # finished tables stay readable this long
        if programs is None or isinstance(programs, ProgramSettings):
            settings = programs or ProgramSettings()
        else:
            settings = ProgramSettings(dict(programs))
        self.tables: dict[str, Table] = {}
        # Lobbies checked and being stored (before they join ``tables``): every limit counts them,
        # so requests that come together are judged one after the other (:meth:`_claims`).
        self._opening: builtins.list[Table] = []
        self._live: dict[str, Live] = {}
        self.tasks = Tasks()
        self._tasks = self.tasks.running
        self.delivery = Delivery(listener, self.clock, self.tasks, self._live.get,
                                 redraw_interval=redraw_interval, wait_for_commit=storage is not None)
        # A table the storage says another process runs now is let go like a fenced one.
        self.persistence = Persistence(storage, self.clock, self.tasks, self.delivery, self._live.get,
                                       forget=self._fenced, resume=lambda *a: self.turns.resume(*a),
                                       retention=retention, prune_every=prune_every, shards=self.shards)
        # Once a finished table's end is shown and stored it leaves memory (tables/finished.py).
        self.finished = Finished(self.persistence, self.delivery, self.tasks, self.clock, self._live.get,
                                 forget=self._forget)
        self.delivery.moved = self.finished.save_ids
        self.program_seats = ProgramSeats(settings, self.tasks, self.delivery, self.persistence.commit_quietly)
        self.turns = Turns(self.clock, self.tasks, self.delivery, self.persistence, self.program_seats,
                           self._live.get, ai_delay=ai_delay, table_pace=table_pace, lobby_ttl=lobby_ttl,
                           ai_pool=ai_pool)
        self.hints = Hints(self.persistence, ai_pool)
        #: Reviews of a person's play in a finished game (tables/ai/reviews.py), kept in the storage.
        self.reviews = Reviews(storage, ai_pool, self.clock)
        #: The ratings kept in the storage (``None`` without one): what the cogs rate and read.
        self.ratings: Ratings | None = Ratings(storage) if storage is not None else None
        # Play again: the rematch opened from each finished table (old id -> new id), so a second
        # press points to it instead of opening another; one lock so two presses cannot both open.
        # The links are stored too (``kept``), so a restarted bot still finds the first rematch.
        self.rematches: dict[str, str] = {}
        #: What a restart must not forget besides the tables: rematch links, standing pings.
        self.kept = Kept(storage)
        #: A server's own settings (the language its tables read), kept in the storage.
        self.servers = Servers(storage)
        #: A person's data (export, forget me) and servers that removed Deckhand.
        self.privacy = Privacy(storage, self.clock, tables=self.tables, live_of=self._live.get,
                               ended=self.finished.ended, reviews=self.reviews, grace=departed_grace)
        self._rematch_lock = asyncio.Lock()
        self._sweep: asyncio.Task[None] | None = None

    # Settings that tests and the bot read or change after construction live in the rooms.
    @property
    def listener(self) -> Listener:
        return self.delivery.listener

    @listener.setter
    def listener(self, value: Listener | None) -> None:
        self.delivery.listener = value if value is not None else NullListener()

    @property
    def redraw_interval(self) -> float:
        return self.delivery.redraw_interval

    @redraw_interval.setter
    def redraw_interval(self, value: float) -> None:
        self.delivery.redraw_interval = value

    @property
    def ai_delay(self) -> float:
        return self.turns.ai_delay

    @ai_delay.setter
    def ai_delay(self, value: float) -> None:
        self.turns.ai_delay = value

    @property
    def programs(self) -> ProgramSettings:
        return self.program_seats.settings

    @property
    def storage(self) -> Storage | None:
        return self.persistence.storage

    @property
    def retention(self) -> float | None:
        return self.persistence.retention

    # ==== lookups ==============================================================================
    def get(self, table_id: str) -> Table:
        tid = normalise(table_id)
        t = self.tables.get(tid)
        if t is None:
            raise TableError(f"There is no table with id `{echo(tid) or '?'}`.", "unknown_table")
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
        """The programs a host may seat (at a game with program seats), as the operator named them."""
        return self.program_seats.names

    def list(self, guild_id: int) -> list[Table]:
        return [t for t in self.tables.values() if t.guild_id == guild_id and t.phase != Phase.FINISHED]

    def seat_view(self, table_id: str, user_id: int) -> SeatView:
        t = self.get(table_id)
        seat = t.seat_of(user_id)
        if seat is None:
            raise TableError(N_("You are not seated at this table."), "not_seated")
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
        options: Options | None = None,
        speed: str = "normal",
        ai_level: str | None = None,
        locale: str = "en",
        place: str = "server",
    ) -> Table:
        """``ai_level``: the table option ``ai`` (the level of AI players added without one);
        ``locale``: the language the whole table reads (words/: the server's, by default);
        ``place``: where it lives (``Table.place``; ``guild_id`` is a DM's channel id there)."""
        self.shards.refuse_elsewhere(None if place == "private" else guild_id)
        name, opts, speed_key = offers.read_new_table(game, options, speed)
        offers.refuse_if_elsewhere(self._claims(), guild_id, host_id, None)
        self._prune()
        offers.check_new_table(self.limits, self._claims(), host_id)
        self.persistence.refuse_if_gone()
        return await self._open(name, opts, speed_key, guild_id, channel_id, host_id, host_name,
                                offers.table_ai_level(name, ai_level), locale=locale, place=place)

    async def _open(self, game: str, options: dict[str, Any], speed: str, guild_id: int, channel_id: int,
                    host_id: int, host_name: str, ai_level: str | None, ais: Sequence[Seat] = (),
                    locale: str = "en", place: str = "server") -> Table:
        """A new lobby, checked already (with no wait since the checks): stored, kept and drawn.
        It counts against every limit from now on — before the first wait — until it is stored and
        kept, or its storing failed."""
        t = Table(
            id=new_id(self.rng, self._taken()),
            game=game,
            options=options,
            speed=speed,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            seats=[Seat(host_id, host_name)],
            created_at=self.clock.now(),
            ai_level=ai_level,
            locale=locale,
            place=place,
        )
        for seat in ais[:max(0, t.max_seats - 1)]:
            if seat.program is not None and seat.program in self.program_names():
                try:
                    offers.check_programs(self.limits, self._claims(), 1 + sum(1 for s in t.seats if s.program))
                except TableError:
                    pass  # no room for another program now: the built-in AI plays that seat
                else:
                    t.seats.append(Seat(None, self.program_seats.seat_name(t, seat.program), is_ai=True,
                                        program=seat.program))
                    continue
            t.seats.append(Seat(None, offers.ai_name(t, seat.level), is_ai=True, level=seat.level))
        live = Live()
        self._opening.append(t)
        try:
            await self.persistence.insert(t, live, lambda: new_id(self.rng, self._taken()))
            self.tables[t.id] = t
            self._live[t.id] = live
        finally:
            self._opening = [o for o in self._opening if o is not t]
        self.turns.arm_lobby_expiry(t, live)
        self.delivery.redraw(t)
        return t

    async def join(self, table_id: str, user_id: int, name: str) -> Table:
        t = self.get(table_id)
        async with self._live[t.id].lock:
            seat = t.seat_of(user_id)
            if t.phase == Phase.LOBBY:
                if seat is not None:
                    raise TableError(N_("You already have a seat at this table."), "already_seated")
                if t.free_seats() <= 0:
                    raise TableError(f"Table `{t.id}` is full.", "full")
                offers.refuse_if_elsewhere(self._claims(), t.guild_id, user_id, t)
                t.seats.append(Seat(user_id, name))
                await self.persistence.commit(t)
                self.delivery.redraw(t)
                return t
            if t.phase == Phase.FINISHED:
                raise TableError(N_("That table has closed."), "finished")
            if seat is None:
                raise TableError(
                    "That game has already started; you can join the next one when it ends.", "started"
                )
            s = t.seats[seat]
            if not s.away:
                raise TableError(N_("You are already playing at this table."), "already_seated")
            self._come_back(t, seat)
            await self.persistence.commit(t)
            return t

    async def leave(self, table_id: str, user_id: int) -> Table:
        t = self.get(table_id)
        async with self._live[t.id].lock:
            seat = t.seat_of(user_id)
            if seat is None:
                raise TableError(N_("You are not seated at this table."), "not_seated")
            if t.phase == Phase.FINISHED:
                raise TableError(N_("That table has already closed."), "finished")
            if t.phase == Phase.LOBBY:
                del t.seats[seat]
                humans = t.humans()
                if humans and t.host_id == user_id:
                    t.host_id = t.seats[humans[0]].user_id  # type: ignore[assignment]
                if not humans:
                    self.turns.finish(t, early=True)
                await self.persistence.commit(t)
                self.delivery.redraw(t)  # before forgetting the table: its message should say so
                if not humans:
                    self.tables.pop(t.id, None)
                    self._live.pop(t.id, None)
                return t
            s = t.seats[seat]
            if s.left:
                raise TableError(N_("You have already left this game; join again to take your seat back."), "left")
            s.away = s.left = True
            if t.host_id == user_id:
                # Someone still playing must be able to end the table.
                present = [i for i in t.humans() if not t.seats[i].left]
                if present:
                    t.host_id = t.seats[present[0]].user_id  # type: ignore[assignment]
            self.turns.reschedule(t, touched=(seat,))  # their view says the AI plays now
            await self.persistence.commit(t)
            self.delivery.redraw(t)
            return t

    async def add_ai(self, table_id: str, user_id: int, count: int | None = None, *,
                     program: str | None = None, level: str | None = None) -> int:
        """Seat ``count`` AI players (default: every free seat), or with ``program`` that many
        copies (default one) of a program the operator configured, chosen by its name only."""
        t = self.get(table_id)
        async with self._live[t.id].lock:
            offers.require_host(t, user_id, N_("add AI players"))
            if program is not None:
                program = self.program_seats.program_of(t, program)
            level = offers.ai_level(t, t.ai_level if level is None else level)
            if t.phase != Phase.LOBBY:
                raise TableError(N_("AI players can only be added before the game starts."), "started")
            free = t.free_seats()
            if free <= 0:
                raise TableError(N_("There is no free seat for an AI."), "full")
            n = (free if program is None else 1) if count is None else count
            if n < 1:
                raise TableError(N_("Add at least one AI player."), "bad_count")
            n = min(n, free)
            if program is not None:
                offers.check_programs(self.limits, self._claims(), n)
            for _ in range(n):
                if program is None:
                    t.seats.append(Seat(None, offers.ai_name(t, level), is_ai=True, level=level))
                else:
                    t.seats.append(Seat(None, self.program_seats.seat_name(t, program), is_ai=True, program=program))
            await self.persistence.commit(t)
            self.delivery.redraw(t)
            return n

    async def start(self, table_id: str, user_id: int) -> Table:
        t = self.get(table_id)
        live = self._live[t.id]
        async with live.lock:
            offers.require_host(t, user_id, N_("start the game"))
            if t.phase == Phase.RUNNING:
                raise TableError(N_("The game has already started."), "started")
            if t.phase == Phase.FINISHED:
                raise TableError(N_("This table has closed."), "finished")
            offers.check_start(self.limits, self.tables.values(), t.guild_id)
            self.persistence.refuse_if_gone()
            entry = t.spec
            players = max(len(t.seats), t.min_seats)
            seed = self.rng.getrandbits(63)
            try:
                state = entry.game.create(players, t.options, seed)
            except ValueError as e:
                raise TableError(str(e), "cannot_start") from None
            while len(t.seats) < players:
                t.seats.append(Seat(None, offers.ai_name(t, t.ai_level), is_ai=True, level=t.ai_level))
            t.seed, t.state, t.phase = seed, state, Phase.RUNNING
            live.ai = entry.ai()
            Tasks.cancel(live.lobby_task)
            live.lobby_task = None
            self.program_seats.setup(t, live)
            self.turns.after_change(t, [], ())
            await self.persistence.commit(t)
            return t

    async def end(self, table_id: str, user_id: int, *, admin: bool = False) -> Table:
        t = self.get(table_id)
        async with self._live[t.id].lock:
            if t.phase == Phase.FINISHED:
                raise TableError(N_("This table has already ended."), "finished")
            if not admin and user_id != t.host_id:
                raise TableError(
                    f"Only the host, {md(t.host_name)}, or a server manager can end this table.", "not_host"
                )
            self.turns.finish(t, early=True)
            self.delivery.notify(t, "summary", t, [])
            self.delivery.redraw(t)
            await self.persistence.commit(t)
            return t

    async def rematch(self, table_id: str, user_id: int, name: str, *, guild_id: int, channel_id: int) -> Rematch:
        """**Play again** on a finished table: a new lobby in ``channel_id`` with the same game,
        options, speed and AI level, its AI players seated again (same levels), hosted by the person
        who pressed (anyone who sat at the old table); the old table's other people are to be invited,
        not seated.  One rematch per finished table, ever: while it is open (or its game runs) a
        second press is refused with a sentence pointing to it, and once it has closed or ended,
        with a sentence saying it was played again already.  The old table's record is only read."""
        tid = normalise(table_id)
        old = self.tables.get(tid)
        self.shards.refuse_elsewhere(guild_id if old is None else old.shard_key)
        async with self._rematch_lock:
            plan = await self._rematch_plan(tid, guild_id, user_id)
            if not plan.sat_there(user_id):
                raise rematch.not_a_player(tid)
            if not plan.played:
                raise rematch.never_played(tid)
            # (a link whose two tables have both left memory is forgotten here, so the map does not
            # grow for ever: the old table is then read from the storage, which keeps the link too)
            self.rematches = {old: new for old, new in self.rematches.items()
                              if old in self.tables or new in self.tables}
            new = self.rematches.get(tid)
            if new is None:
                new = await self.kept.rematch_of(tid)  # after a restart: the link stored with it
            if new is not None:
                # One rematch per finished table, ever: never a second lobby pinging the same people.
                opened = self.tables.get(new)
                if opened is not None and opened.phase != Phase.FINISHED:
                    raise rematch.already_open(tid, opened)
                raise rematch.used(tid, new)
            offers.refuse_if_elsewhere(self._claims(), guild_id, user_id, None)
            self._prune()
            offers.check_new_table(self.limits, self._claims(), user_id)
            self.persistence.refuse_if_gone()
            t = await self._open(plan.game, plan.options, plan.speed, guild_id, channel_id, user_id, name,
                                 plan.ai_level, plan.ais, locale=plan.locale, place=plan.place)
            self.rematches[tid] = t.id
            await self.kept.save_rematch(tid, t.id, self.clock.now())
            return Rematch(t, tuple(u for u in plan.people if u != user_id))

    async def _rematch_plan(self, tid: str, guild_id: int, user_id: int) -> Plan:
        """What the finished table ``tid`` hands on: from memory while it is there, else from its
        stored row (its stub, while kept, refuses a stranger without reading the storage)."""
        missing = TableError(f"There is no game with id `{echo(tid) or '?'}` in my records.", "unknown_table")
        t = self.tables.get(tid)
        if t is not None:
            if t.guild_id != guild_id:
                raise missing
            if t.phase != Phase.FINISHED:
                raise rematch.not_finished(tid)
            return rematch.of_table(t)
        ended = self.finished.get(tid)
        if ended is not None and ended.guild_id == guild_id and ended.seat_of(user_id) is None:
            raise rematch.not_a_player(tid)
        row = await self.persistence.row(tid, guild_id)
        if row is None:
            raise missing
        if row.get("phase") != Phase.FINISHED:
            raise rematch.not_finished(tid)
        return rematch.of_stored(row)

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
                raise TableError(e.reason, e.code) from None
            # Whoever acts is present again.
            s.missed = 0
            s.away = s.left = False
            self.turns.after_change(t, events, (seat,), quiet=(seat,))
            await self.persistence.commit(t)
            return events

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

    async def history(self, table_id: str, guild_id: int | None = None) -> GameRecord:
        """A game's record (seed, seats, whole log) for ``/game replay``: from memory while the table
        is here, else from the storage.  Only tables of ``guild_id`` when it is given."""
        tid = normalise(table_id)
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
        self.persistence.start_housekeeping(self._prune, self.tables)
        if self.storage is not None and self.privacy.grace is not None and self._sweep is None:
            self._sweep = self.tasks.spawn(self.privacy.sweep_daily(), "departed-servers")
        return report

    def fence(self, shard: int) -> builtins.list[str]:
        """This process lost ``shard``'s lease: let go of its tables at once; returns their ids."""
        return self.shards.fence(shard, self.tables, self._fenced)

    def _fenced(self, t: Table) -> None:
        """Let go of a table another process runs now; what this one has not shown of it yet is no
        longer its to show (the table moves on there): no late redraw, ping or view signal from here
        — only the summaries of what was played, which are history."""
        live = self._live.get(t.id)
        self._forget(t)
        if live is not None:
            self.delivery.abandon(t, live)

    async def prune_storage(self) -> int:
        """Delete finished tables and logs older than ``retention`` (results stay); returns how
        many tables went."""
        self._prune()
        return await self.persistence.prune()

    def _forget(self, t: Table) -> None:
        """Another process runs this table now: let it go, timers and programs included."""
        live = self._live.pop(t.id, None)
        if self.tables.get(t.id) is t:
            del self.tables[t.id]
        if live is not None:
            live.stop_timers()
            self.program_seats.stop(t, live)

    def _come_back(self, t: Table, seat: int) -> None:
        s = t.seats[seat]
        if s.left:
            offers.refuse_if_elsewhere(self._claims(), t.guild_id, s.user_id, t)  # type: ignore[arg-type]
        s.away = s.left = False
        s.missed = 0
        self.turns.reschedule(t, restart=(seat,))
        self.delivery.redraw(t)

    def _claims(self) -> builtins.list[Table]:
        """What the limits count: the tables here and the lobbies being opened (checked, not yet
        stored).  Every check reads it and takes its place with no wait in between, so requests
        that come at once cannot all pass one check and then all open (issue 29 item 13)."""
        return [*self.tables.values(), *self._opening]

    def _taken(self) -> set[str]:
        return {*self.tables, *(t.id for t in self._opening)}

    def _prune(self) -> None:
        """Finished tables leave memory after ``keep_finished`` at the latest (the storage keeps them
        longer; with one they go as soon as their end is shown: tables/finished.py)."""
        cutoff = self.clock.now() - self.keep_finished
        self.finished.prune(cutoff)
        for tid, t in list(self.tables.items()):
            if t.phase == Phase.FINISHED and t.finished_at is not None and t.finished_at < cutoff:
                del self.tables[tid]
                self._live.pop(tid, None)
