"""A :class:`~tables.table.Table` as storage columns, and back.

:func:`record_of` / :func:`changes_of` write what the storage keeps; :func:`rebuild` turns a stored
row and its action log into a live table again: the game state comes from the latest snapshot (or
from the seed) plus a replay of the logged actions after it, and every step is checked — the log
must be complete (``1..version`` with no gap), every action must still be legal, and the replay must
end exactly at the stored version.  Anything wrong raises :class:`Unrecoverable` with a reason.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, TypeVar, overload

import engine
import words
from engine.core import Event, Game, Options
from tables.storage.base import Record
from tables.table import RECENT_EVENTS, SPEEDS, ActionLog, LogEntry, Phase, Seat, Table

log = logging.getLogger("deckhand.tables")

T = TypeVar("T")

SEAT_FIELDS = ("user_id", "name", "is_ai", "away", "missed", "left")
# Written only when not at their default, so seats stored before they existed (and every other
# seat) read the same.
OPTIONAL_SEAT_DEFAULTS: dict[str, int | bool | None] = {"program": None, "level": None, "hints": 0, "hinted_at": None,
                                          "former": False}
OPTIONAL_SEAT_FIELDS = tuple(OPTIONAL_SEAT_DEFAULTS)


class Unrecoverable(Exception):
    """A stored table that cannot be rebuilt; ``reason`` says what is wrong with it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

#: Where a table may live (``Table.place``).
PLACES = ("server", "app", "private")


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def seats_json(seats: Sequence[Seat]) -> str:
    out = []
    for s in seats:
        d = {f: getattr(s, f) for f in SEAT_FIELDS}
        d.update({f: getattr(s, f) for f, default in OPTIONAL_SEAT_DEFAULTS.items() if getattr(s, f) != default})
        out.append(d)
    return _dumps(out)


def changes_of(t: Table, since: Mapping[int, int]) -> Record:
    """The columns that change as a table lives (everything but its identity)."""
    return {
        "options": _dumps(t.options),
        "speed": t.speed,
        "thread_id": t.thread_id,
        "message_id": t.message_id,
        "host_id": t.host_id,
        "seats": seats_json(t.seats),
        "phase": str(t.phase),
        "seed": t.seed,
        "version": t.version,
        "deadlines": _dumps({str(s): d for s, d in t.deadlines.items()}),
        "since": _dumps({str(s): v for s, v in since.items()}),
        "finished_at": t.finished_at,
        "ended_early": int(t.ended_early),
        "shown": t.shown,
        "ai_level": t.ai_level,
        "locale": t.locale,
    }


def record_of(t: Table, since: Mapping[int, int] | None = None) -> Record:
    """Every column of a new table's row."""
    return {
        "id": t.id,
        "game": t.game,
        "guild_id": t.guild_id,
        "channel_id": t.channel_id,
        "created_at": t.created_at,
        "place": t.place,
        "house": int(t.house),
        "ranked": int(t.ranked),
        "play_ahead": int(t.play_ahead),
        "rev": 0,
        **changes_of(t, since or {}),
    }


def snapshot_of(state: Game) -> str:
    return _dumps(state.to_dict())


