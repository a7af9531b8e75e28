"""``/hint`` and the **Hint** button of a hand view: what the strong AI would play for you, and why.

Thin: the runtime gives the hint (searched in the AI pool, from your seat's knowledge only); this
module words it.  The answer is ephemeral — it goes to the person who asked, nobody else.
"""

from __future__ import annotations

import engine
import words as catalog
from cogs.i18n.reading import lang
from cogs.table import renderers
from engine.hints import Hint
from tables.live import SeatView
from tables.table import Table
from words import N_

STRONG = N_("The strong AI's choice, thinking ahead from what you can see")
BUSY = N_("The standard AI's choice (the strong AI was busy just now)")
NORMAL = N_("The standard AI's choice ({title} has no strong AI)")


def hint_text(table: Table, seat_view: SeatView, h: Hint) -> str:
    """``💡 Hint: **9♣** — it can still take a club lead; …`` and where the move comes from."""
    try:
        words = renderers.renderer_for(table.game).action_label(h.action, seat_view)
    except Exception:  # a label is a courtesy: the code still says the move
        words = h.action.code
    loc = lang(table)  # (said to the person who asked: their language, cogs/i18n/reading.py)
    if h.level == "strong":
        source = catalog.translate(loc, STRONG)
    elif "strong" in engine.levels(table.game):
        source = catalog.translate(loc, BUSY)
    else:
        source = catalog.translate(loc, NORMAL, title=catalog.Lazy(engine.get(table.game).game.title))
    reason = catalog.say(loc, h.reason, table.game) if h.reason else h.reason  # the rules' words: the game's domain
    return "💡 " + catalog.translate(loc, N_("**Hint:** **{move}** — {reason}."), move=words, reason=reason) + \
        f"\n-# {source}. " + catalog.translate(loc, N_("Only you see this now; the decisions you asked about are "
                                                      "counted in your stats and shown in the final standings."))
