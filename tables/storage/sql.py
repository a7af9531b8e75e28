"""The SQL of :mod:`tables.storage`, written once for both backends, and the small :class:`Dialect`
that says how each database spells what differs: placeholders (``?`` or ``$1``), IN-lists (spread
parameters or one array), a float cast, and PostgreSQL's move written as one statement.

:class:`SQLStorage` holds every method of the :class:`~tables.storage.base.Storage` interface that is
only SQL — tables, writes, pruning, stats reads, ratings.  Its work is *described*, not run: a
write is a generator of :class:`Run`/:class:`RunMany`/:class:`Value` steps, and each backend drives
it its own way (SQLite in its database thread inside its group commit, PostgreSQL with ``await`` on
a pooled connection, in order per table).  What stays in the backends is what really differs:
connections, transactions, locks, migrations and the file or the server going away.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from tables.storage.base import (
    LOG_COLUMNS,
    PRUNABLE,
    RESULT_COLUMNS,
    TABLE_COLUMNS,
    UNFINISHED,
    DuplicateTable,
    Migration,
    Param,
    Record,
    StaleWrite,
    StorageError,
    Stored,
    check_changes,
    in_shards,
    log_rows,
    result_rows,
)
from tables.table import LogEntry

#: Columns of real numbers (times, ratings): always sent as floats (asyncpg is strict about Python
#: types, and a time that happens to be a whole number is still a time; SQLite's REAL columns store
#: both alike).
FLOAT_COLUMNS = frozenset({"created_at", "finished_at", "time", "mu", "sigma", "loss"})
LOG = LOG_COLUMNS
#: PostgreSQL's array type of each log column but the table id (the move's ``unnest``).
LOG_TYPES = {"seq": "int", "seat": "int", "code": "text", "time": "float8", "auto": "int", "timed_out": "int"}


# ==== steps: what a write does, run by each backend ================================================
@dataclass(frozen=True)
class _Statement:
    """One statement and its parameters.  ``conflict``: raised instead of the database's error when
    the statement meets a key already stored.  What the backend sends back is the step's kind's."""

    sql: str
    params: Sequence[Param] = ()
    conflict: StorageError | None = None


@dataclass(frozen=True)
class Run(_Statement):
    """One statement; the backend sends back how many rows it changed."""


@dataclass(frozen=True)
class RunMany:
    """One statement per row (no rows: nothing runs); the backend sends back ``None``."""

    sql: str
    rows: Sequence[Sequence[Param]]
    conflict: StorageError | None = None


@dataclass(frozen=True)
class Value(_Statement):
    """One statement; the backend sends back the first column of its first row."""


@dataclass(frozen=True)
class Rows(_Statement):
    """One query; the backend sends back every row as a record (column → value)."""


Step = Run | RunMany | Value | Rows
# What a step is sent back depends on the step (a count, a value, rows), and so does a job's result.
Steps = Generator[Step, Any, Any]
R = TypeVar("R")


@dataclass(frozen=True)
class Job(Generic[R]):
    """A write: ``steps()`` makes its generator (one transaction).  Writes with the same ``key``
    commit in the order they were made; ``single``: exactly one statement, its own transaction."""

    steps: Callable[[], Generator[Step, Any, R]]
    key: str = ""
    single: bool = False


def affected(status: str) -> int:
    """The row count at the end of a PostgreSQL command status (``UPDATE 1``, ``INSERT 0 3``)."""
    tail = status.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else 0


# ==== dialects ===================================================================================
class Dialect:
    """How one database spells what differs.  Statements are written with ``?`` placeholders;
    :meth:`sql` turns them into the database's own."""

    name = ""
    #: The column type of a time (migrations: SQLite ``REAL``, PostgreSQL ``DOUBLE PRECISION``).
    real_type = "REAL"
    #: Appended to a read inside a write that the write then changes: PostgreSQL locks the rows
    #: read (another process's write waits); SQLite's one writer needs nothing.
    for_update = ""

    def sql(self, text: str) -> str:
        return text

    def in_list(self, column: str, values: Sequence[Param], kind: str) -> tuple[str, list[Param]]:
        """``column IN (values)`` and its parameters (``kind``: the values' PostgreSQL type)."""
        return f"{column} IN ({', '.join('?' * len(values))})", list(values)

    def real(self, expr: str) -> str:
        """``expr`` as a float (an average of integers)."""
        return expr

    def upsert(self, table: str, columns: Sequence[str], key: Sequence[str]) -> str:
        """Insert a row, or update every other column of the row with the same ``key``."""
        others = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
        return (f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))}) "
                f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {others}")

    def move(self, update: str) -> str | None:
        """A write of the row and its log in one statement, when the database has one (its
        parameters: ``update``'s, the table id, then the log's columns as arrays)."""
        return None


