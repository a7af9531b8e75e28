"""Whole Hearts games through the real bot, played the way people play: Ali opens a table, Bob
joins by its id, Ali adds two AIs and starts, and both play every turn from what their hand view
(or ``/play``'s suggestions) offers them until the final standings.  The world's closing checks
(privacy, answers within 3 s, no 429, no errors, edit pacing) run after each test."""

from __future__ import annotations

import asyncio
import random
import re
import time

from tests.e2e.conftest import World
from tests.fakediscord.play import open_table, play_seat, table_controls, table_id_of


async def test_whole_game_two_people_two_ais(w: World) -> None:
    ali, bob, fd = w.ali, w.bob, w.fd

    # Ali opens a table: one public message with the id, the rules line and the lobby buttons.
    choices = await ali.autocomplete("game new", "options", "tar", game="hearts")
    assert choices and all(c["value"].startswith("target=") for c in choices)
    new = await ali.slash("game new", game="hearts", options="target=30")
    table_message = new.message
    assert table_message is not None and not new.ephemeral
    tid = table_id_of(table_message)
    # What differs from the defaults in words, no option keys: /game rules says how to set them.
    assert "game to 30" in table_message.text and "target=" not in table_message.text
    assert "/game rules hearts" in table_message.text
    assert [b["label"] for b in table_message.buttons()] == ["Join", "Leave", "Add AI", "Start", "How to play"]

    # Bob finds it in /game list and joins by id; Ali fills the table with AIs and starts.
    listed = await bob.slash("game list")
    assert listed.ephemeral and tid in listed.text
    joined = await bob.slash("game join", id=tid.lower())
    assert joined.ephemeral and f"You joined table `{tid}`" in joined.text
    added = await ali.slash("game ai")
    assert added.ephemeral and "Added 2 AI players" in added.text
    await w.until(lambda: "AI 2" in table_message.text, what="the lobby redrawn with the AIs")
    started = await ali.slash("game start")
    assert started.ephemeral and "game is on" in started.text
    thread = w.thread_of(table_message)
    assert thread.is_thread and tid in thread.name and f"<#{thread.id}>" in started.text
    # The table message (in the channel, shown atop the thread) links to the thread: a button on it
    # would answer in the channel.
    await w.until(lambda: [b["label"] for b in table_message.buttons()]
                  == ["Play in the thread", "Watch", "How to play"],
                  what="the running table's link")
    assert table_message.buttons()[0]["url"].endswith(f"/{thread.id}")

    # The thread's first message is the start notice with My hand and I'm back.
    start = await w.until(lambda: next((m for m in fd.public(thread.id) if m.buttons()), None),
                          what="the thread's start notice")
    assert thread.messages[0] == start.id and "is on" in start.text
    assert [b["label"] for b in start.buttons()] == ["My hand", "I'm back"]
    # Both are told to pass in their hand views (Ali's start answer, Bob's join answer), which the
    # bot keeps current through their tokens: nobody is pinged for it.
    await w.until(lambda: "Your move" in started.message.text and "Your move" in joined.message.text,
                  what="both hand views asking for the pass")
    assert not ali.pings() and not bob.pings()

    # Both play until the end: Ali from her hand view, Bob by typing /play with the suggestions.
    logs = await asyncio.gather(
        play_seat(ali, table_message, rng=random.Random(1), open_with="mix"),
        play_seat(bob, table_message, rng=random.Random(2), use="play"),
    )
    table = w.table(tid)
    assert table.state.is_over and str(table.phase) == "finished"
    hands = table.state.public_view()["hand_no"] + 1
    plays_each = 13 * hands
    assert all(log.moves >= plays_each for log in logs), [log.moves for log in logs]
    assert not any(log.refusals for log in logs), [log.refusals for log in logs]

    # What everyone sees at the end: the final standings with the replay command, the table marked finished,
    # a summary per hand, and no turn notice left over.
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    assert [b["label"] for b in table_message.buttons()] == ["Play again", "Replay"]
    assert f"Replay: `/game replay id:{tid}`" in table_message.text
    # The summaries and the table message are two delivery streams: the last summary may land after
    # the table shows "finished".
    await w.until(lambda: len([m for m in fd.public(thread.id) if "End of hand" in m.text]) >= hands,
                  what="a summary per hand")
    summaries = [m for m in fd.public(thread.id) if "End of hand" in m.text]
    assert len(summaries) == hands
    assert "Game over" in summaries[-1].text
    # Their views showed every turn: no turn ping at all (each would be a REST call).
    assert not [m for m in fd.messages.values() if "your turn" in m.content]
    # Anything that pinged pinged exactly the people it named.
    # The start notice stays, with its buttons.
    assert not start.deleted and [b["label"] for b in start.buttons()] == ["My hand", "I'm back"]
    for m in fd.messages.values():
        first = m.versions[0].content
        assert m.pinged == {int(x) for x in re.findall(r"<@(\d+)>", first)} or not m.pinged
        if m.pinged:
            assert "your turn" in first

    # Hands were only ever shown to their owner.
    for log in logs:
        for reply in log.replies:
            for m in reply.messages:
                if "Your hand" in m.text:
                    assert m.ephemeral_to == log.person.id


