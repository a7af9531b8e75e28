"""The other commands and buttons: autocomplete, list, rules, leave / I'm back, end, threads,
and the listener's resilience."""

from __future__ import annotations

import asyncio
import logging
from itertools import combinations
from types import SimpleNamespace
from typing import Any

import discord

from cogs.table.components import TableButton, hand_view
from engine.core import Event
from tests.cogs.conftest import Harness
from tests.cogs.fakes import custom_ids, enabled_ids
from tests.cogs.test_refusals import human_on_turn, pass_all, refused, snapshot


async def test_play_autocomplete_offers_exactly_the_legal_choices(h: Harness) -> None:
    table, _ = await h.running_table()
    d = table.state.decision(0)
    assert d.pick == 3

    async def complete(user, text: str) -> list[str]:
        return [c.value for c in await h.cog.play_cards_autocomplete(h.inter(user), text)]

    assert await complete(h.alice, "") == [c.code for c in d.cards]
    first = d.cards[0]
    after_one = await complete(h.alice, f"{first.code} ")
    assert after_one == [f"{first.code} {c.code}" for c in d.cards[1:]]
    # Typing the start of a card filters; choices stay codes.
    two = d.cards[1]
    partial = await complete(h.alice, f"{first.code} {two.label[:-1]}")
    assert f"{first.code} {two.code}" in partial
    assert all(v.startswith(first.code) for v in partial) and len(partial) < len(after_one)
    done = await complete(h.alice, " ".join(c.code for c in d.cards[:3]))
    assert done == [" ".join(c.code for c in d.cards[:3])]
    # Every pick suggestion (in full) is legal: passing it works.
    assert all(tuple(v.split()) in {tuple(c.code for c in combo) for combo in combinations(d.cards, len(v.split()))}
               for v in after_one)
    assert await complete(h.stranger, "") == []

    await pass_all(h, table)
    player, other = await human_on_turn(h, table)
    seat = table.seat_of(player.id)
    hand = table.state.view(seat)["hand"]
    legal = [a.code for a in table.state.decision(seat).actions]
    offered = await complete(player, "")
    assert sorted(offered) == sorted(legal)
    assert offered == sorted(offered, key=lambda code: hand.index(code.split()[1]))  # as the hand is fanned
    assert await complete(other, "") == []  # nothing to decide: nothing offered
    names = [c.name for c in await h.cog.play_cards_autocomplete(h.inter(player), "")]
    assert all("♣" in n or "♦" in n or "♠" in n or "♥" in n for n in names)
    filtered = await complete(player, legal[0].split()[1].lower())
    assert legal[0] in filtered and set(filtered) <= set(legal)


async def test_options_autocomplete_suggests_the_games_options(h: Harness) -> None:
    async def complete(text: str, game: str | None = "hearts") -> list[str]:
        i = h.inter(h.alice, namespace=SimpleNamespace(game=game))
        return [c.value for c in await h.cog.game_new_options_autocomplete(i, text)]

    first = await complete("")
    assert {"rules=classic", "rules=mcgill", "target=100", "moon=others_plus_26", "moon=shooter_minus_26"} <= set(first)
    assert await complete("rules=mcgill t") == ["rules=mcgill target=100", "rules=mcgill target=25",
                                                 "rules=mcgill target=50"]
    assert all(v.startswith("rules=mcgill ") and "rules=" not in v[13:] for v in await complete("rules=mcgill "))
    assert await complete("", game="chess") == []  # not a game: nothing to suggest


async def test_list_and_rules(h: Harness) -> None:
    i = h.inter(h.stranger)
    await h.cog.game_list.callback(h.cog, i)
    assert "No tables" in i.last.content and i.last.ephemeral
    table, _ = await h.new_table()
    i = h.inter(h.stranger)
    await h.cog.game_list.callback(h.cog, i)
    listing = i.last.text
    assert i.last.ephemeral and table.id in listing and "Hearts" in listing and "lobby" in listing
    assert "1/4" in listing and "Alice" in listing

    i = h.inter(h.stranger)
    await h.cog.game_rules.callback(h.cog, i, game="hearts")
    rules = i.last.text
    assert i.last.ephemeral
    assert "Shoot the moon" in rules or "shoot the moon" in rules
    for option in ("rules", "target", "moon", "speed", "mcgill"):
        assert option in rules


async def test_leave_and_come_back(h: Harness) -> None:
    table, msg = await h.new_table()
    await h.click(h.bob, msg, f"dh:t:join:{table.id}")
    i = await h.click(h.bob, msg, f"dh:t:leave:{table.id}")
    assert i.last.ephemeral and "You left" in i.last.content
    assert table.seat_of(h.bob.id) is None
    await h.click(h.bob, msg, f"dh:t:join:{table.id}")
    await h.click(h.alice, msg, f"dh:t:start:{table.id}")  # empty seats become AIs
    await h.settle()
    assert [s.is_ai for s in table.seats] == [False, False, True, True]

    i = h.inter(h.bob)
    await h.cog.game_leave.callback(h.cog, i)
    assert "an AI plays your seat" in i.last.content
    assert table.seats[1].away
    await h.settle()
    assert "🤖 Bob" in h.table_message(table).text

    i = await h.click(h.bob, h.controls(table), f"dh:t:back:{table.id}")
    assert "Welcome back" in i.last.content and i.last.ephemeral
    assert not table.seats[1].away


async def test_hand_brings_an_away_player_back(h: Harness) -> None:
    table, _ = await h.running_table()
    table.seats[1].away = True  # as after three missed deadlines
    i = h.inter(h.bob)
    await h.cog.hand.callback(h.cog, i)
    assert not table.seats[1].away
    assert i.last.ephemeral and "Your hand" in i.last.content


