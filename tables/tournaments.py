"""Tournaments at a runtime: sign-ups, each round's tables opened and started, every finished table
scored, the next round seated, all of it stored after each change so a restart resumes it.

The rules (points, standings, seating) are :mod:`tables.nights` (pure; written out for players in
docs/rules.md, "Tournaments and duplicate scoring"); this room runs them over real tables.  A round's
tables are opened by the organiser's runtime like any table — the first person seated hosts, the
others are seated in the round's order, an AI fills each short seat — and handed to the listener
(``tournament_tables``: the Discord layer posts each, opens its thread and starts it; without one
they start here).  Someone who cannot be seated (they sit at another table) is absent: an AI takes
their seat and they earn nothing for the round, like someone the AI played for most of the game.
Every table that ends, by its rules or early, is scored (an early end scores everyone as absent);
the last table of a round seats the next one.  The listener's ``tournament_changed`` redraws the
tournament's own message (sign-ups, then standings) after each change.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import engine
from engine.core import Options, rng_for
from tables.ai.pool import AIPool
from tables.history.stats import absent, game_events
from tables.ids import new_id
from tables.live import TableError, Tasks
from tables.nights.tournament import MAX_PLAYERS, MIN_PLAYERS, Boards, Tournament, TournamentError
from tables.par import pars
from tables.storage.base import Record, Storage
from tables.table import Phase, Table
from words import N_, Lazy

log = logging.getLogger("deckhand.tables")

#: The most rounds a tournament may have.
MAX_ROUNDS = 10
#: Why someone may not watch, replay or review a table of a duplicate round they play in.
WITHHELD = N_("Table `{id}` is dealt the same cards as yours in this duplicate round: you can watch or replay it "
              "once the round's last table has finished.")


@dataclass
class Entry:
    """A tournament and where it lives: its message, the options its tables play with, and how each
    opened table's seats map to the round's people."""

    t: Tournament
    guild_id: int
    channel_id: int
    options: Options = field(default_factory=dict)
    speed: str = "normal"
    locale: str = "en"
    message_id: int | None = None
    #: table id → the runtime seat of each of the round's places at that table (the round's order).
    seats: dict[str, list[int]] = field(default_factory=dict)
    #: table id → the round's places whose person could not be seated (an AI played for them).
    missing: dict[str, list[int]] = field(default_factory=dict)
    #: Each person's name as they signed up (their seat's name at the tournament's tables).
    names: dict[int, str] = field(default_factory=dict)
    #: table id → where it is played (its own thread, when the listener made one).
    places: dict[str, int] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.t.id

    def to_json(self) -> str:
        return json.dumps({"tournament": self.t.to_dict(), "options": self.options, "speed": self.speed,
                           "locale": self.locale, "seats": self.seats, "missing": self.missing,
                           "names": {str(k): v for k, v in self.names.items()}, "places": self.places},
                          sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_row(cls, row: Record) -> Entry:
        d = json.loads(row["data"])
        return cls(Tournament.from_dict(d["tournament"]), int(row["guild_id"]), int(row["channel_id"]),
                   dict(d.get("options") or {}), str(d.get("speed") or "normal"), str(d.get("locale") or "en"),
                   None if row.get("message_id") is None else int(row["message_id"]),
                   {str(k): [int(s) for s in v] for k, v in (d.get("seats") or {}).items()},
                   {str(k): [int(s) for s in v] for k, v in (d.get("missing") or {}).items()},
                   {int(k): str(v) for k, v in (d.get("names") or {}).items()},
                   {str(k): int(v) for k, v in (d.get("places") or {}).items()})

    def table_of(self, table_id: str) -> int | None:
        """Which table of the current round ``table_id`` is."""
        if not self.t.played:
            return None
        ids = self.t.played[-1].table_ids
        return ids.index(table_id) if table_id in ids else None


class Runner(Protocol):
    """What a tournament needs of the runtime (``tables.runtime.Runtime``)."""

    tables: dict[str, Table]

    async def create(self, **kw: Any) -> Table: ...
    async def join(self, table_id: str, user_id: int, name: str) -> Table: ...
    async def add_ai(self, table_id: str, user_id: int, count: int | None = None) -> int: ...
    async def start(self, table_id: str, user_id: int) -> Table: ...


class Tournaments:
    """The runtime's tournaments (``Runtime.tournaments``)."""

    def __init__(self, runner: Runner, storage: Storage | None, tasks: Tasks, rng: random.Random,
                 listener: object = None, ai_pool: AIPool | None = None) -> None:
        self.runner = runner
        self.storage = storage
        self.tasks = tasks
        self.rng = rng
        #: The Discord side (cogs/table/tournament.py sets itself), each of its calls looked up as it is made:
        #: ``tournament_place``, ``tournament_tables``, ``tournament_changed``.
        self.listener = listener
        self.by_id: dict[str, Entry] = {}
        #: Where par replays run (its background lane: tables/par.py); None: no par.
        self.ai_pool = ai_pool
        #: The playouts cap of a par replay's decisions (None: the strong level's own).
        self.par_playouts: int | None = None

    # ---- what people do -------------------------------------------------------------------------
    async def new(self, *, game: str, rounds: int, guild_id: int, channel_id: int, organiser: int,
                  name: str = "", options: Options | None = None, speed: str = "normal",
                  locale: str = "en", duplicate: bool = False) -> Entry:
        spec = engine.get(game)
        if not 1 <= rounds <= MAX_ROUNDS:
            raise TableError(N_("A tournament has from 1 to {most} rounds."), "rounds", most=MAX_ROUNDS)
        if duplicate and spec.hand_scores is None:
            raise TableError(N_("{game} cannot be played with duplicate deals."), "duplicate",
                             game=Lazy(spec.game.title))
        tid = new_id(self.rng, set(self.by_id) | set(self.runner.tables))
        seed = self.rng.randrange(2**31)
        entry = Entry(Tournament(tid, spec.game.name, spec.game.min_players, rounds, organiser, seed,
                                 duplicate=duplicate, lowest_wins=spec.lowest_wins), guild_id,
                      channel_id, dict(options or {}), speed, locale)
        entry.t.join(organiser)
        entry.names[organiser] = name
        self.by_id[tid] = entry
        await self._save(entry)
        return entry

    def get(self, tid: str) -> Entry:
        found = self.by_id.get(tid.strip().upper())
        if found is None:
            raise TableError(N_("There is no tournament `{id}` here."), "no_tournament", id=tid)
        return found

    async def join(self, tid: str, user_id: int, name: str = "") -> Entry:
        entry = self.get(tid)
        self._refusing(lambda: entry.t.join(user_id))
        entry.names[user_id] = name
        await self._save(entry)
        return entry

    async def leave(self, tid: str, user_id: int) -> Entry:
        entry = self.get(tid)
        self._refusing(lambda: entry.t.leave(user_id))
        entry.names.pop(user_id, None)
        await self._save(entry)
        return entry

    async def start(self, tid: str, user_id: int, *, later: bool = False) -> Entry:
        """The organiser starts it: round 1 is seated and stored; its tables are opened now, or with
        ``later`` in a task of their own (a round of many tables takes seconds of Discord's budget:
        the organiser's click is answered first)."""
        entry = self.get(tid)
        self._refusing(lambda: entry.t.start(user_id))
        await self._save(entry)
        if later:
            self.tasks.spawn(self._open_round_later(entry), f"tournament-round:{entry.id}")
        else:
            await self._open_round(entry)
        return entry

    async def attach(self, tid: str, message_id: int) -> None:
        """The tournament's message (sign-ups, then standings) is ``message_id``."""
        entry = self.get(tid)
        entry.message_id = message_id
        await self._save(entry)

    @staticmethod
    def _refusing(step: Callable[[], object]) -> None:
        try:
            step()
        except TournamentError as e:
            raise TableError(e.template, "tournament", **e.fields) from None

    # ---- tables ---------------------------------------------------------------------------------
    async def _open_round_later(self, entry: Entry) -> None:
        await self._open_round(entry)

    async def _open_round(self, entry: Entry) -> list[Table]:
        """Open every table of the current round not opened yet, seat it, and hand it on to be started."""
        opened: list[Table] = []
        for index, people in entry.t.to_open():
            try:
                table = await self._open_table(entry, people)
            except Exception:
                log.exception("Tournament %s: could not open a table of round %d", entry.id, entry.t.round_no)
                continue
            entry.t.opened(index, table.id)
            await self._save(entry)
            opened.append(table)
        self._changed(entry)
        if opened:
            await self._begin(entry, opened)
        return opened

    async def _open_table(self, entry: Entry, people: Sequence[int | None]) -> Table:
        """A lobby with the round's people seated in order (an AI for each short seat, and for
        anyone who cannot be seated), hosted by the first person who could be."""
        order = [i for i, p in enumerate(people) if p is not None] + [i for i, p in enumerate(people) if p is None]
        # Each table in a place of its own (the listener's ``tournament_place``: a thread): tables
        # that share a channel would share its rate limits and bury each other's messages.
        place = entry.channel_id
        ask = getattr(self.listener, "tournament_place", None)
        if ask is not None:
            try:
                place = await ask(entry, [p for p in people if p is not None]) or entry.channel_id
            except Exception:
                log.exception("Tournament %s: no place of its own for a table; it plays in the channel", entry.id)
        host: int | None = None
        table: Table | None = None
        seat_of: dict[int, int] = {}
        missing: list[int] = []
        for i in order:
            person = people[i]
            if table is None:
                if person is None:
                    break
                try:
                    table = await self.runner.create(
                        game=entry.t.game, guild_id=entry.guild_id, channel_id=place, host_id=person,
                        host_name=entry.names.get(person) or str(person), options=dict(entry.options),
                        speed=entry.speed, locale=entry.locale)
                except TableError:
                    missing.append(i)  # (sits at another table: absent from this one)
                    continue
                host, seat_of[i] = person, 0
                continue
            if person is not None:
                try:
                    await self.runner.join(table.id, person, entry.names.get(person) or str(person))
                    seat_of[i] = len(table.seats) - 1
                    continue
                except TableError:
                    missing.append(i)
        if table is None or host is None:
            raise TableError(N_("Nobody of this table could be seated."), "tournament")
        for i in [*missing, *(i for i, p in enumerate(people) if p is None)]:
            await self.runner.add_ai(table.id, host, 1)
            seat_of[i] = len(table.seats) - 1
        entry.seats[table.id] = [seat_of[i] for i in range(len(people))]
        entry.places[table.id] = place
        entry.missing[table.id] = sorted(missing)
        return table

    async def _begin(self, entry: Entry, tables: list[Table]) -> None:
        tell = getattr(self.listener, "tournament_tables", None)
        if tell is not None:
            try:
                await tell(entry, tables)
                return
            except Exception:
                log.exception("Tournament %s: the listener could not start its tables; starting them here", entry.id)
        for t in tables:
            if t.phase == Phase.LOBBY:
                await self.runner.start(t.id, t.host_id)

    def deal_seed(self, table_id: str) -> int | None:
        """The seed a tournament table's game is dealt from when its round is played duplicate: the
        same for every table of the round (None: the runtime's own, secret, as for any table).  It
        comes from the tournament's secret seed, so nobody can work it out from another round's."""
        for entry in self.by_id.values():
            if entry.t.duplicate and entry.table_of(table_id) is not None:
                return rng_for(entry.t.seed, entry.id, "deals", entry.t.round_no).getrandbits(63)
        return None

    def withheld(self, table_id: str, user_id: int) -> bool:
        """Whether ``user_id`` may not see table ``table_id`` now (watch it, replay it, review it):
        it is a table of a duplicate round still being played, and they play in that round at
        another table — its cards are the ones they hold or will hold."""
        for entry in self.by_id.values():
            t = entry.t
            if not t.duplicate or t.state != "running" or entry.table_of(table_id) is None:
                continue
            r = t.played[-1]
            if r.done:
                return False
            mine = entry.table_of(table_id)
            return any(user_id in people for n, people in enumerate(r.tables) if n != mine)
        return False

    def withheld_tables(self) -> set[str]:
        """The tables of every duplicate round still being played: their results count nowhere
        (``/stats`` included) until the round's last table has finished — a finished table's scores
        would tell the round's other players something of the cards they hold."""
        out: set[str] = set()
        for entry in self.by_id.values():
            t = entry.t
            if t.duplicate and t.state == "running" and t.played and not t.played[-1].done:
                out |= {tid for tid in t.played[-1].table_ids if tid is not None}
        return out

    def game_ended(self, t: Table) -> None:
        """The runtime's call when a game ends (``Turns.on_end``): a tournament table is scored."""
        for entry in self.by_id.values():
            if entry.t.state == "running" and entry.table_of(t.id) is not None:
                self.tasks.spawn(self._score(entry, t), f"tournament:{entry.id}:{t.id}")
                return

    async def _score(self, entry: Entry, t: Table) -> None:
        index = entry.table_of(t.id)
        if index is None:
            return
        people = entry.t.played[-1].tables[index]
        seat_of = entry.seats.get(t.id) or list(range(len(people)))
        outcome = t.state.outcome() if t.state is not None and not t.ended_early else None
        if outcome is None:  # ended before its end: nobody earns anything there
            places = [1] * len(people)
            away = [i for i, p in enumerate(people) if p is not None]
        else:
            places = [int(outcome.places[seat_of[i]]) for i in range(len(people))]
            away = sorted({*entry.missing.get(t.id, []),
                           *(i for i, p in enumerate(people) if p is not None and absent(t, seat_of[i]))})
        boards = self._boards(entry, t, seat_of) if outcome is not None else None
        if boards is not None and len(entry.t.played[-1].tables) == 1:
            # One group alone on these cards: the strong AI replays each hand for a par (after the
            # game, in the background lane; the round ends once it is in).
            boards.par = await pars(self.ai_pool, t, len(boards.hands), self.par_playouts)
            if entry.table_of(t.id) != index or entry.t.played[-1].results[index] is not None:
                return  # scored meanwhile (a restart's recovery)
        before = entry.t.round_no
        entry.t.finished(t.id, places, away, boards)
        await self._save(entry)
        self._changed(entry)
        if entry.t.state == "running" and entry.t.round_no > before:
            await self._open_round(entry)

    @staticmethod
    def _boards(entry: Entry, t: Table, seat_of: Sequence[int]) -> Boards | None:
        """A duplicate table's score on each hand it finished, seat by seat (GameSpec.hand_scores)."""
        hand_scores = t.spec.hand_scores
        if not entry.t.duplicate or hand_scores is None:
            return None
        holders = [0] * len(seat_of)
        for place, seat in enumerate(seat_of):
            holders[seat] = place
        events = game_events(t)
        by_rank = t.spec.hand_holders
        return Boards(holders, hand_scores(events, len(t.seats)),
                      seats=None if by_rank is None else by_rank(events, len(t.seats)))

    # ---- kept across restarts ---------------------------------------------------------------------
    async def _save(self, entry: Entry) -> None:
        if self.storage is None:
            return
        try:
            await self.storage.save_tournament({"id": entry.id, "guild_id": entry.guild_id,
                                                "channel_id": entry.channel_id, "message_id": entry.message_id,
                                                "data": entry.to_json(), "finished": int(entry.t.state == "finished")})
        except Exception:
            log.exception("Could not store tournament %s", entry.id)

    async def recover(self, stored_outcome: Callable[[str], Awaitable[Table | None]],
                      owns: Callable[[int], bool] = lambda guild_id: True) -> None:
        """At start-up (after the tables): every unfinished stored tournament is back, each table of
        its round that ended while the bot was down is scored (``stored_outcome(table_id)``: the table
        as rebuilt from the storage, or ``None``), and what is left of the round is opened or started.
        ``owns(guild_id)``: this process runs that server (its shard), so its tournaments."""
        if self.storage is None:
            return
        for row in await self.storage.unfinished_tournaments():
            try:
                entry = Entry.from_row(row)
            except Exception:
                log.exception("Tournament %s cannot be read; it is left out", row.get("id"))
                continue
            if not owns(entry.guild_id):
                continue  # another process runs that server's shard: its tournaments too
            if entry.id in self.by_id:
                continue  # running here already (a shard gained later recovers again: cogs/ops/shards.py)
            self.by_id[entry.id] = entry
            if entry.t.state != "running":
                continue
            r = entry.t.played[-1]
            for n, table_id in enumerate(r.table_ids):
                if table_id is None or r.results[n] is not None:
                    continue
                t = self.runner.tables.get(table_id)
                if t is None or t.phase == Phase.FINISHED:
                    ended = t if t is not None else await stored_outcome(table_id)
                    if ended is not None:
                        await self._score(entry, ended)
            if entry.t.state == "running":
                lobbies = [self.runner.tables[i] for i in entry.t.played[-1].table_ids
                           if i is not None and i in self.runner.tables
                           and self.runner.tables[i].phase == Phase.LOBBY]
                if lobbies:
                    await self._begin(entry, lobbies)
                await self._open_round(entry)

    def _changed(self, entry: Entry) -> None:
        tell = getattr(self.listener, "tournament_changed", None)
        if tell is None:
            return

        async def call() -> None:
            try:
                await tell(entry)
            except Exception:
                log.exception("Listener tournament_changed failed for tournament %s", entry.id)

        self.tasks.spawn(call(), f"tournament-shown:{entry.id}")

    # ---- a person's data (tables/privacy.py) ---------------------------------------------------------
    async def of_person(self, user_id: int) -> list[Entry]:
        """Every tournament ``user_id`` signed up for, stored or in memory."""
        found = {e.id: e for e in self.by_id.values() if user_id in e.t.players}
        if self.storage is not None:
            for row in await self.storage.person_tournaments(user_id):
                try:
                    entry = Entry.from_row(row)
                except Exception:
                    continue
                if user_id in entry.t.players:
                    found.setdefault(entry.id, entry)
        return list(found.values())

    def playing(self, user_id: int) -> list[str]:
        """The tournaments under way that ``user_id`` plays in: "forget me" waits for them."""
        return [e.id for e in self.by_id.values() if e.t.state == "running" and user_id in e.t.players]

    async def forget(self, user_id: int) -> int:
        """``user_id`` leaves every tournament still taking sign-ups, and becomes a former player
        (a negative number, their name gone) in every finished one; returns how many changed."""
        changed = 0
        for entry in await self.of_person(user_id):
            if entry.t.state == "running":
                continue  # (refused before: ``playing``)
            if entry.t.state == "signup" and user_id != entry.t.organiser:
                entry.t.players.remove(user_id)
            else:
                former = -1 - sum(1 for p in entry.t.players if p < 0)
                entry.t = Tournament.from_dict(_replaced(entry.t.to_dict(), user_id, former))
            entry.names.pop(user_id, None)
            if entry.id in self.by_id:
                self.by_id[entry.id] = entry
            await self._save(entry)
            changed += 1
        return changed

    @staticmethod
    def limits() -> tuple[int, int]:
        """How many people a tournament takes: at least, at most."""
        return MIN_PLAYERS, MAX_PLAYERS


def _replaced(data: Any, old: int, new: int) -> Any:
    """``data`` (a tournament's JSON-ready dict) with every person id ``old`` made ``new``."""
    if isinstance(data, dict):
        return {k: (new if k in ("organiser",) and v == old else _replaced(v, old, new)) for k, v in data.items()}
    if isinstance(data, list):
        return [new if (isinstance(x, int) and not isinstance(x, bool) and x == old) else _replaced(x, old, new)
                for x in data]
    return data
