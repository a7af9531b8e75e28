"""End-to-end fixtures: the real bot (``bot.Deckhand``, real discord.py, real HTTP and websocket)
against the fake Discord on 127.0.0.1, with scripted people in the guild.

Every test ends with the same checks, run when its world closes:

* privacy — nothing anyone could see (every version of every message, every autocomplete answer)
  showed a card hidden from them at that moment;
* every interaction was answered, within 2 s (Discord's 3 s less a margin for the network), once;
  no 429 was provoked; no request broke Discord's limits or hit an unknown route; the bot logged
  no error;
* the bot made fewer than 50 invalid requests (401, 403, 429: Cloudflare bans at 10,000);
* no message was edited more than 5 times in any 5 s.

Every world runs the production setting unless its test says otherwise: the bot configured from
an environment as ``bot.main`` does (``config.load_config``: a SQLite database, the AI worker pool),
Discord's real rate-limit windows and its global limit of 50 requests a second.  A test that needs
the shorter windows passes ``faster="why"`` (the opt-outs are listed in docs/interfaces.md).

A test that injects a fault and expects a complaint says so with ``w.allow(...)`` /
``w.allow_errors(...)`` (regular expressions).

:class:`RestartWorld` (``make_restart_world``, fixture ``rw``) is the same with the bot in a child
process on a SQLite file or a PostgreSQL schema, which a test may kill and start again; its closing
checks are the same.

The fixture ``database`` is one empty database of each backend (SQLite, PostgreSQL: the test runs
once on each), ``databases`` a maker of as many as a test needs; a test reads them with plain SQL
(``tests/tables/stores.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fakediscord import FakeDiscord, Person, check_privacy, running_bot
from tests.fakediscord.play import table_id_of
from tests.fakediscord.server import Message
from tests.tables.stores import BACKENDS, PostgresStore, SQLiteStore, Store

FAST_LIMITS = 0.05  # Discord's rate-limit windows, 20 times shorter: an opt-out (``faster=``), named in the test
GLOBAL_LIMIT = 50  # Discord's global limit, requests a second (interaction callbacks and webhooks aside)
ANSWER_WITHIN = 2.0  # Discord allows 3 s; the rest is the network's margin
MAX_EDITS_PER_5S = 5
MAX_INVALID = 50  # invalid requests a test's bot may make (Cloudflare's ban is at 10,000 in 10 minutes)
MIN_DOWNTIME = 0.0  # seconds between a bot going and the next one starting (none: the worst case)


@dataclass
class World:
    fd: FakeDiscord
    bot: Any
    ali: Person
    bob: Person
    stranger: Person
    allowed: list[str] = field(default_factory=list)
    allowed_errors: list[str] = field(default_factory=list)
    # A test's driven runtime clock: its times on the wall clock the fake stamps messages with, so
    # the closing privacy check reads the tables' logs (in memory or rebuilt from the database) aright.
    real_time: Callable[[float], float] | None = None
    # Seats whose person had Deckhand forget them (table id -> seat -> user id): the tables no longer
    # say who sat there, so the closing privacy check is told whose hand their old messages showed.
    forgotten: dict[str, dict[int, int]] = field(default_factory=dict)

    @property
    def runtime(self) -> Any:
        return self.bot.runtime

    def allow(self, *patterns: str) -> None:
        self.allowed.extend(patterns)

    def allow_errors(self, *patterns: str) -> None:
        self.allowed_errors.extend(patterns)

    def idle(self) -> bool:
        """Nothing under way that a test could take for its own doing: every click answered, no
        request the fake is still handling, and no table with an AI move or a listener call (a turn
        notice, a summary) queued or being made."""
        return not self.fd.unanswered() and not in_flight(self.fd) and runtime_idle(self.runtime)

    def table(self, message_or_id: Message | str) -> Any:
        tid = message_or_id if isinstance(message_or_id, str) else table_id_of(message_or_id)
        return self.runtime.tables[tid]

    def snapshot(self, message_or_id: Message | str) -> tuple[Any, ...]:
        """Everything a refusal must leave as it was."""
        t = self.table(message_or_id)
        seats = tuple((s.user_id, s.name, s.is_ai, s.away, s.left, s.missed) for s in t.seats)
        state = t.state.to_dict() if t.state is not None else None
        return (str(t.phase), t.version, len(t.log), seats, t.host_id, repr(state))

    def thread_of(self, table_message: Message) -> Any:
        return self.fd.channels[table_message.thread_id] if table_message.thread_id else self.fd.channel

    async def until(self, predicate: Any, timeout: float = 5.0, what: str = "") -> Any:
        return await self.fd.wait_for(predicate, timeout, what)


def production_limits(fd_options: dict[str, Any], faster: str) -> dict[str, Any]:
    """The fake's options in the production setting: Discord's real windows and global limit, unless
    the test opts out with ``faster`` (its reason: e.g. it measures something else and would take
    minutes with real windows)."""
    if faster:
        fd_options.setdefault("ratelimit_scale", FAST_LIMITS)
    fd_options.setdefault("global_limit", GLOBAL_LIMIT)
    return fd_options


def production_fake(faster: str = "", **fd_options: Any) -> FakeDiscord:
    """A fake Discord in the production setting, for a test or bench that builds its own world
    (several bot processes, shards): the options as :func:`production_limits` makes them."""
    return FakeDiscord(**production_limits(fd_options, faster))


@contextlib.asynccontextmanager
async def make_world(*, seed: int = 7, runtime_options: dict[str, Any] | None = None,
                     config: dict[str, Any] | None = None, faster: str = "", sync_to_guild: bool = True,
                     client: dict[str, Any] | None = None, **fd_options: Any) -> AsyncIterator[World]:
    """The fake Discord, its people and the real bot in the production setting (see above);
    ``faster="why"`` opts out to Discord's windows 20 times shorter; ``sync_to_guild=False``
    starts the bot without DEV_GUILD_ID (its commands synced globally, as in production);
    ``client``: options for discord.py's client (e.g. ``heartbeat_timeout``)."""
    fd = FakeDiscord(**production_limits(fd_options, faster))
    await fd.start()
    try:
        people = [fd.add_member("Ali"), fd.add_member("Bob"), fd.add_member("Stranger")]
        options = {"ai_delay": 0, "rng": random.Random(seed)} | (runtime_options or {})
        async with running_bot(fd, runtime_options=options, config=config, sync_to_guild=sync_to_guild,
                               **(client or {})) as bot:
            w = World(fd, bot, *people)
            yield w
            await fd.settle_clicks()
            await _settle(fd, bot.runtime)
            tables = [*bot.runtime.tables.values(), *await _left_memory(bot.runtime)]
            for t in tables:
                for seat, uid in w.forgotten.get(t.id, {}).items():
                    t.seats[seat].user_id = uid
            if w.real_time is not None:
                for t in tables:
                    t.log[:] = [e._replace(time=w.real_time(e.time)) for e in t.log]
            leaks = check_privacy(fd, tables)
            errors = [e for e in bot.error_log.lines() if not any(re.search(a, e) for a in w.allowed_errors)]
        assert not leaks, "hidden cards were visible:\n" + "\n".join(leaks[:10])
        fd.assert_clean(allow=tuple(w.allowed))
        _check_pace(fd, errors)
    finally:
        await fd.close()


