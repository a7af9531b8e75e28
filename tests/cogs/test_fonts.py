"""Names in any script in the pictures: every name a Discord user can have is drawn, never as the
missing-glyph box (tofu).  Checked on the image: each name drawn alone, and the end-of-game chart,
are cut into glyph blobs that must each differ from the .notdef box every font of the chain (and
Pillow's built-in one) draws for a code point it lacks."""

from __future__ import annotations

import dataclasses
import unicodedata
from unittest import mock

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont

from cogs.pictures import chart, fonts
from tests.cogs.chartgames import finished_record

NAMES = ["Ёжик", "李雷", "محمد", "Ali 🎲"]
MISSING = "\U0010fffd"  # a private-use code point no font maps: drawn as each font's .notdef
PX = 30  # the legend's size on the chart's double-size canvas
BG, FG = (0, 0, 0), (255, 255, 255)
# The fonts the names are drawn with, and Pillow's: each draws a box for what it lacks.
BOXED = {"Noto Sans", "Noto Sans Arabic", "Noto Sans CJK SC", "Noto Emoji", "Aileron"}


def ink(img: Image.Image, threshold: int = 60) -> Image.Image:
    return img.convert("L").point(lambda v: 255 if v >= threshold else 0)


def blobs(mask: Image.Image) -> list[Image.Image]:
    """The glyphs of one line of text: runs of columns with ink, each cropped to its ink."""
    w, h = mask.size
    px = mask.load()
    cols = [any(px[x, y] for y in range(h)) for x in range(w)]
    out, x = [], 0
    while x < w:
        if not cols[x]:
            x += 1
            continue
        start = x
        while x < w and cols[x]:
            x += 1
        piece = mask.crop((start, 0, x, h))
        out.append(piece.crop(piece.getbbox()))
    return out


def lines(mask: Image.Image) -> list[Image.Image]:
    """Bands of rows with ink (the legend's names, one per band)."""
    w, h = mask.size
    px = mask.load()
    rows = [any(px[x, y] for x in range(w)) for y in range(h)]
    out, y = [], 0
    while y < h:
        if not rows[y]:
            y += 1
            continue
        start = y
        while y < h and (rows[y] or any(rows[y:y + 3])):  # an accent's gap does not end a line
            y += 1
        out.append(mask.crop((0, start, w, y)))
    return out


def overlap(a: Image.Image, b: Image.Image) -> float:
    """Intersection over union of two masks of one size."""
    both = ImageChops.multiply(a, b).histogram()[255]
    either = ImageChops.lighter(a, b).histogram()[255]
    return both / either if either else 0.0


def boxes_in(glyph: Image.Image, boxes: list[Image.Image], least: float) -> bool:
    """Whether a missing-glyph box is drawn anywhere in ``glyph`` (boxes drawn side by side touch,
    and an accent lifts the top: every window of the box's size is tried)."""
    for box in boxes:
        w, h = box.size
        for y in range(0, glyph.height - h + 1):
            for x in range(0, glyph.width - w + 1):
                window = glyph.crop((x, y, x + w, y + h))
                if overlap(window, box) >= least:
                    return True
    return False


