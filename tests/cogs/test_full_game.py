"""A whole Hearts game played through the cog: lobby buttons, /hand and My hand, the pass menu
and the card buttons, until the final standings — with every public message inspected for hidden
cards at the moment it was sent or edited."""

from __future__ import annotations

import re

from cogs.table.components import ACTION_TEMPLATE, PICK_TEMPLATE
from engine.cards import card
from tests.cogs.conftest import Harness
from tests.cogs.fakes import FakeMessage, enabled_ids

MAX_STEPS = 2000


def _controls(msg: FakeMessage) -> list[str]:
    # Hearts shows the cards you may not play too, disabled; Hint and How to play are not moves.
    return [c for c in enabled_ids(msg.view) if not c.startswith(("dh:t:hint:", "dh:t:howto:"))]


async def _open_hand(h: Harness, user, table, use_button: bool, table_msg: FakeMessage) -> FakeMessage:
    if use_button:
        i = await h.click(user, h.controls(table), f"dh:t:hand:{table.id}")
    else:
        i = h.inter(user)
        await h.cog.hand.callback(h.cog, i)
    msg = i.last
    assert msg.ephemeral, "a hand must only ever be shown ephemerally"
    return msg


async def test_full_game_two_humans_two_ais(h: Harness) -> None:
    table, lobby = await h.new_table(options="target=40")
    assert table.options["target"] == 40
    text = lobby.text
    assert f"Hearts · table `{table.id}`" in text
    assert "Avoid hearts" in text  # the one-line rules summary
    assert "game to 40" in text and "timers" not in text  # only what differs from the defaults
    assert set(_controls(lobby)) == {f"dh:t:{a}:{table.id}" for a in ("join", "leave", "ai", "start")}
    assert enabled_ids(lobby.view)[-1] == f"dh:t:howto:{table.id}"  # How to play

    join = await h.click(h.bob, lobby, f"dh:t:join:{table.id}")
    assert join.last.ephemeral and "You joined table" in join.last.content
    ai = await h.click(h.alice, lobby, f"dh:t:ai:{table.id}")
    assert ai.last.ephemeral and "Added 2 AI players" in ai.last.content
    await h.settle()
    assert "Bob" in lobby.text and "🤖 AI 1" in lobby.text  # the lobby was redrawn in place

    start = await h.click(h.alice, lobby, f"dh:t:start:{table.id}")
    assert start.response.deferred == {"ephemeral": True, "thinking": True}
    assert table.phase == "running" and table.thread_id is not None
    thread = h.world.channels[table.thread_id]
    assert thread.parent is h.channel and table.id in thread.name
    await h.settle()
    # The table message links to the thread (and has Watch and How to play); My hand and I'm back are on the
    # thread's first message.
    link = [i for i in lobby.view.children if getattr(i, "url", None)]
    assert enabled_ids(lobby.view) == [f"dh:t:watch:{table.id}", f"dh:t:howto:{table.id}"]
    assert link and link[0].url.endswith(f"/{table.thread_id}")
    assert h.controls(table).channel is thread and list(thread.messages)[0] == h.controls(table).id
    assert set(_controls(h.controls(table))) == {f"dh:t:hand:{table.id}", f"dh:t:back:{table.id}"}

    users = {0: h.alice, 1: h.bob}
    passes = plays = 0
    for step in range(MAX_STEPS):
        if table.phase == "finished":
            break
        due = [s for s in table.to_act() if s in users]
        if not due:
            await h.settle()
            continue
        seat = due[0]
        user = users[seat]
        hand = await _open_hand(h, user, table, use_button=bool(step % 2), table_msg=lobby)
        decision = table.state.decision(seat)
        view = table.state.view(seat)
        for code in view["hand"]:
            assert card(code).label in hand.content
        if decision.pick:
            (select_id,) = _controls(hand)
            assert re.fullmatch(PICK_TEMPLATE, select_id)
            (select,) = [i.item for i in hand.view.walk_children() if getattr(i, "custom_id", "") == select_id]
            assert [o.value for o in select.options] == [c.code for c in decision.cards]
            assert select.min_values == select.max_values == 3
            chosen = [o.value for o in select.options[-3:]]
            i = await h.click(user, hand, select_id, values=chosen)
            assert table.state.view(seat)["passing"] == sorted(chosen, key=lambda c: view["hand"].index(c))
            passes += 1
        else:
            ids = _controls(hand)
            assert all(re.fullmatch(ACTION_TEMPLATE, x) for x in ids)
            codes = [x.rsplit(":", 1)[1].replace("_", " ") for x in ids]
            assert sorted(codes) == sorted(a.code for a in decision.actions)
            assert codes == sorted(codes, key=lambda c: view["hand"].index(c.split()[1]))
            before = len(view["hand"])
            i = await h.click(user, hand, ids[0])
            assert len(table.state.view(seat)["hand"]) == before - 1 or table.state.is_over \
                or table.state.public_view()["hand_no"] != view["hand_no"]
            plays += 1
        assert i.edited == [hand] and hand.content.startswith("✅"), i.last.content
        await h.settle()
    else:
        raise AssertionError("the game did not finish")

    await h.settle(2)
    assert passes >= 2 and plays >= 26
    assert table.state.is_over and not table.ended_early
    final = h.table_message(table).text
    assert "Final standings" in final
    assert f"Replay: `/game replay id:{table.id}`" in final and str(table.seed) not in final
    assert _controls(h.table_message(table)) == [f"dh:t:again:{table.id}", f"dh:r:{table.id}:0:open"]  # again, Replay
    summaries = [m.text for m in thread.sent if "Final standings" in m.text]
    assert len(summaries) == 1 and f"Replay: `/game replay id:{table.id}`" in summaries[0]
    assert any("End of hand" in m.text for m in thread.sent)
    for name in ("Alice", "Bob", "AI 1", "AI 2"):
        assert name in summaries[0]
    # Both kept a live hand view (their join and start answers, then every click): it showed them
    # each turn, so nobody was pinged, in the thread or the channel.
    assert not [m for m in thread.sent + h.channel.sent if "your turn" in (m.content or "")]
    # Many public sends and edits were inspected, and none showed a hidden card.
    assert len(h.world.public) > 10
    assert h.world.violations == []
