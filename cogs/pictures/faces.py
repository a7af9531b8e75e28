"""Deckhand's card faces, drawn with Pillow: every card any game shows, and a card back.

Pure and deterministic (no discord, no I/O, no clock): the same Pillow gives the same PNG bytes
every run, so the emoji sync can name each face by a short hash of its art and upload only what
changed.  Drawing everything takes a fraction of a second; callers still run :func:`all_faces` in a
worker so start-up never blocks the event loop.

The art is made for Discord's inline emoji size (about 22 px): the rank fills the top half, the
suit the bottom half, and the card fills the whole square.  Shapes are drawn at 3x and scaled down
(anti-aliasing without depending on a font's hinting); the rank uses Pillow's bundled font
(``ImageFont.load_default``) thickened with a stroke, so no system font is needed.
"""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Callable
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from cogs.table import screens

SIZE = 128
_SS = 3  # supersampling factor (3x3 samples a pixel: smooth edges, a third of a second for all)
_W = SIZE * _SS
MAX_BYTES = 256 * 1024

RED = (206, 22, 32)
BLACK = (22, 22, 26)
PAPER = (252, 252, 248)
EDGE = (150, 150, 160)
BACK_BLUE = (32, 70, 150)
BACK_LIGHT = (90, 130, 210)

STANDARD_RANKS = "23456789TJQKA"
STANDARD_SUITS = "CDHS"
STANDARD_CODES = frozenset([r + s for s in STANDARD_SUITS for r in STANDARD_RANKS] + ["~B", "~R"])


@lru_cache(maxsize=8)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(px)


# ---- shapes (coordinates in a 0..1 box, scaled to the target box) ---------------------------
Box = tuple[float, float, float, float]


