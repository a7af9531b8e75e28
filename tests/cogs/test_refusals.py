"""Every refusal is one short ephemeral sentence and changes nothing; nothing reaches a user as a
traceback."""

from __future__ import annotations

import json
import logging
from typing import Any

from cogs.table.components import TableButton
from cogs.table.plumbing import OOPS
from tests.cogs.conftest import Harness
from tests.cogs.fakes import FakeInteraction, FakeMessage, custom_ids


def snapshot(h: Harness) -> str:
    """Everything a refusal must leave alone, for every table."""
    out = []
    for t in h.runtime.tables.values():
        out.append([t.id, t.version, str(t.phase), t.host_id, t.thread_id, t.message_id,
                    [(s.user_id, s.name, s.is_ai, s.away, s.left) for s in t.seats],
                    t.state.to_dict() if t.state is not None else None])
    return json.dumps(out, sort_keys=True, default=str)


def refused(i: FakeInteraction, *words: str) -> str:
    """The interaction got exactly one ephemeral sentence (containing ``words``) and nothing else."""
    assert not i.errors, i.errors
    assert len(i.replies) == 1 and not i.edited, [m.content for m in i.replies]
    msg = i.replies[0]
    assert msg.ephemeral and msg.view is None and msg.content
    assert "Traceback" not in msg.content and "\n" not in msg.content
    for w in words:
        assert w in msg.content, msg.content
    return msg.content


async def pass_all(h: Harness, table: Any) -> None:
    """Both humans pass their first three cards by /play text; the AIs pass by themselves."""
    for user in (h.alice, h.bob):
        seat = table.seat_of(user.id)
        d = table.state.decision(seat)
        if d is not None and d.pick:
            i = h.inter(user)
            await h.cog.play.callback(h.cog, i, cards=" ".join(c.code for c in d.cards[:3]))
            assert i.last.ephemeral and i.last.content.startswith("✅"), i.last.content
    await h.settle()
    assert table.state.public_view()["phase"] == "play"


async def human_on_turn(h: Harness, table: Any) -> tuple[Any, Any]:
    """Settle until a person must play; return (user on turn, the other person)."""
    for _ in range(100):
        turn = table.state.public_view()["turn"]
        if turn in (0, 1):
            return (h.alice, h.bob) if turn == 0 else (h.bob, h.alice)
        await h.settle()
    raise AssertionError("no human turn came")


async def test_not_your_turn(h: Harness) -> None:
    table, _ = await h.running_table()
    await pass_all(h, table)
    _, waiting = await human_on_turn(h, table)
    seat = table.seat_of(waiting.id)
    before = snapshot(h)
    i = h.inter(waiting)
    await h.cog.play.callback(h.cog, i, cards=table.state.view(seat)["hand"][0])
    refused(i, "not your turn")
    assert snapshot(h) == before


async def test_stranger_cannot_open_a_hand_or_press_a_card(h: Harness) -> None:
    table, msg = await h.running_table()
    before = snapshot(h)
    i = await h.click(h.stranger, h.controls(table), f"dh:t:hand:{table.id}")
    refused(i, "not seated")
    # Alice's pass menu, clicked by someone else (say, a forwarded message).
    hand = await h.click(h.alice, h.controls(table), f"dh:t:hand:{table.id}")
    select_id, hint, howto = custom_ids(hand.last.view)
    assert (hint, howto) == (f"dh:t:hint:{table.id}", f"dh:t:howto:{table.id}")
    i = await h.click(h.stranger, hand.last, select_id, values=table.state.view(0)["hand"][:3])
    refused(i, "not seated")
    assert snapshot(h) == before

    await pass_all(h, table)
    player, _ = await human_on_turn(h, table)
    hand = h.inter(player)
    await h.cog.hand.callback(h.cog, hand)
    before = snapshot(h)
    i = await h.click(h.stranger, hand.last, custom_ids(hand.last.view)[0])
    refused(i, "not seated")
    assert snapshot(h) == before


async def test_double_click_and_stale_buttons_are_refused(h: Harness) -> None:
    table, _ = await h.running_table()
    await pass_all(h, table)
    player, _ = await human_on_turn(h, table)
    i = h.inter(player)
    await h.cog.hand.callback(h.cog, i)
    hand = i.last
    old = FakeMessage(h.world, hand.channel, hand.content, None, hand.view, ephemeral=True)
    button = custom_ids(hand.view)[0]

    first = await h.click(player, hand, button)
    assert first.edited == [hand] and hand.content.startswith("✅ You played")
    before = snapshot(h)
    second = await h.click(player, old, button)  # the same click, delivered twice
    refused(second, "earlier turn")
    assert snapshot(h) == before

    # A view drawn before a move made elsewhere (here /play) is out of date too.
    player, _ = await human_on_turn(h, table)
    i = h.inter(player)
    await h.cog.hand.callback(h.cog, i)
    stale = i.last
    code = table.state.decision(table.seat_of(player.id)).actions[-1].code
    by_text = h.inter(player)
    await h.cog.play.callback(h.cog, by_text, cards=code)
    assert by_text.last.content.startswith("✅")
    await h.settle()
    before = snapshot(h)
    i = await h.click(player, stale, custom_ids(stale.view)[0])
    refused(i, "earlier turn")
    assert snapshot(h) == before