async def test_end_by_host_or_manager_posts_standings(h: Harness) -> None:
    table, msg = await h.running_table()
    before = snapshot(h)
    i = h.inter(h.bob)
    await h.cog.game_end.callback(h.cog, i, id=table.id)
    refused(i, "Only the host")
    assert snapshot(h) == before

    i = h.inter(h.stranger, manage_guild=True)
    await h.cog.game_end.callback(h.cog, i, id=None)  # the table in this channel
    assert i.last.ephemeral and "ended" in i.last.content
    await h.settle(2)
    assert table.phase == "finished" and table.ended_early
    thread = h.where(table)
    final = [m.text for m in thread.sent if "Final standings" in m.text]
    assert len(final) == 1 and "ended early" in final[0]
    # How to see it again, without the seed (it stays in the replay).
    assert f"Replay: `/game replay id:{table.id}`" in final[0] and str(table.seed) not in final[0]
    assert "finished" in h.table_message(table).text and custom_ids(h.table_message(table).view) == [
        f"dh:t:again:{table.id}", f"dh:r:{table.id}:0:open"]  # Play again, Replay
    assert h.world.violations == []


async def test_without_thread_permission_the_game_stays_in_the_channel(h: Harness) -> None:
    h.channel.threads = False
    table, msg = await h.running_table()
    assert table.thread_id is None
    # Alice closes her hand view (a live one shows her turn without a ping): the ping comes here.
    h.listener.live.drop(table.id, h.alice.id)
    await h.listener.turn(table, (table.seat_of(h.alice.id),))
    pings = [m for m in h.channel.sent if "your turn" in (m.content or "")]
    assert pings and f"<@{h.alice.id}>" in pings[-1].content


async def test_redraw_posts_a_new_message_if_the_old_one_is_gone(h: Harness) -> None:
    table, msg = await h.new_table()
    await msg.delete()
    await h.click(h.bob, msg, f"dh:t:join:{table.id}")
    await h.settle()
    assert table.message_id != msg.id
    fresh = h.table_message(table)
    assert "Bob" in fresh.text and f"dh:t:join:{table.id}" in custom_ids(fresh.view)


async def test_listener_contains_discord_errors(h: Harness, caplog) -> None:
    table, _ = await h.running_table()

    async def broken(*_, **__) -> None:
        raise discord.HTTPException(SimpleNamespace(status=500, reason="Server Error"), "boom")

    thread = h.where(table)
    thread.send = broken
    h.channel.get_partial_message = lambda _id: SimpleNamespace(edit=broken)
    h.listener.live.drop(table.id, table.seats[0].user_id)  # no live view: a ping is due
    h.listener.pace.forget(table.id)  # a table it has not shown yet: an edit is due
    with caplog.at_level(logging.ERROR):
        await h.listener.turn(table, (0,))
        await h.listener.summary(table, [Event("game_end", None, (1, 2, 3, 4))])
        await h.listener.redraw(table)
    assert caplog.text.count("boom") >= 3


async def test_public_buttons_never_carry_cards_and_hand_controls_do(h: Harness) -> None:
    table, msg = await h.running_table()
    # a link to the thread, Watch and How to play
    assert custom_ids(msg.view) == [f"dh:t:watch:{table.id}", f"dh:t:howto:{table.id}"]
    assert custom_ids(h.controls(table).view) == [f"dh:t:hand:{table.id}", f"dh:t:back:{table.id}"]
    await pass_all(h, table)
    player, _ = await human_on_turn(h, table)
    content, view = hand_view(h.runtime.seat_view(table.id, player.id))
    seat = table.seat_of(player.id)
    codes = {a.code.replace(" ", "_") for a in table.state.decision(seat).actions}
    # On your turn the view offers a hint too (a table button: it carries no card).
    assert custom_ids(view)[-2:] == [f"dh:t:hint:{table.id}", f"dh:t:howto:{table.id}"]
    enabled = enabled_ids(view)[:-2]
    disabled = [cid for cid in custom_ids(view)[:-2] if cid not in enabled]
    assert {cid.split(":")[-1] for cid in enabled} == codes
    # Every other card of the hand is there too, disabled (the view says why).
    hand = table.state.view(seat)["hand"]
    assert {cid.split(":")[-1] for cid in disabled} == {f"play_{c}" for c in hand} - codes
    assert all(cid.split(":")[3] == str(table.version) for cid in custom_ids(view)[:-2])
    assert isinstance(view.children[0], discord.ui.DynamicItem)
    assert TableButton("hand", table.id).custom_id == f"dh:t:hand:{table.id}"


async def test_a_turn_taken_while_its_notice_waited_pings_nobody(h: Harness) -> None:
    """A notice waits for the REST budget; if the person played meanwhile, it is not sent at all
    (it would ping for nothing, with no time left to show)."""
    table, _ = await h.running_table()
    await pass_all(h, table)
    player, _ = await human_on_turn(h, table)
    seat = table.seat_of(player.id)
    thread = h.where(table)
    gate = asyncio.Event()

    class Held:
        async def take(self, urgent: bool = False) -> None:
            await gate.wait()

    h.listener.budget = Held()
    await h.settle()
    sent: list[str] = []
    send = thread.send

    async def recording(content: Any = None, **kw: Any) -> Any:
        sent.append(str(content))
        return await send(content, **kw)

    thread.send = recording
    waiting = asyncio.create_task(h.listener.turn(table, (seat,)))
    await asyncio.sleep(0)
    sv = h.runtime.seat_view(table.id, player.id)
    await h.runtime.act(table.id, player.id, sv.decision.actions[0])  # the turn is taken meanwhile
    gate.set()
    await waiting
    assert seat not in table.to_act()
    assert not [m for m in sent if f"<@{player.id}>" in m], sent
