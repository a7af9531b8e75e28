"""The slash commands' sync at start-up: Discord is asked what it has first, and the commands are
written only when they differ.

Discord allows two bulk overwrites of an application's commands in 20 s (per server for a
development server's), and a process cannot know how many its predecessors made: a bot restarted
twice within 20 s provoked a 429 with every third start, and discord.py, told the window was
used up, held the sync's caller until it reset (~16 s, issue 25).  Reading the commands has no
such window, and a restart of the same code finds them unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import discord
from discord import app_commands

log = logging.getLogger("deckhand")


def _same(ours: object, theirs: object) -> bool:
    """Whether Discord's copy says what ours says.  Discord adds fields (ids, versions) and may
    leave out one whose value is empty or false (an option's ``required``, empty localizations),
    so only our fields count, a missing one matching only an empty or false value of ours."""
    if isinstance(ours, Mapping):
        if not isinstance(theirs, Mapping):
            return False
        return all(_same(v, theirs[k]) if k in theirs else not v for k, v in ours.items())
    if isinstance(ours, list | tuple):
        return isinstance(theirs, list | tuple) and len(ours) == len(theirs) and all(
            _same(a, b) for a, b in zip(ours, theirs, strict=True))
    if isinstance(ours, bool) or isinstance(theirs, bool):
        return ours is theirs or (ours == theirs and type(ours) is type(theirs))
    if isinstance(ours, int) and isinstance(theirs, str):  # snowflakes and permission sets come back as strings
        return str(ours) == theirs
    return bool(ours == theirs)


def same_commands(ours: Sequence[Mapping[str, object]], theirs: Sequence[Mapping[str, object]]) -> bool:
    """Whether Discord's commands (``theirs``, as listed) are ours (as a sync would write them)."""
    def key(c: Mapping[str, object]) -> tuple[object, str]:
        return (c.get("type", 1), str(c.get("name")))

    mine = {key(c): c for c in ours}
    registered = {key(c): c for c in theirs}
    return mine.keys() == registered.keys() and all(_same(c, registered[k]) for k, c in mine.items())


async def sync_commands(client: discord.Client, tree: app_commands.CommandTree[Any],
                        guild: discord.abc.Snowflake | None) -> int | None:
    """Write the tree's commands (``guild``'s, else the global ones) unless Discord has them
    already; returns how many were written, ``None`` when nothing was to write."""
    application_id = client.application_id
    if application_id is not None:
        # With a translator (cogs/sync/translator.py) the localizations are part of what is compared.
        translator = tree.translator
        commands = tree.get_commands(guild=guild)
        payload = ([c.to_dict(tree) for c in commands] if translator is None else
                   [await c.get_translated_payload(tree, translator) for c in commands])
        http = client.http
        if guild is None:
            registered = await http.get_global_commands(application_id)
        else:
            registered = await http.get_guild_commands(application_id, guild.id)
        if same_commands(payload, registered):
            return None
    return len(await tree.sync(guild=guild))


async def register_commands(client: discord.Client, tree: app_commands.CommandTree[Any],
                            dev_guild_id: int | None) -> None:
    """Register the slash commands (the development server's, else global); never raises: the
    commands Discord already has keep working meanwhile."""
    guild = None if dev_guild_id is None else discord.Object(id=dev_guild_id)
    try:
        synced = await sync_commands(client, tree, guild)
        if synced is None:
            log.info("Discord has these slash commands already: nothing to sync")
        elif guild is not None:
            log.info("Synced %d commands to the development server %s", synced, guild.id)
        else:
            log.info("Synced %d global commands (Discord may take a while to show them)", synced)
    except Exception:
        log.exception("Could not sync the slash commands; the ones Discord already has stay")
