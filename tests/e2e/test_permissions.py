"""Issue 24 item 7 through the real bot and the fake Discord: a server that refuses the bot one of
its optional permissions — Attach Files, Create Public Threads — still gets a playable table (the
chart as text, the game in the channel), and the host is told once, in plain words, what is missing
and what it costs.  Use External Emojis is not one of them (issue 29 item 4): the card faces are the
application's own emojis, which Discord shows without it, so a channel that denies it keeps the card
pictures and nobody is told anything.  The fake Discord sends each interaction the bot's real
permissions in its channel, refuses uploads and threads without them (403 50013) and shows an
emoji the bot may not use (another server's) as ":name:" text."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from tests.e2e.conftest import World
from tests.fakediscord.payloads import walk_components
from tests.fakediscord.play import open_table, play_seat
from tests.fakediscord.server import Message
from tests.fakediscord.users import Reply

NOTICES = {"can_attach": "I can't attach files here, so the final chart will be text",
           "threads_allowed": "I can't create threads here, so the game is played in this channel"}


def notices(w: World) -> list[tuple[int | None, str]]:
    return [(m.ephemeral_to, m.current.content) for m in w.fd.messages.values()
            if any(text in m.current.content for text in NOTICES.values())]


async def play_in(w: World, refused: str) -> tuple[Any, Message, Message, int]:
    """A whole game in a new channel that refuses the bot ``refused``: its channel, table message,
    game-over summary, and where in the fake's requests it began."""
    assert await asyncio.wait_for(w.bot.emoji_task, 20) == "ready"  # card pictures exist: they could be used
    room = w.fd.add_channel("room")
    setattr(room, refused, False)
    for p in (w.ali, w.bob):
        p.where = room
    mark = len(w.fd.requests)
    views: dict[int, Reply] = {}
    table_message = await open_table(w.ali, [w.bob], options="target=1", views=views)
    bob = asyncio.create_task(play_seat(w.bob, table_message, rng=random.Random(2), view=views[w.bob.id]))
    try:
        await play_seat(w.ali, table_message, rng=random.Random(1), view=views[w.ali.id])
    finally:
        await bob
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    summary = await w.until(lambda: [m for m in w.fd.messages.values() if not m.ephemeral and m.embeds
                                     and m.id != table_message.id and "Final standings" in m.text],
                            10.0, "the game-over summary")
    return room, table_message, summary[0], mark


@pytest.mark.parametrize("refused", list(NOTICES))
async def test_each_missing_permission_leaves_a_playable_table_and_one_notice(w: World, refused: str) -> None:
    room, table_message, summary, mark = await play_in(w, refused)
    # One notice, to the host alone, saying exactly what is missing.
    told = notices(w)
    assert told == [(w.ali.id, told[0][1])], told
    assert NOTICES[refused] in told[0][1] and all(NOTICES[k] not in told[0][1] for k in NOTICES if k != refused)
    # Nothing was refused: the bot did without what it may not do.
    assert not [r.route for r in w.fd.requests[mark:] if r.status == 403]
    if refused == "can_attach":
        # The chart is a text table in the summary (one edit), no file anywhere.
        await w.until(lambda: any("```" in f.get("value", "") for e in summary.embeds
                                  for f in e.get("fields") or []), 10.0, "the chart as text")
        assert not w.fd.files
    else:
        await w.until(lambda: summary.id in w.fd.files, 10.0, "the chart picture")
    # Where the bot may use them, its card pictures were used.
    assert any("<:dk_" in v.text for m in w.fd.messages.values() for v in m.versions)
    if refused == "threads_allowed":
        assert table_message.thread_id is None
        assert not [r for r in w.fd.requests if r.route.endswith("/threads")]
    else:
        assert table_message.thread_id is not None


async def test_a_channel_denying_external_emojis_keeps_the_card_pictures_and_tells_nobody(w: World) -> None:
    # "The USE_EXTERNAL_EMOJIS permission is not required to use app emojis" (Discord's emoji resource).
    room, table_message, summary, mark = await play_in(w, "external_emojis")
    await w.until(lambda: summary.id in w.fd.files, 10.0, "the chart picture")
    assert notices(w) == [] and not [m for m in w.fd.messages.values()
                                     if "External Emojis" in m.current.content or "card pictures" in m.current.content]
    assert not [r.route for r in w.fd.requests[mark:] if r.status == 403]
    # The card pictures, in the table's messages and on the hand views' buttons, shown as pictures.
    here = (room.id, table_message.thread_id)
    seen = "\n".join(v.text for m in w.fd.messages.values() if m.channel_id in here for v in m.versions)
    assert "<:dk_" in seen
    assert any((c.get("emoji") or {}).get("id") for m in w.fd.messages.values() if m.channel_id in here
               for v in m.versions for c in walk_components(v.components))
    assert not w.fd.emoji_as_text, w.fd.emoji_as_text[:5]
