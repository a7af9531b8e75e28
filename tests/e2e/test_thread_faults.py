"""A moderator archives, locks or deletes a game's thread mid-game.  Discord reopens an archived
thread when the bot posts in it; a locked one refuses the bot's posts (403 50083); a deleted one is
gone (10003 Unknown Channel).  In each case the game goes on to its end — or the host is told
plainly why the thread stays silent — every action counted once, and no error in the bot's log."""

from __future__ import annotations

import asyncio
import random

from tests.e2e.conftest import World
from tests.fakediscord.play import open_table, play_seat, table_controls
from tests.fakediscord.server import Message

POST = "POST /channels/{channel_id}/messages"


async def started(w: World) -> tuple[Message, object, asyncio.Future[object]]:
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    table = w.table(table_message)

    def my_hand_in_sight() -> bool:
        # As a person does: look for My hand (in the thread, or on the table message once the
        # thread is gone) and wait until it is there.
        try:
            controls = table_controls(w.fd, table_message)
        except AssertionError:
            return False
        return any(b.get("label") == "My hand" for b in controls.buttons())

    async def ready() -> None:
        await w.until(my_hand_in_sight, 10.0, what="a My hand button")

    players = asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(5), timeout=90, ready=ready),
                             play_seat(w.bob, table_message, rng=random.Random(6), timeout=90, ready=ready))
    await w.until(lambda: table.version >= 8, what="a few moves")
    return table_message, table, players


async def finished(w: World, table_message: Message, players: asyncio.Future[object]) -> None:
    await players
    await w.until(lambda: "— finished" in table_message.text, 10.0, what="the finished table")
    table = w.table(table_message)
    assert table.state.is_over
    assert [e.seq for e in table.log] == list(range(table.log[0].seq, table.log[0].seq + len(table.log)))
    assert w.fd.invalid_requests() < 50


async def test_an_archived_thread_reopens_when_the_bot_posts(w: World) -> None:
    table_message, table, players = await started(w)
    thread = w.thread_of(table_message)
    posts = len(thread.messages)
    w.fd.archive_thread(thread.id)
    await finished(w, table_message, players)
    # The end-of-hand summary reopened it, as Discord does.
    await w.until(lambda: not thread.archived, what="the thread reopened by a post")
    assert len(thread.messages) > posts


async def test_discord_reopens_an_archived_thread_on_a_post_and_refuses_a_locked_or_deleted_one(w: World) -> None:
    import aiohttp

    fd = w.fd
    # A thread of the test's own, which the bot never posts in: a game's thread could get a late
    # summary post from the bot, reopening it between the test's archive and its edit.
    base = f"{fd.api_base}/channels/{fd.channel.id}/messages"
    async with aiohttp.ClientSession(headers={"Authorization": f"Bot {fd.token}"}) as s:
        async with s.post(base, json={"content": "a thread of our own"}) as r:
            assert r.status == 200
            starter = (await r.json())["id"]
        async with s.post(f"{base}/{starter}/threads", json={"name": "faults"}) as r:
            assert r.status == 201
            thread = fd.channels[int((await r.json())["id"])]
        url = f"{fd.api_base}/channels/{thread.id}/messages"
        fd.archive_thread(thread.id)
        async with s.post(url, json={"content": "still here"}) as r:
            assert r.status == 200 and not thread.archived
            posted = (await r.json())["id"]
        fd.archive_thread(thread.id)
        async with s.patch(f"{url}/{posted}", json={"content": "edited"}) as r:
            assert r.status == 400 and (await r.json())["code"] == 50083 and thread.archived
        fd.lock_thread(thread.id)
        async with s.post(url, json={"content": "let me in"}) as r:
            assert r.status == 403 and (await r.json())["code"] == 50083 and thread.archived
        fd.delete_thread(thread.id)
        async with s.post(url, json={"content": "anyone?"}) as r:
            assert r.status == 404 and (await r.json())["code"] == 10003
    fd.invalid.clear()  # planted: the closing check counts the bot's own


async def test_a_locked_thread_the_game_goes_on_and_the_host_is_told(w: World) -> None:
    table_message, table, players = await started(w)
    thread = w.thread_of(table_message)
    w.fd.lock_thread(thread.id)
    await finished(w, table_message, players)
    # The end-of-hand summary was refused (the bot tried once: no retry loop).
    await w.until(lambda: [r for r in w.fd.requests if r.route == POST and r.status == 403], what="a refused post")
    # Ali, the host, hears why at her next interaction (a followup only she sees).
    told = await w.ali.slash("game list")
    assert not told.failed
    notices = await w.until(lambda: [m for m in w.ali.sees() if m.ephemeral and "locked" in m.text
                                     and table.id in m.text], what="the host told")
    assert "The game goes on" in notices[0].text and "unlock" in notices[0].text
    assert not [m for m in w.bob.sees() if "locked" in m.text]  # only the host is told


async def test_a_deleted_thread_the_game_goes_on_in_the_channel(w: World) -> None:
    table_message, table, players = await started(w)
    thread = w.thread_of(table_message)
    w.fd.delete_thread(thread.id)
    await finished(w, table_message, players)
    assert table.thread_id is None  # the bot plays on in the channel


async def test_a_thread_deleted_without_word_the_first_refused_post_moves_the_game_to_the_channel(w: World) -> None:
    # Discord's THREAD_DELETE comes late or never: the bot learns it from a post (404 10003 Unknown
    # Channel) and does what the event does, once, with no traceback in its log (the World checks).
    table_message, table, players = await started(w)
    thread = w.thread_of(table_message)
    before = set(w.fd.channel.messages)
    since = len(w.fd.requests)
    w.fd.delete_thread(thread.id, dispatch=False)
    await finished(w, table_message, players)
    await w.until(lambda: table.thread_id is None, what="the game out of its deleted thread")
    refused = [r for r in w.fd.requests[since:] if r.route == POST and r.status == 404]
    assert refused and all(f"/channels/{thread.id}/" in r.path for r in refused)
    # Once the thread was found gone no post went there again (no retry loop) ...
    last = max(i for i, r in enumerate(w.fd.requests) if r.route == POST and r.status == 404)
    assert not [r for r in w.fd.requests[last + 1:] if f"/channels/{thread.id}/" in r.path]
    # ... and the posts (the end of the game's summary at least) went to the channel instead.
    await w.until(lambda: [m for m in (w.fd.messages[i] for i in w.fd.channel.messages if i not in before)
                           if not m.ephemeral and "Final standings" in m.text], what="the summary in the channel")
