"""The lobby (tables/runtime.py's :class:`Runtime` part): open a table, join, leave, seat the AI,
start, end, and Play again.  Each step runs under the table's lock and through the runtime's rooms
(tables/runtime_core.py)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Options
from tables import offers, rematch
from tables.ids import echo, new_id, normalise
from tables.live import (
    Live,
    TableError,
    Tasks,
    md,
)
from tables.rematch import Plan, Rematch
from tables.runtime_core import RuntimeCore
from tables.table import Phase, Seat, Table
from words import N_


class Lobby(RuntimeCore):
    """Opening, joining, leaving and starting tables; Play again."""

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
        house: bool = False,
        ranked: bool = False,
        play_ahead: bool = True,
    ) -> Table:
        """``ai_level``: the table option ``ai`` (the level of AI players added without one);
        ``locale``: the language the whole table reads (words/: the server's, by default);
        ``place``: where it lives (``Table.place``; ``guild_id`` is a DM's channel id there);
        ``house``: its options are its server's house rules (/settings); ``ranked``: the host
        opened it ranked (only a ranked game between people changes ratings: ``Table.rated``);
        ``play_ahead``: people may choose their card before their turn, in a game that offers it
        (tables/ahead.py)."""
        self.shards.refuse_elsewhere(None if place == "private" else guild_id)
        name, opts, speed_key = offers.read_new_table(game, options, speed)
        offers.refuse_if_elsewhere(self._claims(), guild_id, host_id, None)
        self._prune()
        offers.check_new_table(self.limits, self._claims(), host_id)
        self.persistence.refuse_if_gone()
        return await self._open(name, opts, speed_key, guild_id, channel_id, host_id, host_name,
                                offers.table_ai_level(name, ai_level), locale=locale, place=place, house=house,
                                ranked=ranked, play_ahead=play_ahead)

    async def _open(self, game: str, options: Options, speed: str, guild_id: int, channel_id: int,
                    host_id: int, host_name: str, ai_level: str | None, ais: Sequence[Seat] = (),
                    locale: str = "en", place: str = "server", house: bool = False, ranked: bool = False,
                    play_ahead: bool = True) -> Table:
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
            house=house,
            ranked=ranked,
            play_ahead=play_ahead,
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
                new_host = t.seats[humans[0]].user_id if humans and t.host_id == user_id else None
                if new_host is not None:
                    t.host_id = new_host
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
                new_host = t.seats[present[0]].user_id if present else None
                if new_host is not None:
                    t.host_id = new_host
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
            # A duplicate tournament round deals every table the same cards (tables/tournaments.py).
            seed = self.tournaments.deal_seed(t.id)
            if seed is None:
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
                                 plan.ai_level, plan.ais, locale=plan.locale, place=plan.place,
                                 ranked=plan.ranked, play_ahead=plan.play_ahead)
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