def notdef_boxes(px: int) -> list[Image.Image]:
    """What each font of the chain, and Pillow's built-in font, draws for a code point it lacks
    (some Noto fonts draw nothing: no box to find there)."""
    fonts_ = [face.font(px) for face in fonts.chain()] + [ImageFont.load_default(px)]
    out = []
    for font in fonts_:
        img = Image.new("RGB", (px * 3, px * 2), BG)
        ImageDraw.Draw(img).text((px // 2, px // 4), MISSING, font=font, fill=FG)
        box = ink(img)
        if box.getbbox() is not None:
            out.append(box.crop(box.getbbox()))
        else:
            assert font.getname()[0] not in BOXED, f"{font.getname()} draws nothing for a missing glyph: another probe"
    return out


def drawn_alone(text: str, draw: object = None) -> Image.Image:
    img = Image.new("RGB", (PX * (len(text) + 4), PX * 3), BG)
    (draw or fonts.draw_text)(ImageDraw.Draw(img), (PX // 2, PX // 2), text, PX, FG)
    return ink(img)


def tofu_in(mask: Image.Image, boxes: list[Image.Image], least: float = 0.9) -> list[Image.Image]:
    return [g for g in blobs(mask) if boxes_in(g, boxes, least)]


def test_the_noto_fonts_are_installed_and_cover_every_script_of_the_names() -> None:
    paths = [face.path for face in fonts.chain()]
    assert all(paths), "the Noto fonts of requirements.txt are not installed"
    for name in NAMES:
        for ch in name:
            if not ch.isspace():
                assert any(face.has(ord(ch)) for face in fonts.chain()), (name, ch)


@pytest.mark.parametrize("name", NAMES)
def test_each_name_is_drawn_and_no_glyph_is_a_missing_glyph_box(name: str) -> None:
    mask = drawn_alone(name)
    assert mask.getbbox() is not None  # something is drawn
    glyphs = blobs(mask)
    # Letters that stand apart are each drawn (Arabic joins its letters into one shape).
    apart = 1 if any(unicodedata.bidirectional(c) == "AL" for c in name) else len(name.replace(" ", ""))
    assert len(glyphs) >= apart, (name, len(glyphs))
    assert tofu_in(mask, notdef_boxes(PX)) == []


def test_the_check_finds_the_boxes_of_a_font_without_those_scripts() -> None:
    # The same check on Pillow's built-in font, which the chart used before: boxes, found.
    default = ImageFont.load_default(PX)

    def old(d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, px: int, fill: object) -> None:
        d.text(xy, text, font=default, fill=fill)

    for name in ("李雷", "Ёжик", "Zoë"):
        assert tofu_in(drawn_alone(name, old), notdef_boxes(PX)), name


def test_what_no_font_has_is_left_out_never_drawn_as_a_box() -> None:
    assert fonts.runs(MISSING + "Ann" + MISSING)[0].text == "Ann"
    mask = drawn_alone("A" + MISSING + "B")
    assert len(blobs(mask)) == 2 and tofu_in(mask, notdef_boxes(PX)) == []


def test_right_to_left_names_read_right_to_left() -> None:
    # Two Arabic words: the first in logical order is drawn on the right; a Latin word after an
    # Arabic one in a left-to-right name stays on the right of it.
    order = [r.text for r in fonts.visual(fonts.runs("محمد علي"))]
    assert order == ["علي", " ", "محمد"]
    order = [r.text for r in fonts.visual(fonts.runs("Ali محمد علي x"))]
    assert order == ["Ali", " ", "علي", " ", "محمد", " ", "x"]
    assert fonts.text_length("محمد", PX) > 0


def test_a_long_name_is_cut_to_its_room() -> None:
    name = "李雷" * 20
    cut = fonts.fit(name, PX, 200)
    assert cut.endswith(fonts.ELLIPSIS) and fonts.text_length(cut, PX) <= 200 and len(cut) > 3
    assert fonts.fit("Ann", PX, 200) == "Ann"


def _legend(names: list[str]) -> Image.Image:
    """The chart's names alone, as drawn (at double size, before the chart is halved): the chart
    with them, less the same chart with no names drawn (not even the "Player 1" of an empty one)."""
    record = finished_record("hearts")
    a = chart.draw_large(chart.score_series(dataclasses.replace(record, names=names)))
    with mock.patch.object(fonts, "picture_names", lambda names, px, rooms: [""] * len(names)):
        b = chart.draw_large(chart.score_series(record))
    return ink(ImageChops.difference(a, b))


def test_the_chart_shows_every_name_without_a_missing_glyph_box() -> None:
    legend = _legend(NAMES)
    rows = lines(legend)
    assert len(rows) == len(NAMES)  # each name drew something, on its own line
    for row in rows:
        assert tofu_in(row, notdef_boxes(PX)) == []


def test_the_chart_check_finds_boxes_when_the_fonts_lack_the_scripts(monkeypatch: pytest.MonkeyPatch) -> None:
    # Drawn with Pillow's built-in font for every character, as the chart did, the boxes come back
    # and the same check on the same chart finds them.
    monkeypatch.setattr(fonts, "chain", lambda: (fonts.Face(None, 0, (0,), (0x10FFFF,)),))
    rows = lines(_legend(["李雷", "Ёжик", "Ann", "Bob"]))
    found = [tofu_in(row, notdef_boxes(PX)) for row in rows]
    assert sum(1 for f in found if f) >= 2


def test_without_the_noto_packages_other_scripts_are_left_out_not_boxed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fonts, "chain", lambda: (fonts.Face(None, 0, *fonts.BUILT_IN),))
    assert [r.text for r in fonts.runs("Zoë 李雷")] == ["Zo", " "]
    mask = drawn_alone("Zoë 李雷")
    assert mask.getbbox() is not None and tofu_in(mask, notdef_boxes(PX)) == []
