"""Every command, option, choice and description in each supported language (issue 31): discord.py
calls :class:`CatalogTranslator` for each of them when it builds the commands' payload, and the
localizations it returns are registered with Discord, so a German client shows ``/spiel …``.

The English text in a decorator is the msgid; its kind (command name, option description, …) is the
msgctxt, so a word that is a command's name and an option's name may be translated apart.  A
localized name must keep Discord's rules (lower case, no spaces, 1–32 characters, unique among its
siblings: tests/cogs/test_translator.py), and an empty or untranslated entry gives no localization,
so Discord shows the English name.
"""

from __future__ import annotations

from discord import Locale, app_commands
from discord.app_commands import TranslationContextLocation as Where

import words

#: The msgctxt of each kind of command text in the catalog.
CONTEXTS = {
    Where.command_name: "command name", Where.group_name: "command name",
    Where.command_description: "command description", Where.group_description: "command description",
    Where.parameter_name: "option name", Where.parameter_description: "option description",
    Where.choice_name: "choice name",
}
#: Our catalog for each Discord locale that has one (English is the commands' own text).
_CATALOG = {discord_locale: lang for lang, locales in words.DISCORD_LOCALES.items() for discord_locale in locales}


class CatalogTranslator(app_commands.Translator):
    async def translate(self, string: app_commands.locale_str, locale: Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        lang = _CATALOG.get(locale.value)
        where = CONTEXTS.get(context.location)
        if lang is None or where is None:
            return None
        text = words.translate(lang, string.message, context=where)
        return None if text == string.message else text
