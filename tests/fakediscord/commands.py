"""Application command payloads checked as Discord checks them when a bot registers its commands
(``PUT /applications/{id}/commands`` and the guild variant): a payload breaking a rule is refused
with ``400`` and code ``50035 Invalid Form Body``, its ``errors`` nested by where the fault is
(``{"0": {"options": {"1": {"name": {"_errors": [...]}}}}}``), and nothing is registered.

The rules (Discord's "Application Commands" reference): names 1–32 characters, letters, digits,
``-`` and ``_`` only (``^[-_\\p{L}\\p{N}]{1,32}$``), lower case, for slash commands and their options
(user and message commands: any 1–32 characters);
descriptions 1–100 characters for slash commands (empty for user and message commands); at most
25 options and 25 choices; choice names 1–100, string values at most 100; required options before
optional ones; names unique among siblings and command names unique per type; subcommands only
under a command or a group, groups only at the top, never mixed with plain options; choices and
autocomplete not both; lengths 0–6000; at most 4000 characters of names, descriptions and choices
per command; at most 100 slash commands and 15 each of user and message commands.

Localizations (``name_localizations``, ``description_localizations``, a choice's
``name_localizations``): keys are Discord's locales only; each localized name keeps the name's rules
(``^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``, lower case where the name must be) and is
unique per locale among its siblings (commands of one type, the options of one list); each
localized description 1–100 characters, each localized choice name 1–100.
"""

from __future__ import annotations

from typing import Any

CHAT_INPUT, USER, MESSAGE = 1, 2, 3
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, NUMBER = 3, 4, 10
OPTION_TYPES = range(1, 12)
LIMITS = {CHAT_INPUT: 100, USER: 15, MESSAGE: 15}
MAX_CHARS = 4000
#: Discord's locales (the keys a localization may use).
LOCALES = frozenset({
    "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no", "pl",
    "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th", "zh-CN", "ja", "zh-TW",
    "ko"})


def _name_ok(name: Any, *, lower: bool = True) -> bool:
    # \p{L} and \p{N}: str.isalnum() is true exactly for letters and numbers (categories L*, N*).
    if not isinstance(name, str) or not 1 <= len(name) <= 32:
        return False
    # (Devanagari and Thai vowel signs are marks, not letters: Discord allows those scripts whole.)
    if not all(c.isalnum() or c in "-_" or "\u0900" <= c <= "\u097f" or "\u0e00" <= c <= "\u0e7f"
               for c in name):
        return False
    return not lower or name == name.lower()


class _Errors:
    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}
        self.flat: list[str] = []

    def add(self, path: list[str | int], code: str, message: str) -> None:
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
        self.flat.append(f"{'.'.join(str(p) for p in path)}: {message}")


