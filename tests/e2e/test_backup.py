"""A backup taken mid-game while the bot runs (``python -m tables.storage.backup``), restored as
docs/deploy.md says (stop the bot, put the copy in the database's place, start it), and the table
resumes on the bot started from the copy: the people play it to its end, every move once."""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.e2e.conftest import make_restart_world
from tests.e2e.test_shard_failover import waiting_for_a_person
from tests.fakediscord.play import is_over, open_table, play_seat, table_id_of

ROOT_DIR = Path(__file__).resolve().parents[2]


class SQLiteRows:
    """What ``waiting_for_a_person`` reads of a database (``rows``), on a SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with contextlib.closing(sqlite3.connect(self.path, timeout=5)) as conn:
            return conn.execute(sql, params).fetchall()


def version_in(path: Path, tid: str) -> int:
    return SQLiteRows(path).rows("SELECT version FROM tables WHERE id = ?", (tid,))[0][0]


async def test_a_backup_taken_mid_game_restores_and_the_table_plays_on(tmp_path: Path) -> None:
    db = tmp_path / "deckhand.db"
    copy = tmp_path / "backups" / "deckhand-copy.db"
    copy.parent.mkdir()
    async with make_restart_world(db, seed=5) as w:
        # Untimed: once the people hold still, nothing moves the table but them.
        table_message = await open_table(w.ali, [w.bob], options="target=1", speed="untimed")
        tid = table_id_of(table_message)
        await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(n), ready=w.ready, tolerate=w.tolerate,
                                         over=lambda: w.version(tid) >= 12)
                               for n, p in enumerate((w.ali, w.bob))))
        await waiting_for_a_person(SQLiteRows(db), tid, [w.ali, w.bob])
        # The operator's command, while the bot runs.
        made = await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "tables.storage.backup", str(copy),
                                                        "--database", f"sqlite:///{db}"],
                                       cwd=ROOT_DIR, capture_output=True, text=True, timeout=60)
        assert made.returncode == 0, made.stderr
        assert "Backed up" in made.stdout and not copy.with_name(f".{copy.name}.partial").exists()
        at = version_in(copy, tid)
        assert at >= 12 and w.row(tid)["phase"] == "running"
        assert not Path(f"{copy}-wal").exists()  # one self-contained file

        # The restore, as docs/deploy.md says: stop the bot, replace the database (and its -wal and
        # -shm files) with the copy, start the bot.
        await w.stop_bot()
        assert w.version(tid) == at  # the table waited for a person: the copy is where it stopped
        for leftover in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            leftover.unlink(missing_ok=True)
        shutil.copyfile(copy, db)
        await w.start_bot()

        logs = await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(10 + n), ready=w.ready,
                                                tolerate=w.tolerate, timeout=120)
                                      for n, p in enumerate((w.ali, w.bob))))
        await w.until(lambda: is_over(w.fd, table_message), 20.0, what="the finished table")
        row = w.row(tid)
        assert row["phase"] == "finished" and row["broken"] is None
        actions = w.actions(tid)
        assert [seq for seq, *_ in actions] == list(range(1, len(actions) + 1)) == list(range(1, row["version"] + 1))
        assert len(actions) > at and all(log.replies for log in logs)

