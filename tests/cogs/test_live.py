"""The live hand views (cogs/live/hand.py) on the real runtime and a fake clock: one edit per view per
second however many changes come, edits only when the person's decision, cards or trick change,
a view whose message is gone or whose token ran out is dropped (so the next ping brings a button),
and a token is not used past its lifetime.  The edits go through discord.py's webhook adapter to
the fake's token endpoints (tests/cogs/fakes.py), which enforce the token's lifetime."""

from __future__ import annotations

import logging
from typing import Any

import aiohttp

from cogs.live.hand import BURST, BURST_WINDOW, LIFETIME, MARGIN, LiveViews, live_key
from tests.cogs.conftest import Harness
from tests.cogs.fakes import FakeInteraction, FakeUser
from tests.cogs.test_refusals import human_on_turn, pass_all


class Token:
    """A person's interaction answered with an ephemeral message (their hand view), whose
    @original the live views edit: ``edits`` is what each edit made it say.  ``fail``: 404, the
    person dismissed the message; 401, the token had run out before the view was registered."""

    def __init__(self, h: Harness, user: FakeUser, fail: int | None = None) -> None:
        self.h = h
        self.interaction = h.inter(user)
        self.fail = fail

    async def answer(self) -> FakeInteraction:
        await self.interaction.response.send_message("Your hand will show up here.", ephemeral=True)
        msg = self.interaction.original
        assert msg is not None
        if self.fail == 404:
            msg.deleted = True
        elif self.fail == 401:
            self.interaction.born -= self.h.world.token_lifetime + 1
        return self.interaction

    @property
    def edits(self) -> list[str | None]:
        msg = self.interaction.original
        return [] if msg is None else msg.history


async def token_of(h: Harness, user: FakeUser, fail: int | None = None) -> tuple[Token, FakeInteraction]:
    t = Token(h, user, fail)
    return t, await t.answer()


def live_of(h: Harness) -> LiveViews:
    live = h.listener.live
    assert live.runtime is h.runtime, "the cog hands the runtime to the listener's live views"
    return live


async def test_changes_are_coalesced_to_one_edit_per_second(h: Harness) -> None:
    table, _ = await h.running_table()
    await h.settle(1.1)  # the start's own signals and redraws are through
    live = live_of(h)
    token, answered = await token_of(h, h.alice)
    alice = table.seat_of(h.alice.id)
    live.opened(answered, table.id, h.alice.id, None)  # shows nothing known yet: the next change edits
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
    (mine, to_alice), (theirs, to_bob) = await token_of(h, h.alice), await token_of(h, h.bob)
    alice, bob = table.seat_of(h.alice.id), table.seat_of(h.bob.id)
    live.opened(to_alice, table.id, h.alice.id, h.runtime.seat_view(table.id, h.alice.id))
    live.opened(to_bob, table.id, h.bob.id, None)  # would be edited by any signal that reached it
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
    tokens = {u.id: await token_of(h, u) for u in (h.alice, h.bob)}
    for uid, (_, answered) in tokens.items():
        live.opened(answered, table.id, uid, None)
    tokens = {uid: t for uid, (t, _) in tokens.items()}
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
    (_, gone), (_, dead) = await token_of(h, h.alice, fail=404), await token_of(h, h.bob, fail=401)
    live.opened(gone, table.id, h.alice.id, None)
    live.opened(dead, table.id, h.bob.id, None)
    assert live.alive(table.id, h.alice.id) and live.alive(table.id, h.bob.id)
    assert not await live.push(table, h.alice.id)
    assert h.world.dead_tokens == []  # (her message was gone: Discord said so, her token was fine)
    assert not await live.push(table, h.bob.id)
    assert h.world.dead_tokens == [dead.token]  # Discord's 401 for his token
    assert not live.alive(table.id, h.alice.id) and not live.alive(table.id, h.bob.id)


