"""Standing turn pings kept across a restart (cogs/live/listener.py over tables/kept.py), on SQLite and
PostgreSQL: the real cog, listener and runtime on a fake clock; a second runtime and listener on
the same database play the part of the restarted bot, in the same fake Discord."""

from __future__ import annotations

import random

from cogs.live.listener import DiscordListener
from cogs.table.game import GameCog
from tables.runtime import Runtime
from tests.cogs.conftest import Harness
from tests.cogs.fakes import FakeBot, FakeUser, World
from tests.tables.conftest import store  # noqa: F401  (both backends)
from tests.tables.stores import StoredClock


async def _process(world: World, clock: StoredClock, storage: object) -> Harness:
    """One bot process: its listener, runtime and cog over ``storage``."""
    bot = FakeBot(world)
    listener = DiscordListener(bot)
    runtime = Runtime(listener=listener, clock=clock, rng=random.Random(7), ai_delay=0, storage=storage)
    world.runtime = runtime
    world.now = clock.now
    cog = GameCog(runtime, listener)
    bot.cogs["GameCog"] = cog
    return Harness(world, bot, clock, runtime, cog, listener, world.channel("cards"),
                   FakeUser(101, "Alice"), FakeUser(102, "Bob"), FakeUser(103, "Stranger"))


async def test_the_successor_deletes_a_ping_its_predecessor_left_once_the_person_moved(store) -> None:  # noqa: F811
    world, clock = World(), StoredClock()
    h = await _process(world, clock, await store.open())
    table, _ = await h.running_table(speed="relaxed")
    h.listener.live.drop(table.id, h.bob.id)  # Bob's hand view is closed: his turns come as pings
    where = h.where(table)

    def standing() -> list[object]:
        return [m for m in where.sent if f"<@{h.bob.id}>, your turn" in (m.content or "") and not m.deleted]

    for _ in range(200):
        await h.settle(1.0)
        if standing() and table.seat_of(h.bob.id) in table.to_act():
            break
    ping = standing()
    assert len(ping) == 1 and table.seat_of(h.bob.id) in table.to_act(), "Bob was never pinged"
    assert [r[0] for r in store.rows("SELECT message_id FROM pings WHERE table_id = ?", (table.id,))] \
        == [ping[0].id]
    await h.runtime.close()  # the bot goes; its ping stands in the thread

    h2 = await _process(world, clock, await store.open())
    await h2.runtime.recover()
    t2 = h2.runtime.tables[table.id]
    await h2.settle(0.5)
    assert not ping[0].deleted  # Bob has not moved yet
    seat = t2.seat_of(h.bob.id)
    await h2.runtime.act(t2.id, h.bob.id, t2.state.decision(seat).actions[0])
    await h2.settle(1.0)
    assert ping[0].deleted, "the ping from before the restart still stands after Bob moved"
    assert store.rows("SELECT message_id FROM pings WHERE message_id = ?", (ping[0].id,)) == []
    await h2.runtime.close()
