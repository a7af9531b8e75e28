"""tables/storage/backup.py: a consistent copy of a SQLite database that another connection writes to
while it is copied (SQLite's online backup starts again after such a write)."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from tables.storage.backup import backup, main

WRITES = 5


def test_a_copy_made_while_another_connection_writes_holds_every_write_whole(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE moves (n INTEGER PRIMARY KEY, total INTEGER NOT NULL, pad TEXT)")
        conn.execute("INSERT INTO moves VALUES (0, 0, '')")
        conn.executemany("INSERT INTO moves VALUES (?, 0, ?)", [(-n, "x" * 500) for n in range(1, 300)])
        conn.commit()
    writes = [0]
    with contextlib.closing(sqlite3.connect(db)) as writer:
        def step(_status: int, _remaining: int, _total: int) -> None:
            # Between two steps of the copy (one page each), a move and its running total, in one transaction.
            if writes[0] < WRITES:
                writes[0] += 1
                n = writes[0]
                writer.execute("INSERT INTO moves VALUES (?, (SELECT total FROM moves WHERE n = ?) + ?, '')",
                               (n, n - 1, n))
                writer.commit()

        backup(db, tmp_path / "copy.db", pages=1, progress=step)
    assert writes[0] == WRITES
    with contextlib.closing(sqlite3.connect(tmp_path / "copy.db")) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        rows = dict(copy.execute("SELECT n, total FROM moves WHERE n >= 0").fetchall())
    # The copy is of the database after the last write: every move there, each total whole.
    assert rows == {n: n * (n + 1) // 2 for n in range(WRITES + 1)}


def test_the_command_refuses_postgresql_and_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "out.db"), "--database", "postgresql://u:p@db:5432/deckhand"]) == 2
    assert "pg_dump" in capsys.readouterr().err
    assert main([str(tmp_path / "out.db"), "--database", f"sqlite:///{tmp_path}/none.db"]) == 1
    assert "no database file" in capsys.readouterr().err
    assert not (tmp_path / "out.db").exists() and not (tmp_path / "none.db").exists()
