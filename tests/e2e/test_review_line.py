"""Reviews wait in line through the real bot (issue 29 item 11): two people who played at one table
ask for their reviews one after the other; the first is reviewed at once, the second is told it is
next in line and when it should be ready, and the answers come in the order they were asked for,
each replacing its waiting line.  (The line's other rules, at the cog with a driven clock:
tests/tables/test_review_queue.py.)"""

from __future__ import annotations

import asyncio
import random

from tests.e2e.conftest import make_world
from tests.fakediscord.play import is_over, open_table, play_seat, table_id_of


def reviewed_at(message) -> float | None:
    """When the message first showed a review (its summary embed), by the fake Discord's clock."""
    return next((v.at for v in message.versions if any("review of your play" in e.get("title", "") for e in v.embeds)),
                None)


async def test_two_reviews_are_served_in_the_order_they_were_asked_for() -> None:
    # One review worker, whatever this machine's cores: the second review waits for the first.
    async with make_world(config={"review_workers": 1}) as w:
        # A small review (the line is what is tested here, not the search's depth).
        w.runtime.reviews.budget, w.runtime.reviews.playouts = 2.0, 8
        views: dict[int, object] = {}
        table_message = await open_table(w.ali, [w.bob], options="target=1", views=views)
        tid = table_id_of(table_message)
        await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(i), timeout=60, view=views.get(p.id),
                                         over=lambda: is_over(w.fd, table_message))
                               for i, p in enumerate((w.ali, w.bob))))
        assert w.bot.ai_pool is not None and w.bot.ai_pool.background_workers == 1

        ali = await w.ali.slash("game review", id=tid)
        bob = await w.bob.slash("game review", id=tid)
        assert ali.ephemeral and ali.text.startswith("⏳ Reviewing your play now; it should be ready in "), ali.text
        assert bob.ephemeral and bob.text.startswith("⏳ Your review is next in line; it should be ready in "), bob.text
        assert f"ask again with `/game review id:{tid}` and it shows at once" in bob.text

        await w.until(lambda: reviewed_at(ali.message) and reviewed_at(bob.message), 240, "both reviews")
        assert reviewed_at(ali.message) <= reviewed_at(bob.message)
        for reply in (ali, bob):
            assert not reply.message.content and f"table {tid}" in reply.message.embeds[0]["title"]
        # Bob's line moved up before his review came: it said his was running.
        assert any(v.content and v.content.startswith("⏳ Reviewing your play now") for v in bob.message.versions)
        # Asked again: at once, from the storage.
        again = await w.bob.slash("game review", id=tid)
        assert again.message.embeds and again.message.embeds[0]["description"] == bob.message.embeds[0]["description"]
