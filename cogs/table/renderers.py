"""The calls that pick a renderer by the table's game, and the import of every game's screens.

Each game registers its renderer with the rest of its screens next to it (``games/<name>/screens.py``,
see cogs/table/screens.py); ``games.load_screens()`` here imports every game's, and ``cogs/__init__.py``
imports this module, so importing anything of :mod:`cogs` registers every game.  The renderers
import :mod:`cogs.table.render` (the base class) and nothing imports them back by name, so the imports run
one way; a game is offered by ``/game new`` once it has its screens.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import games
from cogs.i18n.reading import lang, of_seat, reading
from cogs.pictures.emoji import text_only
from cogs.table import screens
from cogs.table.render import MAX_CONTENT, Rendered, embed_fits
from cogs.table.renderer import GENERIC, Renderer
from engine.core import Action, Event
from tables.live import SeatView
from tables.table import Table

games.load_screens()


class _Renderers(Mapping[str, Renderer]):
    """Every game's renderer by name: a view of the registered screens (cogs/table/screens.py)."""

    def __getitem__(self, game: str) -> Renderer:
        found = screens.get(game)
        if found is None:
            raise KeyError(game)
        return found.renderer

    def __iter__(self) -> Iterator[str]:
        return iter(screens.registered())

    def __len__(self) -> int:
        return len(screens.registered())


RENDERERS: Mapping[str, Renderer] = _Renderers()


def renderer_for(game: str) -> Renderer:
    """The game's renderer, or the generic one: a new game shows up before it gets its own."""
    found = screens.get(game)
    return found.renderer if found is not None else GENERIC


def action_label(action: Action, game: str | None = None, locale: str | None = None) -> str:
    """How a legal action reads on a button, in a menu or in autocomplete — in the words of the
    game's renderer (``three 5s``), else generically: ``Q♠`` for a plain card play, the
    kind followed by card labels and words otherwise (``pass 2♣ 3♦ 4♥``); in ``locale`` (the person's),
    else in the language being drawn (cogs/i18n/reading.py)."""
    with reading(locale or lang()):
        return (renderer_for(game) if game else GENERIC).action_label(action)


# The language of each call (docs/interfaces.md): what the whole table reads is drawn in the table's
# stored locale unless ``locale`` says otherwise; what one person reads in theirs.  Inside,
# ``cogs/i18n/reading.py`` says it once, and enters ``words.speaking`` for the games' own words.
def table_message(table: Table, locale: str | None = None) -> Rendered:
    """The public table message, within Discord's limits: drawn again with its cards as text when
    their emoji markup would make it too long.  In the table's language (``locale``: a watcher's
    private copy, in the watcher's)."""
    r = renderer_for(table.game)
    with reading(locale or table.locale):  # what the whole table reads: the table's language
        rendered = r.table_message(table)
        if not _fits(rendered):
            with text_only():
                rendered = r.table_message(table)
    return rendered


def _fits(rendered: Rendered) -> bool:
    return len(rendered.content or "") <= MAX_CONTENT and (rendered.embed is None or embed_fits(rendered.embed))


def hand_text(sv: SeatView, locale: str | None = None) -> str:
    with reading(locale or of_seat(sv.table, sv.seat)):  # the seat's person's language
        return renderer_for(sv.table.game).hand_text(sv)


def event_text(table: Table, event: Event, locale: str | None = None) -> str | None:
    with reading(locale or table.locale):
        return renderer_for(table.game).event_text(table, event)


def summary(table: Table, events: Sequence[Event], locale: str | None = None) -> Rendered | None:
    with reading(locale or table.locale):
        return renderer_for(table.game).summary(table, events)


def turn_notice(table: Table, seats: Sequence[int], live: bool = False, locale: str | None = None) -> str:
    """The turn ping; ``live``: everyone pinged has a hand view the bot keeps current.  A ping in
    the channel: the table's language."""
    with reading(locale or table.locale):
        return renderer_for(table.game).turn_notice(table, seats, live)
