"""The picture at the end of a game: each player's running score over the hands, drawn with Pillow.

:func:`score_chart` is a pure function from a finished game's record (``tables.history.replay.GameRecord``:
seed, options, names and the action log) to PNG bytes: it replays the log through the engine,
notes the public scores after every hand (points, or ranks) or every round, as each game's
``Screens.chart`` says, and draws one
line per player, a legend with names and colours, and the winner marked.  CPU-bound and free of
discord: the listener runs it in a worker.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

import engine
import words
from cogs.pictures import fonts
from cogs.table import screens
from cogs.table.screens import Chart
from engine.core import View
from tables.history.replay import GameRecord

WIDTH, HEIGHT = 800, 420
BACKGROUND = (43, 45, 49)  # Discord's dark theme, so the picture sits in the chat
PANEL = (54, 57, 63)
GRID = (78, 82, 90)
TEXT = (230, 232, 236)
MUTED = (160, 165, 175)
GOLD = (242, 196, 54)
# Okabe–Ito: eight colours told apart with the common colour-vision deficiencies.
PALETTE = [(230, 159, 0), (86, 180, 233), (0, 158, 115), (240, 228, 66), (0, 114, 178), (213, 94, 0),
           (204, 121, 167), (255, 255, 255)]


@dataclass(frozen=True)
class Series:
    """What the chart shows: one value per player per point on the x axis."""

    game: str
    title: str
    y_label: str
    x_label: str
    names: list[str]
    points: list[list[float]]  # points[i][seat]
    winners: tuple[int, ...]
    lower_is_better: bool = False
    y_ticks: dict[float, str] | None = None  # value -> label (ranks)
    locale: str = "en"  # the language of its words (the table's: issue 31)


def _snapshot(chart: Chart, pv: View, n: int) -> list[float]:
    if chart.snapshot is not None:
        return chart.snapshot(pv, n)
    return [float(x) for x in (pv.get("scores") or [0] * n)]


def score_series(record: GameRecord, locale: str = words.ENGLISH) -> Series | None:
    """The running scores of a finished game, or ``None`` when it did not finish (nothing to show).
    What is plotted is the game's ``Screens.chart`` (cogs/table/screens.py); its words in ``locale``."""
    if record.seed is None:
        return None
    entry = engine.get(record.game)
    found = screens.get(record.game)
    chart = found.chart if found is not None else Chart()
    cls = entry.game
    n = record.players
    g = cls.create(n, record.options, record.seed)
    points = [_snapshot(chart, g.public_view(), n)]
    last_round = g.public_view().get("round")
    for e in record.log:
        events = g.apply(e.seat, cls.action_from_code(e.code))
        pv = g.public_view()
        if chart.per_round:
            if pv.get("round") != last_round or any(ev.kind == "game_end" for ev in events):
                last_round = pv.get("round")
                points.append(_snapshot(chart, pv, n))
        elif any(ev.kind == "hand_end" and ev.to is None for ev in events):
            points.append(_snapshot(chart, pv, n))
    outcome = g.outcome() if g.is_over else None
    if outcome is None:
        return None
    final = _snapshot(chart, g.public_view(), n)
    if points[-1] != final:
        points.append(final)
    title = words.translate(locale, "{game} · table {id}", game=words.Lazy(cls.title), id=record.id)
    return Series(record.game, title, words.translate(locale, chart.y_label), words.translate(locale, chart.x_label),
                  record.names, points, outcome.winners, lower_is_better=entry.lowest_wins,
                  y_ticks=dict(chart.y_ticks) if chart.y_ticks else None, locale=locale)


def _font(px: int) -> fonts.Font:
    # Labels and numbers: the names' first font, so the picture is set in one face.
    return fonts.primary(px)


