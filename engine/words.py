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


# ---- sentences said to a person in their own language ---------------------------------------------
class Phrase(str):
    """A sentence of the rules a person reads (a refusal, a hint's reason) that the Discord side can
    say in the reader's language, while the engine stays free of catalogs: the string itself is
    the English sentence (logs, tests and the programs' protocol read it), and :attr:`msgid` (marked
    ``N_`` where it is written, so tools/catalogs.py extracts it into the game's domain),
    :attr:`plural`/:attr:`n` and :attr:`fields` are what ``words.say`` translates it from.  A
    field is a card (said as the reader's label), a :class:`Suit`, a number, another phrase, a list
    of these, or text said as it is (what a person typed)."""

    msgid: str
    plural: str | None
    n: int | None
    fields: dict[str, object]


class Suit(str):
    """A suit inside a phrase: its English name (``spades``, or ``spade`` for one card of it), and
    its code, which the reader's language names (words/cards.py)."""

    code: str


def suit(code: str, english: str) -> Suit:
    s = Suit(english)
    s.code = code
    return s


class Either(tuple):
    """Choices inside a phrase, said ``a, b or c`` in each language (a plain list is ``a, b and c``)."""


def _english(v: object) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, Either):
        return " or ".join(_english(x) for x in v)
    if isinstance(v, (list, tuple)):
        items = [_english(x) for x in v]
        return " and ".join(items) if len(items) < 3 else ", ".join(items[:-1]) + " and " + items[-1]
    label = getattr(v, "label", None)
    return label if isinstance(label, str) else number(v)


def said(msgid: str, /, *, english: str | None = None, **fields: object) -> Phrase:
    """``msgid`` with its ``{fields}``: the English sentence, translatable (``english``: the English
    text when it is not ``msgid`` filled in, e.g. a count in words)."""
    p = Phrase(english if english is not None else
               msgid.format(**{k: _english(v) for k, v in fields.items()}) if fields else msgid)
    p.msgid, p.plural, p.n, p.fields = msgid, None, None, fields
    return p


def said_n(singular: str, plural_: str, n: int, /, *, english: str | None = None, **fields: object) -> Phrase:
    """A phrase whose form follows the count ``n`` (``{n}`` in it), under each language's plural rule."""
    text = singular if n == 1 else plural_
    p = Phrase(english if english is not None else
               text.format(n=n, **{k: _english(v) for k, v in fields.items()}))
    p.msgid, p.plural, p.n, p.fields = singular, plural_, n, fields
    return p
