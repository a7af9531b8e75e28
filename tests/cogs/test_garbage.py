"""Clicks and redraws leave no cyclic garbage of views (issue 35): a View and its items point at each
other, so every view the bot draws (a hand view for each click and each live edit, the table
message for each redraw) and every view discord.py rebuilds from a clicked message was left for
the garbage collector, whose pauses then made the slowest interaction answers under load.  The
bot empties each view once it is sent or its click answered (cogs.table.custom_ids.let_go)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import discord

from tests.cogs.conftest import Harness
from tests.cogs.fakes import enabled_ids


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
    return sorted(type(o).__qualname__ for o in objects if isinstance(o, (discord.ui.View, discord.ui.Item)))


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
    assert views_and_items(garbage) == []
