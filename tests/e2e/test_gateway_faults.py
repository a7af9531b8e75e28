"""The gateway misbehaves mid-game as Discord's does — opcode 9 with and without resume, a zombie
connection whose heartbeats are never acknowledged, close 4009 and a session that expired while
the bot was away — and the game goes on: every action counted once, every answer sent once, the
table and its thread never posted twice, and the bot's invalid requests far from Cloudflare's ban.

What discord.py does (gateway.py, client.py): opcode 9 ``d: true`` → close and RESUME; ``d: false``
→ forget the session and IDENTIFY; no message for ``heartbeat_timeout`` → close 4000 and RESUME;
close 4009 → RESUME, refused with opcode 9 ``d: false`` → IDENTIFY.  An event Discord sent into a
session that is then over is lost, as on Discord: an interaction in it fails for its user, who
looks again (play_seat's ``tolerate``)."""

from __future__ import annotations

import asyncio
import random

import pytest

from tests.e2e.conftest import World, make_world
from tests.fakediscord.play import open_table, play_seat
from tests.fakediscord.server import Message
from tests.fakediscord.users import Reply

INVALID_FAR_FROM_BAN = 50  # Cloudflare warns at 1,000 and bans at 10,000 in 10 minutes


def never_delivered(reply: Reply) -> bool:
    """Discord put it into a session that ended before it reached the bot: the user saw "This
    interaction failed" (nothing happened), and tries again."""
    return reply.interaction.sent_at is None


async def play(w: World, table_message: Message, *, seed: int = 5) -> asyncio.Future[object]:
    return asyncio.gather(
        play_seat(w.ali, table_message, rng=random.Random(seed), tolerate=never_delivered, timeout=90),
        play_seat(w.bob, table_message, rng=random.Random(seed + 1), tolerate=never_delivered, timeout=90))


async def finish(w: World, table_message: Message, players: asyncio.Future[object]) -> None:
    await players
    await w.until(lambda: "— finished" in table_message.text, 10.0, what="the finished table")
    table = w.table(table_message)
    assert table.state.is_over
    # Nothing lost or doubled: every action once, in order; one table, one thread.
    assert [e.seq for e in table.log] == list(range(table.log[0].seq, table.log[0].seq + len(table.log)))
    assert len(w.fd.threads()) == 1
    tables = [m for m in w.fd.public(w.fd.channel.id) if table.id in m.text and m.buttons()]
    assert [m.id for m in tables] == [table_message.id]
    failed = [i for i in w.fd.interactions.values() if i.failed is not None]
    assert all(i.sent_at is None for i in failed), [i.label for i in failed]  # only the undelivered
    if failed:
        w.allow("not answered within")
    assert w.fd.invalid_requests() < INVALID_FAR_FROM_BAN


async def test_opcode_9_resumable_mid_game(w: World) -> None:
    fd = w.fd
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    table = w.table(table_message)
    players = await play(w, table_message)
    await w.until(lambda: table.version >= 8, what="a few moves")
    fd.invalidate_session(resumable=True)
    # Someone acts before the bot is back: Discord keeps it for the RESUME.
    listed = await w.stranger.slash("game list")
    assert not listed.failed and table.id in listed.text
    await finish(w, table_message, players)
    assert fd.invalidations == [True]
    assert fd.identifies == 1 and fd.resumes == 1 and fd.connections == 2
    assert "INTERACTION_CREATE" in fd.replayed


async def test_opcode_9_not_resumable_mid_game(w: World) -> None:
    fd = w.fd
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    table = w.table(table_message)
    players = await play(w, table_message)
    await w.until(lambda: table.version >= 8, what="a few moves")
    fd.invalidate_session(resumable=False)
    # discord.py waits 5 s before identifying again (Client.before_identify_hook); interactions sent
    # meanwhile went into the dead session and failed for their users.
    await w.until(lambda: fd.identifies == 2 and fd.session is not None and fd.session.conn is not None,
                  10.0, what="a new session")
    # The new session carries everything from now on.
    listed = await w.stranger.slash("game list")
    assert not listed.failed and table.id in listed.text
    await finish(w, table_message, players)
    assert fd.invalidations == [False] and fd.resumes == 0 and fd.connections == 2


async def test_heartbeat_acks_lost_the_bot_reconnects_from_a_zombie_connection() -> None:
    # Heartbeats every 0.25 s; the bot gives a silent connection up after 1 s (discord.py's
    # heartbeat_timeout, 60 s by default).
    async with make_world(heartbeat_interval=0.25, client={"heartbeat_timeout": 1.0}) as w:
        fd = w.fd
        table_message = await open_table(w.ali, [w.bob], options="target=1")
        table = w.table(table_message)
        players = await play(w, table_message)
        await w.until(lambda: table.version >= 8, what="a few moves")
        fd.zombie()
        listed = await w.stranger.slash("game list")  # waits in Discord's buffer for the RESUME
        assert not listed.failed and table.id in listed.text
        await finish(w, table_message, players)
        assert fd.unacked >= 1  # the bot did beat into the void before it gave up
        assert fd.identifies == 1 and fd.resumes == 1 and fd.connections == 2
        assert "INTERACTION_CREATE" in fd.replayed


@pytest.mark.parametrize("code", [4009, 4000], ids=["close 4009 session timed out", "session expired while away"])
async def test_a_session_that_timed_out_is_identified_again(w: World, code: int) -> None:
    fd = w.fd
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    table = w.table(table_message)
    players = await play(w, table_message)
    await w.until(lambda: table.version >= 8, what="a few moves")
    await fd.session_timeout(code=code)
    # discord.py waits 5 s before identifying again (Client.before_identify_hook); interactions sent
    # meanwhile went into the dead session and failed for their users.
    await w.until(lambda: fd.identifies == 2 and fd.session is not None and fd.session.conn is not None,
                  10.0, what="a new session")
    listed = await w.stranger.slash("game list")
    assert not listed.failed and table.id in listed.text
    await finish(w, table_message, players)
    # discord.py tried to RESUME first; Discord refused (opcode 9, d: false); it identified.
    assert fd.refused_resumes == 1 and fd.resumes == 0 and fd.connections == 3
