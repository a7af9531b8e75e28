"""Slash commands and component clicks for card tables: parse the interaction, call the runtime,
render the answer.

The cog holds no game state: the runtime owns tables, the renderer turns them into text, and the
components carry what a click means in their custom ids.  Every refusal is a ``TableError`` whose
sentence goes back to the one user as an ephemeral reply; any other failure is logged and answered
with an apology, so a user never meets "This interaction failed".
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
from collections import Counter
from collections.abc import Awaitable, Sequence
from types import SimpleNamespace
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs import options as table_options
from cogs import render, renderers
from cogs.components import (
    MARK,
    card_values,
    hand_payload,
    hand_view,
    marked_values,
    marking_since,
    pick_parts,
    table_view,
    value_code,
)
from cogs.hints import hint_text
from cogs.live import update_message
from engine.cards import Card, CardError, card
from engine.core import Action, Event
from tables.ids import normalise
from tables.live import SeatView
from tables.replay import recap, standings
from tables.runtime import Runtime, TableError
from tables.table import Phase, Table

log = logging.getLogger(__name__)

# The contract's game list (DISCORD.md); games the engine does not have yet answer "coming soon".
GAMES = {"hearts": "Hearts", "tricks": "Tricks", "dalmuti": "The Great Dalmuti", "koth": "King of the Hill",
         "siege": "Siege"}
GAME_CHOICES = [app_commands.Choice(name=title, value=name) for name, title in GAMES.items()]
SPEED_CHOICES = [app_commands.Choice(name=s, value=s) for s in table_options.SPEED_ORDER]
MAX_CHOICES = 25
NO_PINGS = discord.AllowedMentions.none()
OOPS = "Sorry — something went wrong on my side. It has been logged; please try again."
NOT_IN_A_SERVER = "Deckhand tables live in servers: use these commands in a server channel."


def parse_options(text: str | None) -> dict[str, str]:
    """``"rules=mcgill target=50"`` (spaces or commas between pairs) as a dict of raw strings."""
    out: dict[str, str] = {}
    for token in (text or "").replace(",", " ").split():
        key, eq, value = token.partition("=")
        if not eq or not key or not value:
            raise TableError(f"I can't read `{token}`: options look like `key=value`, e.g. `rules=mcgill target=50`.")
        out[key.strip().lower()] = value.strip()
    return out


def playable() -> dict[str, engine.core.GameEntry]:
    """Games a table can be opened for: in the engine AND drawn by a renderer of their own (a game
    whose engine lands before its Discord screens stays "coming soon")."""
    return {name: e for name, e in engine.games().items() if name in renderers.RENDERERS}


def replay_standings(record: Any, outcome: Any) -> list[str]:
    """A replay's final standings in the shape the table showed them: medals shared by ties, each
    score in the game's unit."""
    if outcome is None:
        return standings(record, outcome)
    r = renderers.renderer_for(record.game)
    order = sorted(range(len(outcome.scores)), key=lambda s: (outcome.places[s], s))
    table = SimpleNamespace(id=record.id, game=record.game)
    marks = render.medals([outcome.places[s] for s in order])
    return [f"{m} {render.clean(record.names[s])} — {r.score_text(table, s, outcome.scores[s])}"
            f"{render.hints_mark(record.hint_count(s))}" for m, s in zip(marks, order, strict=True)]


def game_over(table: Any) -> str:
    """What a player hears when they ask for their hand after the game: it is over, where to look."""
    # (a table, or the stub of one that left memory: tables/finished.py)
    if table.seed is None and getattr(table, "state", None) is None:
        return f"Table `{table.id}` was closed before its game started. Open a new one with `/game new`."
    return (f"The game at table `{table.id}` is over — the final standings are on its table message. "
            f"Replay: `/game replay id:{table.id}`. Open a new table with `/game new`.")


def coming_soon(game: str) -> str:
    title = GAMES.get(game, game)
    ready = ", ".join(f"`{name}`" for name in sorted(playable()))
    return f"{title} is coming soon to Deckhand. For now you can play: {ready}."


