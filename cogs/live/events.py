"""Gateway events the bot answers outside any command: a game's thread deleted, and every
interaction (counted for the metrics; a host whose table's channel refuses the bot's posts hears it
on their next interaction, once: cogs/live/listener.py ``tell_host``; a game that ended where the bot
is not a member while no token could show it is shown by the next interaction there:
cogs/live/anchors.py ``show_ends``)."""

from __future__ import annotations

import asyncio

import discord
from discord.ext import commands

from cogs.live import anchors
from cogs.live.listener import DiscordListener
from tables.metrics import Metrics
from tables.runtime import Runtime


class EventsCog(commands.Cog):
    def __init__(self, runtime: Runtime, listener: DiscordListener, metrics: Metrics | None) -> None:
        self.runtime = runtime
        self.tables_listener = listener  # (not `listener`: a Cog's own name)
        self.metrics = metrics
        self._telling: set[asyncio.Future[None]] = set()
        self._posting: set[str] = set()  # finished tables whose end an interaction is posting now

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        # A moderator deleted a game's thread: the game goes on in its channel, where the table
        # message gets My hand back (a thread's link would lead nowhere).
        await self.runtime.detach_thread(payload.thread_id)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if self.metrics is not None:
            self.metrics.interactions_received += 1
        if self.tables_listener.has_notices:
            task = asyncio.ensure_future(self.tables_listener.tell_host(interaction))
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)
        # A game that ended where the bot is not a member while no token could show its end: its
        # final standings follow the answer to this interaction in that conversation.
        if anchors.ends_to_show(self.runtime, self.tables_listener, interaction.channel_id):
            task = asyncio.ensure_future(anchors.show_ends(interaction, self.runtime, self.tables_listener,
                                                           self._posting))
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)