async def _left_memory(runtime: Any) -> list[Any]:
    """The finished tables that left the runtime's memory (with a database: tables/finished.py),
    rebuilt from the database, so the privacy check covers their games too."""
    from tables.history.records import rebuild

    out = []
    for tid in list(runtime.finished.ended):  # (a table may leave memory while one is read)
        stored = await runtime.storage.load(tid)
        assert stored is not None, f"finished table {tid} left memory but is not in the database"
        out.append(rebuild(stored.record, stored.log)[0])
    return out


def _check_pace(fd: FakeDiscord, errors: list[str]) -> None:
    """The closing checks every world shares: answers within 2 s, no 429, edit pacing, no errors."""
    # Counted from when the fake sent the interaction on the websocket to when the bot's callback
    # arrived: the test's own scheduling before the send is not the bot's time.  (Discord's own 3 s,
    # counted from the interaction's creation, is still enforced by the fake: ``answer_within``.)
    slow = [(i.label, round(i.latency, 3)) for i in fd.interactions.values()
            if i.latency is not None and i.latency >= ANSWER_WITHIN]
    assert not slow, f"interactions answered after {ANSWER_WITHIN:g} s: {slow}"
    assert not fd.ratelimited, f"the bot provoked 429s: {fd.ratelimited}"
    # Cloudflare warns at 1,000 invalid requests (401, 403, 429) in 10 minutes and bans at 10,000.
    assert fd.invalid_requests() < MAX_INVALID, f"{fd.invalid_requests()} invalid requests: too near a ban"
    edits, which = fd.edits_per_window(5.0)
    assert edits <= MAX_EDITS_PER_5S, f"message {which} was edited {edits} times within 5 s: " + (
        repr(fd.messages[which]) + " " + repr([(round(v.at % 100, 2), v.source) for v in fd.messages[which].versions])
        if which in fd.messages else "")
    assert not errors, "the bot logged errors:\n" + "\n".join(errors[:10])


