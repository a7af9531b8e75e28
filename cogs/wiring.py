"""Every cog, dynamic item and translator the bot adds, in one place (bot.py calls :func:`add_cogs`
once its runtime and listener exist): one Cog per feature, the commands in every language, and the
buttons that keep working after a restart because they are rebuilt from their ids."""

from __future__ import annotations

from discord.ext import commands

from cogs.live.events import EventsCog
from cogs.live.listener import DiscordListener
from cogs.privacy import ForgetButton, PrivacyCog
from cogs.sync.translator import CatalogTranslator
from cogs.table.components import DYNAMIC_ITEMS
from cogs.table.game import GameCog
from cogs.table.settings import SettingsCog
from cogs.table.stats import StatsCog
from cogs.table.tournament import TournamentButton, TournamentCog
from tables.metrics import Metrics
from tables.runtime import Runtime


async def add_cogs(bot: commands.Bot, runtime: Runtime, listener: DiscordListener, *, rules_url: str | None,
                   metrics: Metrics | None) -> None:
    games = GameCog(runtime, listener, rules_url=rules_url)
    await bot.add_cog(games)

    def forget_caches(table_ids: list[str]) -> None:
        # The replay viewer's cached steps and pictures of games a forgotten person played.
        if games.replays is not None:
            games.replays.drop(table_ids)

    await bot.add_cog(PrivacyCog(runtime, rules_url=rules_url, forget_caches=forget_caches))
    await bot.add_cog(StatsCog(runtime))
    await bot.add_cog(SettingsCog(runtime))
    await bot.add_cog(TournamentCog(runtime, listener))
    await bot.add_cog(EventsCog(runtime, listener, metrics))
    await bot.tree.set_translator(CatalogTranslator())  # the commands in every language (issue 31)
    bot.add_dynamic_items(*DYNAMIC_ITEMS, ForgetButton, TournamentButton)
