"""The Great Dalmuti's own card faces (its ``Screens.faces``, drawn like every face by cogs/pictures/faces.py's
canvas; docs/rules.md §3): numbered parchment cards and the Jester."""

from __future__ import annotations

import colorsys
import functools
from collections.abc import Callable

from PIL import ImageDraw

from cogs.pictures.faces import _SS, Box, _canvas, _finish, _text

# Dalmuti's own scheme: parchment cards, numbers in a colour that warms from the Dalmuti (1) to
# the Peons (12), so rank reads at a glance even where the digit is a blur.
DAL_PAPER = (246, 230, 186)
DAL_EDGE = (160, 120, 40)


def _dal_colour(n: int) -> tuple[int, int, int]:
    # 1 deep purple → 12 deep orange-red, through blue and green: twelve distinct hues.
    hue = (0.78 - 0.78 * (n - 1) / 11) % 1.0
    # Yellows and greens read pale on parchment at the same value: darken them more.
    value = 0.56 - 0.18 * max(0.0, 1 - abs(hue - 0.2) / 0.15)
    r, g, b = colorsys.hsv_to_rgb(hue, 0.9, value)
    return (round(r * 255), round(g * 255), round(b * 255))


def _jester_hat(d: ImageDraw.ImageDraw, box: Box, fill: tuple[int, int, int]) -> None:
    # Three floppy points with bells, over a band: a jester's cap in three colours.
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    band = y0 + h * 0.78
    colours = [(200, 30, 40), (40, 110, 200), (230, 170, 20)]
    tips = [(x0 + w * 0.06, y0 + h * 0.22), (x0 + w * 0.5, y0 + h * 0.04), (x1 - w * 0.06, y0 + h * 0.22)]
    bases = [(x0 + w * 0.1, x0 + w * 0.5), (x0 + w * 0.3, x0 + w * 0.7), (x0 + w * 0.5, x1 - w * 0.1)]
    for (tx, ty), (bx0, bx1), col in zip(tips, bases, colours, strict=True):
        d.polygon([(bx0, band), (tx, ty), (bx1, band)], fill=col)
    r = w * 0.09
    for tx, ty in tips:
        d.ellipse((tx - r, ty - r, tx + r, ty + r), fill=(250, 205, 40), outline=fill, width=max(1, round(r * 0.3)))
    d.rounded_rectangle((x0 + w * 0.08, band - h * 0.02, x1 - w * 0.08, y1), radius=h * 0.06, fill=fill)


def dalmuti_face(number: int) -> bytes:
    """1..12, or 13 for the Jester."""
    img, d = _canvas(DAL_PAPER, DAL_EDGE)
    s = _SS
    if number == 13:
        _jester_hat(d, (14 * s, 12 * s, 114 * s, 118 * s), (60, 30, 90))
        return _finish(img)
    ink = _dal_colour(number)
    # The number fills the card; a band of the same colour under it repeats the rank's hue.
    _text(d, str(number), (64 * s, 54 * s), 80 * s, 112 * s, ink, stroke=0.06)
    d.rounded_rectangle((16 * s, 104 * s, 112 * s, 118 * s), radius=6 * s, fill=ink)
    return _finish(img)


def dalmuti_faces() -> dict[str, Callable[[], bytes]]:
    """The Great Dalmuti's own cards (its ``Screens.faces``): ``D1``..``D12`` and the Jester ``JJ``."""
    out: dict[str, Callable[[], bytes]] = {f"D{n}": functools.partial(dalmuti_face, n) for n in range(1, 13)}
    out["JJ"] = functools.partial(dalmuti_face, 13)
    return out