def in_flight(fd: FakeDiscord) -> list[Any]:
    """The requests the fake has received and not answered yet."""
    return [r for r in fd.requests if not r.status]


def runtime_idle(runtime: Any, *, redraws: bool = False) -> bool:
    """No table of this (in-process) runtime has an AI move or a listener call queued or being made
    (``redraws``: nor a redraw of its message wanted or being made, nor a later call the listener
    asked for; a redraw task only pausing after its last redraw, with none wanted, ends without
    sending anything: it does not count)."""
    def busy(task: asyncio.Task[Any] | None) -> bool:
        return task is not None and not task.done()

    for live in list(runtime._live.values()):
        if live.notes or live.calling or busy(live.ai_task) or busy(live.notify_task):
            return False
        if redraws and (live.redraw_wanted or (live.drawing and busy(live.redraw_task)) or busy(live.recall_task)):
            return False
    return True


async def _settle(fd: FakeDiscord, runtime: Any = None, limit: float = 5.0) -> None:
    """Let what is on its way land before checking: positive signals, not a quiet spell — no
    request the fake is still handling and, with the bot's runtime at hand, no table with a redraw,
    an AI move or a listener call under way (a bot in another process: stop it first).  Bounded,
    and not itself a check: a request a test holds on purpose may stay in flight."""
    with contextlib.suppress(TimeoutError):
        await fd.wait_for(lambda: not in_flight(fd) and (runtime is None or runtime_idle(runtime, redraws=True)),
                          limit, "nothing on its way")
    await asyncio.sleep(0)


@pytest.fixture
async def w() -> AsyncIterator[World]:
    async with make_world() as world:
        yield world


@pytest.fixture(params=BACKENDS)
async def databases(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Callable[[], Awaitable[Store]]]:
    """A maker of empty databases of one backend (the test runs once with each), inspected from
    outside with plain SQL; dropped at the end."""
    server = request.getfixturevalue("pg_server") if request.param == "postgres" else ""
    made: list[Store] = []

    async def new() -> Store:
        store: Store = (SQLiteStore(tmp_path / f"deckhand-{len(made)}.db") if not server
                        else await PostgresStore(server).create())
        made.append(store)
        return store

    yield new
    for store in made:
        await store.cleanup()


@pytest.fixture
async def database(databases: Callable[[], Awaitable[Store]]) -> Store:
    """One empty database of each backend (the test runs once with each)."""
    return await databases()


