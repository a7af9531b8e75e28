"""Play again: what a finished table hands on to its rematch, and the sentences that go with it.

A rematch is a new lobby of the same game, options, speed and AI level, with the old table's AI
players seated again at their levels and its people invited (not seated: each presses Join).  It
is read from the finished table while it is in memory, else from its stored row (a finished table
leaves memory once its end is shown: tables/finished.py), and nothing of the old table is written.
A finished table is played again once, ever: a press after that points to the rematch while it is
open, and says it was used once it has closed or ended.
:meth:`tables.runtime.Runtime.rematch` opens the lobby; this module is pure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import engine
import words
from engine.core import Options
from tables.history.records import Unrecoverable, read_seats
from tables.live import TableError
from tables.storage.base import Record
from tables.table import SPEEDS, Phase, Seat, Table
from words import N_


@dataclass(frozen=True)
class Plan:
    """What a finished table hands on: its game and settings, its people and its AI seats."""

    old_id: str
    game: str
    options: Options
    speed: str
    ai_level: str | None
    guild_id: int
    played: bool  # a game was dealt (a lobby that closed before its start offers no rematch)
    people: tuple[int, ...]  # every person who sat there, in seat order, once each
    ais: tuple[Seat, ...]  # the AI seats: their level, and program when a program played one
    locale: str = "en"  # the language the table read (the rematch reads it too)
    place: str = "server"  # where it lived (the rematch lives there too)
    ranked: bool = False  # the host opened it ranked (the rematch is ranked too)
    play_ahead: bool = True  # people could choose their card before their turn (tables/ahead.py)

    def sat_there(self, user_id: int) -> bool:
        return user_id in self.people


@dataclass(frozen=True)
class Rematch:
    """A rematch lobby: the new table, and the people of the old one to invite (not its opener)."""

    table: Table
    invited: tuple[int, ...]


def of_table(t: Table) -> Plan:
    people = tuple(dict.fromkeys(s.user_id for s in t.seats if not s.is_ai and s.user_id is not None))
    ais = tuple(Seat(None, s.name, is_ai=True, program=s.program, level=s.level) for s in t.seats if s.is_ai)
    return Plan(t.id, t.game, dict(t.options), t.speed, t.ai_level, t.guild_id, t.seed is not None, people, ais,
                t.locale, t.place, t.ranked, t.play_ahead)


def of_stored(record: Record) -> Plan:
    """From a stored row; raises :class:`TableError` when the row cannot be read as a table."""
    tid = str(record.get("id") or "?")
    try:
        game = str(record.get("game"))
        spec = engine.get(game)
        options = spec.game.read_options(json.loads(record.get("options") or "{}"))
        seats = read_seats(record.get("seats"))
    except (KeyError, ValueError, TypeError, Unrecoverable):
        raise TableError(N_("The record of table `{id}` cannot be read any more, so it cannot be played "
                            "again; open a new table with `/game new`."), "damaged", id=tid) from None
    speed = record.get("speed") if record.get("speed") in SPEEDS else "normal"
    level = record.get("ai_level")
    ai_level = level if isinstance(level, str) and level in engine.levels(game) else None
    t = Table(id=tid, game=spec.game.name, options=options, speed=str(speed), guild_id=int(record["guild_id"]),
              channel_id=0, host_id=0, seats=seats, phase=Phase.FINISHED, seed=record.get("seed"),
              ai_level=ai_level,
              locale=str(record.get("locale")) if record.get("locale") in words.LOCALES else words.ENGLISH,
              place=str(record.get("place") or "server"), ranked=bool(record.get("ranked")),
              play_ahead=record.get("play_ahead") is None or bool(record.get("play_ahead")))
    return of_table(t)


def not_a_player(old_id: str) -> TableError:
    return TableError(N_("Only the people who played at table `{id}` can play it again. Open a table of "
                         "your own with `/game new`."), "not_a_player", id=old_id)


def not_finished(old_id: str) -> TableError:
    return TableError(N_("The game at table `{id}` is not over yet: **Play again** comes once it has "
                         "ended."), "not_finished", id=old_id)


def never_played(old_id: str) -> TableError:
    return TableError(N_("Table `{id}` closed before its game started, so there is nothing to play again. "
                         "Open a new table with `/game new`."), "never_played", id=old_id)


def already_open(old_id: str, t: Table) -> TableError:
    """The second press: the rematch that is already there, lobby or game."""
    if t.phase == Phase.LOBBY:
        return TableError(N_("Table `{id}` is already being played again: its new table `{new}` is open "
                             "— press **Join** on its message, or use `/game join id:{new}`."), "rematch_open",
                          id=old_id, new=t.id)
    return TableError(N_("Table `{id}` is already being played again, at table `{new}`."), "rematch_open",
                      id=old_id, new=t.id)


def used(old_id: str, new_id: str) -> TableError:
    """A press once the rematch has closed or ended: a finished table is played again once, so a
    lobby left and pressed for again never pings the same people twice."""
    return TableError(N_("Table `{id}` has already been played again once, at table `{new}`, and "
                         "**Play again** opens only one new table per game. Open a new table with `/game new`."),
                      "rematch_used", id=old_id, new=new_id)