async def test_plain_game_with_buttons_in_the_channel_without_threads(w: World) -> None:
    """Where the bot may not create threads, the game is played in the channel itself."""
    w.fd.channel.threads_allowed = False
    table_message = await open_table(w.ali, [w.bob], options="target=1", join_by="button")
    assert table_message.thread_id is None
    await asyncio.gather(
        play_seat(w.ali, table_message, rng=random.Random(3), open_with="button"),
        play_seat(w.bob, table_message, rng=random.Random(4), open_with="slash"),
    )
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    await w.until(lambda: any("Game over" in m.text for m in w.fd.public(w.fd.channel.id)),
                  what="the game-over summary in the channel")


async def test_results_reach_stats_and_a_game_with_ais_stays_off_the_leaderboard(tmp_path) -> None:
    """With a database, a finished game shows in /stats (DISCORD.md); with AI players seated it was
    casual, so the leaderboard (ranked games between people: tests/e2e/test_ranked.py) names nobody."""
    from tests.e2e.conftest import make_world

    async with make_world(config={"database_url": f"sqlite:///{tmp_path / 'deckhand.db'}"}) as w:
        table_message = await open_table(w.ali, [w.bob], options="target=1")
        await asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(7)),
                             play_seat(w.bob, table_message, rng=random.Random(8)))
        await w.until(lambda: "— finished" in table_message.text, what="the finished table")

        async def recorded() -> str:
            return (await w.stranger.slash("stats", user=w.bob)).text

        stats = await recorded()
        # Results are written as the game ends: wait for the writer (20 s: "at all", not how soon).
        end = time.perf_counter() + 20.0
        while not ("Bob" in stats and "1" in stats) and time.perf_counter() < end:
            await asyncio.sleep(0.1)
            stats = await recorded()
        assert "Bob" in stats, stats
        board = await w.stranger.slash("leaderboard", game="hearts")
        assert "Nobody has played a ranked game of Hearts" in board.text, board.text
        assert w.ali.mention not in board.text and w.bob.mention not in board.text


async def test_a_hand_shown_leaves_no_task_behind(w: World) -> None:
    """discord.py would keep each ephemeral view alive for 15 minutes in a timeout task; the bot
    lets its hand views go once sent (their buttons work from their ids alone)."""
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    for _ in range(3):
        await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
        await w.bob.slash("hand", where=w.thread_of(table_message))
    await asyncio.sleep(0)  # let the cancelled ones finish
    lingering = [t for t in asyncio.all_tasks()
                 if "timeout_task_impl" in repr(t.get_coro()) and not t.cancelling()]
    assert not lingering, f"{len(lingering)} view timeout tasks alive"
    # ... and the buttons of those views still work.
    hand = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
    menu = hand.message.selects()[0]
    passed = await w.ali.choose(hand.message, [o["value"] for o in menu["options"][:3]])
    assert passed.text.startswith("✅"), passed.text
