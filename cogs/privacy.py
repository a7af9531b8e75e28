"""``/privacy``: what Deckhand keeps about you, a copy of all of it, and "forget me" (docs/privacy.md).

Thin: the runtime's :class:`~tables.privacy.Privacy` reads and deletes; this says it in the asker's
language.  Every answer is ephemeral — nobody else learns that someone looked, took a copy or asked
to be forgotten — and works anywhere the commands do (a server, a DM, a group DM, a server that
never added the bot), since it only answers the interaction.  "Forget me" asks once more with a
button; the button carries nothing but what it does (``dh:forget:yes``): whoever clicks is forgotten,
and only the asker can see it.
"""

from __future__ import annotations

import gzip
import io
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Unpack

import discord
from discord import app_commands
from discord.ext import commands

import words
from cogs.i18n import reading
from cogs.table.arguments import EVERY_INSTALL, EVERYWHERE
from cogs.table.custom_ids import UIItem, let_go, releasing
from cogs.table.render import NO_PINGS, Extras
from tables.privacy import Export
from tables.runtime import Runtime
from words import N_

log = logging.getLogger(__name__)

#: Discord takes attachments up to 10 MiB from a bot; a bigger copy is sent compressed.
ATTACHMENT_LIMIT = 9 * 1024 * 1024
FORGET_TEMPLATE = r"dh:forget:(?P<op>yes|no)"

WHAT_IS_KEPT = N_(
    "**What Deckhand keeps about you**\n"
    "• **Your seats**: your Discord id and the name you had, at every table you sat at, with the moves "
    "of that game, so that it can be replayed.\n"
    "• **Your results**: where you finished each game, your score and how many hints you asked for — "
    "for `/stats` and the leaderboards.\n"
    "• **Your ratings**: one per game in each server or conversation where you played.\n"
    "• **Reviews of your play** that you asked for.\n"
    "Nothing else: no messages, no cards anyone else held.")
KEPT_FOR = N_("Finished games and reviews are deleted after {days} days; results and ratings stay until you ask.")
HOLDS = N_("Deckhand holds {counts} of yours.")
HOW = N_("`/privacy export` gives you a file of all of it; `/privacy forget` deletes it.")
FOR_EVER = N_("This Deckhand deletes nothing by age: finished games and reviews stay until you ask.")
THE_POLICY = N_("The whole privacy policy: {url}")
NO_DATABASE = N_("This Deckhand keeps nothing once a game is over: it runs without a database.")
EXPORT_READY = N_("Here is everything Deckhand keeps about you. Only you can see this message.")
EXPORT_COMPRESSED = N_("Here is everything Deckhand keeps about you, compressed (it is large). "
                       "Only you can see this message.")
ASK_FORGET = N_(
    "**Forget me?** Your results, ratings and reviews will be deleted, everywhere, for good. In games you "
    "played you become “a former player”: the games stay, so the others can still replay them, and "
    "their ratings do not change. This cannot be undone.")
FORGET_YES = N_("Forget me")
FORGET_NO = N_("Keep my data")
KEPT = N_("Nothing was deleted.")
BUSY = N_("You are at a table that is not over yet. Finish the game or leave the table, then ask again "
          "(a game that just ended takes a minute to be put away).")
FORGOTTEN = N_("Done. Deckhand has forgotten you: {results}, {ratings} and {reviews} deleted; "
               "in {games} you are now a former player.")
OOPS = N_("Sorry — that did not work. It has been logged; please try again.")


def _results(locale: str, n: int) -> str:
    return words.ngettext(locale, "{n} result", "{n} results", n)


def _ratings(locale: str, n: int) -> str:
    return words.ngettext(locale, "{n} rating", "{n} ratings", n)


def _reviews(locale: str, n: int) -> str:
    return words.ngettext(locale, "{n} review", "{n} reviews", n)


def _games(locale: str, n: int) -> str:
    return words.ngettext(locale, "{n} game", "{n} games", n)


def policy_url(rules_url: str | None) -> str | None:
    """The privacy policy's page, next to the rule book's (``…/docs/rules.md`` → ``…/docs/privacy.md``)."""
    if rules_url and re.search(r"/rules\.md(?=$|[?#])", rules_url):
        return re.sub(r"/rules\.md(?=$|[?#])", "/privacy.md", rules_url, count=1)
    return None


def export_file(data: Export) -> tuple[discord.File, bool]:
    """The export as an attachment (compressed when it would be too big for Discord)."""
    raw = json.dumps(data, ensure_ascii=False, indent=1).encode()
    if len(raw) <= ATTACHMENT_LIMIT:
        return discord.File(io.BytesIO(raw), filename="deckhand-my-data.json"), False
    packed = gzip.compress(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
    return discord.File(io.BytesIO(packed), filename="deckhand-my-data.json.gz"), True


class ForgetButton(discord.ui.DynamicItem[discord.ui.Button], template=FORGET_TEMPLATE):
    """**Forget me** / **Keep my data** under ``/privacy forget``'s question."""

    def __init__(self, op: str, locale: str = words.ENGLISH) -> None:
        yes = op == "yes"
        super().__init__(discord.ui.Button(
            label=words.translate(locale, FORGET_YES if yes else FORGET_NO),
            style=discord.ButtonStyle.danger if yes else discord.ButtonStyle.secondary,
            custom_id=f"dh:forget:{op}"))
        self.op = op

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: UIItem,
                             match: re.Match[str], /) -> ForgetButton:
        return cls(match["op"])

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        cog = interaction.client.get_cog("PrivacyCog") if isinstance(interaction.client, commands.Bot) else None
        if isinstance(cog, PrivacyCog):
            await cog.on_forget(interaction, self.op == "yes")


