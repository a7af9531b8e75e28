"""Who may know of a table: a person sees, lists, watches and replays only the tables of channels
they may read, and the tables they sat at.

Their permissions in the table's channel are computed as Discord does, by discord.py's
``permissions_for`` from the guild cache (the guild's roles, the channel's overwrites — both come
with the GUILDS intent) and the member the interaction carries (with its roles): no privileged
intent.  A thread has its parent's permissions.  Whatever cannot be worked out (a channel or guild
the cache does not hold) counts as not readable: a table the person may not see is answered
exactly as one that does not exist.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from tables.finished import AnyTable


def may_read(interaction: discord.Interaction, channel_id: int | None) -> bool:
    """Whether the person of ``interaction`` may read the channel (or thread) ``channel_id``."""
    if channel_id is None:
        return False
    if interaction.channel_id == channel_id:
        return True  # they are in it
    if not isinstance(interaction, discord.Interaction):
        return True  # a test's stand-in (tests/cogs) models no channel permissions
    guild, member = interaction.guild, interaction.user
    if guild is None or not isinstance(member, discord.Member):
        return False
    channel = guild.get_channel_or_thread(channel_id)
    if channel is None:
        return False
    try:
        return channel.permissions_for(member).view_channel
    except discord.ClientException:  # a thread whose parent the cache does not hold
        return False


def may_see(interaction: discord.Interaction, table: AnyTable) -> bool:
    """Whether the person may know of ``table`` (a running table, the stub of a finished one):
    they sat at it, or they may read its channel."""
    if table.seat_of(interaction.user.id) is not None:
        return True
    here = interaction.channel_id
    if here is not None and here in (getattr(table, "channel_id", None), getattr(table, "thread_id", None)):
        return True
    return may_read(interaction, getattr(table, "channel_id", None))


def may_see_record(interaction: discord.Interaction, channel_id: int | None, user_ids: Sequence[int | None]) -> bool:
    """The same for a game's record (``/game replay``, ``/game review``)."""
    return interaction.user.id in user_ids or may_read(interaction, channel_id)
