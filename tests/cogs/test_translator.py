"""The slash commands in every supported language (cogs/sync/translator.py, issue 31): every command,
option and choice localized for each supported Discord locale, within Discord's rules (checked by
the fake Discord's own rules, tests/fakediscord/commands.py), and part of what the start-up sync
compares (cogs/sync/command_sync.py), so a restart of the same code still writes nothing."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterator
from typing import Any

import discord

import bot
import config
import words
from cogs.sync.command_sync import same_commands
from cogs.sync.translator import CatalogTranslator
from tests.cogs.test_command_sync import as_discord_lists
from tests.fakediscord.commands import command_errors

SUPPORTED = [loc for locales in words.DISCORD_LOCALES.values() for loc in locales]


def translated() -> list[dict[str, Any]]:
    """The bot's commands as its sync writes them: with every localization."""

    async def build() -> list[dict[str, Any]]:
        deckhand = bot.Deckhand(config.Config("t", dev_guild_id=42))
        await deckhand.setup_hook()
        try:
            tree = deckhand.tree
            assert isinstance(tree.translator, CatalogTranslator)
            commands = tree.get_commands(guild=discord.Object(42))
            return [await c.get_translated_payload(tree, tree.translator) for c in commands]
        finally:
            await deckhand.runtime.close()

    return asyncio.run(build())


def named(payload: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every command, subcommand and option, all the way down."""
    for item in payload:
        yield item
        yield from named(item.get("options") or [])


def same_in(locale: str, text: str, *contexts: str) -> bool:
    """Whether the catalog of ``locale`` says ``text`` as English does (``Hearts`` in German): then
    no localization is registered, and Discord shows the English."""
    lang = words.resolve(locale)
    return any(words.translate(lang, text, context=c) == text for c in contexts)


def test_every_command_option_and_choice_has_every_supported_language() -> None:
    payload = translated()
    for item in named(payload):
        for locale in SUPPORTED:
            assert locale in item["description_localizations"], f"{item['name']}: no {locale} description"
            assert locale in item["name_localizations"] or same_in(locale, item["name"], "command name",
                                                                   "option name"), f"{item['name']}: {locale}"
        for choice in item.get("choices") or []:
            for locale in SUPPORTED:
                assert locale in choice["name_localizations"] or same_in(locale, choice["name"], "choice name")
    hearts = {ch["value"]: ch for item in named(payload) for ch in item.get("choices") or []}["hearts"]
    assert "de" not in hearts["name_localizations"] and hearts["name_localizations"]["pl"] == "Kierki"
    game = next(c for c in payload if c["name"] == "game")
    assert game["name_localizations"]["de"] == "spiel"
    assert next(o for o in game["options"] if o["name"] == "new")["name_localizations"]["de"] == "neu"
    rules = next(o for o in game["options"] if o["name"] == "rules")
    titles = {c["value"]: c["name_localizations"] for c in rules["options"][0]["choices"]}
    assert titles["dalmuti"]["de"] == "Der Große Dalmuti" and titles["dalmuti"]["fr"] == "Le Grand Dalmuti"
    assert titles["koth"]["zh-CN"] == "找朋友"


def test_the_localized_commands_keep_discords_rules() -> None:
    payload = translated()
    errors, lines = command_errors(payload)
    assert lines == []


def test_the_fake_refuses_a_localization_that_breaks_discords_rules() -> None:
    payload = translated()
    for bad in ("Spiel", "neues spiel", "x" * 33, ""):
        broken = copy.deepcopy(payload)
        broken[0]["name_localizations"]["de"] = bad
        errors, lines = command_errors(broken)
        assert errors["0"]["name_localizations"]["de"]["_errors"][0]["code"] == "APPLICATION_COMMAND_INVALID_NAME"
    # Two options of one command under the same German name.
    broken = copy.deepcopy(payload)
    new = next(o for o in next(c for c in broken if c["name"] == "game")["options"] if o["name"] == "new")
    new["options"][1]["name_localizations"]["de"] = new["options"][0]["name_localizations"]["de"]
    assert any("Localized names must be unique" in line for line in command_errors(broken)[1])
    # A description over 100 characters; a locale Discord does not have.
    broken = copy.deepcopy(payload)
    broken[0]["description_localizations"]["fr"] = "x" * 101
    broken[0]["name_localizations"]["xx"] = "x"
    lines = command_errors(broken)[1]
    assert any("description_localizations.fr" in line for line in lines)
    assert any("Invalid locale 'xx'" in line for line in lines)


def test_localizations_are_part_of_the_sync_comparison() -> None:
    payload = translated()
    assert same_commands(payload, as_discord_lists(payload))
    changed = copy.deepcopy(payload)
    changed[0]["name_localizations"]["de"] += "x"
    assert not same_commands(changed, as_discord_lists(payload))
    # Discord's copy without localizations (commands written before this change) is a difference too.
    bare = copy.deepcopy(payload)
    for item in named(bare):
        item.pop("name_localizations", None)
        item.pop("description_localizations", None)
    assert not same_commands(payload, as_discord_lists(bare))
