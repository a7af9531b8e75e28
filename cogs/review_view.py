"""A review of your play, in Discord: ``/game review id:`` and the replay viewer's **Review my play**.

Both answer ephemerally: a refusal at once (not your table, the game still running), else a
deferred "thinking…" while the AI workers review (tables/reviews.py; a stored review answers at
once), then the summary — the three costliest decisions with the better move, in the game's units
— and a menu that opens the replay viewer at any judged decision that cost something (its options'
values are viewer steps: the step right after the move, so the card played is on the table and ◀
shows the moment before it).  The menu is the viewer's own jump menu (``dh:r:{table}:{step}:jump``,
cogs/custom_ids.py), so choosing a decision turns the message into the viewer there.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord

import engine
from cogs import render
from cogs.custom_ids import MAX_OPTIONS, ReplayJump
from engine.review import FINE, MISTAKE, Review
from engine.words import plural
from tables.replay import GameRecord
from tables.reviews import Reviews, places, summary


def review_message(record: GameRecord, found: Review, where: dict[int, str]) -> tuple[discord.Embed,
                                                                                      discord.ui.View | None]:
    """The summary embed, and the menu of the decisions to look at (None when there are none)."""
    title = engine.get(record.game).game.title
    embed = discord.Embed(title=f"{title} · table {record.id} — review of your play",
                          description="\n".join(summary(record, found, where=where))[:4000],
                          colour=render.FINISHED_COLOUR)
    if not found.searched:
        return embed, None
    low, high = found.thresholds
    unit = found.units.removesuffix("s")  # the units are named in the plural ("points", "tricks", "places")
    embed.set_footer(text="Each decision is judged from what you could see then, never from the cards "
                          f"shown later. An inaccuracy costs {plural(low, unit, found.units)} or more, a mistake "
                          f"{plural(high, unit, found.units)} or more.")
    marked = [d for d in found.judged if d.mark != FINE]
    if not marked:
        return embed, None
    # The costliest first when there are more than the menu holds, then in the game's order.
    shown = sorted(sorted(marked, key=lambda d: -d.loss)[:MAX_OPTIONS], key=lambda d: d.step)
    options = [discord.SelectOption(
        label=f"{where.get(d.step, f'Move {d.step + 1}')} — {'mistake' if d.mark == MISTAKE else 'inaccuracy'}"[:100],
        description=f"about {d.loss:.1f} {found.units} lost"[:100], value=str(d.step + 1)) for d in shown]
    view = discord.ui.View(timeout=None)
    select = ReplayJump(record.id, 0, options)
    select.item.placeholder = "Look at a decision in the replay…"
    view.add_item(select)
    view.stop()  # dispatched by its id (DynamicItem): nothing to keep per message
    return embed, view


class ReviewClicks:
    """``/game review`` and the viewer's **Review my play** (a mixin of cogs.game.GameCog)."""

    runtime: Any

    async def review_reply(self, interaction: discord.Interaction, table_id: str) -> None:
        guild = self._guild(interaction)  # type: ignore[attr-defined]
        record = await self.runtime.history(table_id, guild)
        Reviews.seat_of(record, interaction.user.id)  # refuse at once: not yours, or not over
        # A review not yet stored runs in the AI workers for up to a couple of minutes: acknowledge first.
        await interaction.response.defer(ephemeral=True, thinking=True)
        record, found = await self.runtime.review(record.id, guild, interaction.user.id)
        # Where each decision was (one replay of the log): off the loop, like the review itself.
        where = await asyncio.to_thread(places, record, [d.step for d in found.decisions])
        embed, view = review_message(record, found, where)
        await self._say(interaction, None, embed=embed, **({"view": view} if view is not None else {}))  # type: ignore[attr-defined]
