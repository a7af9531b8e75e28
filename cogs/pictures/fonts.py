"""Text in pictures in any script a Discord name can hold: Latin, Cyrillic, Greek, Arabic, Hebrew,
the scripts of India and South-East Asia, Chinese, Japanese, Korean, symbols and emoji.

Pillow's built-in font knows Latin only, and any other letter comes out as a box (tofu).  The
pictures (the end-of-game chart, the replay) draw text through :func:`draw_text` instead, with a
chain of Noto fonts (SIL Open Font License) that the pinned ``manimgx-fonts`` and
``manimgx-fonts-cjk`` packages install with the rest of requirements.txt: each character is drawn
with the first font of the chain whose character map holds it, and a character none holds (an
unknown emoji, a private-use code point) is left out — never a box.

Right-to-left runs (Arabic, Hebrew) are shaped and ordered by Pillow's Raqm layout when it has one
(``PIL.features.check('raqm')``); without it their letters are drawn in visual order, unjoined.
Runs of different fonts are ordered the way the Unicode bidirectional algorithm orders runs of one
level, which is all a name needs.

Whatever a string holds, it is drawn as one line (:func:`one_line`: line and paragraph breaks
are spaces, control and format characters are left out, a character keeps at most
:data:`MAX_MARKS` combining marks), so no name can make the layout fail or climb over other text.
The players' names in a picture go through :func:`picture_names`, the one place that makes them
drawable: what nothing can draw is left out, a name with nothing left reads "Player 3", and no two
players look the same.

Free of discord, tables and games: a picture module passes a ``PIL.ImageDraw`` and a size in pixels.
"""

from __future__ import annotations

import bisect
import importlib.util
import logging
import struct
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont, features

log = logging.getLogger(__name__)

WEIGHT = 400  # Regular: the variable fonts' weight (Noto Sans CJK's own default is Thin)
CJK_FACE = "Noto Sans CJK SC"  # the collection's faces differ only in glyph forms: Chinese names are the likeliest
ELLIPSIS = "…"
#: A font at one size: a file's (FreeType), or Pillow's built-in one when no file has the glyphs.
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
#: A colour as Pillow takes it: a grey level, RGB(A), or a name.
Ink = int | tuple[int, ...] | str
# What Pillow's built-in font draws: ASCII only (an accented letter is a box: tests/cogs/test_fonts.py).
BUILT_IN = ((0x20,), (0x7E,))
# Drawn with the font of the character before them when it has them, else left out: they change
# how that character looks (a variation selector, an emoji's skin tone, a joiner) or join letters.
_ATTACHED = frozenset({0x200C, 0x200D}) | frozenset(range(0xFE00, 0xFE10)) | frozenset(range(0x1F3FB, 0x1F400)) \
    | frozenset(range(0xE0020, 0xE0080)) | frozenset(range(0xE0100, 0xE01F0))
# Format characters (Unicode category Cf) kept: the joiners and the tags of an emoji sequence.  The
# others (bidirectional overrides and isolates, byte-order marks, soft hyphens, invisible operators)
# change no glyph a picture needs and can reorder or hide the text around them.
_KEPT_FORMAT = frozenset({0x200C, 0x200D}) | frozenset(range(0xE0020, 0xE0080))
#: Combining marks kept on one character: enough for any script's letters (a vowel sign and a tone
#: mark), few enough that a name of hundreds of stacked marks stays on its own line.
MAX_MARKS = 2
#: Characters of a name kept for a picture (none of its legends has room for more).
MAX_NAME = 64
_RTL = frozenset({"R", "AL"})
_STRONG = frozenset({"L", "R", "AL"})


@dataclass(frozen=True)
class Face:
    """One font of the chain: a file (and its index in a collection) and the code points it maps."""

    path: str | None  # None: Pillow's built-in font (the last resort, when the Noto packages are missing)
    index: int
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def has(self, cp: int) -> bool:
        i = bisect.bisect_right(self.starts, cp) - 1
        return i >= 0 and cp <= self.ends[i]

    def font(self, px: int) -> Font:
        return _load(self.path, self.index, px)


