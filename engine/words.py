"""Counts and echoes in the words a person reads, the one place every layer takes them from: the
engine's refusals, the runtime's sentences and the cogs' screens.

``plural`` makes a count agree with its noun (``1 point``, ``2 points``; a whole float reads as an
integer: ``1.0`` is ``1 point``); ``echo`` cuts what a person typed before an answer repeats it.
"""

from __future__ import annotations

ECHO = 24  # the most characters of what a person typed that an answer repeats back


def number(v: object) -> str:
    """``2`` for 2.0, ``0.5`` for 0.5."""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def plural(n: object, word: str, words: str | None = None) -> str:
    """``1 card``, ``2 cards``, ``0.5 seconds``; ``words`` for a plural that is not ``word`` + s
    (``1 copy``, ``2 copies``)."""
    shown = number(n)
    return f"{shown} {word if shown in ('1', '-1') else (words or word + 's')}"


def echo(text: object, most: int = ECHO) -> str:
    """What a person typed, as an answer may repeat it: at most ``most`` characters, then "…" — a
    pasted novel never makes an answer longer than Discord takes."""
    s = str(text)
    return s if len(s) <= most else s[:most - 1] + "…"
