"""Whose language a screen is drawn in (issue 31), said once around a render instead of through every
renderer's signature.

What the whole table reads (the table message, lobby, thread posts, pings, summaries, standings) is
drawn in ``table.locale``; what one person reads (their hand view, a refusal, an ephemeral answer)
in that person's client language.  The entry points say which: :func:`cogs.table.renderers.table_message`
and the other public ones draw inside ``reading(table.locale)``, a person's views inside
``reading(person's locale)``; a renderer asks :func:`lang` (``_ = reading.tr(table)``).  Without a
reader set, the table's language (or English) is read.

Each person's language is the one their client sent with their last interaction
(:func:`remember`, called for every interaction the cog answers): a view the bot redraws without an
interaction of theirs (a live hand view, a nudge sent only to them) reads it, and the table's
language before they ever clicked (after a restart, say).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import words

_READER: ContextVar[str | None] = ContextVar("reader", default=None)
#: Each person's client language, as their last interaction said (user id → catalog).
_PEOPLE: dict[int, str] = {}
_PEOPLE_MAX = 100_000  # (a bound all the same: the oldest go first)


@contextlib.contextmanager
def reading(locale: str | None) -> Iterator[None]:
    """Draw in ``locale`` (a catalog of words/) inside the block.  The games' own words speak through
    ``words.speaking`` (issue 31's games slice): it is entered too, once words/ has it, so a game's
    renderer called inside speaks the same language."""
    token = _READER.set(locale)
    speaking = getattr(words, "speaking", None)
    try:
        if locale is not None and speaking is not None:
            with speaking(locale):
                yield
        else:
            yield
    finally:
        _READER.reset(token)


def lang(table: object = None) -> str:
    """The language being drawn in: the reader's, else the table's (anything with a ``locale``), else English."""
    reader = _READER.get()
    if reader is not None:
        return reader
    return getattr(table, "locale", None) or words.ENGLISH


def drawn(msgid: str, /, **fields: Any) -> str:
    """``msgid`` in the language being drawn (:func:`lang`: inside an interaction, the asker's, or the
    server's), its ``{fields}`` filled in: the cogs' ``_`` (``from cogs.i18n.reading import drawn as _``)."""
    return words.translate(lang(), msgid, **fields)


def tr(table: object = None) -> Callable[..., str]:
    """``_`` for a renderer: ``_ = tr(table)``, then ``_("Players")``."""
    return words.make_(lang(table))


def remember(user_id: int | None, locale: object) -> str:
    """Note the client language a person's interaction came with; returns its catalog."""
    lang_ = words.resolve(locale)
    if user_id is not None and _PEOPLE.get(user_id) != lang_:
        if len(_PEOPLE) >= _PEOPLE_MAX:
            _PEOPLE.pop(next(iter(_PEOPLE)))
        _PEOPLE[user_id] = lang_
    return lang_


def forget(user_id: int) -> None:
    """A person had Deckhand forget them (cogs/privacy.py): their language is not kept either."""
    _PEOPLE.pop(user_id, None)


def of_person(user_id: int | None, fallback: str = words.ENGLISH) -> str:
    """A person's language: their client's as last seen, else ``fallback`` (the table's)."""
    return _PEOPLE.get(user_id, fallback) if user_id is not None else fallback


def of_seat(table: object, seat: int) -> str:
    """The language of the person in ``seat`` (their hand view's), else the table's."""
    seats = getattr(table, "seats", ())
    user = seats[seat].user_id if 0 <= seat < len(seats) else None
    return of_person(user, getattr(table, "locale", None) or words.ENGLISH)
