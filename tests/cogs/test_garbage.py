"""Clicks and redraws leave no cyclic garbage of views (issue 35): a View and its items point at each
other, so every view the bot draws (a hand view for each click and each live edit, the table
message for each redraw) and every view discord.py rebuilds from a clicked message was left for
the garbage collector, whose pauses then made the slowest interaction answers under load.  The
bot empties each view once it is sent or its click answered (cogs.table.custom_ids.let_go)."""

from __future__ import annotations

import gc
import random
import types
from collections.abc import Iterator
from contextlib import contextmanager

import discord

import engine
from cogs.table.unplayable import restriction, unplayable
from engine.core import refusal
from tables.live import SeatView
from tables.table import Phase, Seat, Table
from tests.cogs.conftest import Harness
from tests.cogs.fakes import enabled_ids
from tests.cogs.test_refusals import human_on_turn


@contextmanager
def cyclic_garbage() -> Iterator[list[object]]:
    """What the collector alone would free of what was made inside (gc paused meanwhile)."""
    gc.collect()
    gc.disable()
    found: list[object] = []
    try:
        yield found
    finally:
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            found.extend(gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()


def views_and_items(objects: list[object]) -> list[str]:
    """The bot's views and items among ``objects`` (not the fake Discord's: the views it read back
    from what it was sent, dropped when a message is edited or deleted, and what they hold)."""
    here = {id(o) for o in objects}
    fakes: set[int] = set()
    todo = [o for o in objects if getattr(o, "_from_wire", False)]
    while todo:
        o = todo.pop()
        if id(o) in fakes:
            continue
        fakes.add(id(o))
        todo.extend(r for r in gc.get_referents(o) if id(r) in here and id(r) not in fakes)
    return sorted(type(o).__qualname__ for o in objects
                  if isinstance(o, (discord.ui.View, discord.ui.Item)) and id(o) not in fakes)


async def test_clicks_and_redraws_leave_no_view_for_the_collector(h: Harness) -> None:
    table, _ = await h.running_table()
    with cyclic_garbage() as garbage:
        hands = []
        for user in (h.alice, h.bob):
            i = await h.click(user, h.controls(table), f"dh:t:hand:{table.id}")
            hands.append((user, i.last))
        for user, hand in hands:
            assert f"dh:t:howto:{table.id}" in enabled_ids(hand.view), enabled_ids(hand.view)
            await h.click(user, hand, f"dh:t:howto:{table.id}")
            # The hand again from the hand view: answered by redrawing that message.
            await h.click(user, h.controls(table), f"dh:t:hand:{table.id}")
        await h.settle(3)  # the table message redrawn, the live hand views edited
        await human_on_turn(h, table)  # turns go by: turn notices, their My hand buttons
        await h.settle(3)
    assert views_and_items(garbage) == []


def _refused_why(state: object, seat: int, typed: str) -> str | None:
    refused = refusal(state, seat, typed)  # type: ignore[arg-type]  # (kept in a local, as callers do)
    return None if refused is None else refused.reason


async def test_a_refusal_asked_for_a_drawing_leaves_no_frames_for_the_collector(h: Harness) -> None:
    """Each hand drawn asks the rules why a card may not be played (engine.core.refusal, tried on a
    copy of the game); a refusal keeping its traceback tied every caller's frame, and that copy,
    into a cycle."""
    table, _ = await h.running_table()
    with cyclic_garbage() as garbage:
        assert _refused_why(table.state, 0, "pass 2C") is not None
    assert [type(o).__qualname__ for o in garbage if isinstance(o, (types.FrameType, BaseException))] == []


def test_the_reasons_for_unplayable_cards_keep_no_game_once_its_table_is_gone() -> None:
    """Each hand drawn remembers why its unplayable cards cannot be played (cogs/table/unplayable.py),
    so a redraw does not ask the rules again; the 512 states it kept with their reasons outlived
    their tables, a full collection walking every card of them (issue 35).  Once the table is gone,
    nothing of its game is kept."""
    cls = engine.get("hearts").game
    g = cls.create(4, cls.read_options({}), 5)
    seats = [Seat(10 + i, f"P{i}") for i in range(4)]
    t = Table(id="ABC234", game="hearts", options=dict(g.options), speed="normal", guild_id=1, channel_id=2,
              host_id=10, seats=seats, phase=Phase.RUNNING, seed=1)
    t.state = g
    rng = random.Random(5)
    reasons = []
    while len(reasons) < 3 and not g.is_over:
        seat = g.to_act()[0]
        sv = SeatView(t, seat, g.view(seat), g.decision(seat), None)
        if unplayable(sv):
            reasons.append(restriction(sv))
            assert restriction(sv) == reasons[-1]  # (asked again: remembered)
        g.apply(seat, g.random_action(seat, rng))
        t.version += 1
    assert len(reasons) == 3 and all(reasons), reasons  # a player could not play some cards three times
    del t, sv
    gc.collect()
    kept = [type(r).__qualname__ for r in gc.get_referrers(g) if not isinstance(r, types.FrameType)]
    assert kept == []
