"""Shared fakes for the table runtime tests: a fake clock, a recording listener, table helpers."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.core import Action, Decision, Event
from tables import FakeClock, Phase, Runtime, Table

from .stores import BACKENDS, PostgresStore, SQLiteStore, Store

GUILD = 1
CHANNEL = 10
HOST = 100
HOST_NAME = "Ann"
SHORT = {"target": 30}  # a few hands instead of ten: same code paths, faster tests


class Recorder:
    """A Listener that writes down every call, with the clock time and table version it saw."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.redraws: list[tuple[float, str, int, Phase]] = []
        self.turns: list[tuple[str, tuple[int, ...]]] = []
        self.summaries: list[tuple[str, list[Event]]] = []

    async def redraw(self, table: Table) -> None:
        self.redraws.append((self.clock.now(), table.id, table.version, table.phase))

    async def turn(self, table: Table, seats: tuple[int, ...]) -> None:
        self.turns.append((table.id, seats))

    async def summary(self, table: Table, events: list[Event]) -> None:
        self.summaries.append((table.id, list(events)))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=BACKENDS)
async def store(request, tmp_path) -> Store:
    """One empty database of each backend in turn (SQLite file; PostgreSQL schema)."""
    if request.param == "sqlite":
        made: Store = SQLiteStore(tmp_path / "deckhand.db")
    else:
        made = await PostgresStore(request.getfixturevalue("pg_server")).create()
    yield made
    await made.cleanup()


@pytest.fixture
def listener(clock: FakeClock) -> Recorder:
    return Recorder(clock)


@pytest.fixture
async def make_runtime(clock: FakeClock, listener: Recorder):
    made: list[Runtime] = []

    def make(**kw) -> Runtime:
        kw.setdefault("listener", listener)
        kw.setdefault("clock", clock)
        kw.setdefault("rng", random.Random(7))
        kw.setdefault("ai_delay", 1.0)
        rt = Runtime(**kw)
        made.append(rt)
        return rt

    yield make
    for rt in made:
        await rt.close()


@pytest.fixture
def rt(make_runtime) -> Runtime:
    return make_runtime()


async def new_table(rt: Runtime, host: int = HOST, name: str = HOST_NAME, **kw) -> Table:
    kw.setdefault("game", "hearts")
    kw.setdefault("guild_id", GUILD)
    kw.setdefault("channel_id", CHANNEL)
    return await rt.create(host_id=host, host_name=name, **kw)


async def started(rt: Runtime, host: int = HOST, **kw) -> Table:
    """A running Hearts table: the host (seat 0) and three AIs."""
    t = await new_table(rt, host=host, **kw)
    await rt.start(t.id, host)
    return t


def choose(decision: Decision) -> Action:
    """A legal choice without any strategy: the first cards of a pick, else the first action."""
    if decision.pick:
        return Action(decision.kind, tuple(decision.cards[: decision.pick]))
    return decision.actions[0]


async def run_until(clock: FakeClock, done: Callable[[], bool], step: float = 1.0, limit: int = 5000) -> None:
    """Advance the fake clock step by step until ``done()``; fail (not hang) if it never is."""
    for _ in range(limit):
        if done():
            return
        await clock.advance(step)
    assert done(), "the condition never became true"


def seat_entries(table: Table, seat: int) -> list:
    return [e for e in table.log if e.seat == seat]
