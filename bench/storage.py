"""How fast tables are stored and restored, on this machine's disk.

* ``actions_per_s`` — actions committed per second through the storage interface
  (``Storage.write``: one action, the table row with its seats and deadlines, one transaction, each
  awaited before the next, as the runtime does) by ONE table, on a SQLite file with the default
  settings (WAL, ``synchronous=NORMAL``): the worst case, bound by the latency of a commit.
  ``actions_per_s_32_tables`` is 32 tables writing at once (their writes share commits), and
  ``actions_per_s_full`` one table with ``synchronous=FULL``.  With ``--database-url
  postgresql://…`` the same figures on that server (each measurement in a schema of its own,
  dropped afterwards): the server's own durability settings, and ``synchronous_commit=on`` for
  ``actions_per_s_full``.
* ``runtime_actions_per_s`` — the whole path: AI-only tables playing on the real clock with no AI
  pause, every move committed before the next.
* ``recover_1000_tables_s`` — start-up recovery of 1,000 running tables (of the benches' reference
  game, ``Measure.reference``) caught at random points
  of their games (open the database, read rows and logs, rebuild each from its snapshot plus the
  rest of its log, re-arm deadlines and AI turns).
* ``kib_per_table`` — resident memory (RSS) added per restored running table.

Targets: at least 2,000 committed actions/s; 1,000 tables recovered in under 5 s; under 200 KiB per
table.

    python bench/storage.py [--json] [--tables N] [--actions N] [--dir DIR] [--database-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.measure import reference_game  # noqa: E402
from tables.clock import SystemClock  # noqa: E402
from tables.history import records  # noqa: E402
from tables.runtime import Runtime  # noqa: E402
from tables.storage import LOG_COLUMNS, TABLE_COLUMNS, PostgresURL, SQLiteURL, open_storage, parse_url  # noqa: E402
from tables.table import LogEntry, Phase, Seat, Table  # noqa: E402

#: The game the tables play: the benches' reference (engine/measure.py).
REFERENCE = reference_game()


def rss_kib() -> float:
    """Resident memory of this process in KiB (Linux /proc; else the peak from getrusage)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return float(line.split()[1])
    except OSError:
        pass
    import resource

    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def running_table(i: int, rng: random.Random, now: float) -> tuple[Table, str | None, int]:
    """A table of the reference game (one person, AIs in the other seats) stopped at a random point
    of its game, with the snapshot the runtime would have taken at the last new deal."""
    seed = rng.getrandbits(63)
    game = REFERENCE.game
    players = game.min_players
    options = game.read_options({})
    state = game.create(players, options, seed)
    full = game.create(players, options, seed)
    total = 0
    while not full.is_over:  # how long this game is
        for s in full.to_act():
            full.apply(s, full.random_action(s, random.Random(total)))
            total += 1
    stop = rng.randrange(1, total)
    log: list[LogEntry] = []
    snapshot, snap_version = None, 0
    for n in range(stop):
        seat = state.to_act()[0]
        action = state.random_action(seat, random.Random(n))
        events = state.apply(seat, action)
        log.append(LogEntry(n + 1, seat, action.code, now - (stop - n), seat != 0))
        if any(e.kind == "deal" for e in events):
            snapshot, snap_version = records.snapshot_of(state), n + 1
    t = Table(id=f"B{i:05d}", game=game.name, options=options, speed="normal", guild_id=1 + i % 50,
              channel_id=1000 + i, host_id=10_000 + i,
              seats=[Seat(10_000 + i, f"P{i}")] + [Seat(None, f"AI {k}", is_ai=True) for k in range(1, players)],
              phase=Phase.RUNNING, seed=seed, state=state, version=stop, message_id=5000 + i, created_at=now - stop,
              log=log)
    if 0 in state.to_act():
        t.deadlines = {0: now + 25.0}
    return t, snapshot, snap_version


