"""The runtime's state and what every part of it uses (tables/runtime.py's :class:`Runtime` builds
on it): the rooms it wires together, lookups, and letting a table go.  Split from the lobby
(tables/lobby.py) and acting (tables/runtime.py) only so that no module grows past a reader's reach."""

from __future__ import annotations

import asyncio
import builtins
import random
import secrets
from collections.abc import Mapping

from tables import offers
from tables.ai.hints import Hints
from tables.ai.pool import AIPool
from tables.ai.reviews import Reviews
from tables.clock import Clock, SystemClock
from tables.delivery import Delivery
from tables.finished import Finished
from tables.history.ratings import Ratings
from tables.ids import echo, normalise
from tables.kept import Kept
from tables.live import (
    Listener,
    Live,
    NullListener,
    SeatView,
    TableError,
    Tasks,
)
from tables.nights.seasons import Period
from tables.persistence import Persistence
from tables.privacy import GRACE, Privacy
from tables.programs.driver import ProgramSettings
from tables.programs.seats import ProgramSeats
from tables.servers import Servers
from tables.shards import Shards
from tables.storage import Storage
from tables.table import Phase, Table
from tables.tournaments import Tournaments
from tables.turns import LOBBY_TTL, Turns
from words import N_


class RuntimeCore:
    """The runtime's rooms and state, lookups, and letting a table go."""

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
        #: A server's own settings (the language its tables read), kept in the storage.
        self.servers = Servers(storage)
        #: The ratings kept in the storage (``None`` without one): what the cogs rate and read; each
        #: server's seasons are as long as its settings say.
        self.ratings: Ratings | None = Ratings(storage, self._season_period, self.clock.now) \
            if storage is not None else None
        # Play again: the rematch opened from each finished table (old id -> new id), so a second
        # press points to it instead of opening another; one lock so two presses cannot both open.
        # The links are stored too (``kept``), so a restarted bot still finds the first rematch.
        self.rematches: dict[str, str] = {}
        #: What a restart must not forget besides the tables: rematch links, standing pings.
        self.kept = Kept(storage)
        #: A person's data (export, forget me) and servers that removed Deckhand.
        self.privacy = Privacy(storage, self.clock, tables=self.tables, live_of=self._live.get,
                               ended=self.finished.ended, reviews=self.reviews, grace=departed_grace)
        self._rematch_lock = asyncio.Lock()
        #: Tournaments (tables/tournaments.py): each round's tables opened here, each end scored.
        # ignore: the core is always a Runtime, whose lobby (a subclass) has the Runner's methods.
        self.tournaments = Tournaments(self, storage, self.tasks, self.rng, listener,  # type: ignore[arg-type]
                                       ai_pool=ai_pool)
        self.turns.on_end.append(self.tournaments.game_ended)
        self.privacy.tournaments = self.tournaments
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
        picks = self._live[t.id].picks if t.id in self._live else None  # (this seat's own: tables/ahead.py)
        return SeatView(t, seat, t.state.view(seat), decision, t.deadlines.get(seat),
                        picks.chosen.get(seat) if picks is not None else None,
                        picks.dropped.get(seat) if picks is not None else None)


    def fence(self, shard: int) -> builtins.list[str]:
        """This process lost ``shard``'s lease: let go of its tables at once; returns their ids."""
        return self.shards.fence(shard, self.tables, self._fenced)

    async def _season_period(self, guild_id: int) -> Period:
        return (await self.servers.settings(guild_id)).season

    def _fenced(self, t: Table) -> None:
        """Let go of a table another process runs now; what this one has not shown of it yet is no
        longer its to show (the table moves on there): no late redraw, ping or view signal from here
        — only the summaries of what was played, which are history."""
        live = self._live.get(t.id)
        self._forget(t)
        if live is not None:
            self.delivery.abandon(t, live)

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
        if s.left and s.user_id is not None:  # (a seat that left is a person's)
            offers.refuse_if_elsewhere(self._claims(), t.guild_id, s.user_id, t)
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
