"""``/stats [user]`` and ``/leaderboard game:``: per-server results of finished games.

Thin like the game cog: read the results through the runtime's storage and the ratings through
``runtime.ratings``, turn them into an embed.  Your own stats are ephemeral; someone else's, and the
leaderboard, are public.  Mentions in these embeds never ping anyone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from typing import overload

import discord
from discord import app_commands
from discord.ext import commands

import engine
import words
from cogs.i18n.reading import drawn as _
from cogs.i18n.reading import lang, reading, remember
from cogs.table.arguments import GAME_CHOICES, GAMES, NOT_IN_A_SERVER, ChoiceText
from cogs.table.render import NO_PINGS, Extras
from tables.history.ratings import Rating
from tables.history.stats import GameStats, figure_names, summarise
from tables.runtime import Runtime
from tables.storage.base import Record
from words import N_

log = logging.getLogger(__name__)

COLOUR = discord.Colour.gold()
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
NO_DATABASE = N_("Stats are not kept: this Deckhand runs without a database (see DATABASE_URL in .env.example).")
NO_SUCH_SEASON = N_("There is no such season of {game} here: pick one from the list `season:` offers.")
#: ``season:`` as typed (a season from the list, "2026-11"; the list names them in words).
SeasonText = app_commands.Range[str, 1, 20]
ONLY_YOURS_EVERYWHERE = N_("Results from every server and conversation are shown only to their owner: "
                           "leave out `user:` to see yours.")
OOPS = N_("Sorry — I could not read the stats just now. It has been logged; please try again.")



def _num(value: float, places: int) -> str:
    """A figure with ``places`` decimals, written the reader's way (``2.50``, ``2,50``)."""
    loc = lang()
    if loc == words.ENGLISH:
        return f"{value:.{places}f}"
    from babel.numbers import format_decimal

    return str(format_decimal(value, format="0." + "0" * places, locale=loc))


def game_title(game: str) -> str:
    entry = engine.games().get(game)
    return _(entry.game.title if entry is not None else GAMES.get(game, game))


@overload
def rating_text(r: Record) -> str: ...
@overload
def rating_text(r: None) -> None: ...
def rating_text(r: Record | None) -> str | None:
    """``rating **27.3** ± 2.1 (conservative 21.0)``: μ, σ and the μ − 3σ the leaderboard ranks by."""
    if r is None:
        return None
    rating = Rating(float(r["mu"]), float(r["sigma"]))
    return _("rating **{mu}** ± {sigma} (ranked at {ranked})", mu=_num(rating.mu, 1), sigma=_num(rating.sigma, 1),
             ranked=_num(rating.conservative, 1))


def review_text(game: str, review: tuple[float, int] | None) -> str | None:
    """``reviewed play: 0.42 points lost a decision (3 games)``: the average loss per judged decision
    over the person's reviewed games (tables/ai/reviews.py), in the game's units."""
    if review is None:
        return None
    loss, n = review
    spec = engine.games().get(game)
    units = spec.review_units if spec is not None else "points"
    return _("reviewed play **{loss}** {units} lost a decision ({games})", loss=_num(loss, 2), units=_(units),
             games=_games(n))


def stats_line(g: GameStats, rating: Record | None = None,
               review: tuple[float, int] | None = None) -> str:
    parts = [
        *([rating_text(rating)] if rating is not None else []),
        *([reviewed] if (reviewed := review_text(g.game, review)) is not None else []),
        words.ngettext(lang(), "**{n}** game", "**{n}** games", g.games)
        + (", " + words.ngettext(lang(), "{n} with hints", "{n} with hints", g.hinted) if g.hinted else ""),
        words.ngettext(lang(), "**{n}** win ({rate})", "**{n}** wins ({rate})", g.wins, rate=format(g.win_rate, ".0%"))
        + (", " + words.ngettext(lang(), "{n} won with hints", "{n} won with hints", g.hinted_wins)
           if g.hinted_wins else ""),
        *([words.ngettext(lang(), "finished **{finished}** of {n} ranked game",
                          "finished **{finished}** of {n} ranked games", g.ranked, finished=g.ranked_finished)]
          if g.ranked else []),
        _("average finish **{place}**", place=_num(g.average_place, 2)),
        _("average score {score}", score=_num(g.average_score, 1)),
    ]
    if g.best is not None:
        parts.append(_("best {score}", score=g.best))
    for key, n in sorted(g.figures.items()):
        if n and key != "hands":
            parts.append(f"{_(figure_names().get(key, key.replace('_', ' ')))} {n}")
    return " · ".join(parts)


