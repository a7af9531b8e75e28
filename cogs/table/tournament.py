"""``/tournament new``: a tournament's message (sign-ups with Join, Leave and Start, then each round's
tables and the standings), and the Discord side of each round (tables/tournaments.py runs it).

Thin: the runtime keeps the tournament and opens each round's tables; this cog answers the buttons
(the message is redrawn through the click's own answer), posts each table of a round in the
tournament's channel, opens its thread and starts it (as **Start** does for a table), and redraws the
tournament's message when a table ends (one edit per finished table).  Tournaments are played in a
server that added the bot: each table needs its message and thread.
"""

from __future__ import annotations

import asyncio
import logging
import re

import discord
from discord import app_commands
from discord.ext import commands

import engine
import words
from cogs.i18n import reading
from cogs.live.listener import DiscordListener
from cogs.table import options as table_options
from cogs.table.arguments import (
    EVERY_INSTALL,
    EVERYWHERE,
    GAME_CHOICES,
    NOT_THIS_CHANNEL,
    ChoiceText,
    OptionsText,
    parse_options,
    place_of,
)
from cogs.table.custom_ids import UIItem, let_go, releasing
from cogs.table.plumbing import open_thread
from cogs.table.render import NO_PINGS, Extras
from tables.live import TableError
from tables.runtime import Runtime
from tables.table import Phase, Table
from tables.tournaments import MAX_ROUNDS, Entry
from words import N_

log = logging.getLogger(__name__)

COLOUR = discord.Colour.dark_gold()
ONLY_IN_A_SERVER = N_("Tournaments are played in a server that added Deckhand: each table needs its own thread.")
NO_PRIVATE_THREADS = N_("A duplicate tournament needs Deckhand to create private threads in this channel: each table "
                        "plays out of the other tables' sight, as they hold the same cards.")
OOPS = N_("Sorry — something went wrong with the tournament. It has been logged; please try again.")
#: Seconds between two edits of a tournament's message (Discord: 5 edits of a message in 5 s).
REDRAW_EVERY = 1.5
#: Seconds between two tables' first messages in the tournament's channel (5 messages in 5 s).
STARTER_EVERY = 1.1
TEMPLATE = r"dh:tour:(?P<id>[A-Z0-9]{6}):(?P<op>join|leave|start)"
LABELS = {"join": (N_("Join"), discord.ButtonStyle.success), "leave": (N_("Leave"), discord.ButtonStyle.secondary),
          "start": (N_("Start"), discord.ButtonStyle.primary)}


def _points(value: float) -> str:
    return f"{value:g}"


def tournament_embed(entry: Entry) -> discord.Embed:
    """The tournament's message in the server's words: who signed up, then the round being played,
    its tables and the standings (tie-breaks as docs/rules.md says)."""
    loc = entry.locale
    _ = words.make_(loc)
    t = entry.t
    title = engine.get(t.game).game.title
    e = discord.Embed(title=_(N_("{game} tournament · `{id}`"), game=words.translate(loc, title), id=t.id),
                      colour=COLOUR)
    with reading.reading(loc):
        changed = table_options.changes_line(t.game, entry.options, entry.speed)
    about = [words.ngettext(loc, "{n} round", "{n} rounds", t.rounds),
             words.ngettext(loc, "tables of {n}", "tables of {n}", t.seats)]
    if t.duplicate:
        about.append(_(N_("duplicate deals")))
    lines = [" · ".join(about) + (f" · {changed}" if changed else ""),
             _(N_("Organised by {who}."), who=f"<@{t.organiser}>")]
    if t.state == "signup":
        signed = ", ".join(f"<@{p}>" for p in t.players)
        e.add_field(name=_(N_("Signed up ({n})"), n=len(t.players)), value=signed or "—", inline=False)
        e.set_footer(text=_(N_("Join, then the organiser presses Start. Each round seats people by their standing, "
                               "at tables of the game's size; an AI fills a short table.")))
    else:
        lines.append(_(N_("Final standings.")) if t.state == "finished" else
                     _(N_("Round {n} of {rounds}."), n=t.round_no, rounds=t.rounds))
        if t.state == "running":
            r = t.played[-1]
            tables = []
            for n, (people, tid) in enumerate(zip(r.tables, r.table_ids, strict=True)):
                who = ", ".join(f"<@{p}>" for p in people if p is not None)
                done = " ✓" if r.results[n] is not None else ""
                where = entry.places.get(tid) if tid is not None else None
                tables.append((f"<#{where}> " if where else "") + f"`{tid or '…'}` {who}{done}")
            e.add_field(name=_(N_("Tables of this round")), value="\n".join(tables)[:1024] or "—", inline=False)
        rows = []
        for s in t.standings()[:25]:
            if t.against_par:
                earned = _(N_("**{points}** against par on the same cards"), points=f"{s.points:+g}")
            elif t.duplicate:
                earned = _(N_("**{points}** against the field on the same cards"), points=f"{s.points:+g}")
            else:
                earned = words.ngettext(loc, "**{points}** point", "**{points}** points", 1 if s.points == 1 else 2,
                                        points=_points(s.points))
            rows.append(f"`{s.place}.` <@{s.player}> — " + earned + " · "
                        + _(N_("opposition {points}"), points=_points(s.opposition))
                        + " · " + words.ngettext(loc, "{n} table won", "{n} tables won", s.wins))
        e.add_field(name=_(N_("Standings")), value="\n".join(rows)[:1024] or "—", inline=False)
        if t.against_par:
            e.set_footer(text=_(N_("Duplicate deals, one table: after each game the strong AI plays the same hands in "
                                   "every seat, and on each hand you score how much better you did than it did with "
                                   "your cards (par); nothing for a game the AI played for you. Ties: opposition, "
                                   "then tables won.")))
        elif t.duplicate:
            e.set_footer(text=_(N_("Duplicate deals: every table of a round is dealt the same cards, seat by seat. On "
                                   "each hand you score how much better you did than the others who held your cards "
                                   "(their average); nothing for a table the AI played for you. The standings change "
                                   "when a round's last table finishes. Ties: opposition, then tables won.")))
        else:
            e.set_footer(text=_(N_("A point for each seat you finish ahead of, half for a tie; none for a table the "
                                   "AI played for you. Ties: opposition (the points of everyone you sat with), then "
                                   "tables won.")))
    e.description = "\n".join(lines)
    return e


