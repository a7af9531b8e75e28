"""Issue 29 item 9: names that broke the pictures.  A display name with a paragraph separator or a
carriage return made Pillow's layout raise (no end chart, "something went wrong" on every step of
the replay); names no font covers drew blank, two such players alike; a zalgo name of hundreds of
marks smeared over the title and the others' names.  Every picture of every registered game is
drawn here with such names: it is drawn, each player's name is visible and unlike every other, and
a name stays in its own place."""

from __future__ import annotations

import dataclasses
import io
import itertools
from typing import Any

import pytest
from PIL import Image, ImageChops

import engine
from cogs.pictures import chart, fonts
from cogs.replay import picture as replay_picture
from cogs.replay.picture import Meta, draw_step
from cogs.replay.view import steps_in_worker
from tables.history.replay import GameRecord
from tests.cogs.chartgames import finished_record

# 500 combining marks: above the first letter, below the second, through and below the third.
ZALGO = "Z" + "\u030d\u030e\u0304\u0305" * 60 + "e" + "\u0316\u0317\u0318\u0319" * 50 + "d" + "\u0337\u0354" * 30
SEPARATORS = ["Ann\u2029Lee", "Cy\rDee", "Bo\u2028b\n\t", "Eve\x00\x1b[31m", "\u202eevil\u202c"]
UNDRAWABLE = [
    "𒀀𒀁𒀂",  # Cuneiform: no font of the chain has it
    "ꦲꦤꦕꦫꦏ",  # Javanese
    "\u200d\u200d\u200d",  # only zero-width joiners
    "\ufeff\ufeff",  # only byte-order marks
    "\U000e0041\U000e0042\U000e0043",  # only tag characters
    "ㅤ",  # the Hangul filler: mapped by a font, to an empty glyph
]
LOOK_ALIKES = ["Ann", "Ann\u200b", "\u0410nn", "Ann\ufeff"]  # the last three look like the first
HOSTILE = [SEPARATORS, UNDRAWABLE, [ZALGO, *UNDRAWABLE[:2], *LOOK_ALIKES[:2]], LOOK_ALIKES]
GAMES = sorted(engine.games())
SCALE = 2  # chart.draw_large draws at twice the chart's size


def record_with(game: str, names: list[str]) -> GameRecord:
    record = finished_record(game)
    n = len(record.names)
    return dataclasses.replace(record, names=list(itertools.islice(itertools.cycle(names), n)),
                               ai=[False] * n)


def text_mask(img: Image.Image) -> Image.Image:
    """The light text on the pictures' dark panels, as a mask (the card faces and swatches aside:
    only what is cropped is looked at)."""
    return img.convert("L").point(lambda v: 255 if v >= 150 else 0)


# ---- the end-of-game chart ---------------------------------------------------------------------
def legend_names(img: Image.Image, n: int) -> list[Image.Image]:
    """Each legend entry's name, as drawn (in legend order), cropped to its place."""
    lx, ly = chart.WIDTH * SCALE - 210 * SCALE - 20 * SCALE + 30 * SCALE, 56 * SCALE
    return [text_mask(img.crop((lx + 30 * SCALE, ly + k * 44 * SCALE, chart.WIDTH * SCALE,
                                ly + k * 44 * SCALE + 19 * SCALE))) for k in range(n)]


def distinct_and_visible(masks: list[Image.Image]) -> None:
    assert all(m.getbbox() is not None for m in masks), "a name is drawn blank"
    for a, b in itertools.combinations(range(len(masks)), 2):
        assert ImageChops.difference(masks[a], masks[b]).getbbox() is not None, f"names {a} and {b} look the same"


@pytest.mark.parametrize("names", range(len(HOSTILE)))
@pytest.mark.parametrize("game", GAMES)
def test_the_end_chart_of_every_game_draws_hostile_names_visible_and_apart(game: str, names: int) -> None:
    record = record_with(game, HOSTILE[names])
    png = chart.score_chart(record)
    assert png is not None and png.startswith(b"\x89PNG")
    series = chart.score_series(record)
    assert series is not None
    distinct_and_visible(legend_names(chart.draw_large(series), len(record.names)))


