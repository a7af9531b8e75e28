"""One picture of a finished game at one step, drawn with Pillow: every hand face up, the cards on
the table and the hidden piles (a dead hand, buried cards, taxes), the scores and the step in words.

:func:`draw_step` is a pure function from a step of :func:`tables.history.replay_steps.steps` (a JSON-safe
dict) and the game's :class:`Meta` to PNG bytes; the same input gives the same bytes.  CPU-bound and
free of discord: the viewer (cogs/replay/view.py) runs it in a worker process.  The cards are
:mod:`cogs.pictures.faces`' faces (the emoji's), scaled down.

Text goes through :func:`write` alone, drawn with :mod:`cogs.pictures.fonts` (names in any script, the
suits' symbols).
"""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass
from functools import lru_cache
from typing import TypedDict

from PIL import Image, ImageDraw

import words
from cogs.pictures import faces, fonts
from engine.replays import Group
from tables.history.replay_steps import Step
from words import N_

WIDTH = 1200
CARD = 46  # a card's side in the picture (the faces are square)
ROW = 84  # one seat's row: its label line and its cards
LEFT = 200  # the names and scores column
TABLE_X = 760  # where the cards on the table start at the latest (games with short hands: sooner)
HEADER = 112
WORDS_PX = 14  # the step in words, under the title
BACKGROUND = (43, 45, 49)
PANEL = (54, 57, 63)
ACTING = (74, 78, 92)
TEXT = (230, 232, 236)
MUTED = (160, 165, 175)
GOLD = (242, 196, 54)
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


class MetaJSON(TypedDict, total=False):
    """:class:`Meta` as it crosses to the picture worker (``title``, ``names`` and ``count`` always)."""

    title: str
    names: list[str]
    count: int
    score_word: str
    winners: list[int]
    locale: str


@dataclass(frozen=True)
class Meta:
    """What stays the same over a game's steps."""

    title: str  # "{game title} · table ABCDEF"
    names: tuple[str, ...]
    count: int  # how many steps there are
    score_word: str = "score"
    winners: tuple[int, ...] = ()
    locale: str = "en"  # the language of the viewer who asked (its words and picture: issue 31)

    def to_json(self) -> MetaJSON:
        return {"title": self.title, "names": list(self.names), "count": self.count,
                "score_word": self.score_word, "winners": list(self.winners), "locale": self.locale}

    @classmethod
    def from_json(cls, d: MetaJSON) -> Meta:
        return cls(str(d["title"]), tuple(d["names"]), int(d["count"]), str(d.get("score_word", "score")),
                   tuple(d.get("winners") or ()), str(d.get("locale") or "en"))


# ---- text ----------------------------------------------------------------------------------------
def write(d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, px: int, fill: tuple[int, int, int],
          width: float | None = None) -> float:
    """Draw one line of text in any script (cogs/pictures/fonts.py: names, suits, arrows), cut to ``width``
    pixels with an ellipsis; returns its width."""
    if width is not None:
        text = fonts.fit(text, px, width)
    return fonts.draw_text(d, xy, text, px, fill)


# ---- cards -------------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def card_image(code: str) -> Image.Image:
    """A card's face at the picture's size (drawn once per process)."""
    try:
        png = faces.draw_face(code)
    except (KeyError, IndexError, ValueError):
        png = faces.back_face()
    return Image.open(io.BytesIO(png)).convert("RGBA").resize((CARD, CARD), Image.Resampling.LANCZOS)


def _cards(img: Image.Image, x: float, y: float, codes: list[str], room: float) -> float:
    """A row of cards from ``x``, overlapped just enough to fit ``room``; returns where it ends."""
    if not codes:
        return x
    step = min(CARD + 3.0, max(12.0, (room - CARD) / max(1, len(codes) - 1))) if len(codes) > 1 else CARD
    for i, code in enumerate(codes):
        face = card_image(code)
        img.alpha_composite(face, (int(x + i * step), int(y)))
    return x + step * (len(codes) - 1) + CARD


def score_value(meta: Meta, value: int) -> str:
    """A game whose scores are ranks (2 to 14): shown as the rank."""
    if meta.score_word == "rank" and 2 <= value <= 14:
        return RANK_NAMES[value - 2]
    return str(value)


def warm() -> int:
    """Draw every card face once (a worker's first picture then takes no longer than the others)."""
    return len([card_image(code) for code in faces.face_codes()])


# ---- the picture ---------------------------------------------------------------------------------
def _where(step: Step, count: int, locale: str = words.ENGLISH) -> str:
    """``Step 3 of 52 · Hand 1 · trick 2`` in ``locale``."""
    parts = [words.translate(locale, "Step {n} of {count}", n=step["index"] + 1, count=count),
             _position(locale, step["unit"].capitalize(), step["hand"])]
    trick, sub = step.get("trick"), step.get("sub")
    if trick is not None and sub:
        parts.append(_position(locale, sub, trick))
    return " · ".join(parts)


