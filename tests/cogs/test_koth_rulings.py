"""King of the Hill rulings through the real runtime and cog (docs/rules.md §4, steps 4, 5 and 7): the KotH's
suit choice is a required move — asked, pinged, its deadline shown — and a call that never comes
enlists nobody."""

from __future__ import annotations

from engine.core import TABLE, Action
from games.koth.rules import KingOfTheHill
from tests.cogs.conftest import Harness
from tests.cogs.playthrough import open_table
from tests.engine.test_koth_rules import deal_until, later_round


def round_two_late_window() -> KingOfTheHill:
    """Round 2, Alice (seat 0) KotH at rank 2, every card dealt and nobody able to declare (the 2s
    are all in the dead hand): the late window is open."""
    g = later_round(0, [2, 2, 2, 2, 2], {})
    deal_until(g, 100)
    assert g.phase == "late" and g.declared is None and g.to_act() == (TABLE,)
    return g


async def take_over(h: Harness, table, state: KingOfTheHill) -> None:
    """Seat the crafted state at the running table and let the runtime plan it afresh."""
    table.state = state
    table.seats[table.seat_of(h.alice.id)].away = True  # coming back plans the table afresh
    await h.runtime.back(table.id, h.alice.id)
    await h.settle(0.1)


async def test_the_koth_is_asked_and_pinged_to_choose_the_suit_with_its_deadline(h: Harness) -> None:
    table, _ = await open_table(h, "koth", "rounds=3 ready_round=0")
    await take_over(h, table, round_two_late_window())
    thread = h.where(table)
    before = len(thread.sent)
    await h.settle(3.5)  # the 3 s late window closes with nobody declaring
    assert table.state.phase == "suit"
    assert table.to_act() == (0,) and TABLE not in table.state.to_act()
    deadline = table.deadlines.get(0)
    assert deadline is not None and 0 < deadline - h.clock.now() <= 5.0  # the KotH's own 5 s
    pings = [m for m in thread.sent[before:] if "<@101>" in (m.content or "")]
    assert pings and "choose the trump suit" in pings[-1].content
    text = h.table_message(table).text
    assert "chooses the trump suit" in text and "⏰" in text
    # The 5 s pass: the timeout move chooses a suit for her (the AI's choice, RULES §4.9).
    await h.settle(5.5)
    assert table.state.phase == "bury" and table.state.trump.suit in "CDHS"
    assert [e.code for e in table.log if e.seat == 0][-1].startswith("suit ")


async def test_when_the_call_times_out_nobody_is_enlisted(h: Harness) -> None:
    table, _ = await open_table(h, "koth", "rounds=3 ready_round=0")
    g = round_two_late_window()
    g.apply(TABLE, Action("close"))
    g.apply(0, Action("suit", (), ("H",)))
    g.apply(0, Action("bury", tuple(g.hands[0][20:])))
    assert g.phase == "call" and g.to_act() == (0,)
    await take_over(h, table, g)
    await h.settle(16)  # 15 s to call, none made
    assert [e.code for e in table.log if e.seat == 0][-1] == "call nobody"
    pv = table.state.public_view()
    assert pv["called"] is None and pv["alone"] and pv["defenders"] == [0]
    assert any("called no card in time" in t for _, t in h.world.public)

