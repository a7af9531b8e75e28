"""A whole Tricks game through the cog: two people and two AIs, every card played from the hand
views' buttons, until the final standings and the replay line; nothing hidden ever shown in public."""

from __future__ import annotations

from tests.cogs.conftest import Harness
from tests.cogs.playthrough import open_table, play_game
from tests.cogs.test_refusals import refused, snapshot


async def test_whole_tricks_game(h: Harness) -> None:
    table, lobby = await open_table(h, "tricks", "target=5")
    assert table.options["target"] == 5
    lobby_texts = [t for _, t in h.world.public if "free seat" in t or "Join" in t]
    assert any("Tricks · table" in t and "first to 5 points" in t for t in lobby_texts)
    tally = await play_game(h, table, lobby)
    await h.settle(2)
    assert table.state.is_over and not table.ended_early
    assert tally.moves["button"] >= 13  # two people, at least one whole hand
    final = h.table_message(table).text
    assert "Final standings" in final
    assert f"Replay: `/game replay id:{table.id}`" in final and str(table.seed) not in final
    thread = h.where(table)
    assert any("End of hand 1" in m.text for m in thread.sent)
    summaries = [m.text for m in thread.sent if "Final standings" in m.text]
    assert len(summaries) == 1 and f"Replay: `/game replay id:{table.id}`" in summaries[0]
    # (enough public output to mean something: the lobby, the phases and milestones of the table
    # message, summaries; people follow every card in their live hand views, not here)
    assert len(h.world.public) > 5 and h.world.violations == []


async def test_tricks_refusals_stay_ephemeral(h: Harness) -> None:
    table, lobby = await open_table(h, "tricks", "target=5")
    for _ in range(50):
        if table.to_act() and table.to_act()[0] in (0, 1):
            break
        await h.settle()
    seat = table.to_act()[0]
    waiting = h.bob if seat == 0 else h.alice
    mover = h.alice if seat == 0 else h.bob
    before = snapshot(h)
    i = h.inter(waiting)
    await h.cog.play.callback(h.cog, i, cards="QS")
    refused(i, "not your turn")
    i = h.inter(mover)
    await h.cog.play.callback(h.cog, i, cards="~R")
    refused(i, "no jokers")
    assert snapshot(h) == before