def _localized(e: _Errors, path: list[str | int], item: dict[str, Any], *, lower: bool, described: bool,
               seen: dict[str, set[str]] | None) -> None:
    """One command's, option's or choice's localizations; ``seen``: the localized names of its
    siblings so far, per locale (None for a choice, whose names need not be unique)."""
    names = item.get("name_localizations") or {}
    if not isinstance(names, dict):
        e.add([*path, "name_localizations"], "DICT_TYPE_CONVERT", "Must be an object.")
        names = {}
    for locale, name in names.items():
        where = [*path, "name_localizations", locale]
        if locale not in LOCALES:
            e.add(where, "LOCALE_INVALID", f"Invalid locale {locale!r}.")
        elif seen is None:
            if not isinstance(name, str) or not 1 <= len(name) <= 100:
                e.add(where, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        elif not _name_ok(name, lower=lower):
            e.add(where, "APPLICATION_COMMAND_INVALID_NAME", f"Localized name is invalid: {name!r}.")
        elif name in seen.setdefault(locale, set()):
            e.add(where, "APPLICATION_COMMANDS_DUPLICATE_NAME", f"Localized names must be unique: {name!r}.")
        else:
            seen[locale].add(name)
    descriptions = item.get("description_localizations") or {}
    for locale, text in descriptions.items() if isinstance(descriptions, dict) else ():
        where = [*path, "description_localizations", locale]
        if locale not in LOCALES:
            e.add(where, "LOCALE_INVALID", f"Invalid locale {locale!r}.")
        elif not described or not isinstance(text, str) or not 1 <= len(text) <= 100:
            e.add(where, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")


def command_errors(body: Any) -> tuple[dict[str, Any], list[str]]:
    """Discord's ``errors`` object for a bulk overwrite body, and the same as plain lines; both
    empty when Discord would accept it."""
    e = _Errors()
    if not isinstance(body, list):
        e.add([], "LIST_TYPE_CONVERT", "Must be a list of commands.")
        return e.tree, e.flat
    counts: dict[int, int] = {}
    names: set[tuple[int, str]] = set()
    localized: dict[int, dict[str, set[str]]] = {}
    for n, cmd in enumerate(body):
        if not isinstance(cmd, dict):
            e.add([n], "DICT_TYPE_CONVERT", "Must be an object.")
            continue
        kind = cmd.get("type", CHAT_INPUT)
        if kind not in LIMITS:
            e.add([n, "type"], "BASE_TYPE_CHOICES", f"Value must be one of {sorted(LIMITS)}.")
            continue
        counts[kind] = counts.get(kind, 0) + 1
        name = cmd.get("name")
        # User and message commands are named as a menu shows them: spaces and capitals allowed.
        plain = isinstance(name, str) and 1 <= len(name) <= 32
        if not (_name_ok(name, lower=True) if kind == CHAT_INPUT else plain):
            e.add([n, "name"], "APPLICATION_COMMAND_INVALID_NAME", f"Command name is invalid: {name!r}.")
        elif (kind, name) in names:
            e.add([n, "name"], "APPLICATION_COMMANDS_DUPLICATE_NAME", f"Application command names must be unique: "
                  f"{name!r}.")
        names.add((kind, str(name)))
        _localized(e, [n], cmd, lower=kind == CHAT_INPUT, described=kind == CHAT_INPUT,
                   seen=localized.setdefault(kind, {}))
        desc = cmd.get("description") or ""
        if kind == CHAT_INPUT and not 1 <= len(desc) <= 100:
            e.add([n, "description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        if kind != CHAT_INPUT and desc:
            e.add([n, "description"], "APPLICATION_COMMAND_INVALID_DESCRIPTION",
                  "User and message commands cannot have a description.")
        options = cmd.get("options") or []
        if kind != CHAT_INPUT and options:
            e.add([n, "options"], "APPLICATION_COMMAND_OPTIONS_INVALID", "Only slash commands have options.")
        else:
            _options(e, [n, "options"], options, depth=0)
        for key, allowed in (("integration_types", (0, 1)), ("contexts", (0, 1, 2))):
            values = cmd.get(key)
            if values is None:
                continue
            if not isinstance(values, list) or not values or any(v not in allowed for v in values) \
                    or len(set(values)) != len(values):
                e.add([n, key], "BASE_TYPE_CHOICES", f"Value must be a list of distinct values of {list(allowed)}.")
        if _chars(cmd) > MAX_CHARS:
            e.add([n], "APPLICATION_COMMAND_TOO_LARGE", f"Command exceeds maximum size ({MAX_CHARS}).")
    for kind, count in counts.items():
        if count > LIMITS[kind]:
            e.add([], "APPLICATION_COMMANDS_TOO_MANY", f"Maximum number of application commands of type {kind} "
                  f"reached ({LIMITS[kind]}).")
    return e.tree, e.flat


def _options(e: _Errors, path: list[str | int], options: Any, *, depth: int) -> None:
    if not isinstance(options, list):
        e.add(path, "LIST_TYPE_CONVERT", "Must be a list.")
        return
    if len(options) > 25:
        e.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    seen: set[str] = set()
    localized: dict[str, set[str]] = {}
    optional_met = False
    kinds = set()
    for n, o in enumerate(options):
        here = [*path, n]
        if not isinstance(o, dict):
            e.add(here, "DICT_TYPE_CONVERT", "Must be an object.")
            continue
        kind = o.get("type")
        kinds.add(kind)
        if kind not in OPTION_TYPES:
            e.add([*here, "type"], "BASE_TYPE_CHOICES", "Value must be one of 1 to 11.")
            continue
        name = o.get("name")
        if not _name_ok(name, lower=True):
            e.add([*here, "name"], "APPLICATION_COMMAND_INVALID_NAME", f"Option name is invalid: {name!r}.")
        elif name in seen:
            e.add([*here, "name"], "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", f"Option name {name!r} "
                  "is already used in these options.")
        seen.add(str(name))
        _localized(e, here, o, lower=True, described=True, seen=localized)
        if not 1 <= len(o.get("description") or "") <= 100:
            e.add([*here, "description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
            if kind == SUB_COMMAND_GROUP and depth > 0 or kind == SUB_COMMAND and depth > 1:
                e.add([*here, "type"], "APPLICATION_COMMAND_SUBCOMMAND_NESTING", "Subcommands nest at most "
                      "two deep (a group, then its subcommands).")
            if o.get("required"):
                e.add([*here, "required"], "APPLICATION_COMMAND_OPTIONS_INVALID", "A subcommand cannot be "
                      "required.")
            _options(e, [*here, "options"], o.get("options") or [],
                     depth=depth + 1 if kind == SUB_COMMAND_GROUP else 2)
            if kind == SUB_COMMAND_GROUP and any(isinstance(x, dict) and x.get("type") != SUB_COMMAND
                                                 for x in o.get("options") or []):
                e.add([*here, "options"], "APPLICATION_COMMAND_OPTIONS_INVALID", "A group holds subcommands only.")
            continue
        if o.get("options"):
            e.add([*here, "options"], "APPLICATION_COMMAND_OPTIONS_INVALID", "Only subcommands have options.")
        if o.get("required"):
            if optional_met:
                e.add([*here, "required"], "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                      "Required options must be placed before non-required options.")
        else:
            optional_met = True
        choices = o.get("choices") or []
        if choices and o.get("autocomplete"):
            e.add([*here, "autocomplete"], "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
                  "Autocomplete cannot be set on an option with choices.")
        if choices and kind not in (STRING, INTEGER, NUMBER):
            e.add([*here, "choices"], "APPLICATION_COMMAND_OPTIONS_INVALID", "Only strings and numbers have "
                  "choices.")
        if len(choices) > 25:
            e.add([*here, "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for k, c in enumerate(choices):
            cname, value = c.get("name"), c.get("value")
            if not isinstance(cname, str) or not 1 <= len(cname) <= 100:
                e.add([*here, "choices", k, "name"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
            if kind == STRING and (not isinstance(value, str) or not 1 <= len(value) <= 100):
                e.add([*here, "choices", k, "value"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
            if kind in (INTEGER, NUMBER) and (isinstance(value, bool) or not isinstance(value, int | float)):
                e.add([*here, "choices", k, "value"], "NUMBER_TYPE_COERCE", "Value is not a number.")
            _localized(e, [*here, "choices", k], c, lower=False, described=False, seen=None)
        for key, low, high in (("min_length", 0, 6000), ("max_length", 1, 6000)):
            if key in o and o[key] is not None and not low <= int(o[key]) <= high:
                e.add([*here, key], "NUMBER_TYPE_MAX", f"Must be between {low} and {high}.")
    subs = {SUB_COMMAND, SUB_COMMAND_GROUP}
    if kinds & subs and kinds - subs:
        e.add(path, "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Subcommands cannot be mixed with other options.")


def _chars(cmd: dict[str, Any]) -> int:
    """Discord's size of a command: names, descriptions, choice names and values, all the way down."""
    total = len(str(cmd.get("name") or "")) + len(str(cmd.get("description") or ""))
    for o in cmd.get("options") or []:
        if isinstance(o, dict):
            total += _chars(o)
            for c in o.get("choices") or []:
                total += len(str(c.get("name") or "")) + len(str(c.get("value") or ""))
    return total
