"""What the game-over summary carries besides its text: everyone's rating change and one picture.

The listener calls :func:`add_rating_changes` once per finished game before it sends the summary
(the runtime has stored the results by then: a quick database step), and
:func:`attach_picture_later` after: the chart is drawn in a worker thread within
:data:`CHART_BUDGET` seconds and attached to the summary with one edit.  Either may fail — the text
summary stands on its own.
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Protocol

import discord

import words
from cogs.pictures.chart import Series, score_chart, score_series
from cogs.table import render
from cogs.table.render import Rendered
from tables.history.ratings import Change
from tables.history.replay import GameRecord
from tables.history.stats import absent
from tables.table import Table
from words import N_

log = logging.getLogger(__name__)

CHART_BUDGET = 5.0  # seconds: a busy machine sends the summary without its picture
CHART_NAME = "scores.png"


def change_lines(table: Table, changes: list[Change]) -> list[str]:
    """``Ann 24.1 → 25.3 (+1.2)`` per person, in seat order; someone absent from the game (left, or
    the AI made most of their moves) is marked: it counted as a loss for them."""
    by_user = {c.user_id: c for c in changes}
    lines = []
    for i, seat in enumerate(table.seats):
        c = by_user.pop(seat.user_id, None) if seat.user_id is not None and not seat.is_ai else None
        if c is None:
            continue
        delta = c.after.mu - c.before.mu
        mark = (" · " + words.translate(table.locale, N_("counted as a loss: left, or the AI played most of it"))
                if absent(table, i) else "")
        lines.append(f"{render.clean(seat.name)} {c.before.mu:.1f} → **{c.after.mu:.1f}** ({delta:+.1f}){mark}")
    return lines


async def picture(table: Table) -> bytes | None:
    """The end-of-game chart, drawn off the event loop within the budget (``None`` if it is not)."""
    try:
        record = GameRecord.of_table(table)
        return await asyncio.wait_for(asyncio.to_thread(score_chart, record, table.locale), CHART_BUDGET)
    except Exception:  # TimeoutError included: the summary goes without a picture
        log.warning("No end-of-game picture for table %s", table.id, exc_info=True)
        return None


def _finished(table: Table, rendered: Rendered) -> bool:
    state = getattr(table, "state", None)
    return (getattr(rendered, "embed", None) is not None and not getattr(table, "ended_early", False)
            and state is not None and state.is_over)


async def add_rating_changes(bot: object, table: Table, rendered: Rendered) -> None:
    """Rate the finished game and add everyone's change to the game-over summary's embed (nothing
    without a database, or when the rating fails: the summary goes out all the same)."""
    if not _finished(table, rendered):
        return
    runtime = getattr(bot, "runtime", None)  # None before setup_hook built it
    ratings = runtime.ratings if runtime is not None else None
    if runtime is None or ratings is None:
        return
    try:
        if table.place != "private" and not (await runtime.servers.settings(table.guild_id)).leaderboard:
            return  # the server's managers chose: its games change no rating (/settings leaderboard)
        lines = change_lines(table, await ratings.rate_table(table))
        if lines and rendered.embed is not None:  # (_finished: it has one)
            rendered.embed.add_field(name=words.translate(table.locale, "Ratings"), value="\n".join(lines)[:1024],
                                     inline=False)
    except Exception:
        log.exception("Could not rate table %s", table.id)


_PENDING: set[asyncio.Task[None]] = set()


class Budget(Protocol):
    """What the picture's edit waits on: the process's RestBudget (or a test's unlimited one)."""

    async def take(self, urgent: bool = False) -> None: ...


def attach_picture_later(budget: Budget, table: Table, message: discord.Message | None, rendered: Rendered,
                         as_text: bool = False) -> None:
    """Draw the chart in a worker and attach it to the summary already sent (one edit per game):
    the summary never waits for the picture, and a picture that fails or runs over its budget is
    simply left out.  ``as_text``: the bot may not attach files there, so the chart is a text
    table in the summary instead (the same one edit)."""
    if message is None or not _finished(table, rendered):
        return
    work = _attach_text(budget, table, message, rendered) if as_text else _attach(budget, table, message, rendered)
    task = asyncio.get_running_loop().create_task(work, name=f"chart-{table.id}")
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)


async def _attach(budget: Budget, table: Table, message: discord.Message, rendered: Rendered) -> None:
    png = await picture(table)
    if png is None or rendered.embed is None:  # (_finished: it has an embed)
        return
    try:
        embed = rendered.embed.copy()
        embed.set_image(url=f"attachment://{CHART_NAME}")
        await budget.take()
        await message.edit(embed=embed, attachments=[discord.File(io.BytesIO(png), filename=CHART_NAME)])
    except Exception:  # the message was deleted, or Discord refused: the text summary stands
        log.warning("Could not attach the picture of table %s", table.id, exc_info=True)


async def _attach_text(budget: Budget, table: Table, message: discord.Message, rendered: Rendered) -> None:
    try:
        record = GameRecord.of_table(table)
        series = await asyncio.wait_for(asyncio.to_thread(score_series, record, table.locale), CHART_BUDGET)
        text = text_chart(series) if series is not None else None
        if series is None or text is None or rendered.embed is None:  # (_finished: it has an embed)
            return
        embed = rendered.embed.copy()
        embed.add_field(name=series.y_label.capitalize() or words.translate(table.locale, "Scores"), value=text,
                        inline=False)
        await budget.take()
        await message.edit(embed=embed)
    except Exception:  # the message was deleted, or Discord refused: the text summary stands
        log.warning("Could not add the text chart of table %s", table.id, exc_info=True)


def text_chart(series: Series, room: int = 1000) -> str | None:
    """The chart as a small table in a code block: one line per player, their score after each
    hand (the latest hands when they do not all fit in an embed field)."""
    names = [name.replace("`", "'")[:12] for name in series.names]
    width = max((len(n) for n in names), default=0)
    steps = series.points[1:] or series.points
    for first in range(len(steps)):
        shown = steps[first:]
        cells = [[_cell(p[seat]) for p in shown] for seat in range(len(names))]
        size = max((len(c) for row in cells for c in row), default=1)
        lines = [("… " if first else "") + " ".join(c.rjust(size) for c in row) for row in cells]
        body = "\n".join(f"{n.ljust(width)}  {line}" for n, line in zip(names, lines, strict=True))
        text = f"```\n{body}\n```"
        if len(text) <= room:
            return text
    return None


def _cell(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"
