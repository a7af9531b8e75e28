"""What the bot may do where a table plays, as Discord says with each interaction
(``interaction.app_permissions``: the bot's permissions in the interaction's channel).

Two permissions are optional, each with a way to do without it:

* **Attach Files** — the end-of-game chart is a picture; without it the chart is a text table;
* **Create Public Threads** — a game gets its own thread; without it the game stays in the channel.

(Use External Emojis is not needed: the card pictures are the application's own emojis, which
Discord lets an application use everywhere without it.)

This is presentation state of the cogs layer, kept per channel (lost on a restart: the next
interaction there says it again).  The host of a table is told once per table, in plain words, what
is missing and what it costs (:meth:`ChannelPermissions.untold`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

import words
from words import N_

if TYPE_CHECKING:
    from tables.table import Table

#: (discord.Permissions flag, its name in Discord's settings, what the table does without it)
OPTIONAL: tuple[tuple[str, str, str], ...] = (
    ("attach_files", N_("Attach Files"), N_("I can't attach files here, so the final chart will be text. "
                                            "Give me Attach Files to see it.")),
    ("create_public_threads", N_("Create Public Threads"), N_("I can't create threads here, so the game is played "
                                                              "in this channel. Give me Create Public Threads to "
                                                              "give each game its own thread.")),
)
FLAGS = tuple(flag for flag, _, _ in OPTIONAL)


class ChannelPermissions:
    """The optional permissions the bot lacks, per channel, from the last interaction there."""

    def __init__(self) -> None:
        self._lacking: dict[int, frozenset[str]] = {}
        self._told: dict[str, frozenset[str]] = {}  # table id -> what its host was told already

    def seen(self, interaction: discord.Interaction) -> None:
        """Read ``interaction.app_permissions`` (a guild interaction's; a DM says nothing)."""
        perms = getattr(interaction, "app_permissions", None)
        channel_id = getattr(interaction, "channel_id", None)
        if perms is None or channel_id is None or getattr(interaction, "guild_id", None) is None:
            return
        lacking = frozenset(flag for flag in FLAGS if not getattr(perms, flag, True))
        # A thread inherits its channel's permissions; its own interactions say nothing of threads.
        if isinstance(getattr(interaction, "channel", None), discord.Thread):
            lacking -= {"create_public_threads"}
        self._lacking[channel_id] = lacking

    def lacking(self, table: Table) -> frozenset[str]:
        """What the bot lacks where ``table`` plays (its thread's and its channel's, as last seen)."""
        out: frozenset[str] = frozenset()
        for cid in (getattr(table, "thread_id", None), getattr(table, "channel_id", None)):
            if cid is not None:
                out |= self._lacking.get(cid, frozenset())
        return out

    def allows(self, table: Table, flag: str) -> bool:
        return flag not in self.lacking(table)

    def untold(self, table: Table, locale: str = words.ENGLISH) -> str | None:
        """The notice for the host about what is missing at ``table`` that they have not been told
        yet (marked told: each is said once per table), or ``None``; in ``locale`` (the host's)."""
        lacking = self.lacking(table)
        new = lacking - self._told.get(table.id, frozenset())
        if not new:
            return None
        self._told[table.id] = self._told.get(table.id, frozenset()) | new
        return "\n".join("⚠️ " + words.translate(locale, text) for flag, _, text in OPTIONAL if flag in new)

    def forget(self, table_id: str) -> None:
        self._told.pop(table_id, None)
