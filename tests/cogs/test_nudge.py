"""The nudge before a deadline and the removal of standing pings (cogs/live/listener.py), on the real
runtime with a fake clock: exactly when the nudge comes, to whom, and that it goes once the person
moved.  Also the optional permissions' bookkeeping (cogs/ops/permissions.py) and the text chart."""

from __future__ import annotations

from types import SimpleNamespace

import discord

from cogs.live.listener import NUDGE_LEAD
from cogs.ops.permissions import ChannelPermissions
from cogs.pictures.chart import Series
from cogs.table.endgame import text_chart
from engine.core import Action
from tests.cogs.conftest import Harness
from tests.cogs.fakes import custom_ids


def nudges(h: Harness, table: object, user_id: int) -> list[object]:
    where = h.where(table)
    return [m for m in where.sent if "seconds left" in (m.content or "") and f"<@{user_id}>" in (m.content or "")]


async def test_everyone_due_is_nudged_once_ten_seconds_before_view_or_not_and_the_nudge_goes_once_they_move(
        h: Harness) -> None:
    """Issue 29 item 16: Discord tells the bot nothing when someone dismisses their hand view, so
    the nudge goes to whoever has not moved yet, whether the bot takes their view for open or not."""
    table, _ = await h.running_table()
    # Bob's hand view is closed (the bot can no longer edit it); Alice's seems open — she may have
    # dismissed it, and nothing would have told the bot.
    h.listener.live.drop(table.id, h.bob.id)
    assert h.listener.live.alive(table.id, h.alice.id)
    deadline = table.deadlines[1]
    assert table.deadlines[0] == deadline  # the pass: both choose at once
    await h.clock.advance(deadline - NUDGE_LEAD - h.clock.now() - 0.5)
    assert not nudges(h, table, h.bob.id) and not nudges(h, table, h.alice.id)
    await h.clock.advance(1.0)
    sent = nudges(h, table, h.bob.id)
    assert len(sent) == 1 and custom_ids(sent[0].view) == [f"dh:t:hand:{table.id}"]  # My hand
    hers = nudges(h, table, h.alice.id)
    assert len(hers) == 1 and custom_ids(hers[0].view) == [f"dh:t:hand:{table.id}"]
    # Alice passes: her nudge is deleted (at the next redraw), Bob's stands.
    d = h.runtime.seat_view(table.id, h.alice.id).decision
    await h.runtime.act(table.id, h.alice.id, Action(d.kind, tuple(d.cards[:d.pick])))
    await h.settle(1.0)
    assert hers[0].deleted and not sent[0].deleted
    # Time runs out: the clock passes for Bob, and his nudge is deleted; no second one.
    await h.clock.advance(NUDGE_LEAD + 1.0)
    assert table.seats[1].missed == 1 and table.seats[0].missed == 0
    assert sent[0].deleted
    assert len(nudges(h, table, h.bob.id)) == 1 and len(nudges(h, table, h.alice.id)) == 1


async def test_someone_who_missed_before_is_nudged_even_with_an_open_view(h: Harness) -> None:
    table, _ = await h.running_table()
    table.seats[0].missed = 1  # Alice let the clock run out before
    deadline = table.deadlines[0]
    await h.clock.advance(deadline - NUDGE_LEAD - h.clock.now() + 0.5)
    assert len(nudges(h, table, h.alice.id)) == 1


async def test_a_turn_ping_is_deleted_once_the_person_moved(h: Harness) -> None:
    table, _ = await h.running_table()
    h.listener.live.drop(table.id, h.bob.id)
    where = h.where(table)
    # Bob is told when his next turn comes; his earlier pings stand only while he is due.
    for _ in range(200):
        await h.settle(1.0)
        pings = [m for m in where.sent if f"<@{h.bob.id}>, your turn" in (m.content or "")]
        if len(pings) >= 2:
            break
    assert len(pings) >= 2, "Bob was never pinged twice: the test proves nothing"
    standing = [m for m in pings if not m.deleted]
    assert len(standing) <= 1
    assert all(m.deleted for m in pings[:-1])


def test_permissions_are_read_per_channel_and_told_once_per_table() -> None:
    perms = ChannelPermissions()
    interaction = SimpleNamespace(app_permissions=discord.Permissions(attach_files=False, use_external_emojis=True,
                                                                       create_public_threads=True),
                                  channel_id=5, guild_id=1, channel=None)
    perms.seen(interaction)
    table = SimpleNamespace(id="t1", channel_id=5, thread_id=None)
    assert perms.lacking(table) == {"attach_files"}
    first = perms.untold(table)
    assert first is not None and "Attach Files" in first and "emoji" not in first.lower()
    assert perms.untold(table) is None  # once
    dm = SimpleNamespace(app_permissions=discord.Permissions.none(), channel_id=5, guild_id=None, channel=None)
    perms.seen(dm)  # a DM says nothing about the server's channel
    assert perms.lacking(table) == {"attach_files"}


def test_the_text_chart_fits_and_keeps_the_latest_hands() -> None:
    points = [[0.0, 0.0, 0.0]] + [[float(i), float(2 * i), float(3 * i)] for i in range(1, 80)]
    s = Series("hearts", "t", "points", "hand", ["Ali", "Bob", "Cy"], points, (0,))
    text = text_chart(s, room=200)
    assert text is not None and len(text) <= 200 and text.startswith("```")
    assert "237" in text  # Cy's last score is kept; the first hands give way


async def test_a_table_let_go_with_its_shard_gets_no_nudge_or_edit_from_here(h: Harness) -> None:
    """Issue 29 item 10: a process that lost a shard's lease posted "about 10 seconds left" for a
    table another process ran by then.  Its nudges, pings and views go with the table."""
    table, _ = await h.running_table()
    h.listener.live.drop(table.id, h.bob.id)  # Bob's view is closed: he would be nudged
    deadline = table.deadlines[1]
    await h.clock.advance(deadline - NUDGE_LEAD - h.clock.now() - 2.0)
    armed = h.listener._nudges[table.id].task
    assert armed is not None and not armed.done(), "no nudge waiting: the test proves nothing"
    public, edits = len(h.world.public), len(h.world.token_edits)
    assert h.runtime.fence(0) == [table.id]
    await h.clock.advance(NUDGE_LEAD + 5.0)  # past the nudge and the deadline
    assert not nudges(h, table, h.bob.id)
    assert h.world.public[public:] == [] and h.world.token_edits[edits:] == []
    assert armed.done() and table.id not in h.listener._nudges
    assert h.listener.live.views_of(table.id) == []
    assert not any(s.missed for s in table.seats)  # nor did the deadline pass here
