"""The game cog's plumbing (cogs/table/game.py): every interaction answered safely — a refusal as an
ephemeral sentence, a failure as a logged apology, a click too late as nothing — and the table an
interaction is about, found by id or by who asks and where.  A mixin of
:class:`cogs.table.game.GameCog`: the cog sets ``runtime``, ``discord_listener`` and ``live``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, Unpack

import discord
from discord import app_commands

import words
from cogs.i18n import reading
from cogs.live.game_clicks import _describe
from cogs.ops.permissions import ChannelPermissions
from cogs.table import render, renderers
from cogs.table.answers import game_over
from cogs.table.arguments import NOT_IN_A_SERVER
from cogs.table.components import let_go, table_view
from cogs.table.render import NO_PINGS, Extras
from cogs.watch.visibility import may_see
from tables.finished import AnyTable
from tables.ids import echo, normalise
from tables.runtime import Runtime, TableError
from tables.table import Phase, Table
from words import N_

if TYPE_CHECKING:
    from cogs.live.hand import LiveViews
    from cogs.live.listener import DiscordListener

log = logging.getLogger("cogs.table.game")  # (the cog's own log, as before the split)


class _Threadable(Protocol):
    """A channel a table's thread can be opened from (its message's)."""

    def get_partial_message(self, message_id: int, /) -> discord.PartialMessage: ...


async def open_thread(runtime: Runtime, channel: _Threadable, table: Table, said: logging.Logger,
                      what: str = "table") -> discord.Thread | None:
    """A public thread from ``table``'s message in ``channel``, kept as the table's (``Runtime.attach``);
    ``None`` when Discord refuses (the game stays in the channel: ``said`` logs it, of a ``what``)."""
    assert table.message_id is not None
    try:
        thread = await channel.get_partial_message(table.message_id).create_thread(
            name=f"{render.game_title(table)} · {table.id}", auto_archive_duration=1440
        )
    except discord.HTTPException as e:  # Forbidden included: no thread permission
        said.info("No thread for %s %s (%s); playing in the channel", what, table.id, e)
        return None
    table.thread_id = thread.id
    with contextlib.suppress(TableError):
        await runtime.attach(table.id, thread_id=thread.id)
    return thread


OOPS = N_("Sorry — something went wrong on my side. It has been logged; please try again.")
POSTED_AGAIN = N_("↪️ The table goes on here (the message above stopped updating).")
#: The interaction's ``extras`` key naming the table it was about (``Plumbing._post_again``).
TABLE_EXTRA = "deckhand.table"


class Plumbing:
    """How the game cog answers an interaction and finds the table it is about."""

    # What this mixin uses of the cog (cogs/table/game.py), set in its ``__init__``.
    runtime: Runtime
    live: LiveViews | None
    discord_listener: DiscordListener | None

    def _answer_by(self, interaction: discord.Interaction) -> float:
        """The runtime's deadline for this interaction (tables/live.py ``ANSWER_WITHIN``): its age
        from the time in its id, which Discord stamps when the person clicks."""
        age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        return self.runtime.answer_by(age)

    async def _safely(self, interaction: discord.Interaction, work: Awaitable[object]) -> None:
        """Run a handler; turn refusals into an ephemeral sentence and failures into a logged apology.
        A click too old to be answered any more (the person saw it fail) changes nothing."""
        permissions = self.discord_listener.permissions if self.discord_listener is not None else None
        if permissions is not None:
            permissions.seen(interaction)  # what the bot may do here, before anything is drawn
        # What this person reads is in their client's language; what the table reads is drawn in
        # the table's (cogs/table/renderers.py sets it around every public render).
        reader = reading.remember(interaction.user.id, interaction.locale)
        try:
            self.runtime.refuse_late(self._answer_by(interaction))
            with reading.reading(reader):
                await work
                await self._post_again(interaction)
        except TableError as e:
            if e.code == "late":
                # Nobody can be told: the interaction's answer window is over.
                log.warning("Dropped a late interaction (it may not take effect after it failed): %s",
                            _describe(interaction))
                if asyncio.iscoroutine(work):
                    work.close()
                return
            await self._say(interaction, e.say(words.resolve(interaction.locale)))
        except Exception:
            log.exception("Interaction failed: %s", _describe(interaction))
            await self._say(interaction, words.translate(words.resolve(interaction.locale), OOPS))
        if permissions is not None:
            await self._tell_missing(interaction, permissions)

    async def _post_again(self, interaction: discord.Interaction) -> None:
        """Where the bot is not a member, the table message is edited only through the token of an
        interaction that may edit it, which lives 15 minutes.  When none is left (everyone was idle,
        or the bot restarted), the next interaction about the table posts it again — a public
        followup of this answer — and that followup's token keeps it current from then on.  The old
        message stays as it stopped; the new one says so on its first line."""
        table = self.runtime.tables.get(str(interaction.extras.get(TABLE_EXTRA, "")))
        live = self.live
        if table is None or live is None or not table.anchored or not interaction.response.is_done() \
                or table.phase == "finished":
            return  # (a finished one: cogs/live/anchors.py show_ends)
        if not live.needs_posting(table.id):
            return
        rendered = renderers.table_message(table)
        note = words.translate(table.locale, POSTED_AGAIN)
        view = table_view(table)
        try:
            content = "\n".join(x for x in (note, rendered.content) if x)
            if rendered.embed is not None:
                sent = await interaction.followup.send(content, embed=rendered.embed, view=view,
                                                       allowed_mentions=NO_PINGS, wait=True)
            else:
                sent = await interaction.followup.send(content, view=view, allowed_mentions=NO_PINGS, wait=True)
        except discord.HTTPException as e:
            log.info("Table %s: could not post its message again (%s)", table.id, e)
            return
        finally:
            let_go(view)
        table.message_id = sent.id
        live.table_opened(interaction, table.id, message_id=sent.id)
        with contextlib.suppress(TableError):  # stored: a restart knows the newest message
            await self.runtime.attach(table.id, message_id=sent.id)

    async def _tell_missing(self, interaction: discord.Interaction, permissions: ChannelPermissions) -> None:
        """The host of a table here hears once, in plain words, which optional permission the bot
        lacks and what the table does without it (cogs/ops/permissions.py): a followup on their answer."""
        if not interaction.response.is_done():
            return
        here = interaction.channel_id
        for table in list(self.runtime.tables.values()):
            if table.host_id != interaction.user.id or here not in (table.channel_id, table.thread_id) \
                    or table.phase == "finished" or table.anchored:
                continue  # (where the bot is not a member it posts nothing: no permission is missing)
            text = permissions.untold(table, words.resolve(interaction.locale))
            if text:
                try:
                    await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_PINGS)
                except discord.HTTPException as e:
                    log.warning("Could not tell %s what the bot may not do here: %s", interaction.user.id, e)

    async def _say(self, interaction: discord.Interaction, text: str | None, **kwargs: Unpack[Extras]) -> int | None:
        """An ephemeral reply, whether or not the interaction was answered (deferred) already; the
        id of the message it made, when Discord says."""
        try:
            if interaction.response.is_done():
                # discord.py sends None as no text, though its overloads type the content as str.
                sent = await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_PINGS, wait=True,  # type: ignore[call-overload]
                                                       **kwargs)
                return getattr(sent, "id", None)
            callback = await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NO_PINGS,
                                                               **kwargs)
            return getattr(callback, "message_id", None)
        except discord.HTTPException:
            log.exception("Could not reply to %s", _describe(interaction))
            return None
        finally:
            let_go(kwargs.get("view"))  # sent: its items are rebuilt from their ids when clicked

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        # Last line of defence for anything the handlers did not catch (transformer or check errors).
        original = getattr(error, "original", error)
        if isinstance(original, TableError):
            await self._say(interaction, original.say(words.resolve(interaction.locale)))
            return
        if isinstance(error, app_commands.CheckFailure):
            # A refusal, not a crash: interaction_check has answered already (a command from a DM).
            if not interaction.response.is_done():
                await self._say(interaction, words.translate(
                    words.resolve(interaction.locale),
                    NOT_IN_A_SERVER if interaction.guild_id is None else N_("You cannot use this command here.")))
            return
        log.error("Command error: %s", _describe(interaction), exc_info=original)
        await self._say(interaction, OOPS)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None and interaction.channel_id is None:
            await self._say(interaction, words.translate(words.resolve(interaction.locale), NOT_IN_A_SERVER))
            return False
        return True

    def _guild(self, interaction: discord.Interaction) -> int:
        """The place the interaction's tables and results belong to: its server, or — in a DM or
        group DM — the conversation itself (its channel's id)."""
        place = interaction.guild_id or interaction.channel_id
        if place is None:
            raise TableError(NOT_IN_A_SERVER)
        self.runtime.shards.refuse_elsewhere(interaction.guild_id)  # a shard this process does not hold
        return place

    def _table(self, interaction: discord.Interaction, table_id: str | None,
               over: Callable[[AnyTable], str] | None = None) -> Table:
        """The table named by id — only if it belongs to this server.  One that finished and left
        memory is answered by ``over`` (default :func:`game_over`)."""
        guild_id = self._guild(interaction)
        tid = normalise(table_id or "")
        table = self.runtime.tables.get(tid)
        if table is None:
            ended = self.runtime.finished.get(tid)  # a finished table that left memory: it is over
            if ended is not None and ended.guild_id == guild_id and may_see(interaction, ended):
                raise TableError((over or game_over)(ended))
        # A table in a channel the person may not read is answered as one that does not exist.
        if table is None or table.guild_id != guild_id or not may_see(interaction, table):
            raise TableError(N_("There is no table with id `{id}` in this server. `/game list` shows them."),
                             id=echo(tid) or "?")
        interaction.extras[TABLE_EXTRA] = table.id
        return table

    def _my_table(self, interaction: discord.Interaction, table_id: str | None = None) -> Table:
        """The table given by id, else the one the user sits at in this server."""
        if table_id:
            return self._table(interaction, table_id)
        guild_id = self._guild(interaction)
        table = self.runtime.find(guild_id, user_id=interaction.user.id)
        if table is None:
            finished = self._finished_table(guild_id, interaction.user.id)
            if finished is not None:
                raise TableError(game_over(finished))
            raise TableError(N_("You are not seated at a table in this server. Open one with `/game new` "
                                "or take a seat with `/game join`."))
        interaction.extras[TABLE_EXTRA] = table.id
        return table

    def _finished_table(self, guild_id: int, user_id: int) -> AnyTable | None:
        """The user's most recently finished table in this server, while the runtime still keeps it
        (or its stub, once it left memory)."""
        known: list[AnyTable] = [*self.runtime.tables.values(), *self.runtime.finished.ended.values()]
        mine = [t for t in known
                if t.guild_id == guild_id and t.phase == Phase.FINISHED and t.seat_of(user_id) is not None]
        return max(mine, key=lambda t: t.finished_at or 0.0, default=None)

    def _channel_table(self, interaction: discord.Interaction, table_id: str | None = None) -> Table:
        """The table given by id, else the one meant in this channel (yours first, then an open lobby)."""
        if table_id:
            return self._table(interaction, table_id)
        guild_id = self._guild(interaction)
        table = self.runtime.find(guild_id, channel_id=interaction.channel_id, user_id=interaction.user.id)
        if table is None:
            table = self.runtime.find(guild_id, user_id=interaction.user.id)
        if table is None:
            raise TableError(N_("There is no open table here. Open one with `/game new`, or give a table id "
                                "(`/game list` shows them)."))
        return table