def _heart(d: ImageDraw.ImageDraw, box: Box, fill: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    r = w * 0.27
    d.ellipse((x0 + w * 0.23 - r, y0 + h * 0.3 - r, x0 + w * 0.23 + r, y0 + h * 0.3 + r), fill=fill)
    d.ellipse((x0 + w * 0.77 - r, y0 + h * 0.3 - r, x0 + w * 0.77 + r, y0 + h * 0.3 + r), fill=fill)
    d.polygon([(x0 - w * 0.03, y0 + h * 0.36), (x1 + w * 0.03, y0 + h * 0.36), (x0 + w * 0.5, y1)], fill=fill)
    d.rectangle((x0 + w * 0.23, y0 + h * 0.2, x0 + w * 0.77, y0 + h * 0.5), fill=fill)


def _diamond(d: ImageDraw.ImageDraw, box: Box, fill: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    d.polygon([(x0 + w * 0.5, y0), (x1 - w * 0.08, y0 + h * 0.5), (x0 + w * 0.5, y1), (x0 + w * 0.08, y0 + h * 0.5)],
              fill=fill)


def _spade(d: ImageDraw.ImageDraw, box: Box, fill: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    r = w * 0.26
    cy = y0 + h * 0.58
    d.ellipse((x0 + w * 0.24 - r, cy - r, x0 + w * 0.24 + r, cy + r), fill=fill)
    d.ellipse((x0 + w * 0.76 - r, cy - r, x0 + w * 0.76 + r, cy + r), fill=fill)
    d.polygon([(x0 + w * 0.5, y0), (x1 + w * 0.01, cy - h * 0.06), (x0 - w * 0.01, cy - h * 0.06)], fill=fill)
    d.rectangle((x0 + w * 0.24, y0 + h * 0.4, x0 + w * 0.76, cy), fill=fill)
    _stem(d, box, fill)


def _club(d: ImageDraw.ImageDraw, box: Box, fill: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    r = w * 0.22
    for cx, cy in ((0.5, 0.24), (0.24, 0.58), (0.76, 0.58)):
        d.ellipse((x0 + w * cx - r, y0 + h * cy - r, x0 + w * cx + r, y0 + h * cy + r), fill=fill)
    d.rectangle((x0 + w * 0.38, y0 + h * 0.3, x0 + w * 0.62, y0 + h * 0.62), fill=fill)
    _stem(d, box, fill)


def _stem(d: ImageDraw.ImageDraw, box: Box, fill: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    d.polygon([(x0 + w * 0.44, y0 + h * 0.6), (x0 + w * 0.56, y0 + h * 0.6), (x0 + w * 0.7, y1),
               (x0 + w * 0.3, y1)], fill=fill)


def _star(d: ImageDraw.ImageDraw, box: Box, fill: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2 + (y1 - y0) * 0.04
    ro, ri = (x1 - x0) / 2, (x1 - x0) / 2 * 0.45
    pts = []
    for i in range(10):
        a = -math.pi / 2 + i * math.pi / 5
        r = ro if i % 2 == 0 else ri
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    d.polygon(pts, fill=fill)


SUIT_SHAPES: dict[str, Callable[[ImageDraw.ImageDraw, Box, tuple[int, int, int]], None]] = {
    "C": _club, "D": _diamond, "H": _heart, "S": _spade,
}


# ---- a face ------------------------------------------------------------------------------------
def _canvas(paper: tuple[int, int, int], edge: tuple[int, int, int]) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGBA", (_W, _W), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    m = 2 * _SS
    d.rounded_rectangle((m, m, _W - m - 1, _W - m - 1), radius=18 * _SS, fill=paper, outline=edge, width=3 * _SS)
    return img, d


def _text(d: ImageDraw.ImageDraw, text: str, centre: tuple[float, float], height: float, max_width: float,
          fill: tuple[int, int, int], stroke: float = 0.06) -> None:
    """The rank, as big as fits ``height`` x ``max_width``, centred on ``centre``, thickened with a
    stroke in its own colour so it stays solid when scaled down to 22 px."""
    px = int(height * 1.3)
    while True:
        f = _font(px)
        sw = max(1, round(px * stroke))
        left, t, r, b = d.textbbox((0, 0), text, font=f, stroke_width=sw)
        if (b - t <= height and r - left <= max_width) or px < 8:
            break
        px -= 4
    cx, cy = centre
    d.text((cx - (left + r) / 2, cy - (t + b) / 2), text, font=f, fill=fill, stroke_width=sw, stroke_fill=fill)


def _finish(img: Image.Image) -> bytes:
    # A box filter over the 3x3 supersample: fast, and exact (integer arithmetic, same bytes).
    small = img.reduce(_SS)
    buf = io.BytesIO()
    # No metadata, fixed compression level: same pixels → same bytes.
    small.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def _rank_and_suit(rank_text: str, ink: tuple[int, int, int], paper: tuple[int, int, int],
                   edge: tuple[int, int, int], shape: Callable[..., None]) -> bytes:
    img, d = _canvas(paper, edge)
    s = _SS
    # Two-character ranks ("10", "12") get a condensed width instead of a smaller height.
    _text(d, rank_text, (64 * s, 36 * s), 58 * s, 112 * s, ink, stroke=0.06)
    shape(d, (38 * s, 72 * s, 90 * s, 122 * s), ink)
    return _finish(img)


def standard_face(code: str) -> bytes:
    """``QS``, ``TH``, ``~B``/``~R`` (the jokers)."""
    if code in ("~B", "~R"):
        ink = RED if code == "~R" else BLACK
        img, d = _canvas(PAPER, EDGE)
        s = _SS
        _text(d, "JK", (64 * s, 37 * s), 50 * s, 104 * s, ink)
        _star(d, (32 * s, 66 * s, 96 * s, 126 * s), ink)
        return _finish(img)
    rank, suit = code[0], code[1]
    ink = RED if suit in "HD" else BLACK
    return _rank_and_suit("10" if rank == "T" else rank, ink, PAPER, EDGE, SUIT_SHAPES[suit])


def back_face() -> bytes:
    img, d = _canvas(BACK_BLUE, (20, 40, 90))
    s = _SS
    # A lattice of diamonds inside a light frame.
    d.rounded_rectangle((12 * s, 12 * s, 116 * s, 116 * s), radius=10 * s, outline=BACK_LIGHT, width=4 * s)
    step = 16
    for i in range(-1, 8):
        for j in range(-1, 8):
            cx, cy = (20 + i * step + (j % 2) * step / 2) * s, (20 + j * step) * s
            if 16 * s < cx < 112 * s and 16 * s < cy < 112 * s:
                _diamond(d, (cx - 5 * s, cy - 6 * s, cx + 5 * s, cy + 6 * s), BACK_LIGHT)
    d.ellipse((40 * s, 40 * s, 88 * s, 88 * s), fill=PAPER)
    _text(d, "D", (64 * s, 64 * s), 30 * s, 34 * s, BACK_BLUE)
    return _finish(img)


# ---- every face, by the card code the engines use --------------------------------------------
def _game_faces() -> dict[str, Callable[[], bytes]]:
    """Each game's own faces (its ``Screens.faces``), games in name order."""
    out: dict[str, Callable[[], bytes]] = {}
    for _, found in sorted(screens.registered().items()):
        for code, draw in found.faces.items():
            out.setdefault(code, draw)
    return out


def face_codes() -> list[str]:
    """Every face's key, in a fixed order: standard cards (``QS``), jokers (``~B`` ``~R``), each
    game's own cards by game name (``Screens.faces``: games/<name>/faces.py)
    and ``back``."""
    codes = [r + s for s in STANDARD_SUITS for r in STANDARD_RANKS] + ["~B", "~R"]
    codes += [c for c in _game_faces() if c not in codes]
    return codes + ["back"]


def draw_face(code: str) -> bytes:
    """The PNG of one face (128x128) by its key (see :func:`face_codes`)."""
    if code == "back":
        return back_face()
    own = _game_faces().get(code)
    if own is not None and code not in STANDARD_CODES:
        return own()
    return standard_face(code)


def all_faces() -> dict[str, bytes]:
    """Every face, drawn.  CPU-bound (well under a second): run it in a worker."""
    return {code: draw_face(code) for code in face_codes()}


_SLUGS = {"~B": "jkb", "~R": "jkr", "JJ": "jester"}


def emoji_name(code: str, png: bytes) -> str:
    """The application-emoji name of a face: ``dk_qs_1a2b3c`` — a prefix that marks it as ours, the
    card and six hex digits of the art (changed art, new name; never more than 32 characters)."""
    slug = _SLUGS.get(code, code.lower())
    return f"dk_{slug}_{hashlib.sha256(png).hexdigest()[:6]}"


def contact_sheet(faces: dict[str, bytes], dark: tuple[int, int, int] = (49, 51, 56)) -> bytes:
    """Every face at 128 px, then every face at 22 px on Discord's dark background — one picture to
    judge the art in."""
    codes = list(faces)
    cols = 13
    rows = math.ceil(len(codes) / cols)
    gap, small, sgap = 6, 22, 4
    big_w = cols * (SIZE + gap) + gap
    big_h = rows * (SIZE + gap) + gap
    small_h = rows * (small + sgap) + sgap + 8
    sheet = Image.new("RGB", (big_w, big_h + small_h * 2), dark)
    for i, code in enumerate(codes):
        img = Image.open(io.BytesIO(faces[code])).convert("RGBA")
        r, c = divmod(i, cols)
        sheet.paste(img, (gap + c * (SIZE + gap), gap + r * (SIZE + gap)), img)
        tiny = img.resize((small, small), Image.Resampling.LANCZOS)
        # 22 px on the dark theme, then on the light theme.
        for band, bg in ((0, None), (1, (255, 255, 255))):
            y0 = big_h + band * small_h
            if bg is not None and i == 0:
                sheet.paste(bg, (0, y0, big_w, y0 + small_h))
            sheet.paste(tiny, (sgap + c * (small + sgap), y0 + 4 + r * (small + sgap)), tiny)
    buf = io.BytesIO()
    sheet.save(buf, format="PNG")
    return buf.getvalue()


# `make cards` (not `-m cogs.pictures.faces`: importing cogs imports this module first)
def main() -> None:  # pragma: no cover
    import sys
    import time
    from pathlib import Path

    t0, c0 = time.perf_counter(), time.process_time()
    faces = all_faces()
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/cards.png")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(contact_sheet(faces))
    biggest = max(len(b) for b in faces.values())
    print(f"{len(faces)} faces drawn in {took * 1000:.0f} ms ({cpu * 1000:.0f} ms of CPU; largest {biggest} bytes)"
          f" → {out}")


if __name__ == "__main__":  # pragma: no cover
    main()
