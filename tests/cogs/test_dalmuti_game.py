"""A whole game of The Great Dalmuti through the cog: two people and three AIs (one hand), every
play, pass and tax return made from the hand views' components, until the final standings with
the replay line; no number held in a hand ever named in public while no copy of it is on the table."""

from __future__ import annotations

import random

from tests.cogs.conftest import Harness
from tests.cogs.playthrough import open_table, play_game
from tests.cogs.test_refusals import refused, snapshot


async def test_whole_dalmuti_game(h: Harness) -> None:
    h.runtime.rng = random.Random(3)  # a deal where a person gives taxes back and leads from menus
    table, lobby = await open_table(h, "dalmuti", "hands=1", ais=3)
    assert len(table.seats) == 5 and table.options["hands"] == 1
    tally = await play_game(h, table, lobby, seed=5)
    await h.settle(2)
    assert table.state.is_over and not table.ended_early
    assert tally.kinds["play"] >= 5 and tally.moves["button"] >= 5
    assert tally.kinds["give"] == 1 and tally.moves["card menu"] == 1  # the tax return, from the card menu
    assert tally.moves["action menu"] >= 1  # a lead with more than 25 plays, from the menus by number
    final = h.table_message(table).text
    assert "Final standings" in final
    assert f"Replay: `/game replay id:{table.id}`" in final and str(table.seed) not in final and "points" in final
    thread = h.where(table)
    summary = next(m.text for m in thread.sent if "End of hand 1" in m.text)
    assert "Greater Dalmuti" in summary and "Greater Peon" in summary
    assert h.world.violations == []


async def test_dalmuti_refusals_stay_ephemeral(h: Harness) -> None:
    table, lobby = await open_table(h, "dalmuti", "hands=2", ais=3)
    for _ in range(30):
        if table.state.public_view()["phase"] == "play":
            break
        await h.settle()
    seat = next(s for s in (0, 1) if s != table.state.public_view()["turn"])
    user = h.alice if seat == 0 else h.bob
    before = snapshot(h)
    i = h.inter(user)
    await h.cog.play.callback(h.cog, i, cards="pass")
    refused(i, "not your turn")
    mover = h.alice if seat == 1 else h.bob
    if table.state.public_view()["turn"] in (0, 1):
        i = h.inter(mover)
        await h.cog.play.callback(h.cog, i, cards="twelve 1s")
        refused(i)
    assert snapshot(h) == before