# ==== a bot that restarts =========================================================================
@dataclass
class RestartWorld:
    """The fake Discord and its people in this process, the real bot in a child process
    (:class:`~tests.fakediscord.botprocess.BotProcess`) on a database (a SQLite file or a PostgreSQL
    schema: :attr:`db`, which the test reads with plain SQL), so a test can kill it
    (``kill -9``) and start another on the same database while the fake Discord keeps running.

    People wait for :meth:`ready` before each interaction (nobody clicks while no bot is up); the
    interactions a killed bot never answered are :attr:`lost`, the only ones allowed to fail.  The
    closing checks are the World's: privacy (tables rebuilt from the database), every interaction
    answered once within 2 s (the lost ones aside), no 429, no error logged by any of the bot
    processes, at most 5 edits of a message in 5 s.  The production setting, as the World's."""

    fd: FakeDiscord
    ali: Person
    bob: Person
    stranger: Person
    db: Store
    runtime_options: dict[str, Any]
    seed: int
    config: dict[str, Any] = field(default_factory=dict)  # more config.Config fields (programs, ...)
    sync_to_guild: bool = True  # False: the commands are global, as in production (DMs need them so)
    bot: Any = None  # the BotProcess running now, if any
    bots: list[Any] = field(default_factory=list)  # every one started
    up: asyncio.Event = field(default_factory=asyncio.Event)
    lost: set[int] = field(default_factory=set)  # ids of interactions a dying bot left unanswered
    down_since: float = -math.inf  # when the last bot went
    allowed: list[str] = field(default_factory=list)
    allowed_errors: list[str] = field(default_factory=list)

    @property
    def database(self) -> str:
        return self.db.url

    @property
    def path(self) -> Path:
        """The SQLite file (a SQLite world's)."""
        assert isinstance(self.db, SQLiteStore), f"a {self.db.kind} world has no file"
        return self.db.path

    def allow(self, *patterns: str) -> None:
        self.allowed.extend(patterns)

    def allow_errors(self, *patterns: str) -> None:
        self.allowed_errors.extend(patterns)

    async def until(self, predicate: Any, timeout: float = 5.0, what: str = "") -> Any:
        return await self.fd.wait_for(predicate, timeout, what)

    def thread_of(self, table_message: Message) -> Any:
        return self.fd.channels[table_message.thread_id] if table_message.thread_id else self.fd.channel

    # ---- the bot's life ------------------------------------------------------------------------
    async def start_bot(self) -> Any:
        from tests.fakediscord.botprocess import BotProcess

        assert self.bot is None, "a bot is running already"
        # The new process cannot know when the dead one last edited the table message, so it waits
        # a redraw interval before its first edit (Turns.resume): even an immediate restart keeps
        # to one edit per table per second.
        down = time.perf_counter() - self.down_since
        if down < MIN_DOWNTIME:
            await asyncio.sleep(MIN_DOWNTIME - down)
        self.bot = await BotProcess.start(self.fd, database=self.database, runtime=self.runtime_options,
                                          seed=self.seed, config=self.config, sync_to_guild=self.sync_to_guild)
        self.bots.append(self.bot)
        self.up.set()
        return self.bot

    async def kill_bot(self) -> list[Any]:
        """``kill -9`` the bot; returns the interactions it had not answered (they will fail)."""
        return await self._down(kill=True)

    async def stop_bot(self) -> list[Any]:
        """Stop the bot gracefully (SIGTERM)."""
        return await self._down(kill=False)

    async def restart_bot(self, *, kill: bool = True) -> Any:
        await self._down(kill=kill)
        return await self.start_bot()

    async def _down(self, *, kill: bool) -> list[Any]:
        assert self.bot is not None, "no bot is running"
        self.up.clear()  # people hold back from now on
        await (self.bot.kill() if kill else self.bot.stop())
        self.down_since = time.perf_counter()
        self.bot = None
        await asyncio.sleep(0.05)  # requests the bot sent before it died still land
        lost = [i for i in self.fd.interactions.values() if i.callback_at is None and i.failed is None]
        self.lost.update(i.id for i in lost)
        return lost

    async def ready(self) -> None:
        """What a person waits for before clicking: a bot that is up."""
        await self.up.wait()

    def tolerate(self, reply: Any) -> bool:
        """A failed interaction is forgiven only if a bot died before answering it."""
        return reply.interaction.id in self.lost

    # ---- the database, as the test reads it ----------------------------------------------------
    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Plain SQL (``?`` parameters) on either backend."""
        return self.db.rows(sql, params)

    def row(self, table_id: str) -> dict[str, Any]:
        row = self.db.table(table_id)
        assert row, f"table {table_id} is not in the database"
        return row

    def actions(self, table_id: str) -> list[tuple[int, int, str, bool]]:
        """The stored log: (seq, seat, code, auto)."""
        return [(seq, seat, code, bool(auto)) for seq, seat, code, auto in self.db.log(table_id)]

    def version(self, table_id: str) -> int:
        found = self.db.rows("SELECT version FROM tables WHERE id = ?", (table_id,))
        return -1 if not found else int(found[0][0])

    def stored(self) -> list[Any]:
        """Every table in the database, rebuilt as the bot would (finished ones too)."""
        from tables.history.records import rebuild
        from tables.table import LogEntry

        out: list[Any] = []
        if isinstance(self.db, SQLiteStore) and not self.db.path.exists():
            return out
        for r in self.db.dicts("SELECT * FROM tables WHERE broken IS NULL"):
            log = [LogEntry(a["seq"], a["seat"], a["code"], a["time"], bool(a["auto"])) for a in
                   self.db.dicts("SELECT * FROM actions WHERE table_id = ? ORDER BY seq", (r["id"],))]
            out.append(rebuild(r, log)[0])
        return out

    def errors(self) -> list[str]:
        return [e for b in self.bots for e in b.errors]


@contextlib.asynccontextmanager
async def make_restart_world(database: Path | Store, *, seed: int = 7, runtime_options: dict[str, Any] | None = None,
                             config: dict[str, Any] | None = None, faster: str = "", sync_to_guild: bool = True,
                             **fd_options: Any) -> AsyncIterator[RestartWorld]:
    """A :class:`RestartWorld` on ``database`` (a SQLite file's path, or a store of either backend:
    the fixture ``database``); the first bot is started."""
    db = SQLiteStore(database) if isinstance(database, Path) else database
    fd = FakeDiscord(**production_limits(fd_options, faster))
    await fd.start()
    w: RestartWorld | None = None
    try:
        people = [fd.add_member("Ali"), fd.add_member("Bob"), fd.add_member("Stranger")]
        options = {"ai_delay": 0.05} | (runtime_options or {})
        w = RestartWorld(fd, *people, db=db, runtime_options=options, seed=seed, config=dict(config or {}),
                         sync_to_guild=sync_to_guild)
        await w.start_bot()
        yield w
        # The interactions a dying bot left unanswered have failed by now (Discord's 3 s).
        lost = [fd.interactions[i] for i in w.lost]
        await fd.wait_for(lambda: all(i.done.is_set() for i in lost), fd.answer_within + 1, "the lost interactions")
        if w.bot is not None:
            await w.stop_bot()
        await _settle(fd)  # a stopped bot sends nothing more: what it sent lands
        await fd.settle_clicks()  # and what it left unanswered has failed
        leaks = check_privacy(fd, w.stored())
        errors = [e for e in w.errors() if not any(re.search(a, e) for a in w.allowed_errors)]
        assert not leaks, "hidden cards were visible:\n" + "\n".join(leaks[:10])
        failed = [i for i in fd.interactions.values() if i.failed is not None]
        unexpected = [f"{i.label}: {i.failed}" for i in failed if i.id not in w.lost]
        assert not unexpected, f"interactions failed with a bot up: {unexpected}"
        fd.assert_clean(allow=(*w.allowed, *(["not answered within"] if failed else [])))
        _check_pace(fd, errors)
    finally:
        if w is not None:
            for b in w.bots:
                if b.running:
                    await b.kill()
        await fd.close()


@pytest.fixture
async def rw(tmp_path: Path) -> AsyncIterator[RestartWorld]:
    async with make_restart_world(tmp_path / "deckhand.db") as world:
        yield world