@pytest.mark.parametrize("game", GAMES)
def test_a_zalgo_name_stays_in_its_own_legend_entry(game: str) -> None:
    plain = finished_record(game)
    series = chart.score_series(plain)
    assert series is not None
    # The zalgo player is the first in the legend, so that everything below it is another's.
    final = series.points[-1]
    first = min(range(len(final)), key=lambda seat: (seat not in series.winners,
                                                     final[seat] if series.lower_is_better else -final[seat], seat))
    names = list(plain.names)
    names[first] = ZALGO
    zalgo = chart.score_series(dataclasses.replace(plain, names=names))
    assert zalgo is not None
    a, b = chart.draw_large(series), chart.draw_large(zalgo)
    changed = ImageChops.difference(a, b).getbbox()
    assert changed is not None
    lx, ly = chart.WIDTH * SCALE - 210 * SCALE - 20 * SCALE + 30 * SCALE, 56 * SCALE
    # Nothing changed above the first entry (the title) or below it (the others' names), nor left
    # of the legend's names (the plot).
    assert changed[0] >= lx + 30 * SCALE - 2 and changed[1] >= ly - 4 * SCALE, changed
    assert changed[3] <= ly + 44 * SCALE - 4 * SCALE, changed


# ---- the replay's pictures ---------------------------------------------------------------------
def replay(record: GameRecord) -> tuple[list[dict[str, Any]], Meta]:
    steps, meta = steps_in_worker(record.to_json(None))
    return steps, Meta.from_json(meta)


def sampled(steps: list[dict[str, Any]]) -> list[int]:
    return sorted({0, len(steps) - 1, *range(0, len(steps), max(1, len(steps) // 8))})


def row_names(png: bytes, n: int) -> list[Image.Image]:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    top = replay_picture.HEADER
    return [text_mask(img.crop((22, top + s * replay_picture.ROW + 6, replay_picture.LEFT - 12,
                                top + s * replay_picture.ROW + 36))) for s in range(n)]


@pytest.mark.parametrize("names", range(len(HOSTILE)))
@pytest.mark.parametrize("game", GAMES)
def test_every_replay_picture_of_every_game_draws_hostile_names_visible_and_apart(game: str, names: int) -> None:
    record = record_with(game, HOSTILE[names])
    steps, meta = replay(record)
    for i in sampled(steps):
        png = draw_step(steps[i], meta)
        assert png.startswith(b"\x89PNG")
        distinct_and_visible(row_names(png, len(record.names)))


@pytest.mark.parametrize("game", GAMES)
def test_a_zalgo_name_stays_in_its_own_row_of_the_replay(game: str) -> None:
    plain = finished_record(game)
    names = list(plain.names)
    names[1] = ZALGO
    (steps, meta), (_, zmeta) = replay(plain), replay(dataclasses.replace(plain, names=names))
    for i in sampled(steps)[:3]:
        # The same step, its words without the name (they may name the player).
        step = {**steps[i], "words": ""}
        a = Image.open(io.BytesIO(draw_step(step, meta)))
        b = Image.open(io.BytesIO(draw_step(step, zmeta)))
        diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
        row = replay_picture.HEADER + replay_picture.ROW
        # Only the second row's name column changed: not the title, not the other rows.
        assert diff.getbbox() is not None
        assert diff.crop((0, 0, replay_picture.WIDTH, row)).getbbox() is None, i
        assert diff.crop((0, row + replay_picture.ROW, replay_picture.WIDTH, b.height)).getbbox() is None, i
        assert diff.crop((replay_picture.LEFT - 10, 0, replay_picture.WIDTH, b.height)).getbbox() is None, i


def test_the_replays_words_name_the_players_as_its_picture_does() -> None:
    # A name no font has is not a blank in "… played 2♣" under the title: the words say who.
    record = record_with("hearts", UNDRAWABLE)
    steps, meta = replay(record)
    said = " ".join(step["words"] for step in steps)
    assert all(f"Player {seat + 1} played" in said for seat in range(len(record.names))), said[:300]
    assert not any(step["words"].startswith(" ") for step in steps)


# ---- the one place ------------------------------------------------------------------------------
def test_names_are_made_drawable_in_one_place() -> None:
    shown = fonts.picture_names(["Ann\u2029Lee", "𒀀𒀁", "\u200d", "Ann", "Ann\u200b", "Z" + "\u0301" * 400],
                                17, 200.0)
    assert shown[:5] == ["Ann Lee", "Player 2", "Player 3", "Ann", "Ann (2)"]
    assert shown[5].startswith("Ź") and len(shown[5]) <= 1 + fonts.MAX_MARKS
    # Whatever a string holds, the fonts lay it out on one line (never Raqm's failure).
    assert fonts.one_line("a\u2029b\rc\u2028d\x85e\tf") == "a b c d e f"
    for text in ("\u2029", "\r", "A\u2029", "\r\n", "\x00"):
        fonts.text_length(text, 17)
        fonts.ink(text, 17)
