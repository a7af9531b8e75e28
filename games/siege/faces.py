"""Siege's own card faces (its ``Screens.faces``, drawn like every face by cogs/pictures/faces.py's canvas;
docs/rules.md §5): the blanks, numbers without a suit."""

from __future__ import annotations

import functools
from collections.abc import Callable

from PIL import ImageDraw

from cogs.pictures.faces import Box, _rank_and_suit

BLANK_PAPER = (226, 232, 240)
BLANK_INK = (52, 64, 84)
SIEGE_RANKS = "A23456789TJQ"


def _hollow_square(d: ImageDraw.ImageDraw, box: Box, fill: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = box
    w = x1 - x0
    inset = w * 0.12
    d.rounded_rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset), radius=w * 0.12, outline=fill,
                        width=max(1, round(w * 0.16)))


def siege_blank_face(rank: str) -> bytes:
    """A Siege blank (no suit): ``A`` .. ``Q``."""
    return _rank_and_suit("10" if rank == "T" else rank, BLANK_INK, BLANK_PAPER, BLANK_INK, _hollow_square)


def siege_faces() -> dict[str, Callable[[], bytes]]:
    """Siege's blanks (its ``Screens.faces``): ``AX``..``QX``."""
    return {r + "X": functools.partial(siege_blank_face, r) for r in SIEGE_RANKS}