def tournament_view(entry: Entry) -> discord.ui.View | None:
    """Join, Leave and Start while sign-ups are open; nothing after."""
    if entry.t.state != "signup":
        return None
    view = discord.ui.View(timeout=None)
    for op in ("join", "leave", "start"):
        view.add_item(TournamentButton(entry.id, op, entry.locale))
    return view


class TournamentButton(discord.ui.DynamicItem[discord.ui.Button], template=TEMPLATE):
    """**Join**, **Leave** and **Start** on a tournament's message (they work after a restart: the
    tournament is found by the id in the button's)."""

    def __init__(self, tid: str, op: str, locale: str = words.ENGLISH) -> None:
        label, style = LABELS[op]
        super().__init__(discord.ui.Button(label=words.translate(locale, label), style=style,
                                           custom_id=f"dh:tour:{tid}:{op}"))
        self.tid, self.op = tid, op

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: UIItem,
                             match: re.Match[str], /) -> TournamentButton:
        return cls(match["id"], match["op"])

    @releasing
    async def callback(self, interaction: discord.Interaction) -> None:
        cog = interaction.client.get_cog("TournamentCog") if isinstance(interaction.client, commands.Bot) else None
        if isinstance(cog, TournamentCog):
            await cog.on_button(interaction, self.tid, self.op)


