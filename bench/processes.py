"""``bench/discord.py --processes N``: the bot as N shard processes on one PostgreSQL.

Process ``k`` runs shard ``k`` of ``SHARD_COUNT=N`` (``SHARD_IDS=k``); the fake Discord is sharded
the same way, with one server per shard, and the bench's tables are spread over those servers (table
``i`` in shard ``i % N``), so every process has its share of them.  They share one PostgreSQL, a
throwaway server started here (tests/pgcluster.py, with its normal durability: the bench measures
real commits) and deleted at the end, or the one ``--database-url`` names.

A first start brings the processes up one after the other, so the first uploads every card face and
the others find them (started together they would race, and the fake would count each refused
duplicate as a problem); a second start, nothing changed, brings them up together.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from tests.fakediscord.server import FakeDiscord

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class NoDatabase(RuntimeError):
    """No PostgreSQL to run the processes on; the message says why and what to do."""


class Postgres:
    """The PostgreSQL the processes share: its URL, and (a server started here) its CPU use."""

    def __init__(self, url: str, data: str | None = None) -> None:
        self.url = url
        self.data = data  # the data folder of a server started here

    def cpu_seconds(self) -> float | None:
        """CPU time the server has used so far: its postmaster, its live backends, and the backends
        that have ended (counted in the postmaster's children's time)."""
        if self.data is None:
            return None
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                master = int(f.readline())
            with open(f"/proc/{master}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            tick = os.sysconf("SC_CLK_TCK")
            total = sum(int(x) for x in fields[11:15]) / tick  # utime, stime, cutime, cstime
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                with contextlib.suppress(OSError, ValueError, IndexError):
                    with open(f"/proc/{pid}/stat") as f:
                        rest = f.read().rsplit(")", 1)[1].split()
                    if int(rest[1]) == master:  # a backend or helper of this server
                        total += (int(rest[11]) + int(rest[12])) / tick
            return total
        except (OSError, ValueError, IndexError):
            return None


@contextlib.asynccontextmanager
async def postgres(url: str | None = None) -> AsyncIterator[Postgres]:
    """``url`` as it is, or a throwaway PostgreSQL server for as long as the bench runs."""
    if url:
        yield Postgres(url)
        return
    from tests.pgcluster import Cluster, NoPostgres

    try:
        cluster = await asyncio.to_thread(lambda: Cluster(durable=True).start())
    except NoPostgres as e:
        raise NoDatabase(f"--processes runs the bot's processes on one PostgreSQL, and none could be started "
                         f"here: {e} (or pass --database-url postgresql://... of a server to use)") from None
    try:
        yield Postgres(cluster.url, str(cluster.data))
    finally:
        await asyncio.to_thread(cluster.stop)


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a process has used so far (Linux), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class ShardedBots:
    """The fake's servers (one per shard) and the bot's processes for them."""

    def __init__(self, fd: FakeDiscord, count: int, database_url: str) -> None:
        self.fd = fd
        self.count = count
        self.database_url = database_url
        self.guilds = [fd.add_guild(f"Shard {k}", shard=k) for k in range(count)]
        self.cpu: list[float] = []  # CPU seconds of each process of the latest start, by shard
        #: Table message id -> the table's actions ``[[time, code], ...]``, from every process stopped
        #: so far (each writes its own at exit: ``botprocess --play-log``), for the public lag figure.
        self.play_log: dict[str, list[list[Any]]] = {}

    def guild_for(self, table: int) -> int:
        return self.guilds[table % self.count]

    async def _start(self, shard: int, runtime: dict[str, Any], procs: dict[int, asyncio.subprocess.Process],
                     plays: dict[int, str]) -> None:
        config = {"shard_count": self.count, "shard_ids": [shard]}
        with tempfile.NamedTemporaryFile(prefix=f"bench-plays-{shard}-", suffix=".json", delete=False) as f:
            plays[shard] = f.name
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.fakediscord.botprocess", "--port", str(self.fd.port),
            "--token", self.fd.token, "--guild", str(self.fd.guild_id), "--runtime", json.dumps(runtime),
            "--database", self.database_url, "--config", json.dumps(config), "--play-log", plays[shard],
            *(["--gc-log"] if os.environ.get("BENCH_GC_LOG") else []),
            cwd=ROOT, stdout=subprocess.PIPE, stderr=None,
        )
        procs[shard] = proc  # stopped at the end whatever happens next
        line = await asyncio.wait_for(proc.stdout.readline(), 60)  # type: ignore[union-attr]
        if line.strip() != b"ready":
            raise RuntimeError(f"the bot process for shard {shard} did not start: {line!r}")

    @contextlib.asynccontextmanager
    async def running(self, runtime: dict[str, Any], *, one_by_one: Callable[[int], Awaitable[Any]] | None = None,
                      ) -> AsyncIterator[list[asyncio.subprocess.Process]]:
        """Every shard's process, ready.  ``one_by_one``: start them in turn, awaiting it after each
        (the first start: until the card emoji are synced), told how many run; else all at once."""
        procs: dict[int, asyncio.subprocess.Process] = {}
        plays: dict[int, str] = {}
        try:
            if one_by_one is not None:
                for k in range(self.count):
                    await self._start(k, runtime, procs, plays)
                    await one_by_one(k + 1)  # processes started so far
            else:
                await asyncio.gather(*(self._start(k, runtime, procs, plays) for k in range(self.count)))
            yield [procs[k] for k in sorted(procs)]
        finally:
            self.cpu = [cpu_seconds(procs[k].pid) or 0.0 for k in sorted(procs)]
            for p in procs.values():
                if p.returncode is None:
                    p.terminate()
            for p in procs.values():
                try:
                    await asyncio.wait_for(p.wait(), 15)
                except TimeoutError:
                    p.kill()
            for name in plays.values():  # written as each process stopped (empty if it was killed)
                with contextlib.suppress(OSError, ValueError):
                    with open(name) as f:
                        self.play_log.update(json.loads(f.read() or "{}"))
                with contextlib.suppress(OSError):
                    os.unlink(name)
