"""The live hand views (cogs/live.py) on the real runtime and a fake clock: one edit per view per
second however many changes come, edits only when the person's decision, cards or trick change,
a view whose message is gone or whose token ran out is dropped (so the next ping brings a button),
and a token is not used past its lifetime."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord

from cogs.live import LIFETIME, MARGIN, LiveViews, live_key
from tests.cogs.conftest import Harness
from tests.cogs.test_refusals import human_on_turn, pass_all


class Token:
    """An interaction whose @original can be edited, counting the edits (or failing them)."""

    def __init__(self, fail: int | None = None) -> None:
        self.edits: list[str] = []
        self.fail = fail

    async def edit_original_response(self, *, content: Any = None, **_: Any) -> None:
        if self.fail is not None:
            raise (discord.NotFound if self.fail == 404 else discord.HTTPException)(
                SimpleNamespace(status=self.fail, reason="x"), {"code": 50027 if self.fail == 401 else 10008,
                                                                "message": "x"})
        self.edits.append(content)


def live_of(h: Harness) -> LiveViews:
    live = h.listener.live
    assert live.runtime is h.runtime, "the cog hands the runtime to the listener's live views"
    return live


async def test_changes_are_coalesced_to_one_edit_per_second(h: Harness) -> None:
    table, _ = await h.running_table()
    live = live_of(h)
    token = Token()
    live.opened(token, table.id, h.alice.id, None)  # shows nothing known yet: the next change edits
    live.changed(table)
    live.changed(table)
    await h.settle(0)
    assert len(token.edits) == 1 and "Your hand" in token.edits[0]
    # Her decision changes (she passes, straight through the runtime: a click would make the click's
    # own token the live one) twice within the second: one more edit, after the second.
    hand = table.state.view(0)["hand"]
    await h.runtime.act(table.id, h.alice.id, "pass " + " ".join(hand[:3]))
    live.changed(table)
    await h.settle(0.5)
    live.changed(table)
    assert len(token.edits) == 1
    await h.settle(0.6)
    assert len(token.edits) == 2 and "You pass" in token.edits[1]
    # Nothing she sees changed: no edit.
    live.changed(table)
    await h.settle(0.1)
    assert len(token.edits) == 2


async def test_a_view_whose_message_is_gone_or_token_ran_out_is_dropped(h: Harness) -> None:
    table, _ = await h.running_table()
    live = live_of(h)
    live.opened(Token(fail=404), table.id, h.alice.id, None)
    live.opened(Token(fail=401), table.id, h.bob.id, None)
    assert live.alive(table.id, h.alice.id) and live.alive(table.id, h.bob.id)
    assert not await live.push(table, h.alice.id)
    assert not await live.push(table, h.bob.id)
    assert not live.alive(table.id, h.alice.id) and not live.alive(table.id, h.bob.id)


async def test_a_token_is_not_used_past_its_lifetime(h: Harness) -> None:
    table, _ = await h.running_table()
    live = live_of(h)
    token = Token()
    live.opened(token, table.id, h.alice.id, None)
    await h.settle(LIFETIME - MARGIN + 1)  # (the game goes on meanwhile, the clock moving for her)
    assert not live.alive(table.id, h.alice.id)
    made = len(token.edits)
    for _ in range(30):
        live.changed(table)
        await h.settle(1)
    assert len(token.edits) == made


async def test_no_ping_while_the_view_is_live_else_a_ping_with_my_hand(h: Harness) -> None:
    table, _ = await h.running_table()
    await pass_all(h, table)
    player, _ = await human_on_turn(h, table)
    seat = table.seat_of(player.id)
    live = live_of(h)
    sv = h.runtime.seat_view(table.id, player.id)
    token = Token()
    live.opened(token, table.id, player.id, sv)
    assert live_key(sv) == live_key(h.runtime.seat_view(table.id, player.id))
    thread = h.where(table)
    before = len(thread.sent)
    await h.listener.turn(table, (seat,))
    assert thread.sent[before:] == []  # the live view shows the turn: a ping would cost a REST call
    live.drop(table.id, player.id)
    await h.listener.turn(table, (seat,))
    ping = thread.sent[-1]
    assert len(thread.sent) == before + 1 and f"<@{player.id}>" in ping.text
    assert "My hand" in ping.text and [i.custom_id for i in ping.view.children] == [f"dh:t:hand:{table.id}"]
