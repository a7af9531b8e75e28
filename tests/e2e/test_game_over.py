"""The end of a game through the real bot: the game-over summary carries one PNG of the running
scores (named in its embed), the text standings staying; a game with AI players is casual: no
rating changes in it, in /stats or on /leaderboard (tests/e2e/test_ranked.py plays a ranked one)."""

from __future__ import annotations

import asyncio
import io
import random

from PIL import Image

from tests.e2e.conftest import make_world
from tests.fakediscord.play import is_over, open_table, play_seat


async def test_game_over_summary_has_a_chart_and_a_game_with_ais_changes_no_rating() -> None:
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
        assert "Final standings" in summary.text and "Replay: `/game replay id:" in summary.text
        # AI players were seated: a casual game, nobody's rating changes.
        assert " 25.0 → " not in summary.text and "Ratings" not in summary.text

        stats = await w.ali.slash("stats")
        assert "1** game" in stats.text and "rating **" not in stats.text and "ranked game" not in stats.text
        board = await w.ali.slash("leaderboard", game="hearts")
        assert "Nobody has played a ranked game of Hearts" in board.text
