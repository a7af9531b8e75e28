"""Watching a table (issue 24, item 3): **Watch** on a running table message gives anyone an
ephemeral view of the public table, kept current through the interaction's token, with the
summaries of finished hands as the table posts them — never a hidden card.

All through the real bot and the fake Discord; the world's closing checks (privacy for every
message anyone saw, the watcher's included; answers in 3 s; no 429; edit pacing; no error) run
after each test.
"""

from __future__ import annotations

import asyncio
import random

from tests.e2e.conftest import World, make_world
from tests.fakediscord import payloads as P
from tests.fakediscord.play import open_table, play_seat
from tests.fakediscord.privacy import Timeline, cards_in
from tests.fakediscord.server import Message


def watch_button(message: Message) -> dict | None:
    return next((b for b in message.buttons() if b.get("label") == "Watch"), None)


async def test_a_stranger_watches_a_hearts_hand_to_its_end(w: World) -> None:
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    table = w.table(table_message)
    assert watch_button(table_message) is not None, table_message.buttons()
    assert watch_button(table_message)["custom_id"] == f"dh:t:watch:{table.id}"
    # Someone playing at the table is pointed at their hand, in plain words; nothing is registered.
    mine = await w.ali.click(table_message, "Watch")
    assert mine.ephemeral and "You play at table" in mine.text and "My hand" in mine.text
    assert w.bot.runtime.listener.watchers.count(table.id) == 0

    watching = await w.stranger.click(table_message, "Watch")
    assert watching.ephemeral and not watching.failed
    view = watching.message
    assert view.ephemeral_to == w.stranger.id
    assert f"You are watching table `{table.id}`" in watching.text and "Players" in watching.text
    started_at = view.versions[0].at

    logs = await asyncio.gather(
        play_seat(w.ali, table_message, rng=random.Random(5)),
        play_seat(w.bob, table_message, rng=random.Random(6)),
    )
    assert table.state.is_over and all(log.moves == 14 for log in logs)
    # The watcher followed the hand without pressing anything again: the bot edited the view.
    await w.until(lambda: "is over" in view.text and "End of hand" in view.text, 10.0,
                  "the watcher's view showing the end")
    assert [i for i in w.fd.interactions.values() if i.user_id == w.stranger.id and i.label == "click Watch"] \
        == [watching.interaction]
    edits = [v for v in view.versions if v.source == "edit"]
    assert len(edits) >= 10, len(edits)
    # Never more often than a hand view: at most once a second (as the bot sent them).
    times = [v.sent for v in edits]
    assert all(b - a >= 0.95 for a, b in zip(times, times[1:], strict=False)), times
    # Cards played showed up in the view as the hand went on (the public table's recent plays).
    shown = set().union(*(cards_in(v.text) for v in view.versions))
    assert len(shown) >= 8, shown
    # Every version the watcher got names only cards the public could see then (the closing check
    # does this for everyone; here it is spelled out for the watcher, with no grace window).
    timeline = Timeline(table)
    for v in view.versions:
        hidden = timeline.hidden_throughout(None, v.at - 0.5, v.at)
        assert not cards_in(v.text) & hidden, (v.text, sorted(cards_in(v.text) & hidden))
        for c in P.walk_components(v.components):
            assert not cards_in(str(c.get("custom_id") or "").replace(":", " ")), c
    # The table message said how many were watching, folded into an edit it made anyway.
    assert any("👀 1 watching" in v.text for v in table_message.versions if v.at >= started_at)
    # Once over, the view has no Watch button (nothing more to follow) and no more edits come.
    assert watch_button(view) is None
    await asyncio.sleep(1.5)
    assert view.versions[-1].source == "edit" and len([v for v in view.versions if v.source == "edit"]) == len(edits)


async def test_watch_is_refused_in_plain_words_when_the_table_is_full() -> None:
    async with make_world() as w:
        watchers = w.bot.runtime.listener.watchers
        watchers.most = 1
        table_message = await open_table(w.ali, [w.bob], options="target=1")
        carol = w.fd.add_member("Carol")
        first = await w.stranger.click(table_message, "Watch")
        assert "You are watching" in first.text
        full = await carol.click(table_message, "Watch")
        assert full.ephemeral and "already has" in full.text and "people watching" in full.text
        assert w.bot.runtime.listener.watchers.count(w.table(table_message).id) == 1
        # Pressing Watch on one's own view again follows on there (a fresh token), still one watcher.
        again = await w.stranger.click(first.message, "Watch")
        assert again.message is first.message and "You are watching" in again.text
        assert w.bot.runtime.listener.watchers.count(w.table(table_message).id) == 1
        tid = w.table(table_message).id
        playing = asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(1)),
                                 play_seat(w.bob, table_message, rng=random.Random(2)))
        # The watcher dismisses the view: the bot finds it gone at its next edit, and the seat in the
        # audience is free again.
        w.stranger.dismiss(first.message)
        await w.until(lambda: watchers.count(tid) == 0, 15.0, "the dismissed view dropped")
        later = await carol.click(table_message, "Watch")
        assert "You are watching" in later.text, later.text
        await playing
        await w.until(lambda: "is over" in later.message.text, 10.0, "the end in the watcher's view")
        assert "is over" not in first.message.text  # (nothing was sent to the dismissed one's token)