# ==== reading back ==============================================================================
@overload
def _int(value: object, what: str, *, optional: Literal[False] = False) -> int: ...
@overload
def _int(value: object, what: str, *, optional: bool) -> int | None: ...
def _int(value: object, what: str, *, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise Unrecoverable(f"{what} is {value!r}, not a whole number")
    return value


@overload
def _time(value: object, what: str, *, optional: Literal[False] = False) -> float: ...
@overload
def _time(value: object, what: str, *, optional: bool) -> float | None: ...
def _time(value: object, what: str, *, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Unrecoverable(f"{what} is {value!r}, not a time")
    return float(value)


def _json(text: object, what: str, kind: type[T]) -> T:
    if not isinstance(text, str):
        raise Unrecoverable(f"{what} is missing")
    try:
        value = json.loads(text)
    except ValueError:
        raise Unrecoverable(f"{what} is not readable JSON (truncated?)") from None
    if not isinstance(value, kind):
        raise Unrecoverable(f"{what} is not a JSON {kind.__name__}")
    return value


def _seat(d: object, i: int) -> Seat:
    if not isinstance(d, dict) or not set(SEAT_FIELDS) <= set(d) <= {*SEAT_FIELDS, *OPTIONAL_SEAT_FIELDS}:
        raise Unrecoverable(f"seat {i + 1} is malformed")
    if not isinstance(d["name"], str):
        raise Unrecoverable(f"seat {i + 1} has no name")
    user_id = _int(d["user_id"], f"seat {i + 1}'s user", optional=True)
    flags = [d[f] for f in ("is_ai", "away", "left")]
    if not all(isinstance(f, bool) for f in flags):
        raise Unrecoverable(f"seat {i + 1} has malformed flags")
    former = d.get("former", False)
    if not isinstance(former, bool):
        raise Unrecoverable(f"seat {i + 1} has a malformed former flag")
    if user_id is None and not d["is_ai"] and not former:
        raise Unrecoverable(f"seat {i + 1} is a person without a user id")
    program = d.get("program")
    if program is not None and (not isinstance(program, str) or not d["is_ai"]):
        raise Unrecoverable(f"seat {i + 1} has a malformed program")
    level = d.get("level")
    if level is not None and (not isinstance(level, str) or not d["is_ai"]):
        raise Unrecoverable(f"seat {i + 1} has a malformed level")
    hints = d.get("hints", 0)
    if isinstance(hints, bool) or not isinstance(hints, int) or hints < 0:
        raise Unrecoverable(f"seat {i + 1} has a malformed hint count")
    hinted_at = _int(d.get("hinted_at"), f"seat {i + 1}'s hinted decision", optional=True)
    return Seat(user_id, d["name"], d["is_ai"], d["away"], _int(d["missed"], f"seat {i + 1}'s misses"), d["left"],
                program, level, hints, hinted_at, former)


def read_seats(text: object) -> list[Seat]:
    """The seats of a stored row (its ``seats`` column); raises :class:`Unrecoverable` when damaged."""
    return [_seat(d, i) for i, d in enumerate(_json(text, "the seats", list))]


def _seat_map(text: object, what: str, read: Callable[[object, str], T]) -> dict[int, T]:
    raw = _json(text, what, dict)
    out: dict[int, T] = {}
    for k, v in raw.items():
        try:
            seat = int(k)
        except ValueError:
            raise Unrecoverable(f"{what} names seat {k!r}") from None
        out[seat] = read(v, what)
    return out


def _check_log(entries: Sequence[LogEntry], version: int) -> None:
    """The log must hold exactly the actions 1..version, in order, each well formed.  (Fast: a
    thousand tables of hundreds of actions are checked at every start.)"""
    seqs = [e.seq for e in entries]
    if seqs != list(range(1, len(seqs) + 1)):
        i = next(i for i, q in enumerate(seqs, start=1) if q != i)
        raise Unrecoverable(f"the log jumps from action {i - 1} to {seqs[i - 1]!r} (actions lost)")
    for e in entries:
        if type(e.seat) is not int or type(e.code) is not str or not e.code or type(e.time) not in (float, int):
            raise Unrecoverable(f"action {e.seq} is malformed (seat {e.seat!r}, code {e.code!r}, time {e.time!r})")
    if len(entries) != version:
        missing = "missing" if len(entries) < version else "extra"
        raise Unrecoverable(f"the log has {len(entries)} actions but the table is at version {version} "
                            f"({missing} actions)")


def _start_state(cls: type[Game], players: int, options: Options, seed: int | None,
                 snapshot: object, snapshot_version: object, version: int, table_id: str) -> tuple[Game, int]:
    """The state to replay from: the snapshot when it is sound, else a fresh game from the seed."""
    if snapshot is not None:
        try:
            at = _int(snapshot_version, "the snapshot version")
            assert at is not None
            if not 0 < at <= version:
                raise Unrecoverable(f"the snapshot is at version {at}, beyond the table's {version}")
            state = cls.from_dict(_json(snapshot, "the snapshot", dict))
            if getattr(state, "players", players) != players or getattr(state, "seed", seed) != seed:
                raise Unrecoverable("the snapshot belongs to another game")
            return state, at
        except Exception as e:  # a bad snapshot costs only time: the whole log is still there
            reason = e.reason if isinstance(e, Unrecoverable) else f"{type(e).__name__}: {e}"
            log.warning("Table %s: ignoring its snapshot (%s); replaying the whole log", table_id, reason)
    if seed is None:
        raise Unrecoverable("a running table has no seed")
    try:
        return cls.create(players, options, seed), 0
    except Exception as e:
        raise Unrecoverable(f"the game cannot be set up again: {e}") from None


def rebuild(record: Record, entries: Sequence[LogEntry]) -> tuple[Table, dict[int, int]]:
    """A live table from its stored row and log, and the version at which each acting seat's
    decision began.  Raises :class:`Unrecoverable` with the reason when anything does not add up."""
    tid = record.get("id")
    if not isinstance(tid, str) or not tid:
        raise Unrecoverable("the table has no id")
    game = record.get("game")
    try:
        if not isinstance(game, str):
            raise TypeError(game)
        spec = engine.get(game)
    except (KeyError, TypeError):
        raise Unrecoverable(f"there is no game called {game!r}") from None
    try:
        phase = Phase(str(record.get("phase")))
    except ValueError:
        raise Unrecoverable(f"the phase {record.get('phase')!r} is unknown") from None
    options = _json(record.get("options"), "the options", dict)
    try:
        options = spec.game.read_options(options)
    except ValueError as err:
        raise Unrecoverable(f"the options are no longer valid: {err}") from None
    speed = record.get("speed")
    if speed not in SPEEDS:
        raise Unrecoverable(f"the speed {speed!r} is unknown")
    seats = [_seat(d, i) for i, d in enumerate(_json(record.get("seats"), "the seats", list))]
    version = _int(record.get("version"), "the version")
    assert version is not None
    if version < 0:
        raise Unrecoverable("the version is negative")
    seed = _int(record.get("seed"), "the seed", optional=True)
    ai_level = record.get("ai_level")
    if ai_level is not None and ai_level not in engine.levels(spec.game.name):
        raise Unrecoverable(f"the AI level {ai_level!r} is unknown")
    t = Table(
        id=tid,
        game=spec.game.name,
        options=options,
        speed=speed,
        guild_id=_int(record.get("guild_id"), "the server id"),
        channel_id=_int(record.get("channel_id"), "the channel id"),
        host_id=_int(record.get("host_id"), "the host id"),
        seats=seats,
        phase=phase,
        seed=seed,
        version=version,
        thread_id=_int(record.get("thread_id"), "the thread id", optional=True),
        message_id=_int(record.get("message_id"), "the message id", optional=True),
        created_at=_time(record.get("created_at"), "the creation time"),
        ended_early=bool(record.get("ended_early")),
        finished_at=_time(record.get("finished_at"), "the finish time", optional=True),
        shown=int(record.get("shown") or 0),
        ai_level=ai_level,
        # (a row from before migration 0011, or a language no longer shipped: English)
        locale=str(record.get("locale")) if record.get("locale") in words.LOCALES else words.ENGLISH,
        place=str(record.get("place") or "server"),
        house=bool(record.get("house")),
        ranked=bool(record.get("ranked")),
        play_ahead=record.get("play_ahead") is None or bool(record.get("play_ahead")),
    )
    if t.place not in PLACES:
        raise Unrecoverable(f"the place {t.place!r} is unknown")
    deadlines = _seat_map(record.get("deadlines") or "{}", "the deadlines", _time)
    since = _seat_map(record.get("since") or "{}", "the turn versions", _int)
    if phase == Phase.FINISHED and seed is None and not version and not entries:
        return t, {}  # a lobby that closed before its game started
    if phase == Phase.LOBBY:
        if version or entries:
            raise Unrecoverable("a lobby has logged actions")
        if not 1 <= len(seats) <= spec.game.max_players:
            raise Unrecoverable(f"a lobby with {len(seats)} seats")
        return t, {}
    _check_log(entries, version)
    players = len(seats)
    if not spec.game.min_players <= players <= spec.game.max_players:
        raise Unrecoverable(f"{players} seats for a game of {spec.game.min_players}-{spec.game.max_players}")
    state, start = _start_state(spec.game, players, options, seed, record.get("snapshot"),
                                record.get("snapshot_version"), version, tid)
    recent: list[Event] = []
    for e in entries[start:]:
        try:
            events = state.apply(e.seat, spec.game.action_from_code(e.code))
        except Exception as err:
            reason = getattr(err, "reason", None) or f"{type(err).__name__}: {err}"
            raise Unrecoverable(f"action {e.seq} (seat {e.seat}: {e.code}) no longer replays: {reason}") from None
        recent.extend(ev for ev in events if ev.to is None)
        del recent[:-RECENT_EVENTS]
    if phase == Phase.RUNNING and state.is_over:
        raise Unrecoverable("the log ends the game but the table was still running")
    t.state = state
    t.log = ActionLog(entries)
    t.recent = recent
    if phase == Phase.RUNNING:
        acting = set(state.to_act())
        t.deadlines = {s: d for s, d in deadlines.items() if s in acting}
        since = {s: min(v, version) for s, v in since.items() if s in acting}
    else:
        since = {}
    return t, since


def stub(record: Record) -> Table | None:
    """As much of a damaged table as can be read — its ids and whoever can be found in its seats —
    so its players can be told it is gone (its game is the stored name, not looked up).  ``None``
    without even a channel to tell."""
    def ident(key: str) -> int | None:
        v = record.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    channel = ident("channel_id")
    tid = record.get("id")
    if channel is None or not isinstance(tid, str):
        return None
    seats: list[Seat] = []
    try:
        for d in json.loads(record.get("seats") or "[]"):
            uid = d.get("user_id") if isinstance(d, dict) else None
            name = d.get("name") if isinstance(d, dict) else None
            seats.append(Seat(uid if isinstance(uid, int) else None, name if isinstance(name, str) else "?",
                              is_ai=not isinstance(uid, int)))
    except (ValueError, TypeError, AttributeError):
        seats = []
    game = record.get("game")
    return Table(
        id=tid,
        game=game if isinstance(game, str) else "",  # as stored, registered or not: a stub is never played
        options={},
        speed="normal",
        guild_id=ident("guild_id") or 0,
        channel_id=channel,
        host_id=ident("host_id") or 0,
        seats=seats,
        phase=Phase.FINISHED,
        thread_id=ident("thread_id"),
        message_id=ident("message_id"),
        ended_early=True,
    )
