"""``/settings``: a server's own settings — where tables may be opened, the default speed, house rules
per game, whether games count for the leaderboard (tables/servers.py keeps them, with who changed
what).  Anyone may look (``/settings show``); only a member with Manage Server may change them.

Thin: the options a manager types are read by the same code as ``/game new``'s (cogs/table/options.py),
so house rules that would not open a table are refused with the same sentence; what is shown is said
in plain words, in the asker's language.  ``/game new`` applies them (cogs/table/arguments.py
:func:`house_options`) and the lobby says "House rules".
"""

from __future__ import annotations

import json
import logging
from typing import Unpack

import discord
from discord import app_commands
from discord.ext import commands

import engine
import words
from cogs.i18n import language, reading
from cogs.i18n.reading import drawn as _
from cogs.table import options as table_options
from cogs.table.arguments import (
    EVERY_INSTALL,
    EVERYWHERE,
    GAME_CHOICES,
    SPEED_CHOICES,
    ChoiceText,
    OptionsText,
    parse_options,
)
from cogs.table.render import NO_PINGS
from tables.nights.seasons import PERIODS
from tables.runtime import Runtime
from tables.servers import Changes, Settings
from tables.storage.base import Record
from words import N_

log = logging.getLogger(__name__)

ONLY_IN_A_SERVER = N_("Settings belong to a server: use `/settings` in one.")
NOT_A_MANAGER = N_("Only a member with Manage Server can change this server's settings. "
                   "`/settings show` shows them to everyone.")
NOT_SAVED = N_("Sorry — the settings could not be saved just now. It has been logged; please try again.")
SAVED = N_("Saved. New tables follow it; tables already open keep theirs.")
NO_CHANNEL_GIVEN = N_("Name a channel to add or remove, or choose anywhere.")
GAME_DEFAULT = "default"
SEASONS = {"month": N_("The leaderboard starts a new season every month."),
           "quarter": N_("The leaderboard starts a new season every three months."),
           "none": N_("The leaderboard has no seasons: one board for all time.")}
SEASON_CHOICES = [app_commands.Choice(name="every month", value="month"),
                  app_commands.Choice(name="every three months", value="quarter"),
                  app_commands.Choice(name="never: one board for all time", value="none")]



def describe_house(game: str, raw: dict[str, str]) -> str:
    """House rules in the words the lobby uses ("target score 50 · blitz timers")."""
    full, speed = table_options.read(game, raw)
    said = table_options.changes_line(game, full, speed, table_options.read_ai(game, raw))
    if not table_options.read_ranked(raw):
        said = " · ".join(filter(None, (said, table_options.say(game, "rating", "casual"))))
    return said or _(N_("standard rules"))


def settings_text(settings: Settings, locale: str, server_language: str, changes: list[Record]) -> str:
    """``/settings show``: every setting in plain words, then the last changes and who made them."""
    lines = [_(N_("**This server's settings**"))]
    where = ", ".join(f"<#{c}>" for c in settings.channels)
    lines.append("• " + (_(N_("Tables may be opened in: {channels}."), channels=where) if settings.channels
                         else _(N_("Tables may be opened in any channel."))))
    speed = table_options.say("", "speed", settings.speed) if settings.speed else None
    lines.append("• " + (_(N_("Speed of a new table: {speed}."), speed=speed) if speed
                         else _(N_("Speed of a new table: each game's own default."))))
    for game, raw in sorted(settings.house.items()):
        spec = engine.games().get(game)
        if spec is None:
            continue
        try:
            said = describe_house(game, raw)
        except ValueError:
            said = _(N_("no longer valid; set them again"))
        lines.append("• " + _(N_("House rules for {game}: {rules}."), game=_(spec.game.title), rules=said))
    if not settings.house:
        lines.append("• " + _(N_("House rules: none (each game's standard rules).")))
    lines.append("• " + (_(N_("Ranked games count for the leaderboard (a host may open a casual table).")) if
                         settings.leaderboard else
                         _(N_("Finished games do not change anyone's rating or the leaderboard."))))
    lines.append("• " + _(SEASONS[settings.season]))
    lines.append("• " + _(N_("Language of new tables: {language} (`/game language`)."), language=server_language))
    if changes:
        lines.append("")
        lines.append(_(N_("Last changes:")))
        for c in changes:
            who = f"<@{c['user_id']}>" if c["user_id"] else _(N_("a former member"))
            lines.append(f"• <t:{int(float(c['at']))}:R> — {who}: {_(what_changed(c['change']))}")
    return "\n".join(lines)


def what_changed(change: str) -> str:
    """A logged change's setting, named in words (its value is shown above, as it is now)."""
    names = {"channels": N_("channels"), "speed": N_("speed"), "house": N_("house rules"),
             "leaderboard": N_("leaderboard"), "season": N_("seasons")}
    try:
        keys = list(json.loads(change))
    except ValueError:
        keys = []
    return ", ".join(_(names[k]) for k in keys if k in names) or _(N_("settings"))