def forget_view(locale: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetButton("yes", locale))
    view.add_item(ForgetButton("no", locale))
    return view


class PrivacyCog(commands.Cog):
    """``/privacy kept``, ``/privacy export`` and ``/privacy forget``."""

    privacy = app_commands.Group(name="privacy",
                                 description="What Deckhand keeps about you: see it, copy it, delete it.",
                                 allowed_installs=EVERY_INSTALL, allowed_contexts=EVERYWHERE)

    def __init__(self, runtime: Runtime, *, rules_url: str | None = None,
                 forget_caches: Callable[[list[str]], None] | None = None) -> None:
        self.runtime = runtime
        self.policy = policy_url(rules_url)
        # What other cogs keep of finished games (the replay viewer's steps and pictures): emptied
        # for the games a person was forgotten from, so no cached name outlives them.
        self.forget_caches = forget_caches

    async def _answer(self, interaction: discord.Interaction, text: str, **kw: Unpack[Extras]) -> None:
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_PINGS, **kw)
            else:
                await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_PINGS, **kw)
        except discord.HTTPException:
            log.exception("Could not answer a privacy command")
        finally:
            let_go(kw.get("view"))  # sent: its buttons are rebuilt from their ids when clicked

    @privacy.command(name="kept", description="What Deckhand keeps about you, why, and for how long.")
    async def kept(self, interaction: discord.Interaction) -> None:
        locale = reading.remember(interaction.user.id, interaction.locale)
        if self.runtime.storage is None:
            await self._answer(interaction, words.translate(locale, NO_DATABASE))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            data = await self.runtime.privacy.export(interaction.user.id, locale)
        except Exception:
            log.exception("Could not read what is kept about a person")
            await self._answer(interaction, words.translate(locale, OOPS))
            return
        counts = words.join(locale, [_games(locale, len(data["games"])), _results(locale, len(data["results"])),
                                     _ratings(locale, len(data["ratings"])), _reviews(locale, len(data["reviews"]))])
        retention = self.runtime.retention
        kept_for = (words.translate(locale, KEPT_FOR, days=round(retention / 86400)) if retention
                    else words.translate(locale, FOR_EVER))
        lines = [words.translate(locale, WHAT_IS_KEPT), "", kept_for, words.translate(locale, HOLDS, counts=counts),
                 words.translate(locale, HOW)]
        if self.policy:
            lines.append(words.translate(locale, THE_POLICY, url=self.policy))
        text = "\n".join(lines)
        await self._answer(interaction, text)

    @privacy.command(name="export", description="A file of everything Deckhand keeps about you (only you see it).")
    async def export(self, interaction: discord.Interaction) -> None:
        locale = reading.remember(interaction.user.id, interaction.locale)
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            data = await self.runtime.privacy.export(interaction.user.id, locale)
            file, packed = export_file(data)
        except Exception:
            log.exception("Could not export what is kept about a person")
            await self._answer(interaction, words.translate(locale, OOPS))
            return
        await self._answer(interaction, words.translate(locale, EXPORT_COMPRESSED if packed else EXPORT_READY),
                           file=file)

    @privacy.command(name="forget", description="Delete your results, ratings and reviews; you become a former player.")
    async def forget(self, interaction: discord.Interaction) -> None:
        locale = reading.remember(interaction.user.id, interaction.locale)
        await self._answer(interaction, words.translate(locale, ASK_FORGET), view=forget_view(locale))

    async def on_forget(self, interaction: discord.Interaction, yes: bool) -> None:
        locale = reading.remember(interaction.user.id, interaction.locale)
        if not yes:
            await self._settle(interaction, words.translate(locale, KEPT))
            return
        await interaction.response.defer()  # (the question's message is then edited with the answer)
        try:
            done = await self.runtime.privacy.forget(interaction.user.id)
        except Exception:
            log.exception("Could not forget a person")
            await self._settle(interaction, words.translate(locale, OOPS))
            return
        if done.busy:
            await self._settle(interaction, words.translate(locale, BUSY))
            return
        reading.forget(interaction.user.id)
        if self.forget_caches is not None:
            self.forget_caches(done.tables)
        await self._settle(interaction, words.translate(
            locale, FORGOTTEN, results=_results(locale, done.results), ratings=_ratings(locale, done.ratings),
            reviews=_reviews(locale, done.reviews), games=_games(locale, len(done.tables))))

    # ---- a server that removes Deckhand: its data goes after a grace period (tables/privacy.py) ----
    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self._note(lambda: self.runtime.privacy.server_left(guild.id), "removed")

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self._note(lambda: self.runtime.privacy.server_back(guild.id), "added")

    async def _note(self, noting: Callable[[], Awaitable[object]], what: str) -> None:
        """Note that a server ``what`` (removed, added) Deckhand; a failure is logged, never raised."""
        try:
            await noting()
        except Exception:
            log.exception("Could not note that a server %s Deckhand", what)

    async def _settle(self, interaction: discord.Interaction, text: str) -> None:
        """The question's message says what happened, its buttons gone."""
        try:
            if interaction.response.is_done():
                await interaction.edit_original_response(content=text, view=None)
            else:
                await interaction.response.edit_message(content=text, view=None)
        except discord.HTTPException:
            log.exception("Could not answer a forget-me button")
