"""King of the Hill's bury from the hand view, with the choice kept in the engine: each suit-group
menu marks cards (one ``bury … mark`` action through the runtime), the redrawn view shows them as
chosen, **OK** buries exactly those — and a restart of the bot in the middle loses nothing."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from cogs.live.listener import DiscordListener
from cogs.table.components import DONE_TEMPLATE, PART_TEMPLATE
from cogs.table.game import GameCog
from tables.runtime import STALE, Runtime
from tables.storage import SQLiteStorage
from tests.cogs.conftest import Harness
from tests.cogs.fakes import FakeBot, FakeMessage, World
from tests.cogs.playthrough import controls, open_hand, open_table
from tests.cogs.test_refusals import refused, snapshot
from tests.tables.test_storage import StoredClock

OPTIONS = "rounds=1 deal_rate=0.5 ready_round=0"


async def to_bury(h: Harness, rng: int = 10) -> tuple[Any, FakeMessage, int]:
    """A table where Alice declares as soon as she can (a pair if she has one) and becomes the KotH:
    the deal runs, and the table stops at her bury."""
    h.runtime.rng = random.Random(rng)
    table, lobby = await open_table(h, "koth", OPTIONS)
    alice = table.seat_of(h.alice.id)
    for _ in range(400):
        state = table.state
        if state.phase == "bury":
            break
        d = state.decision(alice)
        if d is not None and d.kind == "declare":
            await h.runtime.act(table.id, h.alice.id, max(d.actions, key=lambda a: len(a.cards)))
        await h.settle(0.5)
    assert table.state.phase == "bury" and table.state.koth == alice, "the deal changed: pick another rng"
    return table, lobby, alice


def parts_of(msg: FakeMessage) -> list[Any]:
    return [c for c in controls(msg) if re.fullmatch(PART_TEMPLATE, getattr(c, "custom_id", "") or "")]


def button(msg: FakeMessage, op: str) -> Any:
    return next(c for c in controls(msg) if re.fullmatch(DONE_TEMPLATE, getattr(c, "custom_id", "") or "")
                and c.custom_id.endswith(f":{op}"))


def defaults(msg: FakeMessage) -> list[str]:
    return sorted(o.value.split("#")[0] for p in parts_of(msg) for o in p.options if o.default)


async def test_a_bury_chosen_across_two_suit_menus_then_ok(h: Harness) -> None:
    table, lobby, alice = await to_bury(h)
    deadline = table.deadlines[alice]
    await h.settle(10)  # Alice takes her time
    pings = len(h.where(table).sent)
    hand = await open_hand(h, h.alice, table, lobby, by_button=True)
    parts = parts_of(hand)
    assert len(parts) >= 2 and button(hand, "ok").label == "Bury 0/8" and button(hand, "ok").disabled
    ids = [p.custom_id for p in parts]
    first = [o.value for o in parts[0].options][:3]
    second = [o.value for o in parts[1].options][:5]

    # Three in the first menu: one engine action, the view redrawn in place with them as chosen.
    i = await h.click(h.alice, hand, ids[0], values=first)
    assert i.edited == [hand] and not i.replies, i.last.content
    assert sorted(table.state.view(alice)["marked"]) == sorted(v.split("#")[0] for v in first)
    assert table.log[-1].code.startswith("bury ") and table.log[-1].code.endswith(" mark")
    assert not table.log[-1].auto and table.state.phase == "bury"
    assert defaults(hand) == sorted(v.split("#")[0] for v in first) and "Chosen (3/8)" in hand.content
    assert button(hand, "ok").label == "Bury 3/8" and button(hand, "ok").disabled
    # The other menus keep their ids (the same message goes on working); no new clock, no ping.
    assert [p.custom_id for p in parts_of(hand)] == ids
    assert table.deadlines[alice] == deadline and len(h.where(table).sent) == pings

    # Five in the second menu: eight in all; the first menu's choice stays.
    i = await h.click(h.alice, hand, ids[1], values=second)
    assert i.edited == [hand] and not i.replies, i.last.content
    chosen = sorted(v.split("#")[0] for v in first + second)
    assert sorted(table.state.view(alice)["marked"]) == chosen == defaults(hand)
    ok = button(hand, "ok")
    assert ok.label == "Bury 8/8" and not ok.disabled and "Chosen (8/8)" in hand.content
    assert all(p.disabled for p in parts_of(hand)[2:])  # full: nothing more can be chosen there
    assert table.deadlines[alice] == deadline

    # Changing one menu's choice again: only that menu's cards change.
    i = await h.click(h.alice, hand, ids[1], values=second[:4])
    assert len(table.state.view(alice)["marked"]) == 7 and button(hand, "ok").disabled
    i = await h.click(h.alice, hand, ids[1], values=second)
    assert sorted(table.state.view(alice)["marked"]) == chosen

    i = await h.click(h.alice, hand, button(hand, "ok").custom_id)
    assert i.edited == [hand] and hand.content.startswith("✅ You buried 8 cards."), hand.content
    assert table.state.phase == "call" and sorted(c.code for c in table.state.buried) == chosen
    assert table.log[-1].code == "bury" and not parts_of(hand)
    assert h.world.violations == []


async def test_clear_and_stale_bury_controls(h: Harness) -> None:
    table, lobby, alice = await to_bury(h)
    hand = await open_hand(h, h.alice, table, lobby, by_button=False)
    parts = parts_of(hand)
    older = await open_hand(h, h.alice, table, lobby, by_button=True)  # a second hand view, left alone
    await h.click(h.alice, hand, parts[0].custom_id, values=[o.value for o in parts[0].options][:2])
    await h.click(h.alice, hand, parts[1].custom_id, values=[o.value for o in parts[1].options][:6])
    assert len(table.state.marked) == 8

    before = snapshot(h)
    # The older view's menu still marks (only Alice's own marks happened since it was drawn), but
    # not past 8; its OK was drawn before the marks, so it buries nothing.
    i = await h.click(h.alice, older, parts_of(older)[-1].custom_id, values=[parts_of(older)[-1].options[0].value])
    refused(i, "at most 8")
    i = await h.click(h.alice, older, button(older, "ok").custom_id)
    assert i.replies and STALE in i.replies[0].content and not i.edited
    # Someone else's click on Alice's menus.
    i = await h.click(h.bob, hand, parts[0].custom_id, values=[])
    refused(i, "out of date")
    assert snapshot(h) == before

    # Clear unmarks everything, in the engine.
    i = await h.click(h.alice, hand, button(hand, "clear").custom_id)
    assert i.edited == [hand] and table.state.marked == [] and button(hand, "clear").disabled
    assert table.log[-1].code == "bury mark"
    # Once the bury is made (here at once, by /play), the menus are out of date.
    i = h.inter(h.alice)
    eight = " ".join(c.code for c in table.state.hands[alice][:8])
    await h.cog.play.callback(h.cog, i, cards=eight)
    assert table.state.phase == "call"
    i = await h.click(h.alice, hand, parts[0].custom_id, values=[parts[0].options[0].value])
    refused(i, "out of date")


@pytest.fixture
def stored_clock() -> StoredClock:
    return StoredClock()


async def test_the_marked_cards_survive_a_restart(h: Harness, tmp_path, stored_clock) -> None:
    """Marks made through the menus are stored with the table: a new runtime (a restarted bot)
    recovers them, the old hand view's menus and a fresh /hand show them, and OK buries them."""
    path = tmp_path / "bot.db"
    world = World()
    bot = FakeBot(world)
    first = Runtime(storage=await SQLiteStorage.open(f"sqlite:///{path}"), listener=DiscordListener(bot),
                    clock=stored_clock, rng=random.Random(7), ai_delay=0)
    harness = Harness(world, bot, stored_clock, first, GameCog(first, first.listener), first.listener,
                      world.channel("cards"), h.alice, h.bob, h.stranger)
    world.runtime = first
    bot.cogs["GameCog"] = harness.cog
    try:
        table, lobby, alice = await to_bury(harness)
        hand = await open_hand(harness, h.alice, table, lobby, by_button=True)
        parts = parts_of(hand)
        await harness.click(h.alice, hand, parts[0].custom_id, values=[o.value for o in parts[0].options][:4])
        marked = list(table.state.view(alice)["marked"])
        deadline = table.deadlines[alice]
        version = table.version
        await stored_clock.settle()
    finally:
        await first.close()  # the process goes away

    second = Runtime(storage=await SQLiteStorage.open(f"sqlite:///{path}"), listener=DiscordListener(bot),
                     clock=stored_clock, rng=random.Random(8), ai_delay=0)
    try:
        report = await second.recover()
        assert [t.id for t in report.restored] == [table.id]
        world.runtime = second
        cog = GameCog(second, second.listener)
        bot.cogs["GameCog"] = cog
        harness.runtime, harness.cog, harness.listener = second, cog, second.listener
        t = second.get(table.id)
        assert t.version == version and t.state.view(alice)["marked"] == marked
        assert t.deadlines[alice] == deadline  # the same 60 s clock goes on
        # The hand view from before the restart still works: its second menu adds four more.
        await harness.click(h.alice, hand, parts[1].custom_id, values=[o.value for o in parts[1].options][:4])
        assert len(t.state.marked) == 8 and "Chosen (8/8)" in hand.content
        # A fresh /hand shows the same choice.
        again = await open_hand(harness, h.alice, t, lobby, by_button=False)
        assert defaults(again) == sorted(t.state.view(alice)["marked"])
        chosen = sorted(t.state.view(alice)["marked"])
        await harness.click(h.alice, again, button(again, "ok").custom_id)
        assert t.state.phase == "call" and sorted(c.code for c in t.state.buried) == chosen
        assert set(marked) <= set(chosen)
        assert world.violations == []
    finally:
        await second.close()


