"""End-to-end fixtures: the real bot (``bot.Deckhand``, real discord.py, real HTTP and websocket)
against the fake Discord on 127.0.0.1, with scripted people in the guild.

Every test ends with the same checks, run when its world closes:

* privacy — nothing anyone could see (every version of every message, every autocomplete answer)
  showed a card hidden from them at that moment;
* every interaction was answered, within 3 s, once; no 429 was provoked; no request broke
  Discord's limits or hit an unknown route; the bot logged no error;
* no message was edited more than 5 times in any 5 s.

A test that injects a fault and expects a complaint says so with ``w.allow(...)`` /
``w.allow_errors(...)`` (regular expressions).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.fakediscord import FakeDiscord, Person, check_privacy, running_bot
from tests.fakediscord.play import table_id_of
from tests.fakediscord.server import Message

FAST_LIMITS = 0.05  # Discord's rate-limit windows, 20 times shorter: same rules, quicker tests
MAX_EDITS_PER_5S = 5


@dataclass
class World:
    fd: FakeDiscord
    bot: Any
    ali: Person
    bob: Person
    stranger: Person
    allowed: list[str] = field(default_factory=list)
    allowed_errors: list[str] = field(default_factory=list)

    @property
    def runtime(self) -> Any:
        return self.bot.runtime

    def allow(self, *patterns: str) -> None:
        self.allowed.extend(patterns)

    def allow_errors(self, *patterns: str) -> None:
        self.allowed_errors.extend(patterns)

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


@contextlib.asynccontextmanager
async def make_world(*, seed: int = 7, runtime_options: dict[str, Any] | None = None,
                     config: dict[str, Any] | None = None, **fd_options: Any) -> AsyncIterator[World]:
    fd_options.setdefault("ratelimit_scale", FAST_LIMITS)
    fd = FakeDiscord(**fd_options)
    await fd.start()
    try:
        people = [fd.add_member("Ali"), fd.add_member("Bob"), fd.add_member("Stranger")]
        options = {"ai_delay": 0, "rng": random.Random(seed)} | (runtime_options or {})
        async with running_bot(fd, runtime_options=options, config=config) as bot:
            w = World(fd, bot, *people)
            yield w
            await _settle(fd)
            leaks = check_privacy(fd, list(bot.runtime.tables.values()))
            errors = [e for e in bot.error_log.lines() if not any(re.search(a, e) for a in w.allowed_errors)]
        assert not leaks, "hidden cards were visible:\n" + "\n".join(leaks[:10])
        fd.assert_clean(allow=tuple(w.allowed))
        slow = [(i.label, round(i.answered_in, 3)) for i in fd.interactions.values()
                if i.answered_in is not None and i.answered_in >= 3.0]
        assert not slow, f"interactions answered after 3 s: {slow}"
        assert not fd.ratelimited, f"the bot provoked 429s: {fd.ratelimited}"
        edits, which = fd.edits_per_window(5.0)
        assert edits <= MAX_EDITS_PER_5S, f"message {which} was edited {edits} times within 5 s"
        assert not errors, "the bot logged errors:\n" + "\n".join(errors[:10])
    finally:
        await fd.close()


async def _settle(fd: FakeDiscord, quiet: float = 0.05, limit: float = 2.0) -> None:
    """Let in-flight requests land before checking (a redraw may still be on its way)."""
    end = time.perf_counter() + limit
    while time.perf_counter() < end and await fd.changed(quiet):
        pass
    await asyncio.sleep(0)


@pytest.fixture
async def w() -> AsyncIterator[World]:
    async with make_world() as world:
        yield world
