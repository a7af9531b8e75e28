"""What the game-over summary carries besides its text: everyone's rating change and one picture.

Called once per finished game by the listener, before the summary is sent.  The ratings are updated
here (the runtime has stored the results by then); the chart is drawn in a worker thread within a
time budget.  Either may fail or be slow — the summary then goes out without it, never later than
:data:`CHART_BUDGET` seconds.
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

import discord

from cogs import render
from cogs.chart import score_chart
from tables.ratings import Change, Ratings
from tables.replay import GameRecord

log = logging.getLogger(__name__)

CHART_BUDGET = 5.0  # seconds: a busy machine sends the summary without its picture
CHART_NAME = "scores.png"
_RATINGS: dict[int, Ratings] = {}  # one per storage (so one lock per database)


def ratings_for(storage: Any) -> Ratings | None:
    """The ratings kept in ``storage`` (``None`` without a database that keeps them)."""
    if storage is None or not hasattr(storage, "save_ratings"):
        return None
    r = _RATINGS.get(id(storage))
    if r is None or r.storage is not storage:
        r = _RATINGS[id(storage)] = Ratings(storage)
    return r


def change_lines(table: Any, changes: list[Change]) -> list[str]:
    """``Ann 24.1 → 25.3 (+1.2)`` per person, in seat order."""
    by_user = {c.user_id: c for c in changes}
    lines = []
    for seat in table.seats:
        c = by_user.pop(seat.user_id, None) if seat.user_id is not None and not seat.is_ai else None
        if c is None:
            continue
        delta = c.after.mu - c.before.mu
        lines.append(f"{render.clean(seat.name)} {c.before.mu:.1f} → **{c.after.mu:.1f}** ({delta:+.1f})")
    return lines


async def picture(table: Any) -> bytes | None:
    """The end-of-game chart, drawn off the event loop within the budget (``None`` if it is not)."""
    try:
        record = GameRecord.of_table(table)
        return await asyncio.wait_for(asyncio.to_thread(score_chart, record), CHART_BUDGET)
    except Exception:  # TimeoutError included: the summary goes without a picture
        log.warning("No end-of-game picture for table %s", table.id, exc_info=True)
        return None


async def end_of_game_extras(bot: Any, table: Any, rendered: Any) -> dict[str, Any]:
    """Add the rating changes and the chart to the game-over summary's embed; returns the extra
    keyword arguments for ``send`` (the file)."""
    embed = getattr(rendered, "embed", None)
    if embed is None or getattr(table, "ended_early", False) or table.state is None or not table.state.is_over:
        return {}
    ratings = ratings_for(getattr(getattr(bot, "runtime", None), "storage", None))
    if ratings is not None:
        try:
            lines = change_lines(table, await ratings.rate_table(table))
            if lines:
                embed.add_field(name="Ratings", value="\n".join(lines)[:1024], inline=False)
        except Exception:
            log.exception("Could not rate table %s", table.id)
    png = await picture(table)
    if png is None:
        return {}
    embed.set_image(url=f"attachment://{CHART_NAME}")
    return {"file": discord.File(io.BytesIO(png), filename=CHART_NAME)}
