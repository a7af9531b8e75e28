"""The live hand views (cogs/live.py) on the real runtime and a fake clock: one edit per view per
second however many changes come, edits only when the person's decision, cards or trick change,
a view whose message is gone or whose token ran out is dropped (so the next ping brings a button),
and a token is not used past its lifetime."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord

from cogs.live import BURST, BURST_WINDOW, LIFETIME, MARGIN, LiveViews, live_key
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
    await h.settle(1.1)  # the start's own signals and redraws are through
    live = live_of(h)
    token = Token()
    alice = table.seat_of(h.alice.id)
    live.opened(token, table.id, h.alice.id, None)  # shows nothing known yet: the next change edits
    live.seat_changed(table, (alice,))
    live.seat_changed(table, (alice,))
    await h.settle(0)
    assert len(token.edits) == 1 and "Your hand" in token.edits[0]
    # She passes: the answer to her own action shows it, so the runtime does not signal her seat.
    hand = table.state.view(alice)["hand"]
    await h.runtime.act(table.id, h.alice.id, "pass " + " ".join(hand[:3]))
    await h.settle(0.5)
    assert len(token.edits) == 1
    # The AIs pass a second later: the cards she receives are signalled, and her view is edited.
    await h.runtime.act(table.id, h.bob.id, "pass " + " ".join(table.state.view(table.seat_of(h.bob.id))["hand"][:3]))
    await h.settle(1.6)
    assert table.state.view(alice).get("received")
    assert len(token.edits) == 2 and "Your hand" in token.edits[1]
    # Nothing she sees changed: a redraw with the same public milestones, another seat's signal, or
    # her own signal again make no edit.
    others = tuple(s for s in range(len(table.seats)) if s != alice)
    live.changed(table)
    live.seat_changed(table, others)
    live.seat_changed(table, (alice,))
    await h.settle(1.1)
    assert len(token.edits) == 2


async def test_a_seats_signal_edits_only_its_own_view(h: Harness) -> None:
    """Hidden means hidden: the runtime signals a seat that had private news; only that person's
    view moves, the others' see nothing happen."""
    table, _ = await h.running_table()
    await h.settle(1.1)
    live = live_of(h)
    mine, theirs = Token(), Token()
    alice, bob = table.seat_of(h.alice.id), table.seat_of(h.bob.id)
    live.opened(mine, table.id, h.alice.id, h.runtime.seat_view(table.id, h.alice.id))
    live.opened(theirs, table.id, h.bob.id, None)  # would be edited by any signal that reached it
    live.seat_changed(table, (alice,))
    await h.settle(1.1)
    assert theirs.edits == []
    live.seat_changed(table, (bob,))
    await h.settle(0)
    assert len(theirs.edits) == 1 and mine.edits == []


async def test_a_public_milestone_edits_every_view(h: Harness) -> None:
    """A redraw after a trick ended (or a new hand, or the end) edits every live view of the table,
    without any seat's signal; a redraw with nothing public changed edits none."""
    table, _ = await h.running_table()
    await h.settle(1.1)
    live = live_of(h)
    tokens = {u.id: Token() for u in (h.alice, h.bob)}
    for uid, token in tokens.items():
        live.opened(token, table.id, uid, None)
    live.changed(table)  # (the views show nothing known yet, but nothing public changed)
    await h.settle(1.1)
    assert all(t.edits == [] for t in tokens.values())
    await h.runtime.end(table.id, h.alice.id)
    live.changed(table)
    await h.settle(0)
    assert all(len(t.edits) == 1 for t in tokens.values())
    assert all("over" in t.edits[0].lower() or "ended" in t.edits[0].lower() for t in tokens.values()), \
        [t.edits[0] for t in tokens.values()]


async def test_a_view_whose_message_is_gone_or_token_ran_out_is_dropped(h: Harness) -> None:
    table, _ = await h.running_table()
    live = live_of(h)
    live.opened(Token(fail=404), table.id, h.alice.id, None)
    live.opened(Token(fail=401), table.id, h.bob.id, None)
    assert live.alive(table.id, h.alice.id) and live.alive(table.id, h.bob.id)
    assert not await live.push(table, h.alice.id)
    assert not await live.push(table, h.bob.id)
    assert not live.alive(table.id, h.alice.id) and not live.alive(table.id, h.bob.id)


class Flaky(Token):
    """A token whose first edit meets a connection the server had just closed."""

    async def edit_original_response(self, **kwargs: Any) -> None:
        if not self.fail:
            self.fail = 1
            raise aiohttp.ServerDisconnectedError()
        self.fail = None
        await super().edit_original_response(**kwargs)


async def test_an_edit_cut_off_by_the_network_is_made_again_without_an_error(h: Harness, caplog) -> None:
    table, _ = await h.running_table()
    await h.settle(1.1)
    live = live_of(h)
    token = Flaky()
    alice = table.seat_of(h.alice.id)
    live.opened(token, table.id, h.alice.id, None)
    with caplog.at_level(logging.INFO, logger="cogs.live"):
        live.seat_changed(table, (alice,))
        await h.settle(0)
        assert token.edits == [] and live.alive(table.id, h.alice.id)
        await h.settle(1.1)  # the usual pause, then the same edit again
    assert len(token.edits) == 1 and "Your hand" in token.edits[0]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("trying again" in r.getMessage() for r in caplog.records)


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


async def test_a_busy_view_gets_no_sixth_edit_within_six_seconds(h: Harness) -> None:
    """Discord allows a message 5 edits in 5 s; edits a second apart would make six in exactly 5 s,
    and any delay on the way squeezes them closer: the sixth waits BURST_WINDOW after the first."""
    table, _ = await h.running_table()
    await h.settle(1.1)
    live = live_of(h)
    sent: list[float] = []

    class Timed(Token):
        async def edit_original_response(self, **kw: Any) -> None:
            sent.append(h.runtime.clock.now())
            await super().edit_original_response(**kw)

    alice = table.seat_of(h.alice.id)
    live.opened(Timed(), table.id, h.alice.id, None)
    view = live._views[(table.id, h.alice.id)]
    for _ in range(16):  # something new for her every second (shown=None: the next change edits)
        view.shown = None
        live.seat_changed(table, (alice,))
        await h.settle(1.0)
    await h.settle(BURST_WINDOW)
    assert len(sent) >= 2 * BURST, sent  # the view kept up, a burst at a time
    assert all(b - a >= 1.0 for a, b in zip(sent, sent[1:], strict=False)), sent
    assert all(sent[i + BURST] - sent[i] >= BURST_WINDOW for i in range(len(sent) - BURST)), sent
