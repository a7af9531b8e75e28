"""``/stats [user]`` and ``/leaderboard game:``: per-server results of finished games.

Thin like the game cog: read the results through the runtime's storage and the ratings through
``runtime.ratings``, turn them into an embed.  Your own stats are ephemeral; someone else's, and the
leaderboard, are public.  Mentions in these embeds never ping anyone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, overload

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs.game import GAME_CHOICES, GAMES, NOT_IN_A_SERVER, ChoiceText
from cogs.render import NO_PINGS
from engine.words import plural
from tables.ratings import Rating
from tables.runtime import Runtime
from tables.stats import GameStats, figure_names, summarise
from tables.storage_base import Record

log = logging.getLogger(__name__)

COLOUR = discord.Colour.gold()
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
NO_DATABASE = "Stats are not kept: this Deckhand runs without a database (see DATABASE_URL in .env.example)."
OOPS = "Sorry — I could not read the stats just now. It has been logged; please try again."


def game_title(game: str) -> str:
    entry = engine.games().get(game)
    return entry.game.title if entry is not None else GAMES.get(game, game)


@overload
def rating_text(r: Record) -> str: ...
@overload
def rating_text(r: None) -> None: ...
def rating_text(r: Record | None) -> str | None:
    """``rating **27.3** ± 2.1 (conservative 21.0)``: μ, σ and the μ − 3σ the leaderboard ranks by."""
    if r is None:
        return None
    rating = Rating(float(r["mu"]), float(r["sigma"]))
    return f"rating **{rating.mu:.1f}** ± {rating.sigma:.1f} (ranked at {rating.conservative:.1f})"


def review_text(game: str, review: tuple[float, int] | None) -> str | None:
    """``reviewed play: 0.42 points lost a decision (3 games)``: the average loss per judged decision
    over the person's reviewed games (tables/reviews.py), in the game's units."""
    if review is None:
        return None
    loss, n = review
    spec = engine.games().get(game)
    units = spec.review_units if spec is not None else "points"
    return f"reviewed play **{loss:.2f}** {units} lost a decision ({_games(n)})"


def stats_line(g: GameStats, rating: Record | None = None,
               review: tuple[float, int] | None = None) -> str:
    parts = [
        *([rating_text(rating)] if rating is not None else []),
        *([reviewed] if (reviewed := review_text(g.game, review)) is not None else []),
        f"**{g.games}** game{'s' if g.games != 1 else ''}" + (f", {g.hinted} with hints" if g.hinted else ""),
        f"**{g.wins}** win{'s' if g.wins != 1 else ''} ({g.win_rate:.0%})"
        + (f", {g.hinted_wins} won with hints" if g.hinted_wins else ""),
        f"average finish **{g.average_place:.2f}**",
        f"average score {g.average_score:.1f}",
    ]
    if g.best is not None:
        parts.append(f"best {g.best}")
    for key, n in sorted(g.figures.items()):
        if n and key != "hands":
            parts.append(f"{figure_names().get(key, key.replace('_', ' '))} {n}")
    return " · ".join(parts)


def stats_embed(name: str, games: list[GameStats],
                ratings: dict[str, Record] | None = None,
                reviews: dict[str, tuple[float, int]] | None = None) -> discord.Embed:
    e = discord.Embed(title=f"{name}'s results in this server", colour=COLOUR)
    if not games:
        e.description = "No finished games yet. Open a table with `/game new`."
        return e
    for g in games[:25]:
        e.add_field(name=game_title(g.game), value=stats_line(g, (ratings or {}).get(g.game),
                                                              (reviews or {}).get(g.game)), inline=False)
    if ratings:
        e.set_footer(text="Ratings: openskill (Plackett–Luce) from every finishing order, the built-in AI "
                          "rated like a player. Everyone starts at 25.0 ± 8.3.")
    return e


def _board(game: str, rows: list[Record], line: Callable[[Record], str]) -> discord.Embed:
    """A leaderboard's frame: title, medals, and one ``line(row)`` per person."""
    e = discord.Embed(title=f"{game_title(game)} leaderboard", colour=COLOUR)
    if not rows:
        e.description = f"Nobody has finished a game of {game_title(game)} in this server yet."
        return e
    e.description = "\n".join(f"{MEDALS.get(i, f'`{i}.`')} <@{r['user_id']}> — {line(r)}"
                               for i, r in enumerate(rows, start=1))
    return e