def _position(locale: str, unit: str, n: object) -> str:
    """``Hand 2``, ``trick 5`` in ``locale`` (a position word and its number: a msgid ``"Hand {n}"``)."""
    msgid = f"{unit} {{n}}"
    return words.translate(locale, msgid, n=n)


# The positions' words the games' replay hooks use (tables/history/replay_steps.py), for the catalogs.
_POSITIONS = (N_("Hand {n}"), N_("Round {n}"), N_("trick {n}"), N_("turn {n}"), N_("lead {n}"))


def draw_step(step: Step, meta: Meta) -> bytes:
    """The PNG of one step (``WIDTH`` wide, one row per seat)."""
    names = fonts.picture_names(meta.names, 17, LEFT - 34)  # drawable, told apart (cogs/pictures/fonts.py)
    n = len(names)
    # The hidden piles (a dead hand, buried cards, taxes) sit with their player, after the cards on
    # the table, or in the middle row when nobody holds them yet.
    table = [*(step.get("table") or []), *(step.get("piles") or [])]
    loose = [g for g in table if g.get("seat") is None]
    rows = n + (1 if loose else 0)
    height = HEADER + rows * ROW + 16
    img = Image.new("RGBA", (WIDTH, height), BACKGROUND + (255,))
    d = ImageDraw.Draw(img)
    write(d, (20, 12), meta.title, 22, TEXT, WIDTH - 40)
    write(d, (20, 42), _where(step, meta.count, meta.locale), 15, MUTED, WIDTH - 40)
    loc = meta.locale
    _ = words.make_(loc)
    said = step.get("words") or (_("The table before the first move.") if step["index"] == 0 else "")
    for i, line in enumerate(textwrap.wrap(said, 130)[:2]):
        write(d, (20, 62 + i * 17), line, WORDS_PX, GOLD, WIDTH - 40)
    hands = step.get("hands") or [[] for _ in range(n)]
    longest = max((len(h) for h in hands), default=0)
    table_x = min(TABLE_X, LEFT + max(180, longest * (CARD + 3)) + 24)
    write(d, (LEFT, HEADER - 18), _("hand"), 12, MUTED)
    write(d, (table_x, HEADER - 18), _("on the table, and set aside") if step.get("piles") else _("on the table"),
          12, MUTED)
    scores = step.get("scores") or [0] * n
    last = step["index"] + 1 == meta.count
    for s in range(n):
        y = HEADER + s * ROW
        colour = ACTING if step.get("seat") == s else PANEL
        d.rounded_rectangle((10, y + 2, WIDTH - 10, y + ROW - 4), radius=8, fill=colour)
        write(d, (22, y + 12), names[s], 17, TEXT, LEFT - 34)
        score = (_("rank: {value}", value=score_value(meta, scores[s])) if meta.score_word == "rank" else
                 _("score: {value}", value=score_value(meta, scores[s]))) if s < len(scores) else ""
        if last and s in meta.winners:
            score += " · " + _("winner")
        write(d, (22, y + 38), score, 14, GOLD if last and s in meta.winners else MUTED, LEFT - 34)
        hand = hands[s] if s < len(hands) else []
        if hand:
            write(d, (LEFT, y + 8), words.ngettext(loc, "{n} card", "{n} cards", len(hand)), 11, MUTED)
            _cards(img, LEFT, y + 24, list(hand), table_x - LEFT - 16)
        else:
            write(d, (LEFT, y + 38), _("no cards in hand"), 13, MUTED)
        _groups(img, d, [g for g in table if g.get("seat") == s], y, table_x)
    if loose:
        y = HEADER + n * ROW
        d.rounded_rectangle((10, y + 2, WIDTH - 10, y + ROW - 4), radius=8, fill=PANEL)
        write(d, (22, y + 12), _("On the table"), 17, TEXT, LEFT - 34)
        _groups(img, d, loose, y, table_x)
    out = img.convert("RGB")
    buf = io.BytesIO()
    out.save(buf, format="PNG", compress_level=3)
    return buf.getvalue()


def _groups(img: Image.Image, d: ImageDraw.ImageDraw, groups: list[Group], y: float, left: int) -> None:
    """One seat's cards on the table, each group under its label, sharing the column's width."""
    if not groups:
        return
    room = WIDTH - 20 - left
    gap = 10
    total = sum(len(g.get("cards") or ()) for g in groups) or 1
    x = float(left)
    for g in groups:
        cards = list(g.get("cards") or ())
        share = max(CARD, (room - gap * (len(groups) - 1)) * len(cards) / total)
        write(d, (x, y + 8), str(g.get("label") or ""), 11, MUTED, share)
        x = _cards(img, x, y + 24, cards, share) + gap
