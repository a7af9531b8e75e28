"""Card faces: every face drawn, 128x128 PNG under Discord's emoji size limit, same bytes every
run, no two faces alike, emoji names Discord accepts."""

from __future__ import annotations

import io
import re
import subprocess
import sys

from PIL import Image

from cogs.pictures import faces


def test_every_face_is_a_small_square_png() -> None:
    drawn = faces.all_faces()
    assert len(drawn) == 52 + 2 + 13 + 12 + 1
    for code, png in drawn.items():
        img = Image.open(io.BytesIO(png))
        assert img.format == "PNG", code
        assert img.size == (128, 128), code
        assert len(png) <= faces.MAX_BYTES, code


def test_faces_are_deterministic_and_distinct() -> None:
    first, second = faces.all_faces(), faces.all_faces()
    assert first == second
    # Compare pixels, not only bytes: two faces must look different.
    pixels = {code: Image.open(io.BytesIO(png)).tobytes() for code, png in first.items()}
    assert len(set(pixels.values())) == len(pixels)


def test_drawing_is_the_same_in_a_fresh_process() -> None:
    code = "import hashlib; from cogs.pictures import faces; print(hashlib.sha256(faces.draw_face('QS')).hexdigest())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    import hashlib

    assert out == hashlib.sha256(faces.draw_face("QS")).hexdigest()


def test_colours_follow_the_suits() -> None:
    def ink(code: str) -> tuple[int, int, int]:
        img = Image.open(io.BytesIO(faces.draw_face(code))).convert("RGB")
        # The suit's centre, where the shape is solid.
        return img.getpixel((64, 100))  # type: ignore[return-value]

    r, g, b = ink("QH")
    assert r > 150 and g < 80
    r, g, b = ink("QS")
    assert r < 80 and g < 80


def test_emoji_names_fit_discord_and_follow_the_art() -> None:
    drawn = faces.all_faces()
    names = {faces.emoji_name(c, png) for c, png in drawn.items()}
    assert len(names) == len(drawn)
    for name in names:
        assert re.fullmatch(r"[A-Za-z0-9_]{2,32}", name), name
    assert faces.emoji_name("QS", b"a") != faces.emoji_name("QS", b"b")


def test_contact_sheet_holds_every_face() -> None:
    sheet = Image.open(io.BytesIO(faces.contact_sheet(faces.all_faces())))
    assert sheet.width >= 13 * 128 and sheet.height > 7 * 128
