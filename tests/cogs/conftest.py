"""Fixtures: the real cog, the real runtime on a fake clock, the real engine, small Discord fakes."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from cogs.live.listener import DiscordListener
from cogs.table.game import GameCog
from tables.clock import FakeClock
from tables.runtime import Runtime
from tests.cogs.fakes import FakeBot, FakeChannel, FakeInteraction, FakeMessage, FakeUser, World, click, custom_ids


@dataclass
class Harness:
    world: World
    bot: FakeBot
    clock: FakeClock
    runtime: Runtime
    cog: GameCog
    listener: DiscordListener
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser
    stranger: FakeUser

    def inter(self, user: FakeUser, channel: FakeChannel | None = None, **kw: Any) -> FakeInteraction:
        return FakeInteraction(self.world, self.bot, user, channel or self.channel, **kw)

    async def settle(self, seconds: float = 1.0) -> None:
        """Let AI moves, redraws and notices happen (one coalesced redraw per second)."""
        await self.clock.advance(seconds)

    async def click(self, user: FakeUser, message: FakeMessage, custom_id: str,
                    values: list[str] | None = None, age: float = 0.0) -> FakeInteraction:
        return await click(self.world, self.bot, user, message, custom_id, values, age=age)

    async def new_table(self, options: str | None = None, speed: str = "normal") -> tuple[Any, FakeMessage]:
        i = self.inter(self.alice)
        await self.cog.game_new.callback(self.cog, i, game="hearts", options=options, speed=speed)
        assert not i.errors
        msg = i.original
        assert msg is not None and not msg.ephemeral, "the lobby must be a public message"
        table = self.runtime.find(1, channel_id=self.channel.id)
        assert table is not None and table.message_id == msg.id
        await self.settle()
        return table, msg

    async def running_table(self, options: str | None = None, speed: str = "normal") -> tuple[Any, FakeMessage]:
        """Alice hosts, Bob joins by button, two AIs, started by button."""
        table, msg = await self.new_table(options, speed)
        await self.click(self.bob, msg, f"dh:t:join:{table.id}")
        await self.click(self.alice, msg, f"dh:t:ai:{table.id}")
        await self.click(self.alice, msg, f"dh:t:start:{table.id}")
        await self.settle()
        assert table.phase == "running"
        return table, msg

    def table_message(self, table: Any) -> FakeMessage:
        return self.channel.messages[table.message_id]

    def controls(self, table: Any) -> FakeMessage:
        """Where My hand and I'm back are during a game: the thread's first message (the start
        notice; the table message only links to the thread), else the table message."""
        if table.thread_id is None:
            return self.table_message(table)
        for m in self.world.channels[table.thread_id].messages.values():
            if f"dh:t:hand:{table.id}" in custom_ids(m.view):
                return m
        raise AssertionError(f"no My hand in the thread of table {table.id}")

    def where(self, table: Any) -> FakeChannel:
        return self.world.channels[table.thread_id] if table.thread_id else self.channel


@pytest.fixture
async def h() -> AsyncIterator[Harness]:
    world = World()
    bot = FakeBot(world)
    clock = FakeClock()
    listener = DiscordListener(bot)
    runtime = Runtime(listener=listener, clock=clock, rng=random.Random(7), ai_delay=0)
    world.runtime = runtime
    world.now = clock.now  # interaction tokens live on the table's clock
    cog = GameCog(runtime, listener)
    bot.cogs["GameCog"] = cog
    harness = Harness(world, bot, clock, runtime, cog, listener, world.channel("cards"),
                      FakeUser(101, "Alice"), FakeUser(102, "Bob"), FakeUser(103, "Stranger"))
    yield harness
    await runtime.close()
    assert not world.violations, "\n".join(world.violations[:5])