class GameCog(commands.Cog):
    """Card tables: the ``/game`` group, ``/hand``, ``/play`` and the buttons of table messages."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        # The listener's live hand views (cogs/live.py), when it keeps any: a hand view this cog
        # answers with is registered there and kept current through the interaction's token.
        self.live = getattr(getattr(runtime, "listener", None), "live", None)
        if self.live is not None and getattr(self.live, "runtime", None) is None:
            self.live.runtime = runtime

    game = app_commands.Group(name="game", description="Card game tables: open, join, start, end.", guild_only=True)

    # ==== plumbing =============================================================================
    def _answer_by(self, interaction: discord.Interaction) -> float:
        """The runtime's deadline for this interaction (tables/live.py ``ANSWER_WITHIN``): its age
        from the time in its id, which Discord stamps when the person clicks."""
        age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        return self.runtime.answer_by(age)

    async def _safely(self, interaction: discord.Interaction, work: Awaitable[Any]) -> None:
        """Run a handler; turn refusals into an ephemeral sentence and failures into a logged apology.
        A click too old to be answered any more (the person saw it fail) changes nothing."""
        try:
            self.runtime.refuse_late(self._answer_by(interaction))
            await work
        except TableError as e:
            if e.code == "late":
                # Nobody can be told: the interaction's answer window is over.
                log.warning("Dropped a late interaction (it may not take effect after it failed): %s",
                            _describe(interaction))
                if asyncio.iscoroutine(work):
                    work.close()
                return
            await self._say(interaction, e.message)
        except Exception:
            log.exception("Interaction failed: %s", _describe(interaction))
            await self._say(interaction, OOPS)

    async def _say(self, interaction: discord.Interaction, text: str | None, **kwargs: Any) -> int | None:
        """An ephemeral reply, whether or not the interaction was answered (deferred) already; the
        id of the message it made, when Discord says."""
        try:
            if interaction.response.is_done():
                sent = await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_PINGS, wait=True,
                                                       **kwargs)
                return getattr(sent, "id", None)
            callback = await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_PINGS,
                                                               **kwargs)
            return getattr(callback, "message_id", None)
        except discord.HTTPException:
            log.exception("Could not reply to %s", _describe(interaction))
            return None

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        # Last line of defence for anything the handlers did not catch (transformer or check errors).
        original = getattr(error, "original", error)
        if isinstance(original, TableError):
            await self._say(interaction, original.message)
            return
        if isinstance(error, app_commands.CheckFailure):
            # A refusal, not a crash: interaction_check has answered already (a command from a DM).
            if not interaction.response.is_done():
                await self._say(interaction, NOT_IN_A_SERVER if interaction.guild_id is None else
                                "You cannot use this command here.")
            return
        log.error("Command error: %s", _describe(interaction), exc_info=original)
        await self._say(interaction, OOPS)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None:
            await self._say(interaction, NOT_IN_A_SERVER)
            return False
        return True

    def _guild(self, interaction: discord.Interaction) -> int:
        if interaction.guild_id is None:
            raise TableError("Deckhand tables live in servers: use these commands in a server channel.")
        self.runtime.shards.refuse_elsewhere(interaction.guild_id)  # a shard this process does not hold
        return interaction.guild_id

    def _table(self, interaction: discord.Interaction, table_id: str | None) -> Any:
        """The table named by id — only if it belongs to this server."""
        guild_id = self._guild(interaction)
        tid = normalise(table_id or "")
        table = self.runtime.tables.get(tid)
        if table is None:
            ended = self.runtime.finished.get(tid)  # a finished table that left memory: it is over
            if ended is not None and ended.guild_id == guild_id:
                raise TableError(game_over(ended))
        if table is None or table.guild_id != guild_id:
            raise TableError(f"There is no table with id `{tid or '?'}` in this server. `/game list` shows them.")
        return table

    def _my_table(self, interaction: discord.Interaction, table_id: str | None = None) -> Any:
        """The table given by id, else the one the user sits at in this server."""
        if table_id:
            return self._table(interaction, table_id)
        guild_id = self._guild(interaction)
        table = self.runtime.find(guild_id, user_id=interaction.user.id)
        if table is None:
            finished = self._finished_table(guild_id, interaction.user.id)
            if finished is not None:
                raise TableError(game_over(finished))
            raise TableError("You are not seated at a table in this server. Open one with `/game new` "
                             "or take a seat with `/game join`.")
        return table

    def _finished_table(self, guild_id: int, user_id: int) -> Any:
        """The user's most recently finished table in this server, while the runtime still keeps it
        (or its stub, once it left memory)."""
        mine = [t for t in (*self.runtime.tables.values(), *self.runtime.finished.ended.values())
                if t.guild_id == guild_id and t.phase == Phase.FINISHED and t.seat_of(user_id) is not None]
        return max(mine, key=lambda t: t.finished_at or 0.0, default=None)

    def _channel_table(self, interaction: discord.Interaction, table_id: str | None = None) -> Any:
        """The table given by id, else the one meant in this channel (yours first, then an open lobby)."""
        if table_id:
            return self._table(interaction, table_id)
        guild_id = self._guild(interaction)
        table = self.runtime.find(guild_id, channel_id=interaction.channel_id, user_id=interaction.user.id)
        if table is None:
            table = self.runtime.find(guild_id, user_id=interaction.user.id)
        if table is None:
            raise TableError("There is no open table here. Open one with `/game new`, or give a table id "
                             "(`/game list` shows them).")
        return table

    # ==== /game ================================================================================
    @game.command(name="new", description="Open a table: posts the lobby with Join, Add AI and Start buttons.")
    @app_commands.describe(game="Which game", options="Table options as key=value, speed too (autocompleted)",
                           speed="How long each decision may take (default normal; or speed= in options)")
    @app_commands.choices(game=GAME_CHOICES, speed=SPEED_CHOICES)
    async def game_new(
        self, interaction: discord.Interaction, game: str, options: str | None = None, speed: str | None = None
    ) -> None:
        await self._safely(interaction, self._new(interaction, game, options, speed))

    async def _new(self, interaction: discord.Interaction, game: str, options: str | None, speed: str | None) -> None:
        guild_id = self._guild(interaction)
        name = game.strip().lower()
        entry = playable().get(name)
        if entry is None:
            await self._say(interaction, coming_soon(name))
            return
        try:
            # speed may come inside options: like any option; the runtime takes it on its own.
            given, speed_key = table_options.read(name, parse_options(options), speed)
            ai_level = table_options.read_ai(name, parse_options(options))
        except ValueError as e:  # a precise sentence before anything is created
            raise TableError(str(e)) from None
        table = await self.runtime.create(
            game=name, guild_id=guild_id, channel_id=interaction.channel_id, host_id=interaction.user.id,
            host_name=interaction.user.display_name, options=given, speed=speed_key, ai_level=ai_level,
        )
        rendered = renderers.table_message(table)
        try:
            callback = await interaction.response.send_message(
                content=rendered.content, embed=rendered.embed, view=table_view(table), allowed_mentions=NO_PINGS
            )
            # The callback response names the message; asking Discord again is only a fallback.
            message_id = getattr(callback, "message_id", None) or (await interaction.original_response()).id
        except Exception:
            # No message, no way to join: do not leave an invisible table holding the host's seat.
            with contextlib.suppress(TableError):
                await self.runtime.end(table.id, interaction.user.id, admin=True)
            raise
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
    async def game_join(self, interaction: discord.Interaction, id: str | None = None) -> None:  # noqa: A002
        await self._safely(interaction, self._join(interaction, id))

    async def _join(self, interaction: discord.Interaction, table_id: str | None) -> None:
        if table_id:
            table = self._table(interaction, table_id)
        else:
            table = self.runtime.find(self._guild(interaction), channel_id=interaction.channel_id)
            if table is None:
                raise TableError("There is no open table in this channel. Give its id (`/game list` shows them) "
                                 "or open one with `/game new`.")
        was_running = table.phase == Phase.RUNNING
        await self.runtime.join(table.id, interaction.user.id, interaction.user.display_name)
        seat = table.seat_of(interaction.user.id)
        where = f"seat {seat + 1} at table `{table.id}`" if seat is not None else f"table `{table.id}`"
        if was_running:
            await self._say(interaction, f"Welcome back — you have {where} again. Press **My hand** or use `/hand`.")
        else:
            said = await self._say(interaction, f"You took {where} ({render.game_title(table)}). Your hand will "
                                                "show up here when the game starts.")
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
            await self._say(interaction, f"You left table `{table.id}`; an AI plays your seat. "
                                         f"`/game join {table.id}` brings you back.")
        else:
            await self._say(interaction, f"You left table `{table.id}`.")

    @game.command(name="ai", description="Host: fill free seats with AI players.")
    @app_commands.describe(count="How many AI players (default: every free seat; one with a program)",
                           program="Tricks only: seat a program the bot's operator set up, by name",
                           level="normal (instant) or strong (thinks ahead; not in Siege)")
    @app_commands.choices(level=[app_commands.Choice(name="normal", value="normal"),
                                 app_commands.Choice(name="strong", value="strong")])
    async def game_ai(
        self, interaction: discord.Interaction, count: app_commands.Range[int, 1, 8] | None = None,
        program: str | None = None, level: str | None = None,
    ) -> None:
        await self._safely(interaction, self._ai(interaction, None, count, program, level))

    async def _ai(self, interaction: discord.Interaction, table_id: str | None, count: int | None,
                  program: str | None = None, level: str | None = None) -> None:
        table = self._my_table(interaction, table_id)
        if program is not None and program.strip():
            # Only a name the operator configured is ever looked up; anything else is refused.
            added = await self.runtime.add_ai(table.id, interaction.user.id, count, program=program)
            name = program.strip()
            what = f"the program `{name}`" if added == 1 else f"{added} copies of the program `{name}`"
            await self._say(interaction, f"Seated {what} at table `{table.id}`: it plays its seat like an AI.")
            return
        added = await self.runtime.add_ai(table.id, interaction.user.id, count, level=level)
        kind = " strong" if (level or table.ai_level) == "strong" else ""
        await self._say(interaction, f"Added {added}{kind} AI player{'s' if added != 1 else ''} to table `{table.id}`.")

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
        listener = self.runtime.listener
        hold = getattr(listener, "hold", None)
        # Turn pings wait until the thread exists, so the first one lands in the thread too — and
        # until the host's answer (their hand, kept current) is there, so it needs no button.
        async with hold(table.id) if hold is not None else contextlib.nullcontext():
            await self.runtime.start(table.id, interaction.user.id)
            # Creating a thread is an API call that can be slow: acknowledge first.
            await interaction.response.defer(ephemeral=True, thinking=True)
            thread = await self._open_thread(interaction, table)
            head = f"The game is on — play in <#{thread.id}>." if thread is not None else "The game is on!"
            sv = self._seat_view(table.id, interaction.user.id)
            if sv is None or sv.view is None:
                await self._say(interaction, f"{head} Press **My hand** for your cards.")
            else:
                # The answers people already have (this one, their join) stay their hands, kept current.
                content, view = hand_view(sv)
                said = await self._say(interaction, f"{head}\n{content}", view=view)
                view.stop()
                self._live(interaction, sv, message_id=said)
            started = getattr(listener, "started", None)
            if thread is not None and started is not None:
                await started(table)  # the thread's first message: My hand / I'm back, the first pings

    async def _open_thread(self, interaction: discord.Interaction, table: Table) -> Any:
        """A public thread from the table message, when the bot may create one; else ``None`` and the
        game stays in the channel."""
        if table.thread_id is not None or table.message_id is None:
            return None
        channel = interaction.client.get_channel(table.channel_id) or interaction.channel
        if channel is None or isinstance(channel, discord.Thread) or not hasattr(channel, "get_partial_message"):
            return None
        budget = getattr(self.runtime.listener, "budget", None)  # the bot-wide REST budget
        if budget is not None:
            await budget.take(urgent=True)  # the host is waiting on this answer: it does not queue
        try:
            thread = await channel.get_partial_message(table.message_id).create_thread(
                name=f"{render.game_title(table)} · {table.id}", auto_archive_duration=1440
            )
        except discord.HTTPException as e:  # Forbidden included: no thread permission
            log.info("No thread for table %s (%s); playing in the channel", table.id, e)
            return None
        table.thread_id = thread.id
        with contextlib.suppress(TableError):
            await self.runtime.attach(table.id, thread_id=thread.id)
        return thread

    @game.command(name="end", description="End a table (host, or a member with Manage Server).")
    @app_commands.describe(id="Table id (default: the table in this channel)")
    async def game_end(self, interaction: discord.Interaction, id: str | None = None) -> None:  # noqa: A002
        await self._safely(interaction, self._end(interaction, id))

    async def _end(self, interaction: discord.Interaction, table_id: str | None) -> None:
        table = self._channel_table(interaction, table_id)
        perms = getattr(interaction, "permissions", None)
        admin = bool(perms is not None and perms.manage_guild)
        await self.runtime.end(table.id, interaction.user.id, admin=admin)
        await self._say(interaction, f"Table `{table.id}` has ended; the final standings are posted.")

    @game.command(name="list", description="The tables open or running in this server.")
    async def game_list(self, interaction: discord.Interaction) -> None:
        await self._safely(interaction, self._list(interaction))

    async def _list(self, interaction: discord.Interaction) -> None:
        tables = self.runtime.list(self._guild(interaction))
        if not tables:
            await self._say(interaction, "No tables are open in this server. Open one with `/game new`.")
            return
        lines = []
        for t in sorted(tables, key=lambda t: t.created_at):
            seats = ", ".join(render.seat_badge(t, i) for i in range(len(t.seats)))
            where = f"<#{t.thread_id or t.channel_id}>"
            lines.append(f"`{t.id}` **{render.game_title(t)}** — {render.phase_of(t)} · "
                         f"{len(t.seats)}/{t.max_seats} seats · {seats} · {where}")
        embed = discord.Embed(title="Tables in this server", description="\n".join(lines)[:4000],
                              colour=render.LOBBY_COLOUR)
        await self._say(interaction, None, embed=embed)

    @game.command(name="replay", description="A finished game's recap, with its seed and log as a file.")
    @app_commands.describe(id="Table id of a finished game")
    async def game_replay(self, interaction: discord.Interaction, id: str) -> None:  # noqa: A002
        await self._safely(interaction, self._replay(interaction, id))

    async def _replay(self, interaction: discord.Interaction, table_id: str) -> None:
        record = await self.runtime.history(table_id, self._guild(interaction))
        if not record.finished:
            # The log of a game in play would show everyone's hands.
            raise TableError(f"Table `{record.id}` is still open: its replay is available once the game is over.")
        if record.seed is None:
            raise TableError(f"Table `{record.id}` closed before its game started: there is nothing to replay.")
        try:
            state, events = record.replay()
        except Exception:
            log.exception("Table %s no longer replays", record.id)
            raise TableError(f"The log of table `{record.id}` no longer replays, sorry.") from None
        outcome = state.outcome()
        title = GAMES.get(record.game, record.game.capitalize())
        lines = [f"**{'Final standings' if outcome is not None else 'Standings when it ended'}**"]
        lines += replay_standings(record, outcome)
        hands = recap(record, events)
        if hands:
            lines += ["", "**Hand by hand**", *hands]
        text = "\n".join(lines)
        if len(text) > 4000:
            text = text[:3990].rsplit("\n", 1)[0] + "\n…"
        embed = discord.Embed(title=f"{title} · table {record.id} — replay", description=text,
                              colour=render.FINISHED_COLOUR)
        embed.set_footer(text=f"Seed {record.seed} · {len(record.log)} moves. The attached file replays with "
                              "python -m tables.replay FILE.")
        data = json.dumps(record.to_json(outcome), separators=(",", ":")).encode()
        file = discord.File(io.BytesIO(data), filename=f"deckhand-{record.id}.json")
        await interaction.response.send_message(embed=embed, file=file, ephemeral=True, allowed_mentions=NO_PINGS)

    @game.command(name="rules", description="The rules of a game and its table options.")
    @app_commands.describe(game="Which game")
    @app_commands.choices(game=GAME_CHOICES)
    async def game_rules(self, interaction: discord.Interaction, game: str) -> None:
        await self._safely(interaction, self._rules(interaction, game))

    async def _rules(self, interaction: discord.Interaction, game: str) -> None:
        entry = engine.games().get(game.strip().lower())
        if entry is None:
            await self._say(interaction, coming_soon(game.strip().lower()))
            return
        g = entry.game
        players = f"{g.min_players}" if g.min_players == g.max_players else f"{g.min_players}–{g.max_players}"
        embed = discord.Embed(title=f"{g.title} — {players} players", description=g.rules_text or g.summary,
                              colour=render.LOBBY_COLOUR)
        # One field per option: a field holds 1024 characters, King of the Hill's options need more.
        for name, text in table_options.rules_lines(g.name):
            embed.add_field(name=f"Option {name}", value=text[:1024], inline=False)
        embed.add_field(name="options: accepts", value=table_options.accepted_line(g.name)[:1024], inline=False)
        embed.add_field(name="More", value=f"The full rules: `{table_options.RULE_BOOK}`, every command: "
                                           f"`{table_options.COMMAND_GUIDE}` (in Deckhand's repository).",
                        inline=False)
        embed.set_footer(text=f"/game new game:{g.name} options:key=value … to play")
        await self._say(interaction, None, embed=embed)

    # ==== /hand and /play ======================================================================
    @app_commands.command(name="hand", description="Your hand and what you may do now (only you see it).")
    @app_commands.guild_only()
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
            raise TableError(f"The game at table `{table.id}` has not started yet.")
        content, view = hand_view(sv)
        callback = await interaction.response.send_message(content, view=view, ephemeral=True,
                                                           allowed_mentions=NO_PINGS)
        # discord.py gives an ephemeral view a 15-minute timeout task that keeps it alive; ours holds
        # only DynamicItems, dispatched by their ids, so let it go at once (no task per hand shown).
        view.stop()
        self._live(interaction, sv, message_id=getattr(callback, "message_id", None))

    @app_commands.command(name="play", description="Play, pass or choose by text; autocompletes your legal choices.")
    @app_commands.describe(cards="What to play, e.g. QS, 10h, or three cards to pass")
    @app_commands.guild_only()
    async def play(self, interaction: discord.Interaction, cards: str) -> None:
        await self._safely(interaction, self._play(interaction, cards))

    async def _play(self, interaction: discord.Interaction, text: str) -> None:
        table = self._my_table(interaction)
        if not text.strip():
            raise TableError("Say what to play, e.g. `QS` or `10h`.")
        events = await self.runtime.act(table.id, interaction.user.id, text.strip(),
                                        answer_by=self._answer_by(interaction))
        content, view, sv = self._after_move(table, interaction.user.id, events)
        callback = await interaction.response.send_message(content, view=view, ephemeral=True,
                                                           allowed_mentions=NO_PINGS)
        view.stop()  # as in _hand: no 15-minute task per hand shown
        self._live(interaction, sv, message_id=getattr(callback, "message_id", None))

    @app_commands.command(name="hint", description="What the strong AI would play for you now, and why (only you).")
    @app_commands.guild_only()
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
        return legal_choices(sv.decision, current, (sv.view or {}).get("hand"), renderers.renderer_for(table.game), sv)

    # ==== components ===========================================================================
    async def on_table_button(self, interaction: discord.Interaction, act: str, table_id: str) -> None:
        work = {
            "join": lambda: self._join(interaction, table_id),
            "leave": lambda: self._leave(interaction, table_id),
            "ai": lambda: self._ai(interaction, table_id, None),
            "start": lambda: self._start(interaction, table_id),
            "hand": lambda: self._hand(interaction, table_id),
            "back": lambda: self._back(interaction, table_id),
            "refresh": lambda: self._refresh(interaction, table_id),
            "hint": lambda: self._hint(interaction, table_id),
        }.get(act)
        if work is None:
            await self._say(interaction, "That button does nothing any more.")
            return
        await self._safely(interaction, work())

    async def _back(self, interaction: discord.Interaction, table_id: str) -> None:
        table = self._table(interaction, table_id)
        # Not seated, no game, or not away: the runtime says so (and keeps the clock as it is).
        await self.runtime.back(table.id, interaction.user.id)
        # Welcome back with the hand itself, kept current from now on.
        sv = self.runtime.seat_view(table.id, interaction.user.id)
        content, view = hand_view(sv)
        shown = await self._show(interaction, f"👋 Welcome back — you play your seat again.\n{content}", view)
        self._live(interaction, sv, message_id=shown)

    async def _refresh(self, interaction: discord.Interaction, table_id: str) -> None:
        """The hand view redrawn in place (the Refresh button on a hand view)."""
        table = self._table(interaction, table_id)
        sv = self.runtime.seat_view(table.id, interaction.user.id)
        if sv.view is None:
            raise TableError(f"The game at table `{table.id}` has not started yet.")
        content, view = hand_view(sv)
        await interaction.response.edit_message(content=content, view=view, embed=None)
        view.stop()
        self._live(interaction, sv)

    # ---- live hand views ---------------------------------------------------------------------
    async def _show(self, interaction: discord.Interaction, content: str, view: discord.ui.View) -> int | None:
        """A hand view as the answer: in place of the hand view the click came from, else new; the
        id of the message that shows it, when known."""
        message = _own_message(interaction)
        if message is not None:
            await interaction.response.edit_message(content=content, view=view, embed=None)
            view.stop()
            return int(message.id)
        callback = await interaction.response.send_message(content, view=view, ephemeral=True,
                                                           allowed_mentions=NO_PINGS)
        view.stop()
        return getattr(callback, "message_id", None)

    def _seat_view(self, table_id: str, user_id: int) -> Any:
        try:
            return self.runtime.seat_view(table_id, user_id)
        except TableError:
            return None

    def _live(self, interaction: discord.Interaction, sv: Any, lobby: bool = False,
              message_id: int | None = None) -> None:
        """This interaction was answered with the person's hand view (``lobby``: with their seat in a
        lobby, to become their hand view when the game starts): keep it current from now on.
        ``message_id``: the message that shows it (by default the hand view the click was on)."""
        if self.live is None or sv is None or (sv.view is None and not lobby):
            return
        if message_id is None:
            own = _own_message(interaction)
            message_id = int(own.id) if own is not None else None
        try:
            self.live.opened(interaction, sv.table.id, interaction.user.id, sv if sv.view is not None else None,
                             message_id=message_id)
        except Exception:
            log.exception("Could not keep a hand view current: %s", _describe(interaction))

    async def on_action_button(
        self, interaction: discord.Interaction, table_id: str, version: int, code: str
    ) -> None:
        async def work() -> None:
            table = self._table(interaction, table_id)
            await self._act(interaction, table_id, version, self._action_of(table, interaction.user.id, code))

        await self._safely(interaction, work())

    @staticmethod
    def _action_of(table: Table, user_id: int, code: str) -> str | Action:
        """The legal action a button or menu names by its code (the engine's own value, whatever its
        cards are); the code itself when it names none now (the runtime then says why)."""
        seat = table.seat_of(user_id)
        if seat is None or table.state is None or table.phase != Phase.RUNNING:
            return code
        decision = table.state.decision(seat)
        for a in decision.actions if decision is not None else ():
            if a.code == code:
                return a
        return code

    async def on_pick(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, values: list[str]
    ) -> None:
        async def work() -> None:
            table = self._table(interaction, table_id)
            action = self._picked(table, interaction.user.id, kind, values)
            await self._act(interaction, table_id, version, action)

        await self._safely(interaction, work())

    def _picked(self, table: Table, user_id: int, kind: str, values: Sequence[str]) -> Action:
        """The action chosen in a card menu.  Values are card codes (``D5#2`` for a second copy),
        read as the decision's own cards; for a decision with explicit actions (two cards for a pair
        lead) the legal action with exactly those cards."""
        codes = [value_code(v) for v in values]
        seat = table.seat_of(user_id)
        decision = table.state.decision(seat) if seat is not None and table.state is not None else None
        if decision is not None and decision.kind == kind:
            objs = {c.code: c for c in decision.cards}
            for a in decision.actions:
                objs.update((c.code, c) for c in a.cards)
            if all(code in objs for code in codes):
                chosen = tuple(objs[code] for code in codes)
                if not decision.pick:
                    want = sorted(codes)
                    for a in decision.actions:
                        if sorted(c.code for c in a.cards) == want:
                            return a
                return Action(kind, chosen)
        try:
            return Action(kind, tuple(card(code) for code in codes))
        except CardError:
            # Not a card of this decision: the menu is from an earlier view (or another table).
            raise TableError("That menu is out of date; open your hand again with **My hand**.") from None

    async def on_part(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, part: int, values: list[str]
    ) -> None:
        """One part menu of a pick over more than 25 cards changed: the seat's marked cards become
        those marked in the other menus plus the ones chosen here (one engine action, so the choice
        is stored and survives a restart), and the hand view is redrawn with fresh components."""

        async def work() -> None:
            table, _ = self._chooser(interaction, table_id, version, kind, marking=True)
            sv = self.runtime.seat_view(table.id, interaction.user.id)
            decision = sv.decision
            parts = pick_parts(sv, renderers.renderer_for(table.game), decision)
            if parts is None or not 0 <= part < len(parts):
                raise TableError("That menu is out of date; open your hand again with **My hand**.")
            cards = list(decision.cards)
            before = marked_values(cards, (sv.view or {}).get("marked") or [])
            here = {value for value, _, _ in parts[part][1]}
            chosen = set(values) & here
            after = (before - here) | chosen
            if after != before:
                by_value = dict(zip(card_values(cards), cards, strict=True))
                marked = tuple(by_value[v] for v in card_values(cards) if v in after)
                await self.runtime.act(table.id, interaction.user.id, Action(kind, marked, (MARK,)),
                                       version=table.version, answer_by=self._answer_by(interaction))
            await self._refresh(interaction, table.id)

        await self._safely(interaction, work())

    async def on_pick_done(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, op: str
    ) -> None:
        async def work() -> None:
            if op == "clear":
                table, seat = self._chooser(interaction, table_id, version, kind, marking=True)
                if table.state.view(seat).get("marked"):
                    await self.runtime.act(table.id, interaction.user.id, Action(kind, (), (MARK,)),
                                           version=table.version, answer_by=self._answer_by(interaction))
                await self._refresh(interaction, table.id)
                return
            # OK buries what is marked now, only if that is what this view showed: its exact version.
            table, _ = self._chooser(interaction, table_id, version, kind)
            await self._act(interaction, table.id, version, Action(kind))

        await self._safely(interaction, work())

    def _chooser(
        self, interaction: discord.Interaction, table_id: str, version: int, kind: str, marking: bool = False
    ) -> tuple[Any, int]:
        """The table and seat of a click on a part menu or OK / Clear, refused when the view it came
        from is out of date.  ``marking`` (a part menu, Clear): it still stands while the seat has
        done nothing but mark cards since it was drawn."""
        table = self._table(interaction, table_id)
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise TableError("You are not seated at this table.")
        decision = table.state.decision(seat) if table.phase == Phase.RUNNING and table.state is not None else None
        stale = (decision is None or decision.kind != kind or not decision.pick or version > table.version
                 or "marked" not in table.state.view(seat)
                 or (marking and version < marking_since(table, seat, kind)))
        if stale:
            raise TableError("That menu is out of date; open your hand again with **My hand**.")
        return table, seat

    async def _act(self, interaction: discord.Interaction, table_id: str, version: int, action: str | Action) -> None:
        table = self._table(interaction, table_id)
        try:
            events = await self.runtime.act(table.id, interaction.user.id, action, version=version,
                                            answer_by=self._answer_by(interaction))
        except TableError as e:
            own = _own_message(interaction)
            if e.code != "stale" or own is None or self.live is None \
                    or not self.live.shows(table.id, interaction.user.id, int(own.id)) \
                    or _moved_since(table, interaction.user.id, version):
                raise  # (a second click on the same view: the first one's answer stays as it is)
            # A click on the live view just before it was redrawn (a card dealt, a turn taken by the
            # clock): it shows the hand as it is now, in place, and stays live.
            sv = self.runtime.seat_view(table.id, interaction.user.id)
            content, view = hand_view(sv)
            await self._show(interaction, f"⚠️ That changed just before your click — here is your hand now.\n"
                                          f"{content}", view)
            self._live(interaction, sv)
            return
        sv = self.runtime.seat_view(table.id, interaction.user.id)
        ack = renderers.renderer_for(table.game).ack_line(table, sv.seat, events)
        # The hand view the click came from becomes the fresh one (it is this user's ephemeral message).
        await update_message(interaction, hand_payload(sv, ack))
        self._live(interaction, sv)  # what it shows is that seat view, whatever happened since

    def _after_move(self, table: Table, user_id: int, events: Sequence[Event]) -> tuple[str, discord.ui.View, Any]:
        """The hand view after a move, headed by what the move did, and the seat view it shows."""
        sv = self.runtime.seat_view(table.id, user_id)
        content, view = hand_view(sv)
        ack = renderers.renderer_for(table.game).ack_line(table, sv.seat, events)
        return f"{ack}\n{content}", view, sv


# ==== autocomplete (pure) ========================================================================
def legal_choices(
    decision: Any, current: str, hand: Sequence[str] | None = None, renderer: render.Renderer | None = None,
    sv: SeatView = None,
) -> list[app_commands.Choice[str]]:
    """Exactly the legal choices of ``decision`` matching what was typed, at most 25.

    Explicit actions are offered as they are (value: the action code; name: the game renderer's
    words, ``three 5s``).  A "choose N cards" decision is completed one card at a time: after
    ``2C 3D`` come ``2C 3D 4H``, ``2C 3D 5S``… (values are card codes; names use card labels); a
    card the decision holds several times (Dalmuti's 5s) may be chosen that many times."""
    r = renderer or render.GENERIC
    typed = current.strip().lower()
    if not decision.pick:
        out = []
        for a in render.in_hand_order(decision.actions, hand):
            name = r.action_label(a, sv)
            words = [a.code.lower(), name.lower(), *(str(getattr(c, "name", "")).lower() for c in a.cards)]
            if not typed or any(typed in w for w in words):
                one = len(a.cards) == 1 and not a.args and isinstance(a.cards[0], Card)
                spoken = f" · {a.cards[0].name}" if one else ""
                out.append(app_commands.Choice(name=f"{name}{spoken}"[:100], value=a.code))
        return out[:MAX_CHOICES]
    allowed = list(decision.cards)
    have = Counter(c.code for c in allowed)
    tokens = current.split()
    if tokens and tokens[0].lower() == decision.kind:
        tokens = tokens[1:]
    finished = current.endswith(" ") or not tokens
    chosen: list[Any] = []
    partial = ""
    marked = _marked_cards(sv, allowed)[: decision.pick]
    if not tokens and marked:
        # Nothing typed yet, cards marked in the menus: carry on from them (King of the Hill's bury).
        if len(marked) == decision.pick:
            labels = " ".join(c.label for c in marked)
            return [app_commands.Choice(name=f"{decision.kind.capitalize()} the {decision.pick} marked: {labels}"[:100],
                                        value=decision.kind)]
        chosen = marked
    for i, tok in enumerate(tokens):
        last = i == len(tokens) - 1
        c = _read_card(tok, allowed)
        free = c is not None and sum(1 for x in chosen if x.code == c.code) < have[c.code]
        if free and (not last or finished or _exact(tok, c, allowed)):
            chosen.append(c)
        elif last and not finished:
            partial = tok.lower()
        # Unreadable words in the middle are dropped: the suggestions show what will be sent.
    if len(chosen) >= decision.pick:
        chosen = chosen[: decision.pick]
        return [_pick_choice(chosen, decision.pick)]
    left = have - Counter(c.code for c in chosen)
    out = []
    offered: set[str] = set()
    for c in allowed:
        if left[c.code] <= 0 or c.code in offered:
            continue
        words = (c.code.lower(), render.label(c).lower(), str(getattr(c, "name", "")).lower())
        if partial and not any(w.startswith(partial) for w in words):
            continue
        offered.add(c.code)
        out.append(_pick_choice([*chosen, c], decision.pick))
    return out[:MAX_CHOICES]


def _marked_cards(sv: SeatView, allowed: Sequence[Any]) -> list[Any]:
    """The cards the seat has marked for a pick so far (``view["marked"]``), one per marked copy."""
    pool = list(allowed)
    out = []
    for code in ((getattr(sv, "view", None) or {}).get("marked") or []):
        c = next((x for x in pool if x.code == code), None)
        if c is not None:
            pool.remove(c)
            out.append(c)
    return out


def _read_card(tok: str, allowed: Sequence[Any]) -> Any:
    """The card among ``allowed`` that ``tok`` names: its code, label or name, else a standard card
    read forgivingly (``10h``)."""
    t = tok.strip().lower()
    for c in allowed:
        if t in (c.code.lower(), render.label(c).lower(), str(getattr(c, "name", "")).lower()):
            return c
    try:
        code = card(tok).code
    except CardError:
        return None
    return next((c for c in allowed if c.code == code), None)


def _exact(tok: str, c: Any, allowed: Sequence[Any] = ()) -> bool:
    # "q" is the start of several cards, "qs" already means one: accept it without a trailing space.
    # A Dalmuti "1" is a card but also the start of 10, 11 and 12: wait for more.
    t = tok.lower()
    if any(c2.code != c.code and (render.label(c2).lower().startswith(t) or c2.code.lower().startswith(t))
           for c2 in allowed):
        return False
    return tok.upper() in (c.code, render.label(c).upper()) or (
        isinstance(c, Card) and len(tok) >= 2 and tok[-1].lower() in "cdhs♣♦♥♠")


def _pick_choice(cs: Sequence[Any], pick: int) -> app_commands.Choice[str]:
    more = pick - len(cs)
    name = " ".join(c.label for c in cs) + (f" … ({more} more)" if more > 0 else "")
    return app_commands.Choice(name=name[:100], value=" ".join(c.code for c in cs)[:100])


def option_choices(game: str | None, current: str) -> list[app_commands.Choice[str]]:
    """Suggestions for ``/game new options``: the typed pairs kept, plus each remaining option."""
    entry = engine.games().get(str(game or "hearts").lower())
    if entry is None:
        return []
    spec = table_options.spec(entry.game.name)
    tokens = current.replace(",", " ").split()
    finished = current.endswith(" ") or not tokens
    done = tokens if finished else tokens[:-1]
    partial = "" if finished else tokens[-1].lower()
    given = {t.partition("=")[0].lower() for t in done}
    prefix = " ".join(done)
    out: list[app_commands.Choice[str]] = []
    for opt in spec:
        if opt.name in given:
            continue
        suggested = renderers.renderer_for(entry.game.name).lobby_values.get(opt.name)
        if suggested:
            # The game's own suggestions first (Tricks: 25/50/100 for people; 1000 is for programs).
            values = [table_options.number(v) for v in dict.fromkeys([*suggested, *(opt.choices or (opt.default,))])]
        elif opt.choices:
            values = [table_options.number(c) for c in table_options.values(opt)]
        else:
            values = [str(v) for v in dict.fromkeys([opt.default, *_round_numbers(opt.low, opt.high)])]
        for v in values:
            pair = f"{opt.name}={v}"
            if partial and not pair.lower().startswith(partial):
                continue
            value = f"{prefix} {pair}".strip()
            if len(value) <= 100:
                # The name says what the last pair means ("moon=others_plus_26 — moon: the others get 26").
                name = f"{value} — {table_options.say(entry.game.name, opt.name, opt.read(v))}"
                out.append(app_commands.Choice(name=name if len(name) <= 100 else value, value=value))
    if not out and current.strip():
        out.append(app_commands.Choice(name=current.strip()[:100], value=current.strip()[:100]))
    return out[:MAX_CHOICES]


def _round_numbers(low: int | None, high: int | None) -> list[int]:
    return [n for n in (25, 50, 100) if (low is None or n >= low) and (high is None or n <= high)]


def _moved_since(table: Table, user_id: int, version: int) -> bool:
    """Whether the person made a move of their own after ``version`` (a double click)."""
    seat = table.seat_of(user_id)
    for e in reversed(table.log):
        if e.seq <= version:
            return False
        if e.seat == seat and not e.auto:
            return True
    return False


def _own_message(interaction: discord.Interaction) -> Any:
    """The ephemeral message (a hand view) a component interaction came from, else ``None`` (a
    command, or a button on a public message)."""
    message = getattr(interaction, "message", None)
    if message is None or getattr(interaction, "type", None) == discord.InteractionType.application_command:
        return None
    flags = getattr(message, "flags", None)
    return message if getattr(flags, "ephemeral", False) else None


def _describe(interaction: discord.Interaction) -> str:
    data = getattr(interaction, "data", None) or {}
    name = data.get("name") or data.get("custom_id") or "?"
    return f"{name} by {getattr(interaction.user, 'id', '?')} in guild {interaction.guild_id}"