async def test_an_edit_cut_off_by_the_network_is_made_again_without_an_error(h: Harness, caplog) -> None:
    table, _ = await h.running_table()
    await h.settle(1.1)
    live = live_of(h)
    token, answered = await token_of(h, h.alice)
    # Its first edit meets a connection the server had just closed.
    h.world.webhooks.faults.append(aiohttp.ServerDisconnectedError())
    alice = table.seat_of(h.alice.id)
    live.opened(answered, table.id, h.alice.id, None)
    with caplog.at_level(logging.INFO, logger="cogs.live.hand"):
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
    token, answered = await token_of(h, h.alice)
    live.opened(answered, table.id, h.alice.id, None)
    await h.settle(LIFETIME - MARGIN + 1)  # (the game goes on meanwhile, the clock moving for her)
    assert not live.alive(table.id, h.alice.id)
    made = len(token.edits)
    for _ in range(30):
        live.changed(table)
        await h.settle(1)
    assert len(token.edits) == made
    assert h.world.dead_tokens == []


async def play_one(h: Harness, table: Any) -> bool:
    """The person on turn (if one is) makes their first legal move; whether one did."""
    for user in (h.alice, h.bob):
        d = table.state.decision(table.seat_of(user.id))
        if d is not None:
            move = d.actions[0].code if d.actions else f"{d.kind} " + " ".join(c.code for c in d.cards[:d.pick])
            await h.runtime.act(table.id, user.id, move)
            return True
    return False


async def test_a_long_game_keeps_views_current_until_the_margin_and_never_uses_a_dead_token(h: Harness) -> None:
    """Tokens live 40 s here, told to both the bot and the fake Discord, with a 5 s margin: a game
    that runs on past that keeps Alice's view and the table message current through their tokens
    until 35 s, then no token is used (Discord answers none with a 401), her next turn pings her
    with My hand, the table message moves to the bot's REST edits, and My hand opens a live view."""
    live = live_of(h)
    live.lifetime, live.margin = 40.0, 5.0
    h.world.token_lifetime = 40.0
    start = h.clock.now()
    table, table_msg = await h.running_table()  # its /game new answer's token edits the table message
    token, answered = await token_of(h, h.alice)
    live.opened(answered, table.id, h.alice.id, None)
    rest_edits = 0
    while h.clock.now() - start < 70.0 and not table.state.is_over:
        before = len(table_msg.history), len([m for _, m in h.world.token_edits if m == table_msg.id])
        await play_one(h, table)
        await h.settle(1.0)
        after = len(table_msg.history), len([m for _, m in h.world.token_edits if m == table_msg.id])
        if h.clock.now() - start > 40.0 - 5.0:
            rest_edits += (after[0] - before[0]) - (after[1] - before[1])
    token_times = [t - start for t, m in h.world.token_edits if m == table_msg.id]
    hand_times = [t - start for t, m in h.world.token_edits if m == answered.original.id]
    assert token_times and hand_times, "the table message and Alice's view were edited through their tokens"
    # (each token is used only until 5 s before its end: the table's from /game new, hers from later)
    assert max(token_times) < 40.0 - 5.0, token_times
    assert max(hand_times) < answered.born - start + 40.0 - 5.0, (answered.born - start, hand_times)
    assert len(hand_times) >= 5, hand_times  # her view kept up with the game while its token lived
    assert rest_edits > 0, "after its token, the table message is edited by the bot's REST edits"
    assert h.world.dead_tokens == []  # no request with a dead token
    assert not live.alive(table.id, h.alice.id) and live.table_token(table.id) is None
    # Her turn now brings a ping with My hand, which opens a fresh, live view.
    if table.state.public_view()["phase"] == "pass":
        await pass_all(h, table)
    thread = h.where(table)
    for _ in range(100):
        if table.state.decision(table.seat_of(h.alice.id)) is not None:
            break
        await play_one(h, table)
        await h.settle(1.0)
    seat = table.seat_of(h.alice.id)
    before = len(thread.sent)
    await h.listener.turn(table, (seat,))
    ping = thread.sent[-1]
    assert len(thread.sent) == before + 1 and f"<@{h.alice.id}>" in ping.text and "My hand" in ping.text
    opened = await h.click(h.alice, ping, f"dh:t:hand:{table.id}")
    assert opened.last.ephemeral and "Your hand" in opened.last.text
    assert live.alive(table.id, h.alice.id)


