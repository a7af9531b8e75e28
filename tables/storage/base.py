"""What both storage backends share: the :class:`Storage` interface, its errors, the column lists,
database URLs and the migration files.  Import from :mod:`tables.storage`, which also opens the
backend a URL names; this module is apart only so that the backends need not import that one."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol
from urllib.parse import parse_qs, urlsplit

from tables.table import LogEntry

MIGRATIONS = Path(__file__).resolve().with_name("migrations")
#: Each backend's migrations: the SQLite files sit in ``tables/storage/migrations/`` itself, PostgreSQL's
#: in ``tables/storage/migrations/postgres/``, with the same numbers and names (a test checks they match).
DIALECTS = {"sqlite": MIGRATIONS, "postgres": MIGRATIONS / "postgres"}
DEFAULT_URL = "sqlite:///deckhand.db"

#: Columns a write may change (``id``, ``game``, ``guild_id`` and the rest never change).
MUTABLE = frozenset({
    "options", "speed", "thread_id", "message_id", "host_id", "seats", "phase", "seed", "version", "rev",
    "deadlines", "since", "finished_at", "ended_early", "snapshot", "snapshot_version", "shown", "ai_level", "locale",
})
TABLE_COLUMNS = ("id", "game", "options", "speed", "guild_id", "channel_id", "thread_id", "message_id", "host_id",
                 "seats", "phase", "seed", "version", "rev", "deadlines", "since", "created_at", "finished_at",
                 "ended_early", "snapshot", "snapshot_version", "broken", "shown", "ai_level", "locale", "place",
                 "house", "ranked", "play_ahead")
RESULT_COLUMNS = ("table_id", "seat", "guild_id", "game", "user_id", "name", "players", "place", "score", "won",
                  "figures", "finished_at", "hints", "ranked", "absent")
OPTIONAL_RESULTS = frozenset({"hints", "ranked", "absent"})
LOG_COLUMNS = ("table_id", "seq", "seat", "code", "time", "auto", "timed_out")  # timed_out: migration 0008
#: Which tables are still to be recovered (a condition on ``tables t``; the same in both dialects).
# (a finished table whose end its players have not all been shown yet counts: see 0005_shown.sql)
UNFINISHED = "(t.phase != 'finished' OR t.shown != 3) AND t.broken IS NULL"


def in_shards(shards: Sequence[int], count: int) -> str:
    """A condition on ``tables t``: the table's guild is in one of ``shards`` of ``count`` (a DM's
    or group DM's table: shard 0) —
    Discord's formula, :func:`tables.shards.shard_of`, in SQL both dialects read alike (a guild id
    is a positive 64-bit integer in both).  Numbers, not parameters: they are ints, checked here."""
    count = int(count)
    ids = sorted({int(s) for s in shards})
    if count < 1 or any(not 0 <= s < count for s in ids):
        raise ValueError(f"shards {ids} of {count}")
    if count == 1:
        return "1 = 1" if ids else "1 = 0"
    if not ids:
        return "1 = 0"
    # A DM's or group DM's table (its place's id is a channel's) comes through shard 0, as Discord
    # sends every interaction without a server there.
    private = "t.place = 'private'"
    by_guild = f"(t.place != 'private' AND ((t.guild_id >> 22) % {count}) IN ({', '.join(map(str, ids))}))"
    return f"({private} OR {by_guild})" if 0 in ids else by_guild


#: Which tables :meth:`Storage.prune` deletes (``{before}`` is the dialect's parameter).
PRUNABLE = "finished_at < {before} AND (phase = 'finished' OR broken IS NOT NULL)"

Record = dict[str, Any]
#: A statement's parameter as both drivers take it (a list: a PostgreSQL array, ``Dialect.in_list``).
Param = str | int | float | None | list["Param"]


class StorageError(Exception):
    """The storage cannot be used (bad URL, newer schema, failed migration); the message says why."""


class StaleWrite(StorageError):
    """The stored table is not at the version this writer expected: someone else wrote it."""


class DuplicateTable(StorageError):
    """A table with that id is already stored."""


class StorageGone(StorageError):
    """The database this process opened is not there any more (the SQLite file was deleted or
    replaced, the PostgreSQL tables dropped).  Nothing written now would be kept, so every write is
    refused from then on; the message says what happened.  The process should stop taking moves,
    say so, and be restarted on a good database."""


@dataclass
class Forgotten:
    """What a "forget me" did, or why it did nothing (``busy``: tables still being played)."""

    busy: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    results: int = 0
    ratings: int = 0
    reviews: int = 0


class Stored(NamedTuple):
    """One table as stored: its row (column → value, JSON columns as text) and its action log."""

    record: Record
    log: list[LogEntry]


class Storage(Protocol):
    """What the runtime needs from a store.  Every method is one transaction or one read."""

    #: ``None`` while the database is usable; once :class:`StorageGone` was raised, why.
    gone: str | None

    @property
    def busy(self) -> bool:
        """Whether any read or write is queued or in progress (tests wait for quiet)."""
        ...

    async def insert_table(self, record: Record) -> None:
        """Store a new table (raises :class:`DuplicateTable` if the id exists)."""
        ...

    async def write(
        self,
        table_id: str,
        changes: Record,
        actions: Sequence[LogEntry] = (),
        *,
        expect: tuple[int, int],
        results: Sequence[Record] = (),
    ) -> None:
        """Append ``actions`` to the log, update the row with ``changes`` and add ``results``, all
        or nothing — only if the stored row is at ``expect = (version, rev)``; else
        :class:`StaleWrite`."""
        ...

    async def unfinished(self, shards: Sequence[int] | None = None, count: int = 1) -> list[Stored]:
        """Every table in the lobby or running that is not marked broken, with its log, read in
        one consistent snapshot; with ``shards``, only those of guilds in these shards of ``count``
        (the database picks them: a process never reads another's tables)."""
        ...

    async def load(self, table_id: str) -> Stored | None: ...

    async def mark_broken(self, table_id: str, reason: str, at: float) -> None: ...

    async def prune(self, before: float) -> int:
        """Delete finished (or broken) tables and their logs that ended before ``before``, and
        reviews made before it; results stay.  Returns how many tables went."""
        ...

    async def player_results(self, guild_id: int, user_id: int) -> list[Record]: ...

    async def results_everywhere(self, user_id: int) -> list[Record]:
        """Someone's results in every server and conversation."""
        ...

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[Record]: ...

    async def check(self) -> None:
        """Raise :class:`StorageGone` if the database has gone away (cheap: for a periodic check)."""
        ...

    async def close(self) -> None: ...

    # ---- ratings (kept for tables/history/ratings.py; migrations 0004 and 0016) ------------------------
    async def unrated_results(self, skip: str = "") -> int:
        """How many ranked finished games (but ``skip``) have results but are not in the ratings yet."""
        ...

    async def rating_inputs(self) -> list[Record]:
        """Every stored ranked finishing order: people's places (an absent person's after everyone's:
        ``ratings.rating_place``), the AI seats' (``user_id`` 0) and the places of people Deckhand
        forgot (``user_id`` −1)."""
        ...

    async def ratings_of(self, guild_id: int, game: str, user_ids: Sequence[int]) -> list[Record]: ...

    async def save_ratings(self, table_id: str, guild_id: int, game: str, ratings: Sequence[Record],
                           season: str = "all") -> bool:
        """Store one game's new ratings, once: ``False`` (and nothing written) when the table was
        rated already.  First, the final board of every season of the game's ratings but ``season``
        is kept (``season_boards``)."""
        ...

    async def replace_ratings(self, ratings: Sequence[Record], table_ids: Sequence[str],
                              boards: Sequence[Record] = ()) -> None:
        """Every rating and kept season board at once (a recomputation), and the games they include."""
        ...

    async def player_ratings(self, guild_id: int, user_id: int) -> list[Record]: ...

    async def rating_board(self, guild_id: int, game: str, season: str = "all", limit: int = 10) -> list[Record]:
        """The best people of ``season`` by μ − 3σ (the AI, user 0, never listed): its kept final
        board, or the ratings still in that season."""
        ...

    async def rating_seasons(self, guild_id: int, game: str) -> list[str]:
        """The seasons with a board (kept, or still in the ratings), the latest first."""
        ...

    # ---- reviews of a person's play (tables/ai/reviews.py; migration 0007) ------------------------
    async def save_review(self, record: Record) -> None:
        """Store one seat's review of one game (a second one for the same seat replaces it)."""
        ...

    async def review_of(self, table_id: str, seat: int) -> Record | None: ...

    async def save_review_progress(self, table_id: str, seat: int, judged: Sequence[tuple[int, str]]) -> None:
        """Keep judged decisions of a review still running (``(step, decision as JSON)``; migration 0010)."""
        ...

    async def review_progress(self, table_id: str, seat: int) -> list[Record]:
        """The decisions of an unfinished review judged so far: ``step``, ``judged`` (JSON), by step."""
        ...

    async def review_losses(self, guild_id: int, user_id: int) -> list[Record]:
        """Per game: the reviewed games, the judged decisions and their summed loss."""
        ...

    # ---- what a restart must not forget (tables/kept.py; migration 0009) -----------------------
    async def save_rematch(self, old_id: str, new_id: str, at: float) -> None:
        """The lobby ``new_id`` is the rematch of the finished table ``old_id``."""
        ...

    async def rematch_of(self, old_id: str) -> str | None: ...

    async def save_ping(self, table_id: str, message_id: int, channel_id: int, due: str) -> None:
        """A turn ping (or nudge) standing in a table's thread; ``due``: its seats' deadlines as JSON."""
        ...

    async def drop_ping(self, table_id: str, message_id: int) -> None: ...

    async def pings_of(self, table_id: str) -> list[Record]:
        """The table's standing pings: ``message_id``, ``channel_id``, ``due``."""
        ...

    # ---- a server's own settings (tables/servers.py; migration 0013) ---------------------------
    async def save_server_locale(self, guild_id: int, locale: str | None, at: float) -> None:
        """The language a server's tables read, chosen with ``/game language`` (``None``: Discord's)."""
        ...

    async def server_locale(self, guild_id: int) -> str | None: ...

    # ---- what is kept about a person or a server (tables/privacy.py; migration 0014) ----------
    async def person_tables(self, user_id: int) -> list[Record]:
        """The stored tables whose seats or host may be ``user_id`` (the runtime reads the seats)."""
        ...

    async def person_rows(self, user_id: int) -> dict[str, list[Record]]:
        """Their ``results``, ``ratings`` and ``reviews`` everywhere."""
        ...

    async def seat_logs(self, seats: Sequence[tuple[str, int]]) -> list[Record]:
        """The logged moves of these ``(table id, seat)`` pairs."""
        ...

    async def forget_person(self, user_id: int, rewrite: Callable[[str], tuple[str, list[int]] | None]
                            ) -> Forgotten:
        """Everything about ``user_id`` deleted or anonymized in one transaction (see tables/storage/people.py)."""
        ...

    async def save_tournament(self, record: Record) -> None:
        """Store a tournament (``id, guild_id, channel_id, message_id, data, finished``; migration 0018)."""
        ...

    async def unfinished_tournaments(self) -> list[Record]:
        """Every stored tournament not finished yet."""
        ...

    async def person_tournaments(self, user_id: int) -> list[Record]:
        """Every stored tournament whose data may name ``user_id``."""
        ...

    async def server_settings(self, guild_id: int) -> str | None:
        """A server's /settings as stored (JSON; migration 0015), ``None`` if it never chose any."""
        ...

    async def save_server_settings(self, guild_id: int, settings: str, at: float, user_id: int, change: str) -> None:
        """Store a server's settings and who changed what, in one transaction."""
        ...

    async def settings_log(self, guild_id: int, limit: int = 5) -> list[Record]: ...

    async def note_departure(self, guild_id: int, at: float) -> None: ...

    async def cancel_departure(self, guild_id: int) -> bool: ...

    async def purge_departed(self, before: float) -> list[int]:
        """Delete what servers that removed Deckhand before ``before`` left; returns them."""
        ...


def check_changes(changes: Record) -> None:
    bad = set(changes) - MUTABLE
    if bad:
        raise ValueError(f"Columns that cannot be written: {sorted(bad)}")


def log_rows(table_id: str, actions: Sequence[LogEntry]) -> list[tuple[Param, ...]]:
    return [(table_id, a.seq, a.seat, a.code, float(a.time), int(a.auto), int(a.timeout)) for a in actions]


def result_rows(results: Sequence[Record]) -> list[list[Param]]:
    # Rows made before hints were counted (or by a caller that has none) count none.
    return [[r.get(c, 0) if c in OPTIONAL_RESULTS else r[c] for c in RESULT_COLUMNS] for r in results]


def stored_logs(rows: Iterable[Sequence[Any]]) -> dict[str, list[LogEntry]]:
    """``(table_id, seq, seat, code, time, auto[, timed_out])`` rows, in order, as logs by table id."""
    out: dict[str, list[LogEntry]] = {}
    for tid, seq, seat, code, at, auto, *timed_out in rows:
        out.setdefault(tid, []).append(LogEntry(seq, seat, code, at, bool(auto), bool(timed_out and timed_out[0])))
    return out


# ==== URLs ======================================================================================
@dataclass(frozen=True)
class SQLiteURL:
    path: str  # a file path, or ":memory:"
    synchronous: str = "NORMAL"


@dataclass(frozen=True)
class PostgresURL:
    dsn: str  # handed to asyncpg as it is (server settings may ride in its query)

    @property
    def where(self) -> str:
        """The URL without its password, for messages and logs."""
        parts = urlsplit(self.dsn)
        host = parts.hostname or ""
        netloc = (f"{parts.username}@" if parts.username else "") + host + (f":{parts.port}" if parts.port else "")
        query = parse_qs(parts.query)
        socket = (query.get("host") or [""])[0]
        return f"postgresql://{netloc}{parts.path}" + (f" (socket in {socket})" if socket else "")


DatabaseURL = SQLiteURL | PostgresURL

URL_HELP = ("DATABASE_URL must look like sqlite:///deckhand.db (a file next to bot.py), "
            "sqlite:////absolute/path/deckhand.db, sqlite:///:memory: or "
            "postgresql://user:password@host:5432/database")


def parse_url(url: str, base: Path | None = None) -> DatabaseURL:
    """``sqlite:///deckhand.db`` (relative to ``base``, default the working directory),
    ``sqlite:////var/lib/deckhand.db`` (absolute), ``sqlite:///:memory:`` (nothing kept);
    optional ``?synchronous=normal|full``.  Or ``postgresql://`` (also ``postgres://``) in
    libpq's URL form, e.g. ``postgresql://deckhand:secret@db:5432/deckhand`` or
    ``postgresql:///deckhand?host=/run/postgresql`` for a unix socket."""
    text = (url or "").strip()
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - a bad port raises here, not later
    except ValueError:
        raise StorageError(f"{URL_HELP}, not {text!r}.") from None
    if parts.scheme in ("postgresql", "postgres"):
        if not (parts.netloc or parts.query):
            raise StorageError(f"{URL_HELP}; {text!r} names no server or database.")
        return PostgresURL(text)
    if parts.scheme != "sqlite" or parts.netloc or not parts.path.startswith("/") or len(parts.path) < 2:
        raise StorageError(f"{URL_HELP}, not {text!r}.")
    raw = parts.path[1:]  # sqlite:///x.db -> "x.db"; sqlite:////abs -> "/abs"
    sync = (parse_qs(parts.query).get("synchronous") or ["normal"])[0].upper()
    if sync not in ("NORMAL", "FULL"):
        raise StorageError(f"DATABASE_URL's synchronous must be normal or full, not {sync.lower()!r}.")
    if raw == ":memory:":
        return SQLiteURL(raw, sync)
    path = Path(raw)
    if not path.is_absolute() and base is not None:
        path = base / path
    return SQLiteURL(str(path), sync)


# ==== migrations =================================================================================
@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations(dialect: str = "sqlite") -> list[Migration]:
    """The numbered migrations of a dialect (``sqlite`` or ``postgres``), in order
    (``0001_tables_and_log.sql`` is version 1).

    To change the schema, add ``NNNN_name.sql`` with the next number in ``tables/storage/migrations/``
    (SQLite) *and* the same name in ``tables/storage/migrations/postgres/`` (PostgreSQL: ``BIGINT`` for
    Discord ids, ``DOUBLE PRECISION`` for times, no ``WITHOUT ROWID``).  Each file runs in one
    transaction with its ``schema_version`` row; a backend refuses to start when its set does
    not match the other's."""
    folder = DIALECTS.get(dialect)
    if folder is None:
        raise StorageError(f"No migrations for {dialect!r}.")
    found = []
    for path in sorted(folder.glob("*.sql")):
        m = re.fullmatch(r"(\d{4})_(\w+)\.sql", path.name)
        if m is None:
            raise StorageError(f"Migration file {path.name} should be named NNNN_name.sql.")
        found.append(Migration(int(m[1]), m[2], path.read_text()))
    for i, mig in enumerate(found, start=1):
        if mig.version != i:
            raise StorageError(f"Migrations must be numbered 1, 2, 3, ... without gaps; found {mig.version} at {i}.")
    return found


def matching_migrations(dialect: str) -> list[Migration]:
    """:func:`migrations` of ``dialect``, refusing a set that differs from the other dialect's (a
    migration written for one backend and not yet ported to the other)."""
    mine = migrations(dialect)  # looked up at call time: a test may substitute migrations()
    for other in DIALECTS:
        if other == dialect:
            continue
        theirs = migrations(other)
        if [(m.version, m.name) for m in mine] != [(m.version, m.name) for m in theirs]:
            names = sorted({f"{m.version:04d}_{m.name}" for m in mine} ^ {f"{m.version:04d}_{m.name}" for m in theirs})
            raise StorageError(f"The {dialect} and {other} migrations differ ({', '.join(names)}): every "
                               "migration needs a version for each database.")
    return mine


LATEST = len(migrations())


def newer_schema(current: int, known: int, where: str) -> StorageError:
    return StorageError(
        f"The database is at schema version {current}, newer than this Deckhand knows ({known}): "
        f"run a newer Deckhand, or point DATABASE_URL at another {where}."
    )
