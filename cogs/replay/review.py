"""A review of your play, in Discord: ``/game review id:`` and the replay viewer's **Review my play**.

Both answer ephemerally: a refusal at once (not your table, the game still running, another review of
yours still in line), a stored review at once, else a waiting line — the review's place in line and
when it should be ready (tables/ai/reviews.py serves reviews first come, first served), and that a
review finished after this message can no longer change (Discord's interaction token lives 15
minutes) is kept and shown at once on the next ask.  The line is edited as the review moves up and
then replaced by the summary — the three costliest decisions with the better move, in the game's
units — and a menu that opens the replay viewer at any judged decision that cost something (its
options' values are viewer steps: the step right after the move, so the card played is on the table
and ◀ shows the moment before it).  The menu is the viewer's own jump menu
(``dh:r:{table}:{step}:jump``, cogs/table/custom_ids.py), so choosing a decision turns the message into the
viewer there.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, TypedDict, Unpack

import discord

import engine
import words
from cogs.i18n.reading import lang
from cogs.live.hand import LIFETIME, MARGIN
from cogs.table import render
from cogs.table.custom_ids import MAX_OPTIONS, ReplayJump, let_go
from engine.review import FINE, MISTAKE, Review
from engine.words import plural
from tables.ai.reviews import ReviewJob, places, summary
from tables.history.replay import GameRecord
from tables.live import TableError
from tables.runtime import Runtime

log = logging.getLogger(__name__)

#: Seconds between two edits of a waiting line whose place in line has not changed.
ESTIMATE_EVERY = 30.0


def waiting_line(table_id: str, place: int, seconds: float, lifetime: float = LIFETIME) -> str:
    """What a person reads while their review waits or runs: its place in line, when it should be
    ready, and that it is kept for the next ask should this message outlive its token."""
    loc = lang()  # (the asker's: cogs/i18n/reading.py)
    _ = words.make_(loc)
    where = (_("Reviewing your play now") if place == 0 else _("Your review is next in line") if place == 1
             else _("Your review is number {n} in line", n=place))
    when = (_("in less than a minute") if seconds < 60
            else words.ngettext(loc, "in about {n} minute", "in about {n} minutes", max(1, round(seconds / 60))))
    within = words.ngettext(loc, "{n} minute", "{n} minutes", round(lifetime / 60))
    return "⏳ " + _("{where}; it should be ready {when}. It is kept once done: if it has not appeared here "
                    "within {within}, ask again with `/game review id:{id}` and it shows at once.",
                    where=where, when=when, within=within, id=table_id)


def kept_line(table_id: str) -> str:
    """The waiting line's last words, when this message can no longer be changed."""
    return "⏳ " + words.translate(lang(), "Your review is still on its way, and this message can no longer show "
                                   "it. It is kept once done: ask again with `/game review id:{id}` and it shows "
                                   "at once.", id=table_id)


def stopped_line(table_id: str) -> str:
    """The waiting line's last words when the bot stops before the review is done."""
    return words.translate(lang(), "Deckhand stopped before your review was done. What was reviewed so far is "
                           "kept: ask again with `/game review id:{id}` in a minute and it carries on from there.",
                           id=table_id)


class Edit(TypedDict, total=False):
    """What an edit of the review's answer changes."""

    content: str | None
    embed: discord.Embed | None
    view: discord.ui.View


async def _first(*waits: Awaitable[object]) -> None:
    """Wait until the first of ``waits`` is done; the others are cancelled."""
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in tasks:
            t.cancel()


def review_message(record: GameRecord, found: Review, where: dict[int, str]) -> tuple[discord.Embed,
                                                                                      discord.ui.View | None]:
    """The summary embed, and the menu of the decisions to look at (None when there are none)."""
    loc = lang()  # (the reader's: the review is theirs alone)
    _ = words.make_(loc)
    title = _(engine.get(record.game).game.title)
    embed = discord.Embed(title=_("{game} · table {id} — review of your play", game=title, id=record.id),
                          description="\n".join(summary(record, found, where=where, locale=loc))[:4000],
                          colour=render.FINISHED_COLOUR)
    if not found.searched:
        return embed, None
    low, high = found.thresholds
    # The units are named in the plural, their first word the counted noun ("points", "cards of lead").
    noun, _sep, rest = found.units.partition(" ")
    unit = " ".join(w for w in (noun.removesuffix("s"), rest) if w)
    embed.set_footer(text=_("Each decision is judged from what you could see then, never from the cards shown "
                            "later. An inaccuracy costs {low} or more, a mistake {high} or more.",
                            low=_(plural(low, unit, found.units)), high=_(plural(high, unit, found.units))))
    marked = [d for d in found.judged if d.mark != FINE]
    if not marked:
        return embed, None
    # The costliest first when there are more than the menu holds, then in the game's order.
    shown = sorted(sorted(marked, key=lambda d: -d.loss)[:MAX_OPTIONS], key=lambda d: d.step)
    units = _(found.units)
    options = [discord.SelectOption(
        label=(where.get(d.step, _("Move {n}", n=d.step + 1)) + " — " +
               (_("mistake") if d.mark == MISTAKE else _("inaccuracy")))[:100],
        description=_("about {loss} {units} lost", loss=format(d.loss, ".1f"), units=units)[:100],
        value=str(d.step + 1)) for d in shown]
    view = discord.ui.View(timeout=None)
    select = ReplayJump(record.id, 0, options)
    select.item.placeholder = _("Look at a decision in the replay…")
    view.add_item(select)
    view.stop()  # dispatched by its id (DynamicItem): nothing to keep per message
    return embed, view


