"""The record of one table: who sits where, the game state, deadlines and the log.

A :class:`Table` is plain data.  Only :class:`tables.runtime.Runtime` changes it (under the
table's lock); the Discord layer reads it to render messages, and may set ``thread_id`` and
``message_id`` once it has posted them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple, SupportsIndex, overload

import engine
from engine.core import Event, Game, GameSpec, Options


class Phase(StrEnum):
    LOBBY = "lobby"
    RUNNING = "running"
    FINISHED = "finished"


# Factor on each engine Decision.timer; None means no deadlines at all.
SPEEDS: dict[str, float | None] = {"normal": 1.0, "blitz": 0.5, "relaxed": 2.0, "untimed": None}

RECENT_EVENTS = 20
SHOWN_SUMMARY = 1
SHOWN_END = 2
SHOWN_ALL = SHOWN_SUMMARY | SHOWN_END


@dataclass
class Seat:
    user_id: int | None
    name: str
    is_ai: bool = False
    away: bool = False  # a human seat the AI plays for now (timed out 3 times, or left)
    missed: int = 0  # deadlines missed in a row
    left: bool = False  # the person chose to leave a running game; frees them for another table
    # An AI seat played by a program the operator configured (its name there; tables/programs/driver.py).
    # None: the built-in AI — also once a program is replaced for the rest of the game.
    program: str | None = None
    # An AI seat's level (engine.levels: "strong" searches in the AI pool); None: "normal".
    level: str | None = None
    # Decisions of this game for which the person asked for a hint (tables/ai/hints.py): counted in
    # their results for /stats and shown in the final standings.
    hints: int = 0
    # The decision last counted (the version at which it began, the runtime's ``Live.since``): asking
    # again for the same decision does not count again, even after a restart.
    hinted_at: int | None = None
    # Someone who asked Deckhand to forget them (tables/privacy.py): no id, no name, their moves kept
    # so the game still replays; shown as "a former player".
    former: bool = False

    @property
    def auto(self) -> bool:
        return self.is_ai or self.away


class LogEntry(NamedTuple):
    seq: int  # equals the table version right after this action
    seat: int
    code: str
    time: float
    auto: bool = False  # made by the AI or at a deadline, not by the person
    # Made by the clock for a person whose time ran out (stored since migration 0008, so a review or
    # replay read back from the database marks it as live did; older rows read back False).
    timeout: bool = False


_entry = functools.partial(tuple.__new__, LogEntry)  # a stored row read back as its LogEntry


# list[Any]: what it holds is plain tuples (``tuple(entry)``), what it gives back LogEntry objects.
class ActionLog(list[Any]):
    """A table's log: a list of :class:`LogEntry` to whoever reads it, kept as plain tuples.

    A LogEntry, like any instance of a class, is watched by the garbage collector for as long as
    it lives; a plain tuple of numbers and strings is not (the collector stops tracking it the
    first time it looks).  A running table's log grows by a row a move and lives as long as the
    table: kept as LogEntry objects they were the most numerous objects every full collection
    walked, some fifty a table (issue 35).  Rows are read back as LogEntry (iterating, indexing,
    slicing); what is added (``append``, ``extend``, the constructor) is stored as tuples."""

    __slots__ = ()

    def __init__(self, entries: Iterable[LogEntry] = ()) -> None:
        super().__init__(tuple(e) for e in entries)

    def append(self, entry: LogEntry) -> None:
        super().append(tuple(entry))

    def extend(self, entries: Iterable[LogEntry]) -> None:
        super().extend(tuple(e) for e in entries)

    def __iter__(self) -> Iterator[LogEntry]:
        return map(_entry, super().__iter__())

    def __reversed__(self) -> Iterator[LogEntry]:
        return map(_entry, super().__reversed__())

    @overload
    def __getitem__(self, i: SupportsIndex) -> LogEntry: ...

    @overload
    def __getitem__(self, i: slice) -> list[LogEntry]: ...

    def __getitem__(self, i: SupportsIndex | slice) -> LogEntry | list[LogEntry]:
        if isinstance(i, slice):
            return [_entry(r) for r in super().__getitem__(i)]
        return _entry(super().__getitem__(i))

    def copy(self) -> list[LogEntry]:
        return list(self)

    def __add__(self, other: list[Any]) -> list[Any]:  # rows read back as LogEntry
        return list(self) + list(other)


# eq=False: two tables are the same table only if they are the same object.
@dataclass(eq=False)
class Table:
    id: str
    game: str
    options: Options
    speed: str
    guild_id: int
    channel_id: int
    host_id: int
    seats: list[Seat] = field(default_factory=list)
    phase: Phase = Phase.LOBBY
    seed: int | None = None
    state: Game | None = None
    version: int = 0
    thread_id: int | None = None
    message_id: int | None = None
    deadlines: dict[int, float] = field(default_factory=dict)
    log: list[LogEntry] = field(default_factory=ActionLog)
    recent: list[Event] = field(default_factory=list)
    created_at: float = 0.0
    ended_early: bool = False
    finished_at: float | None = None
    # Not stored: why the table waits (its last change could not be saved; deadlines and AI moves
    # are held back), shown on the table message; None while all is well.
    paused: str | None = None
    # Stored: what of the end its players have seen (SHOWN_SUMMARY | SHOWN_END once the end was
    # posted and drawn), so a game that ends just before a stop is shown after the restart.
    shown: int = 0
    # Stored: the level of the AI players the host adds without naming one ("Add AI", the seats
    # filled at the start); None: normal.  A table option (``ai=strong``).
    ai_level: str | None = None
    # Stored (migration 0011): the language the whole table reads (a catalog of words/, e.g. "de"),
    # the server's (``guild_locale``) when the table was opened, so a restart keeps it.
    locale: str = "en"
    # Stored (migration 0012): where the table lives.  "server": a channel of a server the bot is a
    # member of (it posts, edits, opens a thread); "app": a server that never added the bot, reached
    # through a person's own install; "private": a DM or group DM (its id stands as ``guild_id``: the
    # place its results belong to).  Outside "server" the bot may only answer interactions: the table
    # message is kept current through their tokens (cogs/live/anchors.py), nothing is posted to a channel.
    place: str = "server"
    # Opened with its server's house rules (/settings; the lobby says so).  Set once, when opened.
    house: bool = False
    # Stored (migration 0016): the host opened a ranked table (within the server's settings).  Only
    # a ranked game between people changes ratings (:attr:`rated`).  Set once, when opened.
    ranked: bool = False
    # Stored (migration 0017): whether people may choose their card before their turn, in a game
    # that offers it (tables/ahead.py); the table option ``ahead=off`` turns it off.
    play_ahead: bool = True

    @property
    def anchored(self) -> bool:
        """The table lives on interaction tokens alone (the bot is not a member where it is)."""
        return self.place != "server"

    @property
    def shard_key(self) -> int | None:
        """What picks the Discord shard the table's interactions come through: its server, or none
        (a DM or group DM: Discord sends those to shard 0)."""
        return None if self.place == "private" else self.guild_id

    @property
    def rated(self) -> bool:
        """The game changes ratings: ranked, and every seat a person's from the start (an AI seated
        at the start makes a ranked table casual; a person the AI stands in for is still rated)."""
        return self.ranked and bool(self.seats) and not any(s.is_ai for s in self.seats)

    # ---- lookups --------------------------------------------------------------------------
    @property
    def spec(self) -> GameSpec:
        return engine.get(self.game)

    @property
    def title(self) -> str:
        return f"{self.spec.game.title} · {self.id}"

    @property
    def max_seats(self) -> int:
        return self.spec.game.max_players

    @property
    def min_seats(self) -> int:
        return self.spec.game.min_players

    @property
    def channel_ids(self) -> tuple[int, ...]:
        return (self.channel_id,) if self.thread_id is None else (self.channel_id, self.thread_id)

    @property
    def host_name(self) -> str:
        s = self.seat_of(self.host_id)
        return self.seats[s].name if s is not None else "the host"

    def seat_of(self, user_id: int | None) -> int | None:
        if user_id is None:
            return None
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id and not seat.is_ai:
                return i
        return None

    def free_seats(self) -> int:
        if self.phase != Phase.LOBBY:
            return 0
        return max(0, self.max_seats - len(self.seats))

    def to_act(self) -> tuple[int, ...]:
        """The players' seats that may act now (never the table's own timed step)."""
        if self.phase != Phase.RUNNING or self.state is None:
            return ()
        return tuple(s for s in self.state.to_act() if s >= 0)

    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def humans(self) -> list[int]:
        """Seats held by people, in seat order."""
        return [i for i, s in enumerate(self.seats) if not s.is_ai]
