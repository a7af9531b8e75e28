"""Issue 5: the example Python client takes a seat at a Tricks table through the real bot and the
fake Discord — seated by the host with `/game ai program:`, playing the line protocol to the end."""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path

from tests.e2e.conftest import make_world
from tests.fakediscord.play import play_seat, table_id_of

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python_client.py"


async def test_the_python_client_plays_a_tricks_table_through_discord() -> None:
    config = {"programs": {"pybot": f"{sys.executable} {CLIENT}"}}
    async with make_world(config=config) as w:
        new = await w.ali.slash("game new", game="tricks", options="target=15", speed="blitz")
        table_message = new.message
        assert table_message is not None and not new.ephemeral
        tid = table_id_of(table_message)
        assert "You joined table" in (await w.bob.slash("game join", id=tid)).text
        r = await w.ali.slash("game ai", program="pybot")
        assert not r.failed and "pybot" in r.text, r.text
        refused = await w.bob.slash("game ai", program="pybot")  # only the host seats programs
        assert refused.ephemeral
        await w.ali.slash("game ai")
        r = await w.ali.slash("game start")
        assert "game is on" in r.text.lower(), r.text
        table = w.table(table_message)
        program_seats = [i for i, s in enumerate(table.seats) if getattr(s, "program", None) == "pybot"]
        assert len(program_seats) == 1
        await asyncio.gather(
            play_seat(w.ali, table_message, rng=random.Random(1), timeout=60),
            play_seat(w.bob, table_message, rng=random.Random(2), use="play", timeout=60),
        )
        await w.until(lambda: "— finished" in table_message.text, timeout=30, what="the finished table")
        seat = program_seats[0]
        # The program played its own cards: its moves are in the log and it was never replaced.
        assert any(e.seat == seat and e.code.startswith("play") for e in table.log)
        assert not any(e.seat == seat and e.code.startswith("bad") for e in table.log)
        assert "replaced" not in table_message.text