async def test_a_timeout_buries_the_marked_cards(h: Harness) -> None:
    table, lobby, alice = await to_bury(h)
    deadline = table.deadlines[alice]
    await h.settle(20)
    hand = await open_hand(h, h.alice, table, lobby, by_button=True)
    parts = parts_of(hand)
    await h.click(h.alice, hand, parts[0].custom_id, values=[o.value for o in parts[0].options][:3])
    marked = sorted(table.state.view(alice)["marked"])
    assert table.deadlines[alice] == deadline
    await h.settle(deadline - h.clock.now() - 1)
    assert table.state.phase == "bury"  # marking did not restart the clock, nor did it run out early
    await h.settle(2)
    assert table.state.phase == "call"
    buried = sorted(c.code for c in table.state.buried)
    assert len(buried) == 8 and all(buried.count(c) >= marked.count(c) for c in marked)
    entry = next(e for e in reversed(table.log) if e.seat == alice and e.code.startswith("bury "))
    assert entry.auto and len(entry.code.split()) == 9  # the safe move names its 8 cards


async def test_play_suggestions_carry_on_from_the_marked_cards(h: Harness) -> None:
    from cogs.table import renderers
    from cogs.table.autocomplete import legal_choices

    table, lobby, alice = await to_bury(h)
    hand = table.state.sorted_hand(alice)
    await h.runtime.act(table.id, h.alice.id, f"bury {' '.join(c.code for c in hand[:3])} mark")
    sv = h.runtime.seat_view(table.id, h.alice.id)
    r = renderers.renderer_for("koth")
    first = legal_choices(sv.decision, "", sv.view["hand"], r, sv)
    assert first and all(c.value.split()[:3] == [x.code for x in hand[:3]] for c in first)
    assert all(len(c.value.split()) == 4 and "(4 more)" in c.name for c in first)
    await h.runtime.act(table.id, h.alice.id, f"bury {' '.join(c.code for c in hand[:8])} mark")
    sv = h.runtime.seat_view(table.id, h.alice.id)
    (only,) = legal_choices(sv.decision, "", sv.view["hand"], r, sv)
    assert only.value == "bury" and "8 marked" in only.name
    # what the suggestion sends buries exactly the marked cards
    await h.runtime.act(table.id, h.alice.id, only.value)
    assert sorted(c.code for c in table.state.buried) == sorted(c.code for c in hand[:8])
    assert table.state.phase == "call"
