"""Whose language (issue 31): the words one person reads follow their client (``Interaction.locale``);
the words the whole table reads follow the table's language, chosen when it is opened — ``/game new
… language:``, else the server's choice (``/game language``, Manage Server only, kept by
tables/servers.py), else the server's Discord language (``guild_locale``).  Every locale goes
through :func:`words.resolve` (a regional one to its base language, an unknown one to English).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

import words
from tables.live import TableError
from words import N_, Lazy

if TYPE_CHECKING:
    from tables.runtime import Runtime

#: Each catalog's name in English (a msgid: a sentence names it in the reader's language) and in
#: its own language (the choices show both, so a person finds their language whatever they read).
NAMES = {"en": N_("English"), "de": N_("German"), "fr": N_("French"), "es": N_("Spanish"),
         "pt_BR": N_("Brazilian Portuguese"), "pl": N_("Polish"), "zh_CN": N_("Simplified Chinese"),
         "ja": N_("Japanese")}
NATIVE = {"en": "English", "de": "Deutsch", "fr": "Français", "es": "Español", "pt_BR": "Português do Brasil",
          "pl": "Polski", "zh_CN": "简体中文", "ja": "日本語"}
SERVER = "server"  # /game language's choice: back to the server's Discord language

#: ``/game new … language:`` and ``/game language language:`` choices (names are localized by the
#: command translator; the native name stays in brackets in every language).
CHOICES = [app_commands.Choice(name=f"{NAMES[lang]} ({NATIVE[lang]})" if lang != "en" else NAMES[lang], value=lang)
           for lang in words.LOCALES]
SERVER_CHOICES = [*CHOICES, app_commands.Choice(name="The server's Discord language", value=SERVER)]

NOT_A_MANAGER = N_("Only a member with Manage Server can choose the language of this server's tables.")
NO_SUCH_LANGUAGE = N_("Deckhand does not speak `{language}`. Pick one of the suggested languages.")


def reader(interaction: discord.Interaction) -> str:
    """The language of what only this person reads: their client's."""
    return words.resolve(getattr(interaction, "locale", None))


def chosen(value: str | None) -> str | None:
    """A ``language:`` option as a catalog (``None`` when none was given); a value nobody offered is refused."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text in words.LOCALES:
        return text
    lang = words.resolve(text)
    if lang == words.ENGLISH and text.lower() not in ("en", "en-us", "en-gb", "english"):
        raise TableError(NO_SUCH_LANGUAGE, "bad_language", language=text[:20])
    return lang


def is_manager(interaction: discord.Interaction) -> bool:
    perms = getattr(interaction, "permissions", None)
    return bool(perms is not None and perms.manage_guild)


async def answer(runtime: Runtime, interaction: discord.Interaction, guild_id: int, value: str | None,
                 now: float) -> str:
    """``/game language``: without a value, what new tables read; with one (a server manager only),
    the server's choice from now on.  The answer is in the asker's language."""
    servers = runtime.servers
    lang = reader(interaction)
    if value is None or not value.strip():
        mine = await servers.locale(guild_id)
        if mine is None:
            return words.translate(lang, N_("New tables in this server read the server's Discord language "
                                            "({language})."),
                                   language=Lazy(NAMES[words.resolve(interaction.guild_locale)]))
        return words.translate(lang, N_("New tables in this server read {language}, as a server manager chose "
                                        "with `/game language`."), language=Lazy(NAMES[mine]))
    if not is_manager(interaction):
        raise TableError(NOT_A_MANAGER, "not_a_manager")
    if value.strip() == SERVER:
        await servers.set_locale(guild_id, None, now)
        return words.translate(lang, N_("New tables in this server will read the server's Discord language "
                                        "({language}). Tables already open keep theirs."),
                               language=Lazy(NAMES[words.resolve(interaction.guild_locale)]))
    new = chosen(value)
    assert new is not None
    await servers.set_locale(guild_id, new, now)
    return words.translate(lang, N_("New tables in this server will read {language}. Tables already open keep "
                                    "theirs; `/game new … language:` opens one in another."),
                           language=Lazy(NAMES[new]))


async def table_locale(runtime: Runtime, interaction: discord.Interaction, guild_id: int, value: str | None) -> str:
    """What a new table reads: ``language:`` if given, else the server's choice, else its Discord language."""
    given = chosen(value)
    if given is not None:
        return given
    # (a conversation without a server: the host's own language)
    discord_locale = interaction.guild_locale or interaction.locale
    return await runtime.servers.table_locale(guild_id, discord_locale)
