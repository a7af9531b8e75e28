"""The replay viewer's Discord side (cogs/replay/view.py, cogs/replay/picture.py): its jump menu, its
buttons and ids, its pictures from the worker, its words, and the refusal of a running game."""

from __future__ import annotations

import asyncio
import os
import re

import discord
import pytest

import engine
from cogs.replay.picture import Meta, draw_step
from cogs.replay.view import (
    PICTURE_WAIT,
    Replays,
    jump_options,
    picture_wait,
    steps_in_worker,
    still_running,
    target,
    viewer,
)
from cogs.table.custom_ids import JUMP_TEMPLATE, MAX_OPTIONS, REPLAY_TEMPLATE
from tables.ai.pool import AIPool
from tests.cogs.conftest import Harness
from tests.cogs.fakes import custom_ids
from tests.cogs.test_refusals import refused
from tests.tables.test_replay_steps import played

CARD_CODES = {r + s for r in "23456789TJQKA" for s in "CDHS"}


@pytest.mark.parametrize("game", sorted(engine.games()))
def test_the_jump_menu_offers_at_most_25_places_in_order_with_the_current_hand_and_the_end(game: str) -> None:
    record = played(game)
    steps, _ = steps_in_worker(record.to_json(None))
    for current in (0, len(steps) // 2, len(steps) - 1):
        options = jump_options(steps, current)
        at = [i for _, i in options]
        assert 2 <= len(options) <= MAX_OPTIONS
        assert at == sorted(set(at)) and at[-1] == len(steps) - 1
        here = steps[current]["hand"]
        first_of_hand = next(s["index"] for s in steps if s["hand"] == here)
        hands = {s["hand"] for s in steps}
        if len(hands) > 1:
            assert first_of_hand in at  # the hand one is looking at can always be started again
        for label, _ in options:
            assert label and not any(code in label.split() for code in CARD_CODES)


def test_a_long_game_is_thinned_to_25_places_keeping_the_current_hand() -> None:
    steps = [{"index": i, "hand": 1 + i // 10, "unit": "hand", "trick": 1 + (i % 10) // 2, "sub": "trick"}
             for i in range(600)]  # 60 hands of 5 tricks
    options = jump_options(steps, 437)
    at = [i for _, i in options]
    assert len(options) <= MAX_OPTIONS and 430 in at and at[-1] == 599
    assert [i for i in at if 430 <= i < 440] == [430, 432, 434, 436, 438]  # the current hand's tricks
    assert ("Hand 44 · trick 4", 436) in options


def test_the_buttons_move_one_step_and_stop_at_the_ends() -> None:
    assert [target(op, 5, 10, []) for op in ("first", "prev", "next", "last", "open")] == [0, 4, 6, 9, 0]
    assert target("prev", 0, 10, []) == 0 and target("next", 9, 10, []) == 9
    assert target("prev", 50, 10, []) == 8  # an id past the end (a shorter log?) stays inside
    assert target("jump", 0, 10, ["7"]) == 7
    assert [target("jump", 0, 10, v) for v in (["10"], ["-1"], ["x"], [], ["1", "2"])] == [None] * 5
    # Forged values: "²" and "１" pass str.isdigit and int() fails or reads them; 5,000 digits fail int().
    assert [target("jump", 0, 10, [v]) for v in ("²", "１", "9" * 5000, " 3", "3\n")] == [None] * 5


def test_the_viewer_message_names_its_picture_and_its_ids_carry_no_card() -> None:
    record = played("hearts")
    steps, meta = steps_in_worker(record.to_json(None))
    for index in (0, 1, len(steps) - 1):
        embed, file, view = viewer(record.id, steps, index, meta, b"png")
        assert embed.image.url == f"attachment://{file.filename}"
        assert steps[index]["words"] or index == 0
        ids = [c.custom_id for c in view.children]  # type: ignore[attr-defined]
        assert all(re.fullmatch(REPLAY_TEMPLATE, x) or re.fullmatch(JUMP_TEMPLATE, x) for x in ids), ids
        assert not any(part in CARD_CODES for x in ids for part in x.split(":"))
        buttons = {c.item.label: c.item.disabled for c in view.children if isinstance(c.item, discord.ui.Button)}
        assert buttons == {"First": index == 0, "Back": index == 0, "Next": index == len(steps) - 1,
                           "Last": index == len(steps) - 1, "Review my play": False}
    assert "Final" in (embed.description or "")  # the last step says the final scores
    final = steps[-1]["scores"]
    assert all(str(v) in embed.description for v in final)


def test_words_are_the_tables_own_sentences() -> None:
    record = played("tricks")
    steps, _ = steps_in_worker(record.to_json(None))
    first_card = record.log[0].code.split()[1]
    assert steps[1]["words"].startswith(f"{record.names[record.log[0].seat]} played")
    assert first_card not in steps[1]["words"]  # a label (Q♠), never a code


async def test_the_worker_draws_the_same_pictures_as_drawn_here_and_caches_them() -> None:
    replays = Replays()
    try:
        for game in ("dalmuti", "siege"):
            record = played(game)
            steps, meta = await replays.steps(record)
            here = steps_in_worker(record.to_json(None))[0]
            assert len(steps) == len(here) and [s["index"] for s in steps] == [s["index"] for s in here]
            for mine, theirs in zip(steps, here, strict=True):
                assert {k: v for k, v in mine.items() if mine[k] != theirs.get(k)} == {}
            for i in (0, len(steps) // 2, len(steps) - 1):
                png = await replays.picture(record.id, steps[i], meta)
                assert png == draw_step(steps[i], Meta.from_json(meta))
                assert await replays.picture(record.id, steps[i], meta) is png  # the cache
    finally:
        replays.close()


async def test_the_picture_worker_runs_below_the_tables_ai_workers() -> None:
    # Six people replaying a long game at once must not take the CPU a table's search needs: the
    # picture worker's OS priority is lower (a higher niceness) than every AI worker's.
    replays = Replays()
    pool = AIPool(workers=1, background_workers=0)
    try:
        await pool.start()
        await replays.warm()
        ai = [os.getpriority(os.PRIO_PROCESS, pid) for pid in pool._play.pool()._processes]
        assert replays._executor is not None
        pictures = [os.getpriority(os.PRIO_PROCESS, pid) for pid in replays._executor._processes]
        assert ai and pictures, (ai, pictures)
        assert min(pictures) > max(ai), f"picture workers at nice {pictures}, the AI's at {ai}"
    finally:
        replays.close()
        await pool.close()


async def test_a_click_on_a_replay_of_a_running_game_is_refused_without_a_word_of_it(h: Harness) -> None:
    table, _ = await h.running_table()
    for op in ("open", "next", "last"):
        i = h.inter(h.stranger)
        await h.cog.on_replay(i, table.id, 3, op, [])
        assert refused(i) == still_running(table.id)
    i = h.inter(h.alice)
    await h.cog.on_replay(i, table.id, 0, "jump", ["5"])
    assert refused(i) == still_running(table.id)


@pytest.mark.parametrize("game", ["koth", "dalmuti"])
def test_the_hidden_piles_are_drawn_in_their_players_row(game: str) -> None:
    import io

    from PIL import Image, ImageChops

    from cogs.replay.picture import HEADER, ROW

    steps, meta_json = steps_in_worker(played(game).to_json(None))
    meta = Meta.from_json(meta_json)
    n = len(meta.names)
    labels: set[str] = set()
    for step in (s for s in steps if s["piles"]):
        for pile in step["piles"]:
            if pile["label"] in labels:
                continue
            labels.add(pile["label"])
            alone = {**step, "table": [], "piles": [pile]}
            drawn = Image.open(io.BytesIO(draw_step(alone, meta))).convert("RGB")
            # The same pile with no cards: what differs is where its cards are drawn.
            bare = Image.open(io.BytesIO(draw_step({**alone, "piles": [{**pile, "cards": []}]}, meta))).convert("RGB")
            row = n if pile["seat"] is None else pile["seat"]  # the middle: a row after the players'
            box = ImageChops.difference(drawn, bare).getbbox()
            assert box is not None, f"{pile['label']} is not drawn"
            assert HEADER + row * ROW <= box[1] and box[3] <= HEADER + (row + 1) * ROW, (pile["label"], box)
    want = {"koth": {"dead hand", "took the dead hand", "buried"},
            "dalmuti": {"received in taxes", "gave back", "paid in taxes", "got back"}}[game]
    assert labels == want


def test_a_move_the_clock_made_is_marked_in_the_viewer() -> None:
    record = played("tricks")
    steps, meta = steps_in_worker(record.to_json(None))
    i = next(k for k, s in enumerate(steps) if s["seat"] is not None)
    timed = [*steps[:i], {**steps[i], "timeout": True}, *steps[i + 1:]]
    name = meta["names"][steps[i]["seat"]]
    said = viewer(record.id, timed, i, meta, b"")[0].description or ""
    assert f"⏰ {name}'s time ran out — the move was made for them." in said
    assert "time ran out" not in (viewer(record.id, steps, i, meta, b"")[0].description or "")


def test_a_click_waits_for_its_picture_until_a_second_after_it_was_made() -> None:
    assert picture_wait(0.0) == PICTURE_WAIT == 1.0
    assert picture_wait(0.25) == PICTURE_WAIT - 0.25
    # A click that reached the bot late (a busy machine, a slow history load) defers at once.
    assert picture_wait(PICTURE_WAIT) == picture_wait(PICTURE_WAIT + 0.5) == 0.0
    # A bot's clock behind Discord's (a negative age) never waits longer.
    assert picture_wait(-3.0) == PICTURE_WAIT


class HeldPictures(Replays):
    """Pictures drawn only once the click they answer has been answered: the cog must not wait."""

    def __init__(self, tokens: dict[str, object]) -> None:
        super().__init__()
        self.tokens = tokens

    async def picture(self, table_id: str, step: dict, meta: dict) -> bytes:
        clicked = list(self.tokens.values())[-1]
        for _ in range(1000):  # an event, polled: the deferral (a bound, not a measurement)
            if clicked.response.is_done():  # type: ignore[attr-defined]
                break
            await asyncio.sleep(0.01)
        return await super().picture(table_id, step, meta)


async def test_a_replay_whose_picture_is_late_says_thinking_then_shows_the_viewer(h: Harness) -> None:
    table, _ = await h.running_table()
    await h.cog.game_end.callback(h.cog, h.inter(h.alice), id=table.id)
    await h.settle(2)
    assert table.phase == "finished"
    held = h.cog.replays = HeldPictures(h.world.tokens)
    try:
        i = await h.click(h.stranger, h.table_message(table), f"dh:r:{table.id}:0:open", age=PICTURE_WAIT + 0.5)
    finally:
        held.close()
    assert i.response.deferred == {"ephemeral": True, "thinking": True} and not i.errors
    [shown] = i.replies
    assert shown.ephemeral and f"dh:r:{table.id}:0:next" in custom_ids(shown.view)
