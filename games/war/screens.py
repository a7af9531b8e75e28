"""War's Discord side: its renderer (the base one) and its table option in words, registered only
when War is offered (games/war/__init__.py, ``OFFERED``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from cogs.table import screens
from cogs.table.render import label, seat_name
from cogs.table.renderer import Renderer, game_winners
from cogs.table.screens import Screens, Words, register
from engine.core import Event, unregister
from engine.core import register as register_game
from games.war import OFFERED, SPEC
from games.war.rules import NAME
from tables.table import Table
from words import N_, Speaker

_, n_ = Speaker(NAME).pair()


class WarRenderer(Renderer):
    """The base renderer, with War's own lines in words: a card played, a battle won, the end."""

    unit = "battle"

    def event_text(self, table: Table, event: Event) -> str | None:
        if event.to is not None:
            return None
        who, d = seat_name(table, event.seat), event.data
        if event.kind == "play" and d:
            return _("{who} played {card}.", who=who, card=label(d[0]))
        if event.kind == "trick" and d:
            best = max(d, key=lambda c: c.value)
            return _("{who} won the battle with {card}.", who=who, card=label(best))
        if event.kind == "game_end":
            best, winners = game_winners(table, d)
            return n_("Game over — {winners} won with {n} battle.", "Game over — {winners} won with {n} battles.",
                      best, winners=winners)
        return super().event_text(table, event)

    def own_text(self, table: Table, event: Event) -> str | None:
        if event.kind == "play" and event.data:
            return _("You played {card}.", card=label(event.data[0]))
        return super().own_text(table, event)

    def score_text(self, table: Table, seat: int, score: object) -> str:
        return n_("{n} battle", "{n} battles", int(score)) if isinstance(score, int) else str(score)


SCREENS = Screens(NAME, WarRenderer(), words={"cards": Words(N_("how many cards each player is dealt"),
                                                             lambda v: n_("{n} card each", "{n} cards each", v),
                                                             domain=NAME)})

if OFFERED:
    register(SCREENS)


@contextmanager
def registered() -> Iterator[None]:
    """War is a registered game while this lasts (its engine spec and its screens), then gone.  It
    lives on the Discord side, since it registers the screens too; the tests turn War on with it."""
    register_game(SPEC)
    register(SCREENS)
    try:
        yield
    finally:
        unregister(NAME)
        screens.unregister(NAME)