def stats_embed(name: str, games: list[GameStats],
                ratings: dict[str, Record] | None = None,
                reviews: dict[str, tuple[float, int]] | None = None, *, conversation: bool = False,
                everywhere: bool = False) -> discord.Embed:
    """``conversation``: the results of a DM or group DM (kept per conversation, not per server);
    ``everywhere``: of every server and conversation at once (no rating: each belongs to its place)."""
    title = (_("{name}'s results everywhere", name=name) if everywhere else
             _("{name}'s results in this conversation", name=name) if conversation
             else _("{name}'s results in this server", name=name))
    e = discord.Embed(title=title, colour=COLOUR)
    if not games:
        e.description = _("No finished games yet. Open a table with `/game new`.")
        return e
    for g in games[:25]:
        e.add_field(name=game_title(g.game), value=stats_line(g, (ratings or {}).get(g.game),
                                                              (reviews or {}).get(g.game)), inline=False)
    if everywhere:
        e.set_footer(text=_("Every server and conversation where you played, together: only you see this. "
                            "Ratings belong to each place: /stats there shows them."))
    elif ratings:
        e.set_footer(text=_("Ratings change only in ranked games between people; leaving one, or letting the AI "
                            "make most of your moves, counts as a loss. Everyone starts at {mu} ± {sigma}.",
                            mu=_num(25.0, 1), sigma=_num(8.3, 1)))
    return e


def season_name(season: str) -> str:
    """A season as a person names it, in the reader's language: "November 2026", "October–December
    2026", "all time"."""
    if season == "all":
        return _("all time")
    from babel.dates import format_date

    loc = lang()
    try:
        year, rest = season.split("-")
        if rest.startswith("Q"):
            first = date(int(year), (int(rest[1:]) - 1) * 3 + 1, 1)
            last = date(int(year), first.month + 2, 1)
            return f"{format_date(first, 'LLLL', locale=loc)}–{format_date(last, 'LLLL y', locale=loc)}"
        return str(format_date(date(int(year), int(rest), 1), "LLLL y", locale=loc))
    except ValueError:
        return season


def _board(game: str, rows: list[Record], line: Callable[[Record], str], conversation: bool = False,
           season: str = "all") -> discord.Embed:
    """A leaderboard's frame: title, medals, and one ``line(row)`` per person."""
    title = (_("{game} leaderboard", game=game_title(game)) if season == "all" else
             _("{game} leaderboard — {season}", game=game_title(game), season=season_name(season)))
    e = discord.Embed(title=title, colour=COLOUR)
    if not rows:
        e.description = (_("Nobody has played a ranked game of {game} in this conversation in {season}.",
                           game=game_title(game), season=season_name(season)) if conversation else
                         _("Nobody has played a ranked game of {game} in this server in {season}.",
                           game=game_title(game), season=season_name(season)))
        return e
    e.description = "\n".join(f"{MEDALS.get(i, f'`{i}.`')} <@{r['user_id']}> — {line(r)}"
                               for i, r in enumerate(rows, start=1))
    return e


def _games(n: int) -> str:
    return words.ngettext(lang(), "{n} game", "{n} games", n)