def _games(n: int) -> str:
    return plural(n, "game")


def rating_board_embed(game: str, rows: list[Record]) -> discord.Embed:
    """The leaderboard by rating: μ − 3σ, so fifty steady games beat one lucky win."""
    def line(r: Record) -> str:
        mu, sigma = float(r["mu"]), float(r["sigma"])
        return f"**{mu - 3 * sigma:.1f}** (rating {mu:.1f} ± {sigma:.1f}) · {_games(int(r['games']))}"

    e = _board(game, rows, line)
    if rows:
        e.set_footer(text="Ranked by a conservative rating, μ − 3σ (rating minus three times its uncertainty): "
                          "it rises as you play and win. The built-in AI is rated but not listed.")
    return e


def _place(interaction: discord.Interaction) -> int | None:
    """Where results belong: the server, or a DM's or group DM's own conversation (cogs/game.py's
    tables are kept the same way)."""
    return interaction.guild_id or interaction.channel_id


class StatsCog(commands.Cog):
    """``/stats`` and ``/leaderboard``."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def _reply(self, interaction: discord.Interaction, *, ephemeral: bool, text: str | None = None,
                     embed: discord.Embed | None = None) -> None:
        kwargs: dict[str, Any] = {"ephemeral": ephemeral, "allowed_mentions": NO_PINGS}
        if embed is not None:
            kwargs["embed"] = embed
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, **kwargs)  # type: ignore[arg-type]  # None: no text (discord.py takes it)
            else:
                await interaction.response.send_message(text, **kwargs)
        except discord.HTTPException:
            log.exception("Could not answer a stats command")

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        # Results are kept per place: a server, or a DM or group DM (its channel).
        if _place(interaction) is None:
            await self._reply(interaction, ephemeral=True, text=NOT_IN_A_SERVER)
            return False
        return True

    async def cog_app_command_error(self, interaction: discord.Interaction,
                                    error: app_commands.AppCommandError) -> None:
        if isinstance(error, app_commands.CheckFailure):
            if not interaction.response.is_done():  # interaction_check answers the ones it refuses
                await self._reply(interaction, ephemeral=True, text=NOT_IN_A_SERVER)
            return
        log.error("Stats command error", exc_info=getattr(error, "original", error))
        if not interaction.response.is_done():
            await self._reply(interaction, ephemeral=True, text=OOPS)

    @app_commands.command(name="stats", description="Results in this server: rating, games, wins, average finish.")
    @app_commands.describe(user="Whose results (default: yours)")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def stats(self, interaction: discord.Interaction, user: discord.User | None = None) -> None:
        who = user or interaction.user
        own = who.id == interaction.user.id
        storage, ratings = self.runtime.storage, self.runtime.ratings
        place = _place(interaction)
        if storage is None or ratings is None or place is None:
            await self._reply(interaction, ephemeral=True, text=NO_DATABASE)
            return
        try:
            rows = await storage.player_results(place, who.id)
            by_game = await ratings.of_player(place, who.id)
            reviewed = await self.runtime.reviews.losses(place, who.id)
        except Exception:
            log.exception("Reading the stats of %s failed", who.id)
            await self._reply(interaction, ephemeral=True, text=OOPS)
            return
        name = str(getattr(who, "display_name", None) or getattr(who, "name", "Someone"))
        await self._reply(interaction, ephemeral=own, embed=stats_embed(name, summarise(rows), by_game, reviewed))

    @app_commands.command(name="leaderboard", description="The best players of a game in this server, by rating.")
    @app_commands.describe(game="Which game")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def leaderboard(self, interaction: discord.Interaction, game: ChoiceText) -> None:
        ratings = self.runtime.ratings
        place = _place(interaction)
        if ratings is None or place is None:
            await self._reply(interaction, ephemeral=True, text=NO_DATABASE)
            return
        name = game.strip().lower()
        try:
            embed = rating_board_embed(name, await ratings.board(place, name))
        except Exception:
            log.exception("Reading the %s leaderboard failed", name)
            await self._reply(interaction, ephemeral=True, text=OOPS)
            return
        await self._reply(interaction, ephemeral=False, embed=embed)