class TournamentCog(commands.Cog):
    """``/tournament new`` and its message's buttons; the Discord side of each round."""

    tournament = app_commands.Group(name="tournament",
                                    description="Tournaments: several rounds of tables, standings after each.",
                                    allowed_installs=EVERY_INSTALL, allowed_contexts=EVERYWHERE)

    def __init__(self, runtime: Runtime, listener: DiscordListener | None = None) -> None:
        self.runtime = runtime
        self.discord = listener
        runtime.tournaments.listener = self
        self._dirty: set[str] = set()  # tournaments whose message shows an older state
        self._drawing: set[str] = set()  # tournaments whose message is being (or was just) edited

    async def _say(self, interaction: discord.Interaction, text: str) -> None:
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_PINGS)
            else:
                await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            log.exception("Could not answer a tournament command")

    @tournament.command(name="new", description="Open sign-ups for a tournament of several rounds.")
    @app_commands.describe(game="Which game", rounds=f"How many rounds (1 to {MAX_ROUNDS})",
                           options="As in /game new, e.g. target=50; every table plays with them",
                           duplicate="Same cards at every table of a round; each player scored against the "
                                     "others who held them")
    @app_commands.choices(game=GAME_CHOICES)
    async def new(self, interaction: discord.Interaction, game: ChoiceText,
                  rounds: app_commands.Range[int, 1, MAX_ROUNDS], options: OptionsText | None = None,
                  duplicate: bool = False) -> None:
        asker = words.resolve(interaction.locale)
        try:
            await self._new(interaction, str(getattr(game, "value", game)).strip().lower(), rounds, options,
                            duplicate)
        except TableError as e:
            await self._say(interaction, e.say(asker))
        except Exception:
            log.exception("Could not open a tournament")
            await self._say(interaction, words.translate(asker, OOPS))

    async def _new(self, interaction: discord.Interaction, game: str, rounds: int, options: str | None,
                   duplicate: bool = False) -> None:
        asker = words.resolve(interaction.locale)
        if interaction.guild_id is None or place_of(interaction) != "server" or interaction.channel_id is None:
            await self._say(interaction, words.translate(asker, ONLY_IN_A_SERVER))
            return
        if game not in engine.games():
            return
        settings = await self.runtime.servers.settings(interaction.guild_id)
        if not settings.allows(interaction.channel_id, getattr(interaction.channel, "parent_id", None)):
            raise TableError(NOT_THIS_CHANNEL, channels=", ".join(f"<#{c}>" for c in settings.channels))
        raw = {k.lower(): v for k, v in parse_options(options).items()}
        try:
            given, speed = table_options.read(game, raw)
        except ValueError as e:  # the same sentence /game new would give
            raise TableError(str(e)) from None
        if duplicate and not interaction.app_permissions.create_private_threads:
            # Each table of a duplicate round must be out of the others' sight (their cards are the same).
            raise TableError(NO_PRIVATE_THREADS)
        locale = await self.runtime.servers.table_locale(interaction.guild_id, interaction.guild_locale)
        entry = await self.runtime.tournaments.new(
            game=game, rounds=rounds, guild_id=interaction.guild_id, channel_id=interaction.channel_id,
            organiser=interaction.user.id, name=interaction.user.display_name, options=given, speed=speed,
            locale=locale, duplicate=duplicate)
        view = tournament_view(entry)
        extras: Extras = {"embed": tournament_embed(entry)}
        if view is not None:
            extras["view"] = view
        try:
            await interaction.response.send_message(allowed_mentions=NO_PINGS, **extras)
        finally:
            let_go(view)  # sent: its buttons are rebuilt from their ids when clicked
        message = await interaction.original_response()
        await self.runtime.tournaments.attach(entry.id, message.id)

    async def on_button(self, interaction: discord.Interaction, tid: str, op: str) -> None:
        asker = words.resolve(interaction.locale)
        tours = self.runtime.tournaments
        try:
            if op == "join":
                entry = await tours.join(tid, interaction.user.id, interaction.user.display_name)
            elif op == "leave":
                entry = await tours.leave(tid, interaction.user.id)
            else:
                # Opening a round's tables takes a while (a thread and a message each, on the
                # bot's shared budget): the click is answered first, the tables open after.
                entry = await tours.start(tid, interaction.user.id, later=True)
        except TableError as e:
            await self._say(interaction, e.say(asker))
            return
        except Exception:
            log.exception("A tournament button failed")
            await self._say(interaction, words.translate(asker, OOPS))
            return
        try:
            view = tournament_view(entry)
            if interaction.response.is_done():
                await interaction.edit_original_response(embed=tournament_embed(entry), view=view)
            else:
                await interaction.response.edit_message(embed=tournament_embed(entry), view=view)
        except discord.HTTPException:
            log.exception("Could not redraw tournament %s", tid)
        finally:
            let_go(view)

    # ---- the runtime's calls (tables/tournaments.py) --------------------------------------------
    async def tournament_changed(self, entry: Entry) -> None:
        """A table ended or a round began: the tournament's message is redrawn — at most one edit
        every :data:`REDRAW_EVERY` seconds, the last change always shown (a round's tables often
        end together, and Discord allows 5 edits of a message in 5 seconds)."""
        if entry.message_id is None or self.discord is None:
            return
        self._dirty.add(entry.id)
        if entry.id in self._drawing:
            return  # the edit under way, or the next one, shows this change too
        self._drawing.add(entry.id)
        try:
            while entry.id in self._dirty:
                self._dirty.discard(entry.id)
                await self._draw(entry)
                await asyncio.sleep(REDRAW_EVERY)
        finally:
            self._drawing.discard(entry.id)

    async def _draw(self, entry: Entry) -> None:
        channel = self.discord.channel(entry.channel_id) if self.discord is not None else None
        if channel is None or entry.message_id is None or self.discord is None:
            return
        await self.discord.budget.take()
        view = tournament_view(entry)
        try:
            await channel.get_partial_message(entry.message_id).edit(embed=tournament_embed(entry), view=view)
        except discord.HTTPException:
            log.exception("Could not redraw tournament %s", entry.id)
        finally:
            let_go(view)

    async def tournament_place(self, entry: Entry, people: list[int]) -> int | None:
        """A thread of its own for one table of the round, from a short message in the tournament's
        channel naming its players (never edited: the channel's edits stay the tournament message's);
        ``None`` where the bot may not open one."""
        listener = self.discord
        if listener is None:
            return None
        channel = listener.channel(entry.channel_id)
        if channel is None or not hasattr(channel, "send"):
            return None
        loc = entry.locale
        n = len(entry.places) + 1
        title = words.translate(loc, engine.get(entry.t.game).game.title)
        text = words.translate(loc, N_("{game} tournament `{id}` · round {round}: {people} — play in the thread."),
                               game=title, id=entry.id, round=entry.t.round_no,
                               people=", ".join(f"<@{p}>" for p in people))
        if entry.t.duplicate:
            return await self._private_place(entry, people, channel, f"{title} · {entry.id} · {n}")
        await listener.budget.take()
        starter = await channel.send(text, allowed_mentions=NO_PINGS)
        await listener.budget.take()
        try:
            thread = await starter.create_thread(name=f"{title} · {entry.id} · {n}", auto_archive_duration=1440)
        except discord.HTTPException as e:
            log.info("No thread for a table of tournament %s (%s); it plays in the channel", entry.id, e)
            return None
        # Discord allows 5 new messages in a channel every 5 seconds: the next table's waits a little.
        await asyncio.sleep(STARTER_EVERY)
        return int(thread.id)

    async def _private_place(self, entry: Entry, people: list[int], channel: discord.TextChannel,
                             name: str) -> int | None:
        """A duplicate round's table plays in a private thread with its players only: the round's
        other tables hold the same cards, and must not see this one's."""
        listener = self.discord
        assert listener is not None
        await listener.budget.take()
        try:
            thread = await channel.create_thread(name=name, type=discord.ChannelType.private_thread,
                                                 auto_archive_duration=1440)
        except discord.HTTPException as e:
            log.warning("No private thread for a table of duplicate tournament %s (%s); it plays in the channel",
                        entry.id, e)
            return None
        for p in people:
            await listener.budget.take()
            try:
                await thread.add_user(discord.Object(p))
            except discord.HTTPException as e:
                log.info("Could not add %s to tournament %s's thread %s (%s)", p, entry.id, thread.id, e)
        await asyncio.sleep(STARTER_EVERY)
        return int(thread.id)

    async def tournament_tables(self, entry: Entry, tables: list[Table]) -> None:
        """A round's tables, seated: each is posted in the tournament's channel, gets its thread and
        starts (its players are pinged there as at any table)."""
        for t in tables:
            try:
                await self._post_and_start(t, own_thread=entry.places.get(t.id, entry.channel_id) != entry.channel_id)
            except Exception:
                log.exception("Tournament %s: could not post table %s; starting it anyway", entry.id, t.id)
                if t.phase == Phase.LOBBY:
                    await self.runtime.start(t.id, t.host_id)

    async def _post_and_start(self, t: Table, own_thread: bool = False) -> None:
        """Post the table's message where it is played, then start it: in a thread of its own
        (``own_thread``: posted there, nothing more to open), else in the channel with a thread opened
        from its message, as **Start** does."""
        listener = self.discord
        if listener is None:
            await self.runtime.start(t.id, t.host_id)
            return
        if t.message_id is None:
            await listener.unposted(t)
            if t.message_id is not None:
                await self.runtime.attach(t.id, message_id=t.message_id)
        async with listener.hold(t.id):
            if t.phase == Phase.LOBBY:
                await self.runtime.start(t.id, t.host_id)
            thread = None if own_thread else await self._thread(t)
        if thread is not None:
            await listener.started(t)

    async def _thread(self, t: Table) -> discord.Thread | None:
        listener = self.discord
        if listener is None or t.thread_id is not None or t.message_id is None:
            return None
        if not listener.permissions.allows(t, "create_public_threads"):
            return None
        channel = listener.channel(t.channel_id)
        if channel is None or not hasattr(channel, "get_partial_message"):
            return None
        await listener.budget.take()
        return await open_thread(self.runtime, channel, t, log, "tournament table")
