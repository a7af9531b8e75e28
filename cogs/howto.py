"""**How to play**: a game's quick start in five lines — its four rule-book lines (the game's
``GameSpec.quick_start``, engine/__init__.py) and the way to the full rules.  ``/game rules`` stays
the rule book."""

from __future__ import annotations

import engine
from cogs import options


def howto_text(game: str, rules_url: str | None = None) -> str:
    """The quick start of ``game`` (a registered game's name), as the ephemeral answer says it; the
    way to the full rules is what a person in Discord can open: the command, and the rule book's
    page when the operator named one (``DECKHAND_RULES_URL``)."""
    spec = engine.get(game)
    lines = [f"**How to play {spec.game.title}**", *spec.quick_start,
             f"Full rules: `/game rules game:{spec.name}`{options.rule_book_link(rules_url, ', or the rule book: ')}."]
    return "\n".join(lines)
