"""A finished game through the real bot with a database: once its end is shown (the table message,
the summary, the hand views) the table leaves the bot's memory (tables/finished.py), and whatever
people still do with it gets a clear answer — the buttons of its old messages, ``/hand``, ``/game
join`` by id — while ``/game replay`` reads it from the database."""

from __future__ import annotations

import asyncio
import random

from cogs.watch import view as watch
from tests.e2e.conftest import make_world
from tests.fakediscord.play import is_over, open_table, play_seat, table_id_of


async def test_a_finished_table_leaves_memory_and_what_people_do_with_it_still_answers() -> None:
    async with make_world(config={"database_url": "sqlite:///:memory:"}) as w:
        fd = w.fd
        views: dict[int, object] = {}
        table_message = await open_table(w.ali, [w.bob], options="target=1", views=views)
        tid = table_id_of(table_message)
        await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(i), timeout=60, view=views.get(p.id),
                                         over=lambda: is_over(fd, table_message))
                               for i, p in enumerate((w.ali, w.bob))))
        await w.until(lambda: tid not in w.runtime.tables, 10, "the finished table leaving memory")
        # Everything of the end was shown before it went.
        assert "— finished" in table_message.text
        assert any("Game over" in m.text for m in fd.public())
        for view in views.values():  # the hand views kept current show the end too
            assert "over" in view.message.text.lower(), view.message.text
        over = f"The game at table `{tid}` is over"

        thread = w.thread_of(table_message)
        notice = next(m for m in fd.public(thread.id) if m.buttons())
        hand = await w.ali.click(notice, "My hand")
        assert hand.ephemeral and over in hand.text, hand.text
        back = await w.bob.click(notice, "I'm back")
        assert back.ephemeral and over in back.text, back.text
        typed = await w.bob.slash("hand", where=thread)
        assert typed.ephemeral and over in typed.text, typed.text
        joined = await w.stranger.slash("game join", id=tid)
        assert joined.ephemeral and over in joined.text, joined.text
        ended = await w.ali.slash("game end", id=tid)
        assert ended.ephemeral and over in ended.text, ended.text
        replay = await w.bob.slash("game replay", id=tid)
        assert replay.ephemeral and replay.message.embeds, replay.text
        assert f"table {tid} — replay" in replay.message.embeds[0]["title"]
        assert "Final standings" in replay.message.embeds[0]["description"]
        # /game watch answers as it does while the table is in memory (tests/e2e/test_watch_command.py):
        # nothing to watch, the Replay viewer and /game replay are where to look.
        watched = await w.stranger.slash("game watch", table=tid)
        assert watched.ephemeral and watched.text == watch.over_line(w.runtime.finished.get(tid)), watched.text
        assert "nothing to watch" in watched.text and "**Replay**" in watched.text, watched.text
        assert f"/game replay id:{tid}" in watched.text, watched.text
