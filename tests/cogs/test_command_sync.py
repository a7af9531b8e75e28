"""cogs/sync/command_sync.py: what counts as Discord having our commands already (then a start-up
writes nothing: issue 25).  A restart against the fake Discord: tests/e2e/test_restart.py."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import discord

import bot
import config
from cogs.sync.command_sync import same_commands


def ours() -> list[dict[str, Any]]:
    """The bot's own commands, as a sync would write them."""

    async def build() -> list[dict[str, Any]]:
        deckhand = bot.Deckhand(config.Config("t", dev_guild_id=42))
        await deckhand.setup_hook()
        try:
            return [c.to_dict(deckhand.tree) for c in deckhand.tree.get_commands(guild=discord.Object(42))]
        finally:
            await deckhand.runtime.close()

    return asyncio.run(build())


def as_discord_lists(payload: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What Discord answers a listing with: ids and versions added, false and empty fields left out
    (an option's ``required``), permissions as strings, in its own order."""
    def trim(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: trim(v) for k, v in value.items() if v not in (False, None, [], {})}
        if isinstance(value, list):
            return [trim(v) for v in value]
        return value

    out = []
    for n, c in enumerate(reversed(copy.deepcopy(payload))):
        listed = trim(c) | {"id": str(1000 + n), "application_id": "7", "version": str(2000 + n), "guild_id": "42"}
        out.append(listed)
    return out


def test_the_same_commands_listed_by_discord_are_ours() -> None:
    payload = ours()
    assert len(payload) >= 5
    assert same_commands(payload, as_discord_lists(payload))
    assert same_commands(payload, copy.deepcopy(payload))


def test_any_change_of_ours_is_a_difference() -> None:
    payload = ours()
    listed = as_discord_lists(payload)

    changed = copy.deepcopy(payload)
    changed[0]["description"] += " (new)"
    assert not same_commands(changed, listed)

    fewer = copy.deepcopy(payload)[1:]  # a command removed: Discord still has it
    assert not same_commands(fewer, listed)
    assert not same_commands(payload, listed[1:])  # a command added

    option = copy.deepcopy(payload)
    game = next(c for c in option if c["options"])
    game["options"][0]["options"] = [*game["options"][0].get("options", []),
                                     {"type": 3, "name": "extra", "description": "More", "required": False}]
    assert not same_commands(option, listed)

    required = copy.deepcopy(payload)
    first = next(o for c in required for o in c.get("options", []) if o.get("type") == 3)
    first["required"] = not first.get("required", False)
    assert not same_commands(required, listed)


def test_a_field_of_ours_that_discord_leaves_out_counts_only_when_empty() -> None:
    assert same_commands([{"name": "a", "type": 1, "nsfw": False}], [{"name": "a", "type": 1}])
    assert not same_commands([{"name": "a", "type": 1, "nsfw": True}], [{"name": "a", "type": 1}])
    # True is not 1, and a string is not a number (but a snowflake may come back as one).
    assert not same_commands([{"name": "a", "type": 1, "nsfw": True}], [{"name": "a", "type": 1, "nsfw": 1}])
    assert same_commands([{"name": "a", "type": 1, "default_member_permissions": 8}],
                         [{"name": "a", "type": 1, "default_member_permissions": "8"}])
    # A slash command and a context menu may share a name: they are different commands.
    assert not same_commands([{"name": "a", "type": 1}], [{"name": "a", "type": 2}])