async def test_unknown_table_id(h: Harness) -> None:
    await h.new_table()
    before = snapshot(h)
    i = h.inter(h.bob)
    await h.cog.game_join.callback(h.cog, i, id="ZZZZZZ")
    refused(i, "no table", "ZZZZZZ")
    view_msg = FakeMessage(h.world, h.channel, "old", None, None)
    import discord

    view_msg.view = discord.ui.View(timeout=None)
    view_msg.view.add_item(TableButton("hand", "ZZZZZZ"))
    i = await h.click(h.bob, view_msg, "dh:t:hand:ZZZZZZ")
    refused(i, "no table")
    i = h.inter(h.bob)
    await h.cog.hand.callback(h.cog, i)
    refused(i, "not seated")
    assert snapshot(h) == before


async def test_only_the_host_starts_and_adds_ai(h: Harness) -> None:
    table, msg = await h.new_table()
    await h.click(h.bob, msg, f"dh:t:join:{table.id}")
    before = snapshot(h)
    refused(await h.click(h.bob, msg, f"dh:t:start:{table.id}"), "Only the host", "Alice")
    refused(await h.click(h.bob, msg, f"dh:t:ai:{table.id}"), "Only the host")
    i = h.inter(h.bob)
    await h.cog.game_start.callback(h.cog, i)
    refused(i, "Only the host")
    i = h.inter(h.bob)
    await h.cog.game_end.callback(h.cog, i, id=None)
    refused(i, "Only the host")
    assert snapshot(h) == before


async def test_wrong_phase(h: Harness) -> None:
    table, msg = await h.new_table()
    before = snapshot(h)
    i = h.inter(h.alice)
    await h.cog.play.callback(h.cog, i, cards="2C")
    refused(i, "not started")
    i = h.inter(h.alice)
    await h.cog.hand.callback(h.cog, i)
    refused(i, "not started")
    assert snapshot(h) == before

    await h.click(h.bob, msg, f"dh:t:join:{table.id}")
    await h.click(h.alice, msg, f"dh:t:start:{table.id}")
    await h.settle()
    before = snapshot(h)
    i = h.inter(h.alice)
    await h.cog.game_ai.callback(h.cog, i, count=1)
    refused(i, "before the game starts")
    i = h.inter(h.alice)
    await h.cog.game_start.callback(h.cog, i)
    refused(i, "already started")
    i = h.inter(h.stranger)
    await h.cog.game_join.callback(h.cog, i, id=table.id)
    refused(i, "already started")
    i = h.inter(h.bob)
    await h.cog.play.callback(h.cog, i, cards="nonsense words")
    refused(i)
    assert snapshot(h) == before


async def test_a_game_deckhand_does_not_have_is_named_and_the_games_listed(h: Harness) -> None:
    i = h.inter(h.alice)
    await h.cog.game_new.callback(h.cog, i, game="chess", options=None, speed="normal")
    refused(i, "no game called “chess”", "Hearts", "King of the Hill")
    i = h.inter(h.alice)
    await h.cog.game_rules.callback(h.cog, i, game="Chess")
    refused(i, "no game called “chess”", "The Great Dalmuti")
    assert h.runtime.tables == {}


async def test_bad_options_are_explained(h: Harness) -> None:
    for text, words in (("target=abc", ("target", "whole number")), ("rules", ("key=value",)),
                        ("colour=red", ("no option `colour`", "/game rules hearts", "how to type it")),
                        ("rules=chess", ("rules must be one of",))):
        i = h.inter(h.alice)
        await h.cog.game_new.callback(h.cog, i, game="hearts", options=text, speed="normal")
        refused(i, *words)
    assert h.runtime.tables == {}
    i = h.inter(h.alice)
    await h.cog.game_new.callback(h.cog, i, game="hearts", options="rules=mcgill, target=50", speed="blitz")
    (table,) = h.runtime.tables.values()
    assert table.options["rules"] == "mcgill" and table.options["target"] == 50 and table.speed == "blitz"


async def test_a_dm_is_a_place_of_its_own(h: Harness) -> None:
    """Installed to a person's account, the commands work in a DM (issue 32): the conversation is
    the place its tables belong to, so a table of a server is not found from it."""
    i = h.inter(h.alice, guild_id=None)
    assert await h.cog.interaction_check(i) is True
    i = h.inter(h.alice, guild_id=None)
    await h.cog.hand.callback(h.cog, i)
    refused(i, "not seated at a table")


async def test_a_bug_is_logged_not_shown(h: Harness, monkeypatch, caplog) -> None:
    table, _ = await h.running_table()

    def boom(*_: Any) -> None:
        raise RuntimeError("database on fire")

    monkeypatch.setattr(h.runtime, "seat_view", boom)
    i = h.inter(h.alice)
    with caplog.at_level(logging.ERROR):
        await h.cog.hand.callback(h.cog, i)
    assert refused(i) == OOPS
    assert "database on fire" in caplog.text
    assert "database on fire" not in i.replies[0].content
