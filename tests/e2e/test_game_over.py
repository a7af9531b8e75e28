"""The end of a game through the real bot: the game-over summary carries one PNG of the running
scores (named in its embed) and everyone's rating change, the text standings staying; /stats and
/leaderboard show the ratings, the AI never listed."""

from __future__ import annotations

import asyncio
import io
import random

from PIL import Image

from tests.e2e.conftest import make_world
from tests.fakediscord.play import is_over, open_table, play_seat


async def test_game_over_summary_has_a_chart_and_rating_changes() -> None:
    async with make_world(config={"database_url": "sqlite:///:memory:"}) as w:
        fd = w.fd
        table_message = await open_table(w.ali, [w.bob], options="target=1")
        await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(i), timeout=60,
                                         over=lambda: is_over(fd, table_message))
                               for i, p in enumerate((w.ali, w.bob))))
        await fd.wait_for(lambda: any("Game over" in m.text for m in fd.public()), 10, "the game-over summary")
        await fd.wait_for(lambda: fd.files, 10, "the chart upload")
        summaries = [m for m in fd.public() if "Game over" in m.text]
        assert len(summaries) == 1
        summary = summaries[0]
        # One picture, once, on the summary; the text standings still there.
        assert list(fd.files) == [summary.id]
        [(name, png)] = fd.files[summary.id]
        assert name == "scores.png" and summary.embeds[0]["image"]["url"] == "attachment://scores.png"
        img = Image.open(io.BytesIO(png))
        assert img.format == "PNG" and img.size == (800, 420)
        assert "Final standings" in summary.text and "Seed" in summary.text
        # Rating changes: both people, from the 25.0 start.
        assert "Ali 25.0 → " in summary.text and "Bob 25.0 → " in summary.text
        assert "AI 1 25.0" not in summary.text

        stats = await w.ali.slash("stats")
        assert "rating" in stats.text.lower() and "1** game" in stats.text
        board = await w.ali.slash("leaderboard", game="hearts")
        assert "μ − 3σ" in board.text
        assert f"<@{w.ali.id}>" in board.text and f"<@{w.bob.id}>" in board.text
        assert "AI" not in board.text.replace("AI is rated", "")
