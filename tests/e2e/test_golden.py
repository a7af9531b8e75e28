"""Golden transcripts: ``make demo DEMO_ARGS="--brief --game G --seed 3"`` for every game a table can
be opened for, as stored in ``tests/golden/<game>.txt``, must not change (issue 35: speed work must
not change behaviour).

The demo runs in-process (``tests.fakediscord.demo.main``: the real bot against the fake Discord),
one game per run, as ``make demo`` would.  Its transcript is compared as main's own runs vary: the
last line (timings) dropped, " (edited)" marks dropped, and each message's block compared in any
order (the tables play at once, so their messages interleave differently from run to run).

A game with no golden file fails, saying how to write one:
``.venv/bin/python -m tests.fakediscord.demo --brief --game G --seed 3 > tests/golden/G.txt``.
"""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path

import pytest

from tests.fakediscord import demo

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def blocks(text: str) -> list[str]:
    """The transcript's blocks (a header line and its indented lines), sorted, timings dropped."""
    lines = text.rstrip("\n").split("\n")[:-1]
    out: list[str] = []
    cur: list[str] = []
    for line in lines:
        line = line.replace(" (edited)", "")
        if not line.startswith("    "):  # a message's header, a person's step, a rule
            if cur:
                out.append("\n".join(cur))
            cur = [line]
        else:
            cur.append(line)
    if cur:
        out.append("\n".join(cur))
    return sorted(out)


def test_blocks_ignore_order_and_timings() -> None:
    a = "rule\n    x\nmsg (edited)\n    y\n12 interactions in 1.0 s\n"
    b = "msg\n    y\nrule\n    x\n9 interactions in 3.0 s\n"
    assert blocks(a) == blocks(b)
    assert blocks(a) != blocks("rule\n    x\nmsg\n    z\nlast\n")


@pytest.mark.parametrize("game", sorted(demo.landed_games()))
def test_demo_transcript_unchanged(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = GOLDEN / f"{game}.txt"
    assert path.exists(), (f"no golden transcript for {game}: .venv/bin/python -m tests.fakediscord.demo "
                           f"--brief --game {game} --seed 3 > tests/golden/{game}.txt")
    code = asyncio.run(demo.main(["--brief", "--game", game, "--seed", "3"]))
    got = capsys.readouterr().out
    assert code == 0, got
    want, have = blocks(path.read_text()), blocks(got)
    if want != have:
        diff = "".join(difflib.unified_diff([x + "\n" for x in want], [x + "\n" for x in have],
                                            "golden", "now"))
        pytest.fail(f"{game}'s demo transcript changed:\n{diff}")