class SQLiteDialect(Dialect):
    name = "sqlite"


@functools.lru_cache(maxsize=1024)
def _numbered(text: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2, ...`` (no statement here has a ``?`` of its own)."""
    n = iter(range(1, 1 << 16))
    return re.sub(r"\?", lambda _: f"${next(n)}", text)


class PostgresDialect(Dialect):
    name = "postgres"
    real_type = "DOUBLE PRECISION"
    for_update = " FOR UPDATE"

    def sql(self, text: str) -> str:
        return _numbered(text)

    def in_list(self, column: str, values: Sequence[Param], kind: str) -> tuple[str, list[Param]]:
        return f"{column} = ANY(?::{kind}[])", [list(values)]

    def real(self, expr: str) -> str:
        # PostgreSQL's AVG of integers is NUMERIC (a Decimal in Python); SQLite gives floats.
        return f"{expr}::float8"

    def move(self, update: str) -> str:
        # The common write (a move): row and log entries in ONE statement, so one round trip and
        # atomic without BEGIN/COMMIT.  The log rows are inserted only if the guarded UPDATE
        # matched; a seq already logged aborts the whole statement.
        return (f"WITH u AS ({update} RETURNING 1), "
                f"a AS (INSERT INTO actions ({', '.join(LOG)}) "
                f"SELECT ?, * FROM unnest({', '.join(f'?::{LOG_TYPES[c]}[]' for c in LOG[1:])}) "
                "WHERE EXISTS (SELECT 1 FROM u) RETURNING 1) "
                "SELECT (SELECT count(*) FROM u)")


SQLITE = SQLiteDialect()
POSTGRES = PostgresDialect()


def floats(columns: Sequence[str], values: Sequence[Param]) -> list[Param]:
    return [float(v) if c in FLOAT_COLUMNS and isinstance(v, int) and not isinstance(v, bool) else v
            for c, v in zip(columns, values, strict=True)]


# ==== statements both backends run ===============================================================
CURRENT_VERSION = "SELECT COALESCE(MAX(version), 0) FROM schema_version"


def schema_version_table(d: Dialect) -> str:
    return ("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            f"applied_at {d.real_type} NOT NULL)")


def version_applied(m: Migration, at: float) -> str:
    """The ``schema_version`` row of a migration, with its values written in (SQLite runs it inside
    the migration's script, which takes no parameters; the name is a checked ``\\w+``)."""
    return (f"INSERT INTO schema_version (version, name, applied_at) VALUES ({int(m.version)}, '{m.name}', "
            f"{float(at)!r})")


def snapshot_rows(where: str) -> str:
    """The rows of ``tables t`` matching ``where``, oldest first."""
    return f"SELECT {', '.join(TABLE_COLUMNS)} FROM tables t WHERE {where} ORDER BY t.created_at, t.id"


def snapshot_logs(where: str) -> str:
    """The logs of the same rows, by table and in order."""
    return (f"SELECT {', '.join('a.' + c for c in LOG)} FROM actions a "
            f"WHERE a.table_id IN (SELECT t.id FROM tables t WHERE {where}) ORDER BY a.table_id, a.seq")


def unfinished_where(shards: Sequence[int] | None, count: int) -> str:
    return UNFINISHED if shards is None else f"{UNFINISHED} AND {in_shards(shards, count)}"


INSERT_ACTIONS = f"INSERT INTO actions ({', '.join(LOG)}) VALUES ({', '.join('?' * len(LOG))})"
RATING_COLUMNS = ("guild_id", "game", "user_id", "mu", "sigma", "games", "season", "season_games")
BOARD_COLUMNS = ("guild_id", "game", "season", "user_id", "mu", "sigma", "games")
#: Where a result counts in the ratings (tables/history/ratings.py ``rating_place``): an absent
#: person after everyone who played.
RATING_PLACE = "CASE WHEN absent = 1 THEN players + 1 ELSE place END"
REVIEW_COLUMNS = ("table_id", "seat", "guild_id", "user_id", "game", "review", "judged", "loss", "created_at")


class SQLStorage:
    """The SQL methods of :class:`~tables.storage.base.Storage`, over a backend's :meth:`_run` (a
    write: one transaction, its caller resumes after the commit), :meth:`_read` (rows as dicts)
    and :meth:`_snapshot` (rows and logs in one consistent read)."""

    dialect: ClassVar[Dialect] = SQLITE

    async def _run(self, job: Job[R]) -> R:
        raise NotImplementedError

    async def _read(self, sql: str, params: Sequence[Param] = ()) -> list[Record]:
        raise NotImplementedError

    async def _snapshot(self, where: str, params: Sequence[Param] = (), *,
                        between: Callable[[], None] | None = None) -> list[Stored]:
        raise NotImplementedError

    # ---- tables -------------------------------------------------------------------------------
    async def insert_table(self, record: Record) -> None:
        cols = [c for c in TABLE_COLUMNS if c in record]
        sql = self.dialect.sql(f"INSERT INTO tables ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})")
        params = floats(cols, [record[c] for c in cols])
        duplicate = DuplicateTable(f"A table with id {record.get('id')!r} is already stored.")

        def steps() -> Steps:
            yield Run(sql, params, conflict=duplicate)

        await self._run(Job(steps, str(record.get("id")), single=True))

    async def write(
        self,
        table_id: str,
        changes: Record,
        actions: Sequence[LogEntry] = (),
        *,
        expect: tuple[int, int],
        results: Sequence[Record] = (),
    ) -> None:
        d = self.dialect
        check_changes(changes)
        cols = sorted(changes)
        update = f"UPDATE tables SET {', '.join(f'{c} = ?' for c in cols)} WHERE id = ? AND version = ? AND rev = ?"
        params = [*floats(cols, [changes[c] for c in cols]), table_id, expect[0], expect[1]]
        logged = [floats(LOG, row) for row in log_rows(table_id, actions)]
        scored = [floats(RESULT_COLUMNS, row) for row in result_rows(results)]
        stale = StaleWrite(f"Table {table_id} is no longer at version {expect[0]} (rev {expect[1]}).")
        twice = StaleWrite(f"Table {table_id} already has an action numbered like these.")  # never apply one twice

        move = None if scored else d.move(update)
        if move is not None:
            columns = [[row[i] for row in logged] for i in range(1, len(LOG))]
            one = d.sql(move)

            def single() -> Steps:
                if (yield Value(one, [*params, table_id, *columns], conflict=twice)) != 1:
                    raise stale

            await self._run(Job(single, table_id, single=True))
            return

        guarded, insert = d.sql(update), d.sql(INSERT_ACTIONS)
        upsert = d.sql(d.upsert("results", RESULT_COLUMNS, ("table_id", "seat")))

        def steps() -> Steps:
            if (yield Run(guarded, params)) != 1:
                raise stale
            yield RunMany(insert, logged, conflict=twice)
            yield RunMany(upsert, scored)

        await self._run(Job(steps, table_id))

    async def mark_broken(self, table_id: str, reason: str, at: float) -> None:
        sql = self.dialect.sql("UPDATE tables SET broken = ?, finished_at = COALESCE(finished_at, ?) WHERE id = ?")

        def steps() -> Steps:
            yield Run(sql, (reason[:500], float(at), table_id))

        await self._run(Job(steps, table_id, single=True))

    async def prune(self, before: float) -> int:
        doomed = f"SELECT id FROM tables WHERE {PRUNABLE.format(before='?')}"
        logs = self.dialect.sql(f"DELETE FROM actions WHERE table_id IN ({doomed})")
        rows = self.dialect.sql(f"DELETE FROM tables WHERE id IN ({doomed})")
        # What was kept for those tables (migration 0009) goes with them.
        links = self.dialect.sql(f"DELETE FROM rematches WHERE old_id IN ({doomed}) OR new_id IN ({doomed})")
        pings = self.dialect.sql(f"DELETE FROM pings WHERE table_id IN ({doomed})")
        # A review left unfinished (migration 0010) cannot resume without its game's log.
        progress = self.dialect.sql(f"DELETE FROM review_progress WHERE table_id IN ({doomed})")
        # Reviews of play as old as that go too (docs/privacy.md: what is kept, and how long).
        reviews = self.dialect.sql("DELETE FROM reviews WHERE created_at < ?")

        def steps() -> Steps:
            yield Run(logs, (float(before),))
            yield Run(links, (float(before), float(before)))
            yield Run(pings, (float(before),))
            yield Run(progress, (float(before),))
            yield Run(reviews, (float(before),))
            return (yield Run(rows, (float(before),)))

        return int(await self._run(Job(steps)))

    # ---- reads --------------------------------------------------------------------------------
    async def unfinished(self, shards: Sequence[int] | None = None, count: int = 1) -> list[Stored]:
        return await self._snapshot(unfinished_where(shards, count))

    async def load(self, table_id: str) -> Stored | None:
        found = await self._snapshot("t.id = ?", (table_id,))
        return found[0] if found else None

    async def player_results(self, guild_id: int, user_id: int) -> list[Record]:
        return await self._read(
            f"SELECT {', '.join(RESULT_COLUMNS)} FROM results WHERE guild_id = ? AND user_id = ? ORDER BY finished_at",
            (guild_id, user_id),
        )

    async def results_everywhere(self, user_id: int) -> list[Record]:
        """Someone's results in every server and conversation (what ``/stats everywhere`` shows them)."""
        return await self._read(
            f"SELECT {', '.join(RESULT_COLUMNS)} FROM results WHERE user_id = ? ORDER BY finished_at", (user_id,))

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[Record]:
        d = self.dialect
        return await self._read(
            f"SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, {d.real('AVG(place)')} AS avg_place, "
            f"{d.real('AVG(score)')} AS avg_score, "
            "(SELECT r2.name FROM results r2 WHERE r2.guild_id = r.guild_id AND r2.user_id = r.user_id "
            " ORDER BY r2.finished_at DESC LIMIT 1) AS name "
            "FROM results r WHERE guild_id = ? AND game = ? GROUP BY guild_id, user_id "
            "ORDER BY wins DESC, avg_place ASC, games DESC, user_id ASC LIMIT ?",
            (guild_id, game, limit),
        )

    # ---- ratings (tables/history/ratings.py; migration 0004) ------------------------------------------
    async def unrated_results(self, skip: str = "") -> int:
        """How many ranked finished games (but ``skip``) have results but are not in the ratings yet."""
        rows = await self._read(
            "SELECT COUNT(DISTINCT table_id) AS n FROM results "
            "WHERE ranked = 1 AND table_id NOT IN (SELECT table_id FROM rated_tables) AND table_id != ?",
            (skip,),
        )
        return int(rows[0]["n"]) if rows else 0

    async def rating_inputs(self) -> list[Record]:
        """Every stored finishing order: people's places, the AI seats' (``user_id`` 0) and those of
        people Deckhand was asked to forget (``user_id`` −1)."""
        return await self._read(
            f"SELECT table_id, seat, guild_id, game, user_id, {RATING_PLACE} AS place, finished_at FROM results "
            "WHERE ranked = 1 "
            "UNION ALL SELECT table_id, seat, guild_id, game, 0 AS user_id, place, finished_at FROM ai_results "
            # Forgotten people's places (migration 0014): each a newcomer, never kept (user -1).
            "UNION ALL SELECT table_id, seat, guild_id, game, -1 AS user_id, place, finished_at FROM former_results "
            "ORDER BY finished_at, table_id, seat"
        )

    async def ratings_of(self, guild_id: int, game: str, user_ids: Sequence[int]) -> list[Record]:
        if not user_ids:
            return []
        which, ids = self.dialect.in_list("user_id", user_ids, "bigint")
        return await self._read(
            f"SELECT user_id, mu, sigma, games, season, season_games FROM ratings "
            f"WHERE guild_id = ? AND game = ? AND {which}",
            (guild_id, game, *ids),
        )

    async def save_ratings(self, table_id: str, guild_id: int, game: str, ratings: Sequence[Record],
                           season: str = "all") -> bool:
        """Store one game's new ratings, once: ``False`` (and nothing written) when the table was
        rated already.  First, the final board of every season of the game's ratings but ``season``
        is kept (``season_boards``)."""
        d = self.dialect
        close = d.sql(f"INSERT INTO season_boards ({', '.join(BOARD_COLUMNS)}) "
                      "SELECT guild_id, game, season, user_id, mu, sigma, season_games FROM ratings "
                      "WHERE guild_id = ? AND game = ? AND season != ? AND user_id > 0 "
                      "ON CONFLICT (guild_id, game, season, user_id) DO UPDATE SET mu = excluded.mu, "
                      "sigma = excluded.sigma, games = excluded.games")
        mark = d.sql("INSERT INTO rated_tables (table_id) VALUES (?) ON CONFLICT DO NOTHING")
        upsert = d.sql(d.upsert("ratings", RATING_COLUMNS, ("guild_id", "game", "user_id")))
        rating_rows = [floats(RATING_COLUMNS, [r[c] for c in RATING_COLUMNS]) for r in ratings]

        def steps() -> Steps:
            # ON CONFLICT DO NOTHING rather than catching the duplicate: in PostgreSQL an error
            # would abort the transaction.
            if (yield Run(mark, (table_id,))) != 1:
                return False
            yield Run(close, (guild_id, game, season))
            yield RunMany(upsert, rating_rows)
            return True

        return bool(await self._run(Job(steps, f"ratings:{table_id}")))

    async def replace_ratings(self, ratings: Sequence[Record], table_ids: Sequence[str],
                              boards: Sequence[Record] = ()) -> None:
        """Every rating and kept season board at once (a recomputation), and the games they include."""
        d = self.dialect
        insert = d.sql(f"INSERT INTO ratings ({', '.join(RATING_COLUMNS)}) "
                       f"VALUES ({', '.join('?' * len(RATING_COLUMNS))})")
        keep = d.sql(f"INSERT INTO season_boards ({', '.join(BOARD_COLUMNS)}) "
                     f"VALUES ({', '.join('?' * len(BOARD_COLUMNS))})")
        mark = d.sql("INSERT INTO rated_tables (table_id) VALUES (?) ON CONFLICT DO NOTHING")
        rows = [floats(RATING_COLUMNS, [r[c] for c in RATING_COLUMNS]) for r in ratings]
        kept = [floats(BOARD_COLUMNS, [r[c] for c in BOARD_COLUMNS]) for r in boards]

        def steps() -> Steps:
            yield Run("DELETE FROM ratings")
            yield Run("DELETE FROM season_boards")
            yield RunMany(insert, rows)
            yield RunMany(keep, kept)
            yield RunMany(mark, [(t,) for t in table_ids])

        await self._run(Job(steps, "ratings"))

    async def player_ratings(self, guild_id: int, user_id: int) -> list[Record]:
        return await self._read(
            "SELECT game, mu, sigma, games FROM ratings WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
        )

    async def rating_board(self, guild_id: int, game: str, season: str = "all", limit: int = 10) -> list[Record]:
        """The best people of ``season`` by μ − 3σ (the AI, user 0, never listed): its kept final
        board, or the ratings still in that season."""
        name = ("(SELECT s.name FROM results s WHERE s.guild_id = r.guild_id AND s.user_id = r.user_id "
                " ORDER BY s.finished_at DESC LIMIT 1) AS name")
        order = "ORDER BY conservative DESC, games DESC, r.user_id ASC LIMIT ?"
        kept = await self._read(
            f"SELECT r.user_id, r.mu, r.sigma, r.games, r.mu - 3 * r.sigma AS conservative, {name} "
            f"FROM season_boards r WHERE r.guild_id = ? AND r.game = ? AND r.season = ? {order}",
            (guild_id, game, season, limit),
        )
        if kept:
            return kept
        # A season with no kept board yet: nobody has played since it ended (or it is the current one).
        return await self._read(
            f"SELECT r.user_id, r.mu, r.sigma, r.season_games AS games, r.mu - 3 * r.sigma AS conservative, {name} "
            f"FROM ratings r WHERE r.guild_id = ? AND r.game = ? AND r.season = ? AND r.user_id > 0 {order}",
            (guild_id, game, season, limit),
        )

    async def rating_seasons(self, guild_id: int, game: str) -> list[str]:
        """The seasons with a board (kept, or still in the ratings), the latest first."""
        rows = await self._read(
            "SELECT DISTINCT season FROM season_boards WHERE guild_id = ? AND game = ? "
            "UNION SELECT DISTINCT season FROM ratings WHERE guild_id = ? AND game = ? AND user_id > 0",
            (guild_id, game, guild_id, game),
        )
        return sorted((str(r["season"]) for r in rows), reverse=True)

    # ---- reviews of a person's play (tables/ai/reviews.py; migration 0007) -------------------------
    async def save_review(self, record: Record) -> None:
        """Store one seat's review of one game (a second one for the same seat replaces it)."""
        d = self.dialect
        upsert = d.sql(d.upsert("reviews", REVIEW_COLUMNS, ("table_id", "seat")))
        row = floats(REVIEW_COLUMNS, [record[c] for c in REVIEW_COLUMNS])

        # Its decisions kept one by one while it ran (migration 0010) are in it now.
        done = d.sql("DELETE FROM review_progress WHERE table_id = ? AND seat = ?")

        def steps() -> Steps:
            yield Run(upsert, row)
            yield Run(done, (record["table_id"], int(record["seat"])))

        await self._run(Job(steps, f"review:{record['table_id']}"))

    async def save_review_progress(self, table_id: str, seat: int, judged: Sequence[tuple[int, str]]) -> None:
        """Keep judged decisions of a review still running (``(step, decision as JSON)``; migration 0010)."""
        d = self.dialect
        upsert = d.sql(d.upsert("review_progress", ("table_id", "seat", "step", "judged"),
                                ("table_id", "seat", "step")))
        rows = [(table_id, int(seat), int(step), text) for step, text in judged]

        def steps() -> Steps:
            yield RunMany(upsert, rows)

        await self._run(Job(steps, f"review:{table_id}"))

    async def review_progress(self, table_id: str, seat: int) -> list[Record]:
        """The decisions of an unfinished review judged so far: ``step``, ``judged`` (JSON), by step."""
        return await self._read(
            "SELECT step, judged FROM review_progress WHERE table_id = ? AND seat = ? ORDER BY step", (table_id, seat)
        )

    async def review_of(self, table_id: str, seat: int) -> Record | None:
        rows = await self._read(
            f"SELECT {', '.join(REVIEW_COLUMNS)} FROM reviews WHERE table_id = ? AND seat = ?", (table_id, seat)
        )
        return rows[0] if rows else None

    async def review_losses(self, guild_id: int, user_id: int) -> list[Record]:
        """Per game: the reviewed games, the judged decisions and their summed loss."""
        d = self.dialect
        return await self._read(
            f"SELECT game, COUNT(*) AS games, SUM(judged) AS judged, {d.real('SUM(loss)')} AS loss "
            "FROM reviews WHERE guild_id = ? AND user_id = ? GROUP BY game ORDER BY game",
            (guild_id, user_id),
        )

    # ---- what a restart must not forget (tables/kept.py; migration 0009) -------------------------
    async def save_rematch(self, old_id: str, new_id: str, at: float) -> None:
        """The lobby ``new_id`` is the rematch of the finished table ``old_id`` (a later one replaces it)."""
        d = self.dialect
        upsert = d.sql(d.upsert("rematches", ("old_id", "new_id", "created_at"), ("old_id",)))

        def steps() -> Steps:
            yield Run(upsert, (old_id, new_id, float(at)))

        await self._run(Job(steps, f"rematch:{old_id}", single=True))

    async def rematch_of(self, old_id: str) -> str | None:
        rows = await self._read("SELECT new_id FROM rematches WHERE old_id = ?", (old_id,))
        return str(rows[0]["new_id"]) if rows else None

    async def save_ping(self, table_id: str, message_id: int, channel_id: int, due: str) -> None:
        """A turn ping (or nudge) standing in a table's thread; ``due``: its seats' deadlines as JSON."""
        d = self.dialect
        upsert = d.sql(d.upsert("pings", ("table_id", "message_id", "channel_id", "due"), ("table_id", "message_id")))

        def steps() -> Steps:
            yield Run(upsert, (table_id, int(message_id), int(channel_id), due))

        await self._run(Job(steps, f"ping:{table_id}", single=True))

    async def drop_ping(self, table_id: str, message_id: int) -> None:
        delete = self.dialect.sql("DELETE FROM pings WHERE table_id = ? AND message_id = ?")

        def steps() -> Steps:
            yield Run(delete, (table_id, int(message_id)))

        await self._run(Job(steps, f"ping:{table_id}", single=True))

    async def pings_of(self, table_id: str) -> list[Record]:
        return await self._read(
            "SELECT message_id, channel_id, due FROM pings WHERE table_id = ? ORDER BY message_id", (table_id,)
        )

    # ---- a server's own settings (tables/servers.py; migration 0013) -----------------------------
    async def save_server_locale(self, guild_id: int, locale: str | None, at: float) -> None:
        """The language ``guild_id``'s tables read (``None``: the server's Discord language)."""
        d = self.dialect
        upsert = d.sql(d.upsert("servers", ("guild_id", "locale", "updated_at"), ("guild_id",)))

        def steps() -> Steps:
            yield Run(upsert, (int(guild_id), locale, float(at)))

        await self._run(Job(steps, f"server:{guild_id}", single=True))

    async def server_locale(self, guild_id: int) -> str | None:
        rows = await self._read("SELECT locale FROM servers WHERE guild_id = ?", (int(guild_id),))
        return None if not rows or rows[0]["locale"] is None else str(rows[0]["locale"])
