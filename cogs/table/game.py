"""Slash commands and component clicks for card tables: parse the interaction, call the runtime,
render the answer.

The cog holds no game state: the runtime owns tables, the renderer turns them into text, and the
components carry what a click means in their custom ids.  Every refusal is a ``TableError`` whose
sentence goes back to the one user as an ephemeral reply; any other failure is logged and answered
with an apology, so a user never meets "This interaction failed".
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

import engine
import words
from cogs.i18n import language, reading
from cogs.i18n.reading import drawn as _
from cogs.live.game_clicks import ComponentClicks
from cogs.live.hints import hint_text
from cogs.replay.review import ReviewClicks
from cogs.replay.view import ReplayClicks
from cogs.table import options as table_options
from cogs.table import render, renderers
from cogs.table.answers import game_over, no_such_game, replay_standings, rules_embed
from cogs.table.arguments import (
    EVERY_INSTALL,
    EVERYWHERE,
    GAME_CHOICES,
    GAMES,
    NOT_IN_A_SERVER,
    NOT_STRONG,
    NOT_THIS_CHANNEL,
    PROGRAM_GAMES,
    SPEED_CHOICES,
    ChoiceText,
    OptionsText,
    Program,
    TableId,
    Typed,
    house_options,
    parse_options,
    place_of,
    playable,
)
from cogs.table.autocomplete import MAX_CHOICES, legal_choices, option_choices, table_choices
from cogs.table.components import (
    hand_view,
    let_go,
    table_view,
)
from cogs.table.plumbing import Plumbing, open_thread
from cogs.table.render import NO_PINGS
from cogs.watch.visibility import may_see, may_see_record
from tables.history.replay import GameRecord, recap
from tables.runtime import Runtime, TableError
from tables.servers import Settings
from tables.table import Phase, Table
from words import N_

if TYPE_CHECKING:  # (the listener imports nothing of this module; bot.py wires the two)
    from cogs.live.listener import DiscordListener

log = logging.getLogger(__name__)



NO_EXTERNAL_APPS = N_("This server does not let apps you added to your account show their answers to everyone, so "
                      "nobody else could see a table here. Open one in a group DM with your friends, or ask a "
                      "server manager to add Deckhand to the server.")


class GameCog(ReviewClicks, ReplayClicks, ComponentClicks, Plumbing, commands.Cog):
    """Card tables: the ``/game`` group, ``/hand``, ``/play`` and the buttons of table messages."""

    def __init__(self, runtime: Runtime, listener: DiscordListener | None = None, *,
                 rules_url: str | None = None) -> None:
        self.runtime = runtime
        self.rules_url = rules_url  # the rule book's page people can open (DECKHAND_RULES_URL), if any
        # The Discord side of the runtime's listener (cogs/live/listener.py), passed in by bot.py: the
        # thread's first message, the REST budget, what the bot may do in a channel, watchers.
        self.discord_listener = listener
        # Its live hand views (cogs/live/hand.py): a hand view this cog answers with is registered there
        # and kept current through the interaction's token.
        live = listener.live if listener is not None else None
        self.live = live
        if live is not None and live.runtime is None:  # the listener was made before the runtime
            live.runtime = runtime

    # Anywhere on Discord: in a server that added the bot, and — installed to a person's account —
    # in their DMs, group DMs and servers that never added it (the table then lives on interaction
    # answers alone: Table.place, cogs/live/listener.py).
    game = app_commands.Group(name="game", description="Card game tables: open, join, start, end.",
                              allowed_installs=EVERY_INSTALL, allowed_contexts=EVERYWHERE)

    # ==== /game ================================================================================
    @game.command(name="new", description="Open a table: posts the lobby with Join, Add AI and Start buttons.")
    @app_commands.describe(game="Which game", options="Table options as key=value, speed too (autocompleted)",
                           speed="How long each decision may take (default normal; or speed= in options)",
                           language="The language the table reads (default: the server's)")
    @app_commands.choices(game=GAME_CHOICES, speed=SPEED_CHOICES, language=language.CHOICES)
    async def game_new(
        self, interaction: discord.Interaction, game: ChoiceText, options: OptionsText | None = None,
        speed: ChoiceText | None = None, language: ChoiceText | None = None,
    ) -> None:
        await self._safely(interaction, self._new(interaction, game, options, speed, language))

    @game.command(name="language", description="The language this server's tables read (Manage Server to change it).")
    @app_commands.describe(language="The language new tables read (leave empty to see the current one)")
    @app_commands.choices(language=language.SERVER_CHOICES)
    async def game_language(self, interaction: discord.Interaction, language: ChoiceText | None = None) -> None:
        await self._safely(interaction, self._language(interaction, language))

    async def _language(self, interaction: discord.Interaction, value: str | None) -> None:
        guild_id = self._guild(interaction)
        await self._say(interaction, await language.answer(self.runtime, interaction, guild_id, value,
                                                           self.runtime.clock.now()))

    async def _new(self, interaction: discord.Interaction, game: str, options: str | None, speed: str | None,
                   language_value: str | None = None) -> None:
        guild_id = self._guild(interaction)
        name = game.strip().lower()
        entry = playable().get(name)
        if entry is None:
            await self._say(interaction, no_such_game(name))
            return
        channel_id = interaction.channel_id
        if channel_id is None:  # never for a command in a server channel
            raise TableError(N_("Open a table from a channel of this server."))
        place = place_of(interaction)
        # A server's own settings (/settings): where tables may open, its speed and house rules.
        settings = await self.runtime.servers.settings(guild_id) if place != "private" else Settings()
        if not settings.allows(channel_id, getattr(interaction.channel, "parent_id", None)):
            raise TableError(NOT_THIS_CHANNEL, channels=", ".join(f"<#{c}>" for c in settings.channels))
        raw, house = house_options(settings, name, parse_options(options), speed)
        try:
            # speed may come inside options: like any option; the runtime takes it on its own.
            given, speed_key = table_options.read(name, raw, speed)
            play_ahead = table_options.read_ahead(name, raw)
            ai_level = table_options.read_ai(name, raw)
            ranked = table_options.read_ranked(raw, settings.leaderboard)
        except ValueError as e:  # a precise sentence before anything is created
            raise TableError(str(e)) from None
        if place == "app" and not interaction.permissions.use_external_apps:
            # Discord would show every answer to the host alone: nobody else could see the table.
            raise TableError(NO_EXTERNAL_APPS)
        table = await self.runtime.create(
            game=name, guild_id=guild_id, channel_id=channel_id, host_id=interaction.user.id,
            host_name=interaction.user.display_name, options=given, speed=speed_key, ai_level=ai_level,
            play_ahead=play_ahead,
            # What the whole table reads: language:, else the server's choice, else its Discord language
            # (a DM's: the host's).
            locale=await language.table_locale(self.runtime, interaction, guild_id, language_value), place=place,
            house=house, ranked=ranked,
        )
        await self._post_lobby(interaction, table)

    async def _again(self, interaction: discord.Interaction, table_id: str) -> None:
        """**Play again** on a finished table: the runtime opens the rematch lobby (or says why not,
        or points to the one already open); its message, the answer to the click, invites the old
        table's people by name — one message that pings exactly them."""
        guild_id = self._guild(interaction)
        if interaction.channel_id is None:  # (a server's interactions come from a channel)
            raise TableError(NOT_IN_A_SERVER)
        made = await self.runtime.rematch(table_id, interaction.user.id, interaction.user.display_name,
                                          guild_id=guild_id, channel_id=interaction.channel_id)
        invited = " ".join(f"<@{u}>" for u in made.invited)
        # Said to the table (it heads the new lobby): the table's language.
        with reading.reading(made.table.locale):
            who, title = render.clean(interaction.user.display_name), render.game_title(made.table)
            line = "🔁 " + (_("{who} opened a new game of {game} for the players of the last one: {people}, press "
                              "**Join** to take a seat.", who=who, game=title, people=invited) if invited else
                            _("{who} opened a new game of {game} for the players of the last one.", who=who,
                              game=title))
        pings = discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                        users=[discord.Object(u) for u in made.invited])
        await self._post_lobby(interaction, made.table, line, pings)

    async def _post_lobby(self, interaction: discord.Interaction, table: Table, line: str | None = None,
                          pings: discord.AllowedMentions = NO_PINGS) -> None:
        """A new lobby's table message as the answer to the interaction (``line`` above it)."""
        rendered = renderers.table_message(table)
        content = rendered.content if line is None else "\n".join(x for x in (line, rendered.content) if x)
        view = table_view(table)
        try:
            callback = await interaction.response.send_message(  # embed None: none (discord.py takes it, untyped)
                content=content, embed=rendered.embed, view=view, allowed_mentions=pings  # type: ignore[arg-type]
            )
            # The callback response names the message; asking Discord again is only a fallback.
            message_id = getattr(callback, "message_id", None) or (await interaction.original_response()).id
        except Exception:
            # No message, no way to join: do not leave an invisible table holding the host's seat.
            with contextlib.suppress(TableError):
                await self.runtime.end(table.id, interaction.user.id, admin=True)
            raise
        finally:
            let_go(view)  # sent (or not): its buttons are rebuilt from their ids when clicked
        table.message_id = message_id
        if self.live is not None:  # this answer's token edits the table message, uncounted
            self.live.table_opened(interaction, table.id)
        with contextlib.suppress(TableError):  # stored, so a restart can edit this message again
            await self.runtime.attach(table.id, message_id=message_id)

    @game_new.autocomplete("options")
    async def game_new_options_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            return option_choices(getattr(interaction.namespace, "game", None), current)
        except Exception:
            log.exception("Options autocomplete failed")
            return []

    @game.command(name="join", description="Take a free seat (default: the open table in this channel).")
    @app_commands.describe(id="Table id, as shown on the table message")
    async def game_join(self, interaction: discord.Interaction, id: TableId | None = None) -> None:  # noqa: A002
        await self._safely(interaction, self._join(interaction, id))

    async def _join(self, interaction: discord.Interaction, table_id: str | None) -> None:
        table: Table | None
        if table_id:
            table = self._table(interaction, table_id)
        else:
            table = self.runtime.find(self._guild(interaction), channel_id=interaction.channel_id)
            if table is None:
                raise TableError(N_("There is no open table in this channel. Give its id (`/game list` shows them) "
                                    "or open one with `/game new`."))
        was_running = table.phase == Phase.RUNNING
        await self.runtime.join(table.id, interaction.user.id, interaction.user.display_name)
        if was_running:
            await self._say(interaction, _("Welcome back — your seat at table `{id}` is yours again. Press "
                                           "**My hand** or use `/hand`.", id=table.id))
        else:
            said = await self._say(interaction, _("You joined table `{id}` ({game}). Your hand will show up here "
                                                  "when the game starts.", id=table.id, game=render.game_title(table)))
            # This answer becomes the person's live hand view once the game starts.
            self._live(interaction, self._seat_view(table.id, interaction.user.id), lobby=True, message_id=said)

    @game.command(name="leave", description="Leave your table (during a game an AI takes your seat).")
    async def game_leave(self, interaction: discord.Interaction) -> None:
        await self._safely(interaction, self._leave(interaction, None))

    async def _leave(self, interaction: discord.Interaction, table_id: str | None) -> None:
        table = self._my_table(interaction, table_id)
        running = table.phase == Phase.RUNNING
        await self.runtime.leave(table.id, interaction.user.id)
        if running:
            await self._say(interaction, _("You left table `{id}`; an AI plays your seat. "
                                           "`/game join {id}` brings you back.", id=table.id))
        else:
            await self._say(interaction, _("You left table `{id}`.", id=table.id))

    @game.command(name="ai", description="Host: fill free seats with AI players.")
    @app_commands.describe(count="How many AI players (default: every free seat; one with a program)",
                           program=f"{PROGRAM_GAMES} only: seat a program the bot's operator set up, by name",
                           level="normal (instant) or strong (thinks ahead"
                                 + (f"; not in {NOT_STRONG})" if NOT_STRONG else ")"))
    @app_commands.choices(level=[app_commands.Choice(name="normal", value="normal"),
                                 app_commands.Choice(name="strong", value="strong")])
    async def game_ai(
        self, interaction: discord.Interaction, count: app_commands.Range[int, 1, 8] | None = None,
        program: Program | None = None, level: ChoiceText | None = None,
    ) -> None:
        await self._safely(interaction, self._ai(interaction, None, count, program, level))

    async def _ai(self, interaction: discord.Interaction, table_id: str | None, count: int | None,
                  program: str | None = None, level: str | None = None) -> None:
        table = self._my_table(interaction, table_id)
        if program is not None and program.strip():
            # Only a name the operator configured is ever looked up; anything else is refused.
            added = await self.runtime.add_ai(table.id, interaction.user.id, count, program=program)
            name = program.strip()
            one = _("Seated the program `{name}` at table `{id}`: it plays its seat like an AI.", name=name,
                    id=table.id)
            await self._say(interaction, one if added == 1 else words.ngettext(
                reading.lang(), "Seated {n} copy of the program `{name}` at table `{id}`: it plays its seat like "
                "an AI.", "Seated {n} copies of the program `{name}` at table `{id}`: they play their seats like AIs.",
                added, name=name, id=table.id))
            return
        added = await self.runtime.add_ai(table.id, interaction.user.id, count, level=level)
        if (level or table.ai_level) == "strong":
            said = words.ngettext(reading.lang(), "Added {n} strong AI player to table `{id}`.",
                                  "Added {n} strong AI players to table `{id}`.", added, id=table.id)
        else:
            said = words.ngettext(reading.lang(), "Added {n} AI player to table `{id}`.",
                                  "Added {n} AI players to table `{id}`.", added, id=table.id)
        await self._say(interaction, said)

    @game_ai.autocomplete("program")
    async def game_ai_program_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            typed = current.strip().lower()
            names = [n for n in self.runtime.program_names() if typed in n.lower()]
            return [app_commands.Choice(name=n, value=n) for n in names[:MAX_CHOICES]]
        except Exception:
            log.exception("Program autocomplete failed")
            return []

    @game.command(name="start", description="Host: start the game (empty seats become AI players).")
    async def game_start(self, interaction: discord.Interaction) -> None:
        await self._safely(interaction, self._start(interaction, None))

    async def _start(self, interaction: discord.Interaction, table_id: str | None) -> None:
        table = self._my_table(interaction, table_id)
        listener = self.discord_listener
        # Turn pings wait until the thread exists, so the first one lands in the thread too — and
        # until the host's answer (their hand, kept current) is there, so it needs no button.
        async with listener.hold(table.id) if listener is not None else contextlib.nullcontext():
            await self.runtime.start(table.id, interaction.user.id)
            # Creating a thread is an API call that can be slow: acknowledge first.
            await interaction.response.defer(ephemeral=True, thinking=True)
            thread = await self._open_thread(interaction, table)
            head = _("The game is on — play in {thread}.", thread="<#" + str(thread.id) + ">") if thread is not None \
                else _("The game is on!")
            sv = self._seat_view(table.id, interaction.user.id)
            if sv is None or sv.view is None:
                await self._say(interaction, head + " " + _("Press **My hand** for your cards."))
            else:
                # The answers people already have (this one, their join) stay their hands, kept current.
                content, view = hand_view(sv)
                said = await self._say(interaction, f"{head}\n{content}", view=view)
                let_go(view)
                self._live(interaction, sv, message_id=said)
            if thread is not None and listener is not None:
                await listener.started(table)  # the thread's first message: My hand / I'm back, the first pings

    async def _open_thread(self, interaction: discord.Interaction, table: Table) -> discord.Thread | None:
        """A public thread from the table message, when the bot may create one; else ``None`` and the
        game stays in the channel."""
        if table.thread_id is not None or table.message_id is None or table.anchored:
            return None  # (where the bot is not a member it cannot open a thread: the game stays put)
        permissions = self.discord_listener.permissions if self.discord_listener is not None else None
        if permissions is not None and not permissions.allows(table, "create_public_threads"):
            return None  # the host was told when the table opened
        channel = interaction.client.get_channel(table.channel_id) or interaction.channel
        if channel is None or isinstance(channel, discord.Thread) or not hasattr(channel, "get_partial_message"):
            return None
        budget = self.discord_listener.budget if self.discord_listener is not None else None  # the bot-wide REST budget
        if budget is not None:
            await budget.take(urgent=True)  # the host is waiting on this answer: it does not queue
        return await open_thread(self.runtime, channel, table, log)

    @game.command(name="end", description="End a table (host, or a member with Manage Server).")
    @app_commands.describe(id="Table id (default: the table in this channel)")
    async def game_end(self, interaction: discord.Interaction, id: TableId | None = None) -> None:  # noqa: A002
        await self._safely(interaction, self._end(interaction, id))

    async def _end(self, interaction: discord.Interaction, table_id: str | None) -> None:
        table = self._channel_table(interaction, table_id)
        perms = getattr(interaction, "permissions", None)
        admin = bool(perms is not None and perms.manage_guild)
        await self.runtime.end(table.id, interaction.user.id, admin=admin)
        await self._say(interaction, _("Table `{id}` has ended; the final standings are posted.", id=table.id))

    @game.command(name="list", description="The tables open or running in this server.")
    async def game_list(self, interaction: discord.Interaction) -> None:
        await self._safely(interaction, self._list(interaction))

    async def _list(self, interaction: discord.Interaction) -> None:
        tables = [t for t in self.runtime.list(self._guild(interaction)) if may_see(interaction, t)]
        if not tables:
            await self._say(interaction, _("No tables are open in this server. Open one with `/game new`."))
            return
        lines = []
        for t in sorted(tables, key=lambda t: t.created_at):
            seats = ", ".join(render.seat_badge(t, i) for i in range(len(t.seats)))
            where = f"<#{t.thread_id or t.channel_id}>"
            phase = {"lobby": _("lobby"), "running": _("running"), "finished": _("finished")}.get(
                render.phase_of(t), render.phase_of(t))
            lines.append(f"`{t.id}` **{render.game_title(t)}** — {phase} · " +
                         _("{taken}/{most} seats", taken=len(t.seats), most=t.max_seats) + f" · {seats} · {where}")
        embed = discord.Embed(title=_("Tables in this server"), description="\n".join(lines)[:4000],
                              colour=render.LOBBY_COLOUR)
        await self._say(interaction, None, embed=embed)

    @game.command(name="watch", description="Follow a running table privately: what everyone at it sees, kept current.")
    @app_commands.describe(table="The running table to watch (autocompleted; its id is on its table message)")
    async def game_watch(self, interaction: discord.Interaction, table: TableId) -> None:
        # The same answer as the Watch button on the table message (cogs/live/game_clicks.py).
        await self._safely(interaction, self._watch(interaction, table, command=True))

    @game_watch.autocomplete("table")
    async def game_watch_table_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            tables = [t for t in self.runtime.list(self._guild(interaction)) if may_see(interaction, t)]
            return table_choices(tables, interaction.channel_id, current)
        except Exception:
            log.exception("Table autocomplete failed")
            return []

    @game.command(name="replay", description="A finished game step by step, with its recap and its log as a file.")
    @app_commands.describe(id="Table id of a finished game")
    async def game_replay(self, interaction: discord.Interaction, id: TableId) -> None:  # noqa: A002
        await self._safely(interaction, self._replay(interaction, id))

    async def _history(self, interaction: discord.Interaction, table_id: str) -> GameRecord:
        """A game's record for ``/game replay``, **Replay** and ``/game review``: one of a table in a
        channel the person may not read (and did not play in) is answered as one that does not exist."""
        record = await self.runtime.history(table_id, self._guild(interaction), interaction.user.id)
        if not may_see_record(interaction, record.channel_id, record.user_ids):
            raise TableError(N_("There is no game with id `{id}` in my records."), "unknown_table", id=record.id)
        return record

    async def _replay(self, interaction: discord.Interaction, table_id: str) -> None:
        record = await self._history(interaction, table_id)
        if not record.finished:
            # The log of a game in play would show everyone's hands.
            raise TableError(N_("Table `{id}` is still open: its replay is available once the game is over."),
                             id=record.id)
        if record.seed is None:
            raise TableError(N_("Table `{id}` closed before its game started: there is nothing to replay."),
                             id=record.id)
        try:
            state, _log = record.replay()
        except Exception:
            log.exception("Table %s no longer replays", record.id)
            raise TableError(N_("The log of table `{id}` no longer replays, sorry."), id=record.id) from None
        outcome = state.outcome()
        title = _(GAMES.get(record.game, record.game.capitalize()))
        lines = ["**" + (_("Final standings") if outcome is not None else _("Standings when it ended")) + "**"]
        lines += replay_standings(record, outcome)
        hands = recap(record, reading.lang())  # (the asker's language)
        if hands:
            lines += ["", "**" + _("Hand by hand") + "**", *hands]
        text = "\n".join(lines)
        if len(text) > 4000:
            text = text[:3990].rsplit("\n", 1)[0] + "\n…"
        embed = discord.Embed(title=_("{game} · table {id} — replay", game=title, id=record.id), description=text,
                              colour=render.FINISHED_COLOUR)
        embed.set_footer(text=words.ngettext(reading.lang(), "Seed {seed} · {n} move. The attached file replays with "
                                             "python -m tables.history.replay FILE.", "Seed {seed} · {n} moves. The "
                                             "attached file replays with python -m tables.history.replay FILE.",
                                             len(record.log), seed=record.seed))
        data = json.dumps(record.to_json(outcome), separators=(",", ":")).encode()
        file = discord.File(io.BytesIO(data), filename=f"deckhand-{record.id}.json")
        await interaction.response.send_message(embed=embed, file=file, ephemeral=True, allowed_mentions=NO_PINGS)
        await self.replay_followup(interaction, record)

    @game.command(name="review", description="The strong AI's review of your play in a finished game (only you).")
    @app_commands.describe(id="Table id of a finished game you played in")
    async def game_review(self, interaction: discord.Interaction, id: TableId) -> None:  # noqa: A002
        await self._safely(interaction, self.review_reply(interaction, id))

    @game.command(name="rules", description="The rules of a game and its table options.")
    @app_commands.describe(game="Which game")
    @app_commands.choices(game=GAME_CHOICES)
    async def game_rules(self, interaction: discord.Interaction, game: ChoiceText) -> None:
        await self._safely(interaction, self._rules(interaction, game))

    async def _rules(self, interaction: discord.Interaction, game: str) -> None:
        entry = engine.games().get(game.strip().lower())
        if entry is None:
            await self._say(interaction, no_such_game(game.strip().lower()))
            return
        await self._say(interaction, None, embed=rules_embed(entry.game.name, self.rules_url,
                                                                words.resolve(interaction.locale)))

    # ==== /hand and /play ======================================================================
    @app_commands.command(name="hand", description="Your hand and what you may do now (only you see it).")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def hand(self, interaction: discord.Interaction) -> None:
        await self._safely(interaction, self._hand(interaction, None))

    async def _hand(self, interaction: discord.Interaction, table_id: str | None) -> None:
        table = self._table(interaction, table_id) if table_id else self._my_table(interaction)
        if table.phase == Phase.FINISHED:
            raise TableError(game_over(table))
        seat = table.seat_of(interaction.user.id)
        if seat is not None and table.phase == Phase.RUNNING:
            s = table.seats[seat]
            if s.away and not s.left:
                # Looking at your hand after timing out means you are back (DISCORD.md, Timers).
                await self.runtime.back(table.id, interaction.user.id)
        sv = self.runtime.seat_view(table.id, interaction.user.id)
        if sv.view is None:
            raise TableError(N_("The game at table `{id}` has not started yet."), id=table.id)
        content, view = hand_view(sv)
        callback = await interaction.response.send_message(content, view=view, ephemeral=True,
                                                           allowed_mentions=NO_PINGS)
        # discord.py gives an ephemeral view a 15-minute timeout task that keeps it alive; ours holds
        # only DynamicItems, dispatched by their ids, so let it go at once (no task per hand shown).
        let_go(view)
        self._live(interaction, sv, message_id=getattr(callback, "message_id", None))

    @app_commands.command(name="play", description="Play, pass or choose by text; autocompletes your legal choices.")
    @app_commands.describe(cards="What to play, e.g. QS, 10h, or three cards to pass")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def play(self, interaction: discord.Interaction, cards: Typed) -> None:
        await self._safely(interaction, self._play(interaction, cards))

    async def _play(self, interaction: discord.Interaction, text: str) -> None:
        table = self._my_table(interaction)
        if not text.strip():
            raise TableError(N_("Say what to play, e.g. `QS` or `10h`."))
        events = await self.runtime.act(table.id, interaction.user.id, text.strip(),
                                        answer_by=self._answer_by(interaction))
        content, view, sv = self._after_move(table, interaction.user.id, events)
        callback = await interaction.response.send_message(content, view=view, ephemeral=True,
                                                           allowed_mentions=NO_PINGS)
        let_go(view)  # as in _hand: no 15-minute task per hand shown
        self._live(interaction, sv, message_id=getattr(callback, "message_id", None))

    @app_commands.command(name="hint", description="What the strong AI would play for you now, and why (only you).")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def hint(self, interaction: discord.Interaction) -> None:
        await self._safely(interaction, self._hint(interaction, None))

    async def _hint(self, interaction: discord.Interaction, table_id: str | None) -> None:
        table = self._my_table(interaction, table_id)
        # The search may take up to a second: acknowledge first (a private "thinking…").
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self.runtime.hint(table.id, interaction.user.id)
        await self._say(interaction, hint_text(table, self.runtime.seat_view(table.id, interaction.user.id), found))

    @play.autocomplete("cards")
    async def play_cards_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            if interaction.guild_id is None:
                return []
            table = self.runtime.find(interaction.guild_id, user_id=interaction.user.id)
            if table is None:
                return []
            sv = self.runtime.seat_view(table.id, interaction.user.id)
        except TableError:
            return []
        except Exception:
            log.exception("Play autocomplete failed")
            return []
        if sv.decision is None:
            return []
        # The suggestions are the person's own: their language (cogs/i18n/reading.py); cards typed in
        # it are read too.
        person = reading.remember(interaction.user.id, interaction.locale)
        with reading.reading(person):
            return legal_choices(sv.decision, current, (sv.view or {}).get("hand"),
                                 renderers.renderer_for(table.game), sv, locale=person)
