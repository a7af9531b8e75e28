"""Each game Deckhand can open a table for, played whole through the real bot: two people (one
with the hand view's controls, one typing ``/play`` from the suggestions) and AIs, the game's
shortest options, and someone without a seat watching.  The world's closing checks (privacy,
answers within 3 s, no 429, no errors, edit pacing) run after each."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from cogs.table.arguments import playable
from tests import wargame
from tests.e2e.conftest import make_world
from tests.fakediscord.play import open_table, play_seat

GAMES = wargame.every_game(playable())  # and War (games/war/), registered around its run
# King of the Hill deals its 100 cards live, half a second each at its shortest: the table's own
# timers run 40 times faster here (people's clocks do not), so a deal takes about a second.
TABLE_PACE = 0.025


@pytest.mark.parametrize("game", GAMES)
async def test_a_whole_game(game: str) -> None:
    with wargame.offered():
        async with make_world(runtime_options={"table_pace": TABLE_PACE}) as w:
            await _play_whole(w, game)


async def _play_whole(w: Any, game: str) -> None:
    entry = playable()[game]
    short = dict(entry.game.short_options[0])
    options = " ".join(f"{k}={v}" for k, v in short.items()) or None
    table_message = await open_table(w.ali, [w.bob], game=game, options=options, ai=False, speed="blitz")
    table = w.table(table_message)
    assert len(table.seats) >= entry.game.min_players and table.seats[0].user_id == w.ali.id
    # Someone without a seat watches the whole game: the closing privacy check reads every version
    # of their view as the public's.
    watching = await w.stranger.click(table_message, "Watch")
    assert "You are watching" in watching.text, watching.text
    logs = await asyncio.gather(
        play_seat(w.ali, table_message, rng=random.Random(11), open_with="mix", timeout=45),
        play_seat(w.bob, table_message, rng=random.Random(12), use="play", timeout=45),
    )
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    assert table.state.is_over and f"Replay: `/game replay id:{table.id}`" in table_message.text
    assert all(log.moves > 0 for log in logs), [log.moves for log in logs]
    await w.until(lambda: "is over" in watching.message.text, 10.0, "the end in the watcher's view")
    assert len([v for v in watching.message.versions if v.source == "edit"]) >= 2
