"""A consistent copy of the SQLite database while the bot runs (docs/deploy.md, "Backups").

    python -m tables.storage.backup OUT [--database URL]

``URL`` defaults to ``DATABASE_URL`` (from the environment, else the ``.env`` beside bot.py), else
``sqlite:///deckhand.db``: the database the bot itself uses.  The copy is made with SQLite's online
backup API: page by page, restarted by SQLite whenever the bot writes meanwhile, so ``OUT`` is the
database as it was at one moment — every table at a version it was stored at, never half a move.
The bot goes on meanwhile (its writes wait a few milliseconds at most per step).  ``OUT`` is written
beside itself first and moved into place when complete, so an interrupted backup never leaves a
half-written file under that name.

PostgreSQL is backed up with its own tools (``pg_dump``), as docs/deploy.md says.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

from tables.storage.base import PostgresURL, StorageError, parse_url

HERE = Path(__file__).resolve().parents[2]  # bot.py's folder: relative database paths start there
PAGES_PER_STEP = 256  # pages copied before the bot may write again (4 KiB pages: 1 MiB)
EXIT_USAGE = 2


def backup(database: Path | str, out: Path | str, *, pages: int = PAGES_PER_STEP,
           progress: Callable[[int, int, int], object] | None = None) -> int:
    """Copy the SQLite database file ``database`` to ``out`` consistently while others write to it;
    returns the copy's size in bytes.  ``out`` appears only once complete.  ``progress``: called
    after each step (sqlite3's ``backup`` callback: status, pages remaining, pages in all)."""
    source_path = Path(database)
    if not source_path.is_file():
        raise FileNotFoundError(f"There is no database file at {source_path}.")
    target = Path(out)
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    # Read-only: a backup never changes the bot's database (nor creates one where none is).
    source = sqlite3.connect(f"{source_path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy, pages=pages, progress=progress)
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
            ok = copy.execute("PRAGMA integrity_check").fetchone()
            if ok is None or ok[0] != "ok":
                raise sqlite3.DatabaseError(f"the copy failed its integrity check: {ok}")
        finally:
            copy.close()
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        source.close()
    os.replace(partial, target)
    return target.stat().st_size


def database_url(explicit: str | None) -> str:
    """The database to back up: ``--database``, else the bot's own setting (environment, ``.env``)."""
    if explicit:
        return explicit
    url = os.environ.get("DATABASE_URL", "").strip()
    env_file = HERE / ".env"
    if not url and env_file.is_file():
        try:
            from dotenv import dotenv_values

            url = (dotenv_values(env_file).get("DATABASE_URL") or "").strip()
        except ImportError:
            pass
    return url or "sqlite:///deckhand.db"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tables.storage.backup",
                                     description="A consistent copy of Deckhand's SQLite database, made while the "
                                                 "bot runs.")
    parser.add_argument("out", help="the file to write the copy to (replaced if it exists)")
    parser.add_argument("--database", help="the database URL (default: DATABASE_URL, as the bot reads it)")
    args = parser.parse_args(argv)
    try:
        url = parse_url(database_url(args.database), HERE)
    except StorageError as e:
        print(e, file=sys.stderr)
        return EXIT_USAGE
    if isinstance(url, PostgresURL):
        print("This database is PostgreSQL: back it up with pg_dump, e.g. pg_dump --format=custom --file=deckhand.dump "
              "\"$DATABASE_URL\" (docs/deploy.md, Backups).", file=sys.stderr)
        return EXIT_USAGE
    if url.path == ":memory:":
        print("This database lives in memory only: there is nothing to back up.", file=sys.stderr)
        return EXIT_USAGE
    try:
        size = backup(url.path, args.out)
    except (OSError, sqlite3.Error) as e:
        print(f"The backup failed: {e}", file=sys.stderr)
        return 1
    print(f"Backed up {url.path} to {args.out} ({size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
