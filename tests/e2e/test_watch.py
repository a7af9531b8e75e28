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


CALLBACK = "POST /interactions/{interaction_id}/{interaction_token}/callback"


async def test_people_pressing_watch_together_cannot_pass_the_limit(w: World) -> None:
    """Issue 29 item 12: the place among a table's watchers is taken before the answer is sent.
    Thirty people press **Watch** at once; every answer is held by Discord until all thirty are
    on their way, so no press can see another's registration: 25 follow the table, 5 are told it
    is full."""
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    tid = w.table(table_message).id
    watchers = w.runtime.listener.watchers
    crowd = [w.fd.add_member(f"Fan {n}") for n in range(30)]
    held = w.fd.hold(CALLBACK, times=len(crowd))
    presses = asyncio.gather(*(p.click(table_message, "Watch") for p in crowd))
    await w.until(lambda: held.hits == len(crowd), 5.0, "every answer on its way")
    held.held.set()
    replies = await presses
    following = [r for r in replies if "You are watching" in r.text]
    refused = [r for r in replies if "already has 25 people watching" in r.text]
    assert len(following) == 25 and len(refused) == 5, [r.text[:60] for r in replies]
    assert all(r.ephemeral and not r.failed for r in replies)
    assert watchers.count(tid) == 25 and not watchers._pending
    # The game goes on: 25 views follow it, the 5 refused answers are never edited, and the table
    # message says 25 are watching.
    await asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(5)),
                         play_seat(w.bob, table_message, rng=random.Random(6)))
    await w.until(lambda: all("is over" in r.message.text for r in following), 10.0, "the views at the end")
    assert all(len(r.message.versions) == 1 for r in refused)
    assert any("👀 25 watching" in v.text for v in table_message.versions)
    assert not any("👀 26 watching" in v.text or "👀 30 watching" in v.text for v in table_message.versions)


async def test_a_refused_answer_gives_its_place_back(w: World) -> None:
    """The place taken for an answer Discord refused is free again (nobody holds it for nothing)."""
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    tid = w.table(table_message).id
    watchers = w.runtime.listener.watchers
    watchers.most = 1
    w.fd.fail(CALLBACK, status=400, times=1)  # (discord.py does not retry a 400)
    w.allow_errors(r"Interaction failed", r"Could not reply")
    first = await w.stranger.click(table_message, "Watch")
    assert "You are watching" not in first.text and "went wrong" in first.text, first.text
    assert watchers.count(tid) == 0 and not watchers._pending
    carol = w.fd.add_member("Carol")
    later = await carol.click(table_message, "Watch")
    assert "You are watching" in later.text, later.text
    assert watchers.count(tid) == 1


async def test_one_person_follows_at_most_two_tables_at_once(w: World) -> None:
    """Issue 29 item 12: one person watching every table of a server at once.  Watching a third
    table ends their oldest view, which says so in its last edit; its **Watch** follows that table
    again (ending the next oldest)."""
    carol = w.fd.add_member("Carol")
    messages = []
    for n, host in enumerate((w.ali, w.bob, carol)):
        host.where = w.fd.add_channel(f"cards-{n}")  # (one table a channel: the privacy check reads them so)
        messages.append(await open_table(host, []))
    tids = [w.table(m).id for m in messages]
    watchers = w.runtime.listener.watchers
    views = []
    for m in messages:
        r = await w.stranger.click(m, "Watch")
        assert "You are watching" in r.text, r.text
        views.append(r.message)
    await w.until(lambda: "stopped following" in views[0].text, 5.0, "the oldest view's last edit")
    assert f"you started watching table `{tids[2]}`" in views[0].text
    assert "one person can follow 2 tables at once" in views[0].text
    assert [watchers.count(t) for t in tids] == [0, 1, 1]
    assert all("stopped following" not in v.text for v in views[1:])
    again = await w.stranger.click(views[0], "Watch")
    assert again.message is views[0] and "You are watching" in again.text
    await w.until(lambda: "stopped following" in views[1].text, 5.0, "the next oldest view's last edit")
    assert [watchers.count(t) for t in tids] == [1, 0, 1]
    await w.until(lambda: not any(watchers.editing(t) for t in tids), 5.0)
    last = len(views[0].versions), len(views[1].versions)
    assert "stopped following" in views[1].text and len(views[1].versions) == last[1]