class SettingsCog(commands.Cog):
    """``/settings show|channels|speed|house-rules|leaderboard|seasons``."""

    # Offered wherever the other commands are (a DM hears that settings belong to a server).
    settings = app_commands.Group(name="settings", description="This server's settings for Deckhand's tables.",
                                  allowed_installs=EVERY_INSTALL, allowed_contexts=EVERYWHERE)

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def _answer(self, interaction: discord.Interaction, text: str) -> None:
        try:
            await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            log.exception("Could not answer a settings command")

    async def _change(self, interaction: discord.Interaction, **changes: Unpack[Changes]) -> None:
        """Check the asker may, store the change, say so (all in the asker's language)."""
        locale = reading.remember(interaction.user.id, interaction.locale)
        with reading.reading(locale):
            if interaction.guild_id is None:
                await self._answer(interaction, _(ONLY_IN_A_SERVER))
                return
            if not language.is_manager(interaction):
                await self._answer(interaction, _(NOT_A_MANAGER))
                return
            try:
                await self.runtime.servers.change(interaction.guild_id, interaction.user.id,
                                                  self.runtime.clock.now(), **changes)
            except Exception:
                log.exception("Could not save a server's settings")
                await self._answer(interaction, _(NOT_SAVED))
                return
            await self._answer(interaction, _(SAVED) + "\n\n" + await self._shown(interaction, locale))

    async def _shown(self, interaction: discord.Interaction, locale: str) -> str:
        gid = interaction.guild_id or 0
        servers = self.runtime.servers
        chosen = await servers.locale(gid)
        name = language.NAMES[chosen or words.resolve(interaction.guild_locale)]
        changes = await servers.history(gid)
        return settings_text(await servers.settings(gid), locale, _(name), changes)

    @settings.command(name="show", description="This server's settings, in plain words, and who changed them last.")
    async def show(self, interaction: discord.Interaction) -> None:
        locale = reading.remember(interaction.user.id, interaction.locale)
        with reading.reading(locale):
            if interaction.guild_id is None:
                await self._answer(interaction, _(ONLY_IN_A_SERVER))
                return
            await self._answer(interaction, await self._shown(interaction, locale))

    @settings.command(name="channels", description="Where tables may be opened (Manage Server).")
    @app_commands.describe(add="A channel where tables may be opened", remove="A channel to take off the list",
                           anywhere="Allow every channel again")
    async def channels(self, interaction: discord.Interaction, add: discord.TextChannel | None = None,
                       remove: discord.TextChannel | None = None, anywhere: bool | None = None) -> None:
        if add is None and remove is None and not anywhere:
            with reading.reading(reading.remember(interaction.user.id, interaction.locale)):
                await self._answer(interaction, _(NO_CHANNEL_GIVEN))
            return
        if anywhere:
            await self._change(interaction, channels=())
            return
        current = (await self.runtime.servers.settings(interaction.guild_id or 0)).channels
        chosen = [c for c in current if remove is None or c != remove.id]
        if add is not None and add.id not in chosen:
            chosen.append(add.id)
        await self._change(interaction, channels=tuple(chosen))

    @settings.command(name="speed", description="The speed of a new table that names none (Manage Server).")
    @app_commands.describe(speed="The speed new tables get when their host names none")
    @app_commands.choices(speed=[*SPEED_CHOICES, app_commands.Choice(name="each game's default", value=GAME_DEFAULT)])
    async def speed(self, interaction: discord.Interaction, speed: ChoiceText) -> None:
        value = str(getattr(speed, "value", speed))
        await self._change(interaction, speed=None if value == GAME_DEFAULT else value)

    @settings.command(name="house-rules", description="The options a new table of a game starts with (Manage Server).")
    @app_commands.describe(game="Which game",
                           options="As in /game new, e.g. target=50 ai=strong; empty: standard rules")
    @app_commands.choices(game=GAME_CHOICES)
    async def house_rules(self, interaction: discord.Interaction, game: ChoiceText,
                          options: OptionsText | None = None) -> None:
        name = str(getattr(game, "value", game))
        raw = {k.lower(): v for k, v in parse_options(options).items()}
        if name not in engine.games():
            return
        try:
            table_options.read(name, raw)
            table_options.read_ai(name, raw)
            table_options.read_ranked(raw)
        except ValueError as e:  # the same sentence /game new would give
            with reading.reading(reading.remember(interaction.user.id, interaction.locale)):
                await self._answer(interaction, _(str(e)))
            return
        house = dict((await self.runtime.servers.settings(interaction.guild_id or 0)).house)
        if raw:
            house[name] = raw
        else:
            house.pop(name, None)
        await self._change(interaction, house=house)

    @settings.command(name="leaderboard",
                      description="Whether finished games count for the leaderboard (Manage Server).")
    @app_commands.describe(count="Whether finished games change ratings and the leaderboard")
    async def leaderboard(self, interaction: discord.Interaction, count: bool) -> None:
        await self._change(interaction, leaderboard=count)

    @settings.command(name="seasons", description="How often the leaderboard starts a new season (Manage Server).")
    @app_commands.describe(every="How long a season lasts; each one's final board is kept")
    @app_commands.choices(every=SEASON_CHOICES)
    async def seasons(self, interaction: discord.Interaction, every: ChoiceText) -> None:
        value = str(getattr(every, "value", every))
        period = next((p for p in PERIODS if p == value), None)
        if period is None or value not in SEASONS:
            with reading.reading(reading.remember(interaction.user.id, interaction.locale)):
                await self._answer(interaction, _(N_("Choose one of the season lengths offered.")))
            return
        await self._change(interaction, season=period)
