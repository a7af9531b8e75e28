"""The e2e world is production's setting: the bot configured from its environment (a SQLite
database, the AI worker pool), Discord's real rate-limit windows and global limit, and — started
without DEV_GUILD_ID, as production runs — its commands registered globally."""

from __future__ import annotations

import asyncio
import random

import discord

from tests.e2e.conftest import ANSWER_WITHIN, GLOBAL_LIMIT, World, make_world
from tests.fakediscord.play import open_table, play_seat


async def test_a_world_runs_the_production_setting_by_default(w: World) -> None:
    assert w.fd.ratelimit_scale == 1.0 and w.fd.global_limit == GLOBAL_LIMIT
    assert ANSWER_WITHIN < w.fd.answer_within  # a margin for the network under Discord's own deadline
    config = w.bot.config
    assert config.database_url and config.database_url.startswith("sqlite:///")
    assert w.runtime.storage is not None  # tables are kept, as in production: delivery waits for commits
    assert config.ai_workers >= 1 and w.bot.ai_pool is not None
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    table = w.table(table_message)
    await w.until(lambda: table.state is not None, what="the game starts")
    stored = await w.runtime.storage.load(table.id)
    assert stored is not None and stored.record["game"] == table.game


async def test_without_dev_guild_id_the_bot_registers_its_commands_globally() -> None:
    async with make_world(sync_to_guild=False) as w:
        assert w.bot.config.dev_guild_id is None
        assert w.fd.guild_id not in w.fd.commands, "commands were synced to one server"
        registered = w.fd.commands[None]
        assert {"game", "hand", "play"} <= set(registered)
        assert not any("guild_id" in c for c in registered.values())
        # People in any server reach them: a global command works like a server's.
        rules = await w.stranger.slash("game rules", game="hearts")
        assert rules.ephemeral and "Hearts" in rules.text


async def test_the_bot_hears_no_message_and_keeps_no_message_cache(w: World) -> None:
    """Every message the bot posts or edits came back over the gateway (MESSAGE_CREATE,
    MESSAGE_UPDATE), and so would every message anyone posts where the bot is: discord.py decoded
    each into a Message (some thirty objects) and kept the last 1,000, which nothing of Deckhand
    reads; a full garbage collection walked them all while the tables played (issue 35).  The bot
    asks for no message events (no GUILD_MESSAGES intent) and keeps no message cache."""
    assert not w.bot.intents.guild_messages
    at = len(w.fd.session.buffer)
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    heard = [event for _, event, _, _ in list(w.fd.session.buffer)[at:]]
    assert "INTERACTION_CREATE" in heard
    assert [e for e in heard if e.startswith("MESSAGE_")] == []
    assert len(w.fd.messages[table_message.id].versions) > 1  # (posted, then edited: the game runs)
    assert list(w.bot.cached_messages) == []


async def test_an_answered_click_leaves_no_garbage_cycle(w: World) -> None:
    """An interaction and its ``response`` point at each other: every click left that cycle, with
    the clicked message and its components (some forty objects), for the garbage collector — under
    load most of its work and its longest pauses (issue 35).  Once a card click is answered the
    cycle is cut: with the collector off, nothing of the click stays once it is handled."""
    import gc

    def card_clicks() -> list[discord.Interaction]:
        return [o for o in gc.get_objects() if isinstance(o, discord.Interaction)
                and str((o.data or {}).get("custom_id", "")).startswith("dh:a:")]

    table_message = await open_table(w.ali, [w.bob], options="target=1")
    table = w.table(table_message)
    await w.until(lambda: table.state is not None, what="the game starts")
    gc.collect()
    gc.disable()
    try:
        played = await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(n), timeout=60,
                                                  over=lambda: len(table.log) >= 12)
                                        for n, p in enumerate((w.ali, w.bob))))
        assert sum(s.moves for s in played) > 0
        await w.until(lambda: not card_clicks(), timeout=10.0, what="the handled card clicks freed")
    finally:
        gc.enable()


async def test_answered_commands_and_sent_views_leave_no_garbage_cycle(w: World) -> None:
    """A slash command's interaction, like a click's, points at its ``response`` and back; and a
    View sent with a message (the lobby's buttons) and its items point at each other: every
    ``/game new``, ``/game join``, ``/hand``… left such a cycle for the garbage collector (issue
    35).  Once answered, nothing of them stays: they go without the collector."""
    import gc

    def left() -> list[str]:
        return [f"{type(o).__qualname__} {(o.data or {}).get('name', '') if isinstance(o, discord.Interaction) else ''}"
                for o in gc.get_objects() if isinstance(o, discord.Interaction | discord.ui.View | discord.ui.Item)]

    gc.collect()
    gc.disable()
    try:
        table_message = await open_table(w.ali, [w.bob], options="target=1")  # /game new, join, ai, start
        hand = await w.bob.slash("hand")
        listed = await w.stranger.slash("game list")
        assert not (hand.failed or listed.failed) and table_message.id
        await w.until(lambda: not left(), timeout=10.0, what=f"the answered commands freed: {left()}")
    finally:
        gc.enable()
