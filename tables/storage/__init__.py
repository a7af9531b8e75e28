"""Where tables, their action logs and game results are kept: one small async interface, and two
backends behind it, chosen by ``DATABASE_URL``:

* ``sqlite:///deckhand.db`` (the default) — an embedded SQLite file through aiosqlite
  (:mod:`tables.storage.sqlite`);
* ``postgresql://user:password@host:5432/deckhand`` — a PostgreSQL server through asyncpg
  (:mod:`tables.storage.postgres`), for several bot processes sharing one database.

Their SQL is written once, in :mod:`tables.storage.sql` (with a small dialect object for what
PostgreSQL spells differently); a backend keeps only its connections, transactions and locks.

The storage is a dumb row store.  It knows columns, not games: :mod:`tables.history.records` turns a
:class:`~tables.table.Table` into column values and back, and the runtime decides *when* to write.
What every backend guarantees:

* every write is one transaction, and its caller resumes only after the commit (so nothing is shown
  before it is stored); a caller cancelled half way through (a shutdown) cannot leave one open: the
  transaction runs in a task of the storage's own, which the caller only waits for;
* a write to a table names the ``(version, rev)`` it expects the stored row to have, and changes
  nothing when the row has moved on (:class:`StaleWrite`) — so two processes running the same
  table cannot both win; an action number already logged is refused the same way;
* :meth:`Storage.unfinished` (recovery) reads the rows and their logs in one consistent snapshot;
* the schema is versioned: numbered migrations are applied at start-up, each in its own transaction
  together with its row in ``schema_version`` (see :func:`migrations`);
* a database that has gone away under a running process (the SQLite file deleted or replaced, the
  PostgreSQL tables dropped) is detected at the next write, which raises :class:`StorageGone` —
  and so does every write after it: the process should stop taking moves and be restarted.
"""

from __future__ import annotations

from pathlib import Path

from tables.storage.base import (
    DEFAULT_URL,
    DIALECTS,
    LATEST,
    LOG_COLUMNS,
    MIGRATIONS,
    MUTABLE,
    PRUNABLE,
    RESULT_COLUMNS,
    TABLE_COLUMNS,
    UNFINISHED,
    DatabaseURL,
    DuplicateTable,
    Migration,
    PostgresURL,
    Record,
    SQLiteURL,
    StaleWrite,
    Storage,
    StorageError,
    StorageGone,
    Stored,
    matching_migrations,
    migrations,
    parse_url,
)
from tables.storage.postgres import PostgresStorage
from tables.storage.sqlite import SQLiteStorage, migrate, schema_version


async def open_storage(url: str = DEFAULT_URL, base: Path | None = None, *, upto: int | None = None,
                       exclusive: bool = False) -> Storage:
    """Open (creating it if needed) and migrate the database named by ``url``: a
    :class:`~tables.storage.sqlite.SQLiteStorage` or a :class:`~tables.storage.postgres.PostgresStorage`
    (both :class:`Storage`).  Raises :class:`StorageError` with a sentence for a person.
    ``exclusive``: this process is the only bot on a SQLite file (a second one refuses to start:
    two processes would each drive the same tables)."""
    parsed = parse_url(url, base)
    if isinstance(parsed, PostgresURL):
        return await PostgresStorage.open(parsed, upto=upto)
    return await SQLiteStorage.open(parsed, upto=upto, exclusive=exclusive)


__all__ = [
    "DEFAULT_URL", "DIALECTS", "LATEST", "LOG_COLUMNS", "MIGRATIONS", "MUTABLE", "PRUNABLE", "RESULT_COLUMNS",
    "TABLE_COLUMNS", "UNFINISHED", "DatabaseURL", "DuplicateTable", "Migration", "PostgresStorage", "PostgresURL",
    "Record", "SQLiteStorage", "SQLiteURL", "StaleWrite", "Storage", "StorageError", "StorageGone", "Stored",
    "matching_migrations", "migrate", "migrations", "open_storage", "parse_url", "schema_version",
]