def draw_series(s: Series, ai: Sequence[bool] | None = None) -> bytes:
    """The chart of ``s`` as PNG bytes (800x420, a few tens of KiB)."""
    out = draw_large(s, ai).resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    out.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def draw_large(s: Series, ai: Sequence[bool] | None = None) -> Image.Image:
    """The chart as drawn, at twice its size (tests look at the glyphs there, before the halving)."""
    scale = 2  # drawn at twice the size and scaled down: smooth lines without per-line anti-aliasing
    W, H = WIDTH * scale, HEIGHT * scale
    img = Image.new("RGB", (W, H), BACKGROUND)
    d = ImageDraw.Draw(img)
    f_small = _font(13 * scale)
    fonts.draw_text(d, (24 * scale, 14 * scale), s.title, 20 * scale, TEXT)  # (any script: the table's language)
    # The plot on the left, the legend on the right.
    legend_w = 210 * scale
    x0, y0 = 62 * scale, 56 * scale
    x1, y1 = W - legend_w - 20 * scale, H - 48 * scale
    d.rounded_rectangle((x0 - 8 * scale, y0 - 8 * scale, x1 + 8 * scale, y1 + 8 * scale), radius=8 * scale, fill=PANEL)
    values = [v for p in s.points for v in p]
    lo, hi = min(values), max(values)
    if s.y_ticks:
        lo, hi = min(lo, min(s.y_ticks)), max(hi, lo + 1)
        lo, hi = max(lo, 2.0), min(max(hi, lo + 1), 14.0)
    if hi == lo:
        hi = lo + 1
    pad = (hi - lo) * 0.06
    lo_p, hi_p = lo - pad, hi + pad
    steps = max(1, len(s.points) - 1)

    def X(i: int) -> float:
        return x0 + (x1 - x0) * i / steps

    def Y(v: float) -> float:
        return y1 - (y1 - y0) * (v - lo_p) / (hi_p - lo_p)

    # Grid and y labels: about five round numbers (or the ranks).
    ticks = _ticks(lo, hi) if not s.y_ticks else [v for v in s.y_ticks if lo <= v <= hi]
    for v in ticks:
        y = Y(v)
        d.line((x0, y, x1, y), fill=GRID, width=scale)
        label = s.y_ticks[v] if s.y_ticks else _num(v)
        d.text((x0 - 14 * scale, y), label, font=f_small, fill=MUTED, anchor="rm")
    # x labels: hand numbers (0 = the start), at most ~12 of them.
    every = max(1, -(-steps // 12))
    for i in range(0, steps + 1, every):
        d.text((X(i), y1 + 14 * scale), str(i), font=f_small, fill=MUTED, anchor="mt")
    caption = words.translate(s.locale, "{y}, after each {x}", y=s.y_label, x=s.x_label)
    fonts.draw_text(d, ((x0 + x1) / 2 - fonts.text_length(caption, 13 * scale) / 2, H - 12 * scale), caption,
                    13 * scale, MUTED, anchor="ls")
    # The lines: the winners' last, so they lie on top.
    order = sorted(range(len(s.names)), key=lambda seat: seat in s.winners)
    for seat in order:
        colour = PALETTE[seat % len(PALETTE)]
        # Equal scores would hide a line under another: each seat drawn a hair apart.
        nudge = (seat - (len(s.names) - 1) / 2) * 2.5 * scale
        pts = [(X(i), Y(p[seat]) + nudge) for i, p in enumerate(s.points)]
        width = (5 if seat in s.winners else 3) * scale
        if len(pts) > 1:
            d.line(pts, fill=colour, width=width, joint="curve")
        r = (5 if seat in s.winners else 3.5) * scale
        for x, y in pts if len(pts) <= 25 else pts[-1:]:  # a long game: no dot per round
            d.ellipse((x - r, y - r, x + r, y + r), fill=colour)
        if seat in s.winners:
            x, y = pts[-1]
            _star(d, x, y - 16 * scale, 11 * scale, GOLD)
    # The legend: colour, name, final value; the winners starred.
    lx, ly = x1 + 30 * scale, y0
    final = s.points[-1]
    rank = sorted(range(len(s.names)), key=lambda seat: (seat not in s.winners,
                                                         final[seat] if s.lower_is_better else -final[seat], seat))
    # Names in any script (cogs/pictures/fonts.py: never a missing-glyph box), cut to the legend's width,
    # made drawable and told apart there (fonts.picture_names).
    ai_tag = words.translate(s.locale, " (AI)")
    tags = [ai_tag if ai is not None and seat < len(ai) and ai[seat] else "" for seat in range(len(s.names))]
    names = fonts.picture_names(s.names, 15 * scale,
                                [W - lx - 46 * scale - fonts.text_length(tag, 15 * scale) for tag in tags])
    for seat in rank:
        colour = PALETTE[seat % len(PALETTE)]
        d.rounded_rectangle((lx, ly + 4 * scale, lx + 22 * scale, ly + 14 * scale), radius=3 * scale, fill=colour)
        tag, name = tags[seat], names[seat]
        # (the tag after it, apart: a right-to-left name does not carry it to its left)
        drawn = fonts.draw_text(d, (lx + 30 * scale, ly), name, 15 * scale, TEXT)
        if tag:
            fonts.draw_text(d, (lx + 30 * scale + drawn, ly), tag, 15 * scale, TEXT)
        value = s.y_ticks.get(final[seat], _num(final[seat])) if s.y_ticks else _num(final[seat])
        d.text((lx + 30 * scale, ly + 19 * scale), value, font=f_small, fill=MUTED)
        if seat in s.winners:
            _star(d, lx - 12 * scale, ly + 9 * scale, 8 * scale, GOLD)
            d.text((lx + 30 * scale + d.textlength(value + "  ", font=f_small), ly + 19 * scale), "winner",
                   font=f_small, fill=GOLD)
        ly += 44 * scale
    return img


def score_chart(record: GameRecord, locale: str = words.ENGLISH) -> bytes | None:
    """The end-of-game picture of a finished game's record, or ``None`` when there is no finished
    game to show; its words in ``locale`` (the table's)."""
    s = score_series(record, locale)
    return None if s is None else draw_series(s, getattr(record, "ai", None))


def _ticks(lo: float, hi: float) -> list[float]:
    span = hi - lo
    raw = span / 5
    mag = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    start = (lo // step) * step
    out = []
    v = start
    while v <= hi + 1e-9:
        if v >= lo - 1e-9:
            out.append(v)
        v += step
    return out


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


def _star(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: tuple[int, int, int]) -> None:
    import math

    pts = []
    for i in range(10):
        a = -math.pi / 2 + i * math.pi / 5
        rr = r if i % 2 == 0 else r * 0.45
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    d.polygon(pts, fill=fill)
