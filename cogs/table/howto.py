"""**How to play**: a game's quick start in five lines — its four rule-book lines (the game's
``GameSpec.quick_start``, games/<name>/__init__.py) and the way to the full rules.  ``/game rules`` stays
the rule book.  Said in the language of the person who asked (``locale``: words.resolve)."""

from __future__ import annotations

import engine
import words
from cogs.table import options
from words import ENGLISH, N_


def howto_text(game: str, rules_url: str | None = None, locale: str = ENGLISH) -> str:
    """The quick start of ``game`` (a registered game's name), as the ephemeral answer says it; the
    way to the full rules is what a person in Discord can open: the command, and the rule book's
    page when the operator named one (``DECKHAND_RULES_URL``).  The quick start's lines are data
    (English msgids, extracted from the registry: tools/catalogs.py), translated here."""
    spec = engine.get(game)
    _ = words.make_(locale)
    link = options.rule_book_link(rules_url, _(N_(", or the rule book: "))) if rules_url else ""
    lines = [_(N_("**How to play {title}**"), title=_(spec.game.title)),
             *(_(line) for line in spec.quick_start),
             _(N_("Full rules: `/game rules game:{name}`{link}."), name=spec.name, link=link)]
    return "\n".join(lines)