def rows_for(n: int) -> tuple[list[list[Any]], list[tuple[Any, ...]]]:
    """``n`` running tables as table rows and action rows."""
    rng = random.Random(2024)
    now = time.time()
    table_rows, action_rows = [], []
    for i in range(n):
        t, snapshot, at = running_table(i, rng, now)
        assert t.state is not None  # a running table has its game
        rec = records.record_of(t, {s: t.version for s in t.state.to_act()})
        rec.update(snapshot=snapshot, snapshot_version=at, broken=None)
        table_rows.append([rec[c] for c in TABLE_COLUMNS])
        action_rows += [(t.id, e.seq, e.seat, e.code, float(e.time), int(e.auto), int(e.timeout)) for e in t.log]
    return table_rows, action_rows


class Target:
    """Where the measurements write: fresh SQLite files in a folder, or fresh schemas on a
    PostgreSQL server (``search_path`` in the URL), one per measurement."""

    def __init__(self, base: Path, database_url: str | None) -> None:
        self.base = base
        pg = parse_url(database_url) if database_url else None
        if pg is not None and not isinstance(pg, PostgresURL):
            raise SystemExit("--database-url takes a postgresql:// URL (SQLite files go in --dir)")
        self.pg = pg
        self.schemas: list[str] = []

    @property
    def kind(self) -> str:
        return "postgresql" if self.pg else "sqlite"

    async def url(self, name: str, synchronous: str = "NORMAL") -> str:
        if self.pg is None:
            return f"sqlite:///{self.base / (name + '.db')}?synchronous={synchronous.lower()}"
        import asyncpg

        schema = f"bench_{os.getpid()}_{name.replace('-', '_')}"
        conn = await asyncpg.connect(self.pg.dsn)
        try:
            await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
        finally:
            await conn.close()
        self.schemas.append(schema)
        sep = "&" if "?" in self.pg.dsn else "?"
        extra = "&synchronous_commit=on" if synchronous == "FULL" else ""
        return f"{self.pg.dsn}{sep}search_path={schema}{extra}"

    async def fill(self, url: str, n: int) -> int:
        """Write ``n`` running tables straight into the database; returns the number of actions."""
        await (await open_storage(url)).close()  # create and migrate
        table_rows, action_rows = rows_for(n)
        if self.pg is None:
            file = parse_url(url)
            assert isinstance(file, SQLiteURL)  # made by :meth:`url` without a PostgreSQL server
            with sqlite3.connect(file.path) as conn:
                marks = ", ".join("?" * len(TABLE_COLUMNS))
                conn.executemany(f"INSERT INTO tables ({', '.join(TABLE_COLUMNS)}) VALUES ({marks})", table_rows)
                conn.executemany(f"INSERT INTO actions ({', '.join(LOG_COLUMNS)}) "
                                 f"VALUES ({', '.join('?' * len(LOG_COLUMNS))})", action_rows)
            return len(action_rows)
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            await conn.copy_records_to_table("tables", records=table_rows, columns=TABLE_COLUMNS)
            await conn.copy_records_to_table("actions", records=action_rows, columns=LOG_COLUMNS)
        finally:
            await conn.close()
        return len(action_rows)

    async def cleanup(self) -> None:
        if self.pg is not None and self.schemas:
            import asyncpg

            conn = await asyncpg.connect(self.pg.dsn)
            try:
                for schema in self.schemas:
                    await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            finally:
                await conn.close()