def rating_board_embed(game: str, rows: list[Record], *, conversation: bool = False,
                       season: str = "all") -> discord.Embed:
    """A season's leaderboard by rating: μ − 3σ, so fifty steady games beat one lucky win; each
    person's count is their ranked games of that season."""
    def line(r: Record) -> str:
        mu, sigma = float(r["mu"]), float(r["sigma"])
        return _("**{ranked}** (rating {mu} ± {sigma})", ranked=_num(mu - 3 * sigma, 1), mu=_num(mu, 1),
                 sigma=_num(sigma, 1)) + " · " + _games(int(r["games"]))

    e = _board(game, rows, line, conversation, season)
    if rows:
        e.set_footer(text=_("Ranked by a conservative rating, μ − 3σ (rating minus three times its uncertainty): "
                            "it rises as you play and win. Only ranked games between people count; the games "
                            "shown are those of this season."))
    return e


def _place(interaction: discord.Interaction) -> int | None:
    """Where results belong: the server, or a DM's or group DM's own conversation (cogs/table/game.py's
    tables are kept the same way)."""
    return interaction.guild_id or interaction.channel_id


class StatsCog(commands.Cog):
    """``/stats`` and ``/leaderboard``."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def _reply(self, interaction: discord.Interaction, *, ephemeral: bool, text: str | None = None,
                     embed: discord.Embed | None = None) -> None:
        extras: Extras = {} if embed is None else {"embed": embed}
        try:
            if interaction.response.is_done():
                # ignore: None is no text (discord.py takes it, though its overloads type the content as str)
                await interaction.followup.send(text, ephemeral=ephemeral, allowed_mentions=NO_PINGS,  # type: ignore[arg-type]
                                                **extras)
            else:
                await interaction.response.send_message(text, ephemeral=ephemeral, allowed_mentions=NO_PINGS, **extras)
        except discord.HTTPException:
            log.exception("Could not answer a stats command")

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        # Results are kept per place: a server, or a DM or group DM (its channel).
        if _place(interaction) is None:
            await self._reply(interaction, ephemeral=True,
                              text=words.translate(words.resolve(interaction.locale), NOT_IN_A_SERVER))
            return False
        return True

    async def cog_app_command_error(self, interaction: discord.Interaction,
                                    error: app_commands.AppCommandError) -> None:
        if isinstance(error, app_commands.CheckFailure):
            if not interaction.response.is_done():  # interaction_check answers the ones it refuses
                await self._reply(interaction, ephemeral=True,
                                  text=words.translate(words.resolve(interaction.locale), NOT_IN_A_SERVER))
            return
        log.error("Stats command error", exc_info=getattr(error, "original", error))
        if not interaction.response.is_done():
            await self._reply(interaction, ephemeral=True,
                              text=words.translate(words.resolve(interaction.locale), OOPS))

    @app_commands.command(name="stats", description="Results in this server: rating, games, wins, average finish.")
    @app_commands.describe(user="Whose results (default: yours)",
                           everywhere="Your own results in every server and conversation, shown only to you")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def stats(self, interaction: discord.Interaction, user: discord.User | None = None,
                    everywhere: bool | None = None) -> None:
        # Your own stats are yours to read (your language); someone else's are posted for the channel.
        own = (user or interaction.user).id == interaction.user.id
        loc = remember(interaction.user.id, interaction.locale) if own or interaction.guild_id is None else \
            await self.runtime.servers.table_locale(interaction.guild_id, interaction.guild_locale)  # (a server's)
        with reading(loc):
            await self._stats(interaction, user, bool(everywhere))

    def _counted(self, rows: list[Record]) -> list[Record]:
        """Results that count now: none of a duplicate round still being played (tables/tournaments.py)."""
        withheld = self.runtime.tournaments.withheld_tables()
        return [r for r in rows if r["table_id"] not in withheld] if withheld else rows

    async def _stats(self, interaction: discord.Interaction, user: discord.User | None = None,
                     everywhere: bool = False) -> None:
        who = user or interaction.user
        own = who.id == interaction.user.id
        storage, ratings = self.runtime.storage, self.runtime.ratings
        place = _place(interaction)
        if storage is None or ratings is None or place is None:
            await self._reply(interaction, ephemeral=True, text=_(NO_DATABASE))
            return
        if everywhere:
            if not own:
                await self._reply(interaction, ephemeral=True, text=words.translate(
                    words.resolve(interaction.locale), ONLY_YOURS_EVERYWHERE))
                return
            try:
                rows = self._counted(await storage.results_everywhere(who.id))
            except Exception:
                log.exception("Reading the results of %s everywhere failed", who.id)
                await self._reply(interaction, ephemeral=True, text=_(OOPS))
                return
            name = str(getattr(who, "display_name", None) or getattr(who, "name", "Someone"))
            await self._reply(interaction, ephemeral=True, embed=stats_embed(name, summarise(rows), everywhere=True))
            return
        try:
            rows = self._counted(await storage.player_results(place, who.id))
            by_game = await ratings.of_player(place, who.id)
            reviewed = await self.runtime.reviews.losses(place, who.id)
        except Exception:
            log.exception("Reading the stats of %s failed", who.id)
            await self._reply(interaction, ephemeral=True, text=_(OOPS))
            return
        name = str(getattr(who, "display_name", None) or getattr(who, "name", "Someone"))
        await self._reply(interaction, ephemeral=own, embed=stats_embed(name, summarise(rows), by_game, reviewed,
                                                                      conversation=interaction.guild_id is None))

    @app_commands.command(name="leaderboard",
                          description="The best players of a game in this server this season, by rating.")
    @app_commands.describe(game="Which game", season="An earlier season (default: this one)")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def leaderboard(self, interaction: discord.Interaction, game: ChoiceText,
                          season: SeasonText | None = None) -> None:
        # Posted for the channel: the server's language (its choice, else its Discord language).
        remember(interaction.user.id, interaction.locale)
        loc = words.resolve(interaction.locale) if interaction.guild_id is None else \
            await self.runtime.servers.table_locale(interaction.guild_id, interaction.guild_locale)
        with reading(loc):
            await self._leaderboard(interaction, game, season)

    @leaderboard.autocomplete("season")
    async def _seasons(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The seasons with a board for the chosen game, the latest first, named in the asker's words."""
        ratings, place = self.runtime.ratings, _place(interaction)
        game = str(getattr(interaction.namespace, "game", "") or "").strip().lower()
        if ratings is None or place is None or game not in engine.games():
            return []
        try:
            seasons = await ratings.seasons(place, game)
        except Exception:
            log.exception("Reading the seasons of %s failed", game)
            return []
        with reading(remember(interaction.user.id, interaction.locale)):
            named = [(season_name(s), s) for s in seasons]
        typed = current.strip().lower()
        return [app_commands.Choice(name=n[:100], value=s) for n, s in named
                if not typed or typed in n.lower() or typed in s.lower()][:25]

    async def _leaderboard(self, interaction: discord.Interaction, game: ChoiceText,
                           season: str | None = None) -> None:
        ratings = self.runtime.ratings
        place = _place(interaction)
        if ratings is None or place is None:
            await self._reply(interaction, ephemeral=True, text=words.translate(words.resolve(interaction.locale),
                                                                               NO_DATABASE))
            return
        name = game.strip().lower()
        try:
            current = await ratings.season(place)
            chosen = current if season is None else season.strip()
            if chosen != current and chosen not in await ratings.seasons(place, name):
                asker = words.resolve(interaction.locale)
                await self._reply(interaction, ephemeral=True, text=words.translate(
                    asker, NO_SUCH_SEASON, game=words.translate(asker, engine.get(name).game.title)))
                return
            embed = rating_board_embed(name, await ratings.board(place, name, chosen),
                                       conversation=interaction.guild_id is None, season=chosen)
        except Exception:
            log.exception("Reading the %s leaderboard failed", name)
            await self._reply(interaction, ephemeral=True, text=words.translate(words.resolve(interaction.locale),
                                                                               OOPS))
            return
        await self._reply(interaction, ephemeral=False, embed=embed)