async def test_no_ping_while_the_view_is_live_else_a_ping_with_my_hand(h: Harness) -> None:
    table, _ = await h.running_table()
    await pass_all(h, table)
    player, _ = await human_on_turn(h, table)
    seat = table.seat_of(player.id)
    live = live_of(h)
    sv = h.runtime.seat_view(table.id, player.id)
    _, answered = await token_of(h, player)
    live.opened(answered, table.id, player.id, sv)
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
    _, answered = await token_of(h, h.alice)
    alice = table.seat_of(h.alice.id)
    live.opened(answered, table.id, h.alice.id, None)
    view = live._views[(table.id, h.alice.id)]
    for _ in range(16):  # something new for her every second (shown=None: the next change edits)
        view.shown = None
        live.seat_changed(table, (alice,))
        await h.settle(1.0)
    await h.settle(BURST_WINDOW)
    sent = [t for t, m in h.world.token_edits if m == answered.original.id]
    assert len(sent) >= 2 * BURST, sent  # the view kept up, a burst at a time
    assert all(b - a >= 1.0 for a, b in zip(sent, sent[1:], strict=False)), sent
    assert all(sent[i + BURST] - sent[i] >= BURST_WINDOW for i in range(len(sent) - BURST)), sent


async def test_an_edit_held_up_on_the_way_is_not_followed_at_once_by_the_next_view(h: Harness) -> None:
    """A click answered with the hand makes a new view (a new token) of the same message while the
    old view's edit may still be on its way.  Discord counts both edits against the one message, when
    each lands: the new view's edit waits for the old one's answer and then its second, never two at
    once (the e2e world saw six edits in 5 s this way: tests/e2e/test_faults.py)."""
    import asyncio

    table, _ = await h.running_table()
    await h.settle(1.1)
    live = live_of(h)
    alice = table.seat_of(h.alice.id)
    _, first = await token_of(h, h.alice)
    live.opened(first, table.id, h.alice.id, None)
    live.seat_changed(table, (alice,))
    await h.settle(1.1)
    # Discord holds the next edit on the way; meanwhile she clicks (a new view) and more changes come.
    h.world.webhooks.hold_edits = held = asyncio.Event()
    live._views[(table.id, h.alice.id)].shown = None
    live.seat_changed(table, (alice,))
    await h.settle(0.1)
    _, second = await token_of(h, h.alice)
    live.opened(second, table.id, h.alice.id, None)
    for _ in range(3):
        live._views[(table.id, h.alice.id)].shown = None
        live.seat_changed(table, (alice,))
        await h.settle(1.0)
    held.set()  # the held edit lands now
    for _ in range(8):
        live._views[(table.id, h.alice.id)].shown = None
        live.seat_changed(table, (alice,))
        await h.settle(1.0)
    await h.settle(BURST_WINDOW)
    mine = {first.original.id, second.original.id}
    landed = [t for t, m in h.world.token_edits if m in mine]
    assert len(landed) >= BURST + 2, landed  # the views kept up after the hold
    assert all(b - a >= 1.0 for a, b in zip(landed, landed[1:], strict=False)), landed
    assert all(landed[i + BURST] - landed[i] >= BURST_WINDOW for i in range(len(landed) - BURST)), landed


async def test_a_live_view_keeps_the_token_not_the_interaction(h: Harness) -> None:
    """The interaction holds the message it came from (a hand view's buttons and emoji, some sixty
    objects) and a cycle with its response that only a garbage collection frees: for the token's
    fifteen minutes every full collection walked them (issue 35).  Only its token is kept."""
    import gc

    from cogs.live.hand import LiveView

    table, _ = await h.running_table()
    live = live_of(h)
    _, answered = await token_of(h, h.alice)
    live.opened(answered, table.id, h.alice.id, None)
    live.table_opened(answered, table.id)
    held = [r for r in gc.get_referrers(answered)
            if isinstance(r, LiveView) or any(r is t for t in live._table_tokens.values())]
    assert held == []
    live.seat_changed(table, (table.seat_of(h.alice.id),))  # still edited through that token
    await h.settle(1.1)
    assert any(m == answered.original.id for _, m in h.world.token_edits)