async def commit_rate(url: str, actions: int, synchronous: str = "NORMAL", writers: int = 1) -> float:
    """``writers`` tables each committing its actions one after the other, all at once."""
    storage = await open_storage(url)
    try:
        tables = []
        for w in range(writers):
            t, _, _ = running_table(w, random.Random(w), time.time())
            t.id = f"W{synchronous[0]}{writers:03d}{w:03d}"
            t.version, t.log = 0, []
            await storage.insert_table(records.record_of(t))
            tables.append(t)

        async def writer(t: Table, n: int) -> None:
            since = {0: 0}
            for v in range(1, n + 1):
                t.version = v
                changes = records.changes_of(t, since)
                changes["rev"] = v
                entry = LogEntry(v, v % 4, "play QS", time.time(), v % 4 != 0)
                await storage.write(t.id, changes, [entry], expect=(v - 1, v - 1))

        each = max(1, actions // writers)
        start = time.perf_counter()
        await asyncio.gather(*(writer(t, each) for t in tables))
        return each * writers / (time.perf_counter() - start)
    finally:
        await storage.close()


async def runtime_rate(url: str, seconds: float) -> float:
    storage = await open_storage(url)
    rt = Runtime(storage=storage, clock=SystemClock(), rng=random.Random(5), ai_delay=0)
    tables = []
    for host in range(8):
        t = await rt.create(game=REFERENCE.name, guild_id=7, channel_id=70 + host, host_id=700 + host, host_name="P")
        await rt.start(t.id, 700 + host)
        await rt.leave(t.id, 700 + host)
        tables.append(t)
    start_versions = sum(t.version for t in tables)
    start = time.perf_counter()
    await asyncio.sleep(seconds)
    done = sum(t.version for t in tables) - start_versions
    elapsed = time.perf_counter() - start
    await rt.close()
    return done / elapsed


async def recovery(url: str, n: int) -> tuple[float, float, int]:
    gc.collect()
    before = rss_kib()
    start = time.perf_counter()
    storage = await open_storage(url)
    rt = Runtime(storage=storage, clock=SystemClock(), rng=random.Random(9), ai_delay=1.0)
    report = await rt.recover()
    elapsed = time.perf_counter() - start
    gc.collect()
    per_table = (rss_kib() - before) / max(1, len(report.restored))
    restored = len(report.restored)
    await rt.close()
    if report.broken:
        raise SystemExit(f"{len(report.broken)} tables did not recover: {report.broken[:3]}")
    return elapsed, per_table, restored


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="deckhand-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    target = Target(base, args.database_url)
    out: dict[str, Any] = {"database": target.kind}
    try:
        out["actions_per_s"] = round(await commit_rate(await target.url("commits"), args.actions), 1)
        out["actions_per_s_32_tables"] = round(
            await commit_rate(await target.url("commits-32"), args.actions * 4, writers=32), 1)
        out["actions_per_s_full"] = round(
            await commit_rate(await target.url("commits-full", "FULL"), args.actions // 4, "FULL"), 1)
        out["runtime_actions_per_s"] = round(await runtime_rate(await target.url("runtime"), 2.0), 1)
        url = await target.url("recover")
        logged = await target.fill(url, args.tables)
        seconds, kib, restored = await recovery(url, args.tables)
    finally:
        await target.cleanup()
    out[f"recover_{args.tables}_tables_s" if args.tables != 1000 else "recover_1000_tables_s"] = round(seconds, 3)
    out["kib_per_table"] = round(kib, 1)
    out["tables_restored"] = restored
    out["actions_replayable"] = logged
    if not args.dir:
        for f in base.iterdir():
            f.unlink()
        base.rmdir()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print only a JSON object")
    p.add_argument("--tables", type=int, default=1000, help="running tables to recover (default 1000)")
    p.add_argument("--actions", type=int, default=4000, help="actions to commit for actions_per_s")
    p.add_argument("--dir", help="where to put the database files (default: a temporary folder)")
    p.add_argument("--database-url", help="measure on this PostgreSQL server instead (postgresql://...)")
    args = p.parse_args(argv)
    results = asyncio.run(measure(args))
    if args.json:
        print(json.dumps(results))
        return 0
    pg = results["database"] == "postgresql"
    print(f"database: {results['database']}")
    normal, full = ("server default", "synchronous_commit=on") if pg else ("synchronous=NORMAL", "synchronous=FULL")
    print(f"committed actions/s (storage, {normal}): {results['actions_per_s']:,.0f}  (target ≥ 2,000)")
    print(f"committed actions/s (storage, 32 tables at once):  {results['actions_per_s_32_tables']:,.0f}")
    print(f"committed actions/s (storage, {full}):   {results['actions_per_s_full']:,.0f}")
    print(f"committed actions/s (runtime, AI tables):          {results['runtime_actions_per_s']:,.0f}")
    key = next(k for k in results if k.startswith("recover_"))
    print(f"recovery of {results['tables_restored']:,} running tables: {results[key]:.2f} s  (target < 5 s)")
    print(f"memory per running table: {results['kib_per_table']:.0f} KiB  (target < 200 KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