# ---- the fonts' character maps (the OpenType 'cmap' table, formats 4 and 12) ------------------
def _merge(pairs: Iterable[tuple[int, int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Inclusive ranges, sorted and joined where they touch or overlap."""
    starts: list[int] = []
    ends: list[int] = []
    for start, end in sorted(pairs):
        if ends and start <= ends[-1] + 1:
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return tuple(starts), tuple(ends)


def read_cmap(path: str | Path, index: int = 0) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The code points a font file maps to a glyph, as sorted ranges ``(starts, ends)`` (inclusive);
    ``index``: the face in a collection (.ttc)."""
    with open(path, "rb") as f:
        def at(offset: int, size: int) -> bytes:
            f.seek(offset)
            data = f.read(size)
            if len(data) != size:
                raise ValueError(f"{path}: truncated font file")
            return data

        base = 0
        if at(0, 4) == b"ttcf":
            count = struct.unpack(">I", at(8, 4))[0]
            if not 0 <= index < count:
                raise ValueError(f"{path}: no face {index} in a collection of {count}")
            base = struct.unpack(">I", at(12 + 4 * index, 4))[0]
        num_tables = struct.unpack(">H", at(base + 4, 2))[0]
        records = at(base + 12, 16 * num_tables)
        cmap = next((struct.unpack(">I", records[i + 8:i + 12])[0] for i in range(0, len(records), 16)
                     if records[i:i + 4] == b"cmap"), None)
        if cmap is None:
            raise ValueError(f"{path}: no character map")
        n = struct.unpack(">H", at(cmap + 2, 2))[0]
        subtables = {}
        for i in range(n):
            platform, encoding, offset = struct.unpack(">HHI", at(cmap + 4 + 8 * i, 8))
            fmt = struct.unpack(">H", at(cmap + offset, 2))[0]
            subtables[(platform, encoding, fmt)] = cmap + offset
        for key in ((3, 10, 12), (0, 6, 12), (0, 4, 12)):
            if key in subtables:
                pos = subtables[key]
                groups = struct.unpack(">I", at(pos + 12, 4))[0]
                data = at(pos + 16, 12 * groups)
                pairs = []
                for g in range(groups):
                    start, end, glyph = struct.unpack(">III", data[12 * g:12 * g + 12])
                    if glyph == 0:  # the first code point of the group maps to .notdef
                        start += 1
                    if start <= end:
                        pairs.append((start, end))
                return _merge(pairs)
        for key in ((3, 1, 4), (0, 3, 4), (0, 4, 4), (0, 1, 4), (0, 0, 4)):
            if key in subtables:
                return _merge((cp, cp) for cp in _format4(at, subtables[key]))
    raise ValueError(f"{path}: no Unicode character map")


def _format4(at: Callable[[int, int], bytes], pos: int) -> list[int]:
    length = struct.unpack(">H", at(pos + 2, 2))[0]
    data = at(pos, length)
    seg = struct.unpack(">H", data[6:8])[0] // 2
    ends = struct.unpack(f">{seg}H", data[14:14 + 2 * seg])
    starts = struct.unpack(f">{seg}H", data[16 + 2 * seg:16 + 4 * seg])
    deltas = struct.unpack(f">{seg}h", data[16 + 4 * seg:16 + 6 * seg])
    range_at = 16 + 6 * seg
    offsets = struct.unpack(f">{seg}H", data[range_at:range_at + 2 * seg])
    out = []
    for i in range(seg):
        for cp in range(starts[i], ends[i] + 1):
            if cp == 0xFFFF:
                continue
            if offsets[i] == 0:
                glyph = (cp + deltas[i]) & 0xFFFF
            else:
                addr = range_at + 2 * i + offsets[i] + 2 * (cp - starts[i])
                if addr + 2 > len(data):
                    continue
                glyph = struct.unpack(">H", data[addr:addr + 2])[0]
                if glyph:
                    glyph = (glyph + deltas[i]) & 0xFFFF
            if glyph:
                out.append(cp)
    return out


# ---- the chain -------------------------------------------------------------------------------
def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _collection_index(path: Path, family: str) -> int:
    for i in range(16):
        try:
            if ImageFont.truetype(str(path), 12, index=i).getname()[0] == family:
                return i
        except OSError:
            break
    return 0


@lru_cache(maxsize=1)
def chain() -> tuple[Face, ...]:
    """The fonts, in the order a character looks for one: Noto Sans (Latin, Cyrillic, Greek), the
    Noto Sans of every other script, Noto Sans CJK, the symbols, the emoji.  Only Pillow's built-in
    font when the packages are not installed (said once in the log)."""
    files: list[tuple[Path, int]] = []
    main, cjk = _package_dir("manimgx_fonts"), _package_dir("manimgx_fonts_cjk")
    if main is not None:
        others = sorted(p for p in main.glob("NotoSans*.ttf")
                        if not p.name.startswith(("NotoSans[", "NotoSans-", "NotoSansSymbols")))
        files += [(p, 0) for p in [main / "NotoSans[wght].ttf", *others]]
    if cjk is not None:
        files += [(p, _collection_index(p, CJK_FACE)) for p in sorted(cjk.glob("NotoSansCJK*"))]
    if main is not None:
        files += [(main / "NotoSansSymbols[wght].ttf", 0), (main / "NotoEmoji[wght].ttf", 0)]
    faces = []
    for path, index in files:
        try:
            faces.append(Face(str(path), index, *read_cmap(path, index)))
        except (OSError, ValueError) as e:
            log.warning("Font %s left out of the pictures' fonts: %s", path, e)
    if main is None or cjk is None:
        log.warning("The Noto fonts of requirements.txt (manimgx-fonts, manimgx-fonts-cjk) are not both installed: "
                    "letters of the scripts they cover are left out of names in pictures")
    if not faces:
        faces.append(Face(None, 0, *BUILT_IN))
    return tuple(faces)


RAQM = features.check("raqm")


@lru_cache(maxsize=64)
def _load(path: str | None, index: int, px: int) -> Font:
    if path is None:
        return ImageFont.load_default(px)
    engine = ImageFont.Layout.RAQM if RAQM else ImageFont.Layout.BASIC
    font = ImageFont.truetype(path, px, index=index, layout_engine=engine)
    try:
        axes = font.get_variation_axes()
    except OSError:  # not a variable font
        axes = []
    if axes:
        font.set_variation_by_axes([WEIGHT if a.get("name") == b"Weight" else a["default"] or 0 for a in axes])
    return font


def primary(px: int) -> Font:
    """The chain's first font at ``px`` pixels: for text known to be Latin (numbers, labels)."""
    return chain()[0].font(px)


# ---- runs: consecutive characters drawn with one font, in one direction ------------------------
@dataclass(frozen=True)
class Run:
    text: str
    face: Face
    rtl: bool


def _direction(ch: str) -> str:
    return unicodedata.bidirectional(ch)


def one_line(text: str) -> str:
    """``text`` as one line the fonts can lay out: each line or paragraph break, tab or other space
    is a plain space; control characters, format characters (but an emoji's joiners and tags),
    surrogates, private-use and unassigned code points are left out; each character keeps at most
    :data:`MAX_MARKS` combining marks.  (A paragraph separator or a carriage return alone makes
    Pillow's Raqm layout fail.)"""
    out: list[str] = []
    marks = 0
    for ch in unicodedata.normalize("NFC", text):
        category = unicodedata.category(ch)
        if ch.isspace() or category in ("Zs", "Zl", "Zp"):
            out.append(" ")
            marks = 0
        elif category in ("Cc", "Cs", "Co", "Cn") or (category == "Cf" and ord(ch) not in _KEPT_FORMAT):
            continue
        elif category.startswith("M"):
            if marks < MAX_MARKS:
                out.append(ch)
            marks += 1
        else:
            out.append(ch)
            if ord(ch) not in _ATTACHED:
                marks = 0
    return "".join(out)


def runs(text: str) -> list[Run]:
    """``text`` cut into runs of one font each, in logical order (as :func:`one_line` makes it);
    characters no font has are gone."""
    faces = chain()
    out: list[tuple[list[str], Face]] = []
    for ch in one_line(text):
        cp = ord(ch)
        current = out[-1][1] if out else None
        if cp in _ATTACHED or unicodedata.category(ch).startswith("M"):
            if current is not None and current.has(cp):
                out[-1][0].append(ch)
            continue  # a mark or a selector alone, or one its base's font lacks: left out
        if ch.isspace():
            # A space is a run of its own, in the first font (an emoji font's is as wide as an
            # emoji), so that words of either direction are ordered around it.
            if faces[0].has(cp):
                out.append(([ch], faces[0]))
            continue
        if current is not None and not out[-1][0][-1].isspace() and _direction(ch) not in _STRONG \
                and current.has(cp):
            out[-1][0].append(ch)  # a punctuation mark stays in the run it is in
            continue
        face = next((f for f in faces if f.has(cp)), None)
        if face is None:
            continue
        if face is current and not out[-1][0][-1].isspace():
            out[-1][0].append(ch)
        else:
            out.append(([ch], face))
    return [Run("".join(chars), face, any(_direction(c) in _RTL for c in chars)) for chars, face in out]


def visual(items: Sequence[Run]) -> list[Run]:
    """The runs in the order they are drawn from left to right: the paragraph's direction is its
    first strong character's; runs against it are reversed as a block (rule L2 of the bidirectional
    algorithm on run levels), and a run with no strong character takes its neighbours' direction."""
    strong = [next((_direction(c) for c in r.text if _direction(c) in _STRONG), None) for r in items]
    first = next((d for d in strong if d is not None), "L")
    base = 1 if first in _RTL else 0
    levels = []
    for i, d in enumerate(strong):
        if d is None:
            before = next((strong[j] for j in range(i - 1, -1, -1) if strong[j] is not None), None)
            after = next((strong[j] for j in range(i + 1, len(strong)) if strong[j] is not None), None)
            d = before if before is not None and (before in _RTL) == (after in _RTL if after else before in _RTL) \
                else None
        if d is None:
            levels.append(base)
        elif d in _RTL:
            levels.append(1)
        else:
            levels.append(2 if base else 0)
    order = list(range(len(items)))
    for level in range(max(levels, default=0), 0, -1):
        i = 0
        while i < len(order):
            if levels[order[i]] >= level:
                j = i
                while j < len(order) and levels[order[j]] >= level:
                    j += 1
                order[i:j] = reversed(order[i:j])
                i = j
            else:
                i += 1
    return [items[i] for i in order]


def _run_text(run: Run) -> str:
    # Without Raqm, Pillow lays out left to right: a right-to-left run is drawn from its end.
    return run.text[::-1] if run.rtl and not RAQM else run.text


def _raqm_direction(run: Run) -> str | None:
    """The run's direction for Raqm (None, Pillow's default, without it or in the built-in font)."""
    return ("rtl" if run.rtl else "ltr") if RAQM and run.face.path is not None else None


def text_length(text: str, px: int) -> float:
    """How wide ``text`` is drawn at ``px`` pixels."""
    return sum(r.face.font(px).getlength(_run_text(r), direction=_raqm_direction(r)) for r in runs(text))


def fit(text: str, px: int, width: float) -> str:
    """``text``, or as much of its start as fits ``width`` pixels followed by an ellipsis."""
    if text_length(text, px) <= width:
        return text
    lo, hi = 0, len(text)  # the longest start that fits with the ellipsis: lo fits, hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if text_length(text[:mid] + ELLIPSIS, px) <= width:
            lo = mid
        else:
            hi = mid
    return text[:lo].rstrip() + ELLIPSIS


def ink(text: str, px: int) -> Image.Image | None:
    """What drawing ``text`` at ``px`` pixels puts on a picture, cropped to its ink (a mask), or
    ``None`` when it draws nothing: the glyphs of the fonts actually used, not their character
    maps (a font may map a character to an empty glyph, such as the Hangul filler)."""
    img = Image.new("L", (int(text_length(text, px)) + 2 * px, 4 * px), 0)
    draw_text(ImageDraw.Draw(img), (px, px), text, px, 255)
    box = img.getbbox()
    return None if box is None else img.crop(box)


def drawable(name: str) -> str:
    """What of ``name`` the fonts draw, on one line: characters no font has left out, spaces
    collapsed, at most :data:`MAX_NAME` characters."""
    kept = "".join(r.text for r in runs(name[:MAX_NAME * (MAX_MARKS + 1) * 4]))
    return " ".join(kept.split())[:MAX_NAME].strip()


def picture_names(names: Sequence[str], px: int, rooms: float | Sequence[float]) -> list[str]:
    """The players' names as a picture shows them, each cut to its room (``rooms``: pixels, one for
    all or one per player) at ``px`` pixels: what the fonts can draw of each (:func:`drawable`),
    "Player 3" for a name with nothing visible left, and a number after a name that would look
    exactly like an earlier one ("Ann", "Ann (2)") — as drawn, so look-alikes from different
    scripts and names cut to the same start are told apart too."""
    return list(_picture_names(tuple(names), px, tuple(rooms) if isinstance(rooms, Sequence) else
                               (float(rooms),) * len(names)))


@lru_cache(maxsize=64)
def _picture_names(names: tuple[str, ...], px: int, rooms: tuple[float, ...]) -> tuple[str, ...]:
    out: list[str] = []
    seen: set[tuple[tuple[int, int], bytes]] = set()
    for i, (name, room) in enumerate(zip(names, rooms, strict=True)):
        base = drawable(name)
        if not base or ink(base, px) is None:
            base = f"Player {i + 1}"
        shown, n = fit(base, px, room), 1
        while True:
            mask = ink(shown, px)
            look = (mask.size, mask.tobytes()) if mask is not None else ((0, 0), b"")
            if look not in seen:
                break
            n += 1
            suffix = f" ({n})"
            shown = fit(base, px, room - text_length(suffix, px)) + suffix
        seen.add(look)
        out.append(shown)
    return tuple(out)


def draw_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, px: int, fill: Ink,
              anchor: str = "la") -> float:
    """Draw ``text`` at ``xy`` with the chain's fonts at ``px`` pixels; returns its width.
    ``anchor``: ``"la"`` (``xy`` is the left end of the first font's ascender line, Pillow's
    default) or ``"ls"`` (the left end of the baseline)."""
    x, y = xy
    if anchor == "la":
        first = primary(px)
        assert isinstance(first, ImageFont.FreeTypeFont)  # (Pillow's built-in font is one too, since 10.1)
        y += first.getmetrics()[0]
    elif anchor != "ls":
        raise ValueError(f"anchor {anchor!r}: only 'la' and 'ls'")
    start = x
    for run in visual(runs(text)):
        font = run.face.font(px)
        s = _run_text(run)
        draw.text((x, y), s, font=font, fill=fill, anchor="ls", direction=_raqm_direction(run))
        x += font.getlength(s, direction=_raqm_direction(run))
    return x - start