class ReviewClicks:
    """``/game review`` and the viewer's **Review my play** (a mixin of cogs.table.game.GameCog)."""

    # What this mixin uses of the cog (cogs/table/game.py, cogs/table/plumbing.py), declared for the type checker.
    runtime: Runtime

    if TYPE_CHECKING:
        def _guild(self, interaction: discord.Interaction) -> int: ...
        async def _history(self, interaction: discord.Interaction, table_id: str) -> GameRecord: ...
        async def _say(self, interaction: discord.Interaction, text: str | None,
                       **kwargs: Unpack[render.Extras]) -> int | None: ...

    async def review_reply(self, interaction: discord.Interaction, table_id: str) -> None:
        guild = self._guild(interaction)
        record = await self._history(interaction, table_id)  # (GameCog's)
        # Refused at once: not yours, not over, or another review of yours still in line.
        got = await self.runtime.reviews.request(record, guild, interaction.user.id)
        if isinstance(got, Review):  # stored: at once
            await interaction.response.defer(ephemeral=True, thinking=True)
            embed, view = await self._review_message(record, got)
            await (self._say(interaction, None, embed=embed) if view is None
                   else self._say(interaction, None, embed=embed, view=view))
            return
        await self._wait_for_review(interaction, record, got)

    def _token_life(self) -> tuple[float, float]:
        live = getattr(getattr(self, "discord_listener", None), "live", None)
        return (float(getattr(live, "lifetime", LIFETIME)), float(getattr(live, "margin", MARGIN)))

    async def _wait_for_review(self, interaction: discord.Interaction, record: GameRecord, job: ReviewJob) -> None:
        """The waiting line, edited as the review moves up, then the review — while the interaction's
        token lives; after that the review still finishes and is stored for the next ask."""
        reviews, clock = self.runtime.reviews, self.runtime.clock
        lifetime, margin = self._token_life()
        until = clock.now() + lifetime - margin
        seen, place = job.version, reviews.place(job)
        shown = waiting_line(record.id, place, reviews.estimate(job), lifetime)
        await self._say(interaction, shown)
        edited = clock.now()
        while not job.done:
            left = until - clock.now()
            if left <= 0:
                await self._edit_answer(interaction, content=kept_line(record.id))
                return
            await _first(job.wait(seen), clock.sleep(left))
            seen = job.version
            if job.done:
                break
            # A new place at once; a new estimate alone at most every ESTIMATE_EVERY seconds (it
            # moves with each piece judged, by a minute up or down).
            now_place = reviews.place(job)
            line = waiting_line(record.id, now_place, reviews.estimate(job), lifetime)
            if line != shown and clock.now() < until and (now_place != place
                                                         or clock.now() - edited >= ESTIMATE_EVERY):
                shown, place, edited = line, now_place, clock.now()
                await self._edit_answer(interaction, content=line)
        if clock.now() >= until:
            await self._edit_answer(interaction, content=kept_line(record.id))
            return
        if job.future.cancelled():  # the bot is stopping
            await self._edit_answer(interaction, content=stopped_line(record.id))
            return
        try:
            found = job.future.result()
        except TableError as e:
            await self._edit_answer(interaction, content=e.say(lang()))
            return
        embed, view = await self._review_message(record, found)
        await (self._edit_answer(interaction, content=None, embed=embed) if view is None
               else self._edit_answer(interaction, content=None, embed=embed, view=view))

    async def _review_message(self, record: GameRecord, found: Review) -> tuple[discord.Embed, discord.ui.View | None]:
        # Where each decision was (one replay of the log): off the loop, like the review itself.
        where = await asyncio.to_thread(places, record, [d.step for d in found.decisions], lang())
        return review_message(record, found, where)

    async def _edit_answer(self, interaction: discord.Interaction, **fields: Unpack[Edit]) -> None:
        """The answer's fields given (those not given are left as they are)."""
        try:
            await interaction.edit_original_response(allowed_mentions=render.NO_PINGS, **fields)
        except Exception:  # dismissed, the token ran out, the bot stopping: the review is kept all the same
            log.warning("Could not update a review's answer (%s)", interaction.id, exc_info=True)
        finally:
            let_go(fields.get("view"))
