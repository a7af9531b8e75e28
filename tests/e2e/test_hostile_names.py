"""Issue 29 item 9 through the real bot and the fake Discord: people whose display names broke the
pictures — a paragraph separator and a carriage return (Pillow's layout raised), a name in a script
no font has (drawn blank) — finish a game: the end chart is posted on the summary, and the replay
viewer answers every step with a picture, never "something went wrong"."""

from __future__ import annotations

import asyncio
import io
import random

from PIL import Image

from tests.e2e.conftest import make_world
from tests.fakediscord.play import is_over, open_table, play_seat, table_id_of

SEPARATED = "Ann\u2029Lee\r"  # a paragraph separator and a carriage return
UNDRAWN = "𒀀𒀁𒀂"  # Cuneiform: no font of the pictures has it


async def test_players_with_names_that_broke_pictures_get_their_chart_and_replay() -> None:
    async with make_world(config={"database_url": "sqlite:///:memory:"}) as w:
        fd = w.fd
        ann, cun = fd.add_member(SEPARATED), fd.add_member(UNDRAWN)
        table_message = await open_table(ann, [cun], options="target=1")
        await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(i), timeout=60,
                                         over=lambda: is_over(fd, table_message))
                               for i, p in enumerate((ann, cun))))
        summary = await w.until(lambda: [m for m in fd.public() if "Game over" in m.text], 10,
                                "the game-over summary")
        # The chart, posted on the summary.
        await w.until(lambda: summary[0].id in fd.files, 10, "the chart upload")
        [(name, png)] = fd.files[summary[0].id]
        assert name == "scores.png" and Image.open(io.BytesIO(png)).size == (800, 420)

        # The replay viewer answers, from the first step to the last, each with its picture.
        await w.until(lambda: any(b.get("label") == "Replay" for b in table_message.buttons()), 10,
                      "the Replay button on the finished table")
        opened = await w.stranger.click(table_message, "Replay")
        viewer = opened.message
        assert not opened.failed and viewer is not None and viewer.embeds, opened.text
        assert "went wrong" not in opened.text
        for op in ("Next", "Next", "Last", "Back", "Last"):
            moved = await w.stranger.click(viewer, op)
            assert not moved.failed and "went wrong" not in moved.text, moved.text
        assert "Final" in viewer.embeds[0]["description"]
        pictures = [data for _, data in fd.files.get(viewer.id) or [] if data.startswith(b"\x89PNG")]
        assert pictures, "the viewer carries no picture"
        # /game replay too: its recap, then a viewer.
        typed = await cun.slash("game replay", id=table_id_of(table_message))
        assert not typed.failed and "went wrong" not in typed.text
        await w.until(lambda: len(typed.messages) >= 2, 20, "the viewer after the recap")
        assert "went wrong" not in typed.messages[-1].text and typed.messages[-1].embeds
