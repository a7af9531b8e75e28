"""The replay viewer through the real bot: after a whole game of each kind, someone who was not at
the table opens it from the finished table message's **Replay**, steps from the first move to the
last and back, and every picture is the one drawn from the engine's state at that step (the
record's log replayed here); the last step's scores are the final standings.  A game still running
is refused with one sentence that says nothing of it.  ``/game replay`` keeps its text export and
adds the viewer."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from cogs.replay.picture import Meta, draw_step
from cogs.replay.view import steps_in_worker, still_running
from cogs.table.arguments import playable
from tests.e2e.conftest import make_world
from tests.fakediscord.play import open_table, play_seat, table_id_of
from tests.fakediscord.server import Message

GAMES = sorted(playable())
TABLE_PACE = 0.025  # King of the Hill's live deal, 40 times faster (as tests/e2e/test_every_game.py)


def picture(w: Any, message: Message) -> bytes:
    files = w.fd.files.get(message.id) or []
    pngs = [data for name, data in files if name.endswith(".png")]
    assert len(pngs) == 1, f"the viewer carries {len(pngs)} pictures: {[name for name, _ in files]}"
    return pngs[0]


def step_of(message: Message) -> int:
    """The step the viewer shows, from its buttons' ids (dh:r:{table}:{step}:{op})."""
    ids = {b["custom_id"].split(":")[3] for b in message.buttons() if b.get("custom_id", "").startswith("dh:r:")}
    assert len(ids) == 1, ids
    return int(ids.pop())


def disabled(message: Message, label: str) -> bool:
    return bool(next(b for b in message.buttons() if b.get("label") == label).get("disabled"))


@pytest.mark.parametrize("game", GAMES)
async def test_a_stranger_steps_through_a_finished_game_and_every_picture_is_that_step(game: str) -> None:
    async with make_world(runtime_options={"table_pace": TABLE_PACE}) as w:
        entry = playable()[game]
        short = dict(entry.game.short_options[0])
        options = " ".join(f"{k}={v}" for k, v in short.items()) or None
        table_message = await open_table(w.ali, [w.bob], game=game, options=options, speed="blitz")
        tid = table_id_of(table_message)

        # While it runs: refused, in one sentence that says nothing of the game; no Replay button.
        running = await w.stranger.slash("game replay", id=tid)
        assert running.ephemeral and running.text == still_running(tid), running.text
        assert not [b for b in table_message.buttons() if b.get("label") == "Replay"]

        await asyncio.gather(
            play_seat(w.ali, table_message, rng=random.Random(11), open_with="mix", timeout=60),
            play_seat(w.bob, table_message, rng=random.Random(12), use="play", timeout=60),
        )
        await w.until(lambda: "— finished" in table_message.text, 20, "the finished table")
        await w.until(lambda: any(b.get("label") == "Replay" for b in table_message.buttons()), 10,
                      "the Replay button on the finished table")

        # What every step must look like: the record's log replayed here, drawn here.
        record = await w.runtime.history(tid)
        state, _ = record.replay()
        outcome = state.outcome()
        assert outcome is not None
        steps, meta_json = steps_in_worker(record.to_json(None))
        meta = Meta.from_json(meta_json)
        assert len(steps) == len(record.log) + 1
        assert steps[-1]["scores"] == list(outcome.scores)  # the last step is the final standings
        expected: dict[int, bytes] = {}

        def want(i: int) -> bytes:
            if i not in expected:
                expected[i] = draw_step(steps[i], meta)
            return expected[i]

        # The hidden piles (King of the Hill's dead hand and buried cards, The Great Dalmuti's taxes)
        # are in the pictures: a step's picture without them is another picture.
        labels = {p["label"] for st in steps for p in st["piles"]}
        if game == "koth":
            assert {"dead hand", "took the dead hand", "buried"} <= labels, labels
        if game == "dalmuti":
            assert all(st["piles"] for st in steps if st["phase"] == "tax")
        piled = [i for i, st in enumerate(steps) if st["piles"]]
        if game not in ("koth", "dalmuti"):
            assert not piled, f"{game} has no hidden pile"
        for i in piled[:: max(1, len(piled) // 6)]:
            assert want(i) != draw_step({**steps[i], "piles": []}, meta), f"step {i}'s piles are not drawn"

        # Bob's neighbour, who never sat at the table, opens it from the table message.
        opened = await w.stranger.click(table_message, "Replay")
        viewer = opened.message
        assert viewer is not None and viewer.ephemeral and viewer.ephemeral_to == w.stranger.id
        assert step_of(viewer) == 0 and disabled(viewer, "Back") and not disabled(viewer, "Next")
        assert picture(w, viewer) == want(0)
        assert viewer.embeds[0]["image"]["url"].startswith("attachment://")

        # Forward to the last step, one at a time, each picture that step's.
        seen = [0]
        while not disabled(viewer, "Next"):
            moved = await w.stranger.click(viewer, "Next")
            assert not moved.failed and moved.message.id == viewer.id
            i = step_of(viewer)
            assert i == seen[-1] + 1
            assert picture(w, viewer) == want(i), f"step {i} of {game} is not the logged state's picture"
            seen.append(i)
        assert seen[-1] == len(steps) - 1
        assert "Final" in viewer.embeds[0]["description"]
        # And back to the first.
        while not disabled(viewer, "Back"):
            await w.stranger.click(viewer, "Back")
            i = step_of(viewer)
            assert i == seen[-1] - 1 and picture(w, viewer) == want(i)
            seen.append(i)
        assert step_of(viewer) == 0

        # The menu jumps (to the end, then to its first place), the ends' buttons too.
        menu = viewer.selects()[0]
        values = [o["value"] for o in menu["options"]]
        assert 2 <= len(values) <= 25 and values[-1] == str(len(steps) - 1)
        await w.stranger.choose(viewer, [values[-1]])
        assert step_of(viewer) == len(steps) - 1 and picture(w, viewer) == want(len(steps) - 1)
        await w.stranger.click(viewer, "First")
        assert step_of(viewer) == 0 and picture(w, viewer) == want(0)
        await w.stranger.click(viewer, "Last")
        assert step_of(viewer) == len(steps) - 1

        # /game replay: the recap and its export as before, then a viewer of one's own.
        typed = await w.bob.slash("game replay", id=tid)
        assert typed.ephemeral and f"table {tid} — replay" in typed.message.embeds[0]["title"]
        assert any(name.endswith(".json") for name, _ in w.fd.files.get(typed.message.id, []))
        await w.until(lambda: len(typed.messages) >= 2, 20, "the viewer after the recap")
        second = typed.messages[-1]
        assert second.ephemeral_to == w.bob.id and step_of(second) == 0 and picture(w, second) == want(0)


async def test_the_replay_recap_says_the_pass_of_the_first_hand_as_the_table_did() -> None:
    """Issue 29: the recap read hand 1 as "(no pass)" — its deal is told when the game is created,
    not by a logged move — while the table said "passed left"."""
    async with make_world() as w:
        table_message = await open_table(w.ali, [w.bob], game="hearts", options="rules=classic target=1",
                                         speed="blitz")
        tid = table_id_of(table_message)
        await asyncio.gather(
            play_seat(w.ali, table_message, rng=random.Random(11), open_with="mix", timeout=60),
            play_seat(w.bob, table_message, rng=random.Random(12), use="play", timeout=60),
        )
        await w.until(lambda: "— finished" in table_message.text, 20, "the finished table")
        typed = await w.bob.slash("game replay", id=tid)
        text = typed.message.embeds[0]["description"]
        assert "Hand 1 (passed left): " in text, text
        assert "no pass" not in text, text
