"""**How to play**: a game's quick start in five lines — its four rule-book lines (the game's
``GameSpec.quick_start``, games/<name>/__init__.py) and the way to the full rules.  ``/game rules`` stays
the rule book."""

from __future__ import annotations

import engine
from cogs import options


def howto_text(game: str) -> str:
    """The quick start of ``game`` (a registered game's name), as the ephemeral answer says it."""
    spec = engine.get(game)
    lines = [f"**How to play {spec.game.title}**", *spec.quick_start,
             f"Full rules: `/game rules game:{spec.name}`, or the rule book ({options.RULE_BOOK})."]
    return "\n".join(lines)
