"""The message catalogs (words/, locale/, issue 31): every supported language complete and current
with the code, its placeholders the English ones, its plural forms the language's; the locale
Discord sends resolved to a catalog; the checks themselves shown failing on a broken copy."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

import pytest

import words
from tools import catalogs

LANGS = [lang for lang in words.LOCALES if lang != words.ENGLISH]


@cache
def template(domain: str = words.DOMAIN):  # type: ignore[no-untyped-def]
    return catalogs.template(domain)


def po(lang: str, domain: str = words.DOMAIN) -> Path:
    return catalogs.domains()[domain] / lang / "LC_MESSAGES" / f"{domain}.po"


#: Every catalog domain: the shared one and each game's own (games/<name>/locale/), as registered.
DOMAINS = sorted(catalogs.domains())
EACH = [(domain, lang) for domain in DOMAINS for lang in LANGS]


def test_every_game_has_a_domain_of_its_own() -> None:
    import games

    assert set(DOMAINS) == {words.DOMAIN, *games.names()}
    for name in games.names():
        assert catalogs.domains()[name] == words.ROOT / "games" / name / "locale"


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_supported_language_has_a_catalog(domain: str) -> None:
    assert sorted(path.parent.parent.name for d, path in catalogs.po_files() if d == domain) == sorted(LANGS)


@pytest.mark.parametrize(("domain", "lang"), EACH)
def test_catalog_is_complete(domain: str, lang: str) -> None:
    assert catalogs.problems(catalogs.read(po(lang, domain))) == []


@pytest.mark.parametrize(("domain", "lang"), EACH)
def test_catalog_is_current_with_the_code(domain: str, lang: str) -> None:
    """Extracted afresh (sources, registry, commands; a game's own folder): a new ``_()`` string
    without its entries fails."""
    assert catalogs.stale(catalogs.read(po(lang, domain)), template(domain)) == []


def test_a_game_catalog_with_one_entry_removed_fails(tmp_path: Path) -> None:
    """The checks above on a game's catalog with one entry taken out: missing from the code's
    template, and untranslated once ``update`` puts it back."""
    game = next(d for d in DOMAINS if d != words.DOMAIN)
    good = catalogs.read(po("de", game))
    assert catalogs.stale(good, template(game)) == [] and catalogs.problems(good) == []
    entry = next(m for m in good if m.id and isinstance(m.id, str))
    cut = copy.deepcopy(good)
    cut.delete(entry.id, context=entry.context)
    assert catalogs.stale(cut, template(game)) == [f"missing: {(entry.context, entry.id)}"]
    cut.update(template(game), no_fuzzy_matching=True)  # what `tools.catalogs update` does
    assert catalogs.problems(cut) == [f"untranslated: {entry.id!r}"]


def test_the_checks_fail_on_a_broken_catalog() -> None:
    good = catalogs.read(po("pl"))
    assert catalogs.problems(good) == []

    emptied = copy.deepcopy(good)
    entry = next(m for m in emptied if m.id and isinstance(m.id, str))
    entry.string = ""
    assert catalogs.problems(emptied) == [f"untranslated: {entry.id!r}"]

    fuzzy = copy.deepcopy(good)
    next(m for m in fuzzy if m.id).flags.add("fuzzy")
    assert any(p.startswith("fuzzy: ") for p in catalogs.problems(fuzzy))

    renamed = copy.deepcopy(good)
    holder = next(m for m in renamed if isinstance(m.id, str) and "{id}" in m.id)
    holder.string = holder.string.replace("{id}", "{table}")
    assert catalogs.problems(renamed) == [f"placeholders ['table'] instead of ['id']: {holder.id!r}"]

    short = copy.deepcopy(good)
    plural = next(m for m in short if isinstance(m.id, tuple))
    plural.string = plural.string[:2]  # Polish has three forms (1, 2–4, 5+)
    assert any("2 plural forms, the language has 3" in p for p in catalogs.problems(short))

    # A msgid the code says that the catalog lacks, and one the code no longer says.
    tmpl = copy.deepcopy(template())
    tmpl.add("A sentence the code just started to say.")
    missing = copy.deepcopy(good)
    missing.delete(entry.id, context=entry.context)
    assert sorted(catalogs.stale(missing, tmpl)) == sorted([
        f"missing: {(None, 'A sentence the code just started to say.')}", f"missing: {(entry.context, entry.id)}"])
    assert catalogs.stale(good, copy.deepcopy(good)) == []
    assert catalogs.stale(good, missing) == [f"no longer in the code: {(entry.context, entry.id)}"]


def test_discord_locales_resolve_to_catalogs() -> None:
    assert words.resolve("pt-BR") == "pt_BR"
    assert words.resolve("es-419") == "es" and words.resolve("es-ES") == "es"
    assert words.resolve("en-US") == words.resolve("en-GB") == "en"
    assert words.resolve("zh-CN") == "zh_CN" and words.resolve("ja") == "ja"
    assert words.resolve("ko") == "en"  # no Korean catalog: English
    assert words.resolve("zh-TW") == "en"  # Traditional Chinese readers are not given Simplified
    assert words.resolve(None) == "en" and words.resolve("") == "en"
    import discord

    assert words.resolve(discord.Locale.german) == "de"
    assert words.resolve(discord.Locale.brazil_portuguese) == "pt_BR"


def test_translation_plural_numbers_and_lists() -> None:
    msg = "There is no table with id `{id}` in this server. `/game list` shows them."
    assert words.translate("de", msg, id="ab12").startswith("Auf diesem Server gibt es keinen Tisch mit der ID `ab12`")
    assert words.translate("en", msg, id="ab12") == msg.format(id="ab12")
    assert words.translate("xx", msg, id="ab12") == msg.format(id="ab12")  # (no catalog: the English)
    forms = [words.ngettext("pl", "{n} player", "{n} players", n) for n in (1, 2, 5, 22, 25)]
    assert forms == ["1 gracz", "2 gracze", "5 graczy", "22 gracze", "25 graczy"]
    assert words.ngettext("ja", "{n} player", "{n} players", 4) == "4人"
    assert words.number("de", 12345.5) == "12.345,5" and words.number("en", 12345.5) == "12,345.5"
    assert words.join("de", ["a", "b", "c"]) == "a, b und c"
    assert words.join("fr", ["a", "b"]) == "a et b"


def test_a_catalog_is_read_once_per_locale() -> None:
    words.translate("fr", "More")
    before = words._catalog.cache_info()
    for _ in range(100):
        words.translate("fr", "More")
    after = words._catalog.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 100


def test_a_game_domain_of_its_own(tmp_path: Path) -> None:
    """A game's words may live in its own folder (games/<name>/locale/): a domain of its own."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    cat = Catalog(locale="de", domain="somegame")
    cat.add("Trump suit", "Trumpffarbe")
    folder = tmp_path / "locale"
    (folder / "de" / "LC_MESSAGES").mkdir(parents=True)
    with (folder / "de" / "LC_MESSAGES" / "somegame.po").open("wb") as f:
        write_po(f, cat)
    words.add_domain("somegame", folder)
    try:
        assert words.translate("de", "Trump suit", domain="somegame") == "Trumpffarbe"
        assert words.translate("de", "Trump suit") == "Trump suit"  # not in the shared domain
    finally:
        del words._domains["somegame"]
        words._catalog.cache_clear()


def test_a_refusal_says_its_sentence_and_the_game_it_names_in_each_language() -> None:
    from tables.live import TableError
    from words import N_, Lazy

    e = TableError(N_("You are already seated at table `{id}` ({game}); leave it first with `/game leave`."),
                   "elsewhere", id="ab12", game=Lazy("The Great Dalmuti"))
    assert e.message == "You are already seated at table `ab12` (The Great Dalmuti); leave it first with `/game leave`."
    assert e.say("en") == e.message
    assert e.say("de") == "Du sitzt schon am Tisch `ab12` (Der Große Dalmuti); verlasse ihn zuerst mit `/game leave`."
    assert "（大达尔穆提）" in e.say("zh_CN")
    plain = TableError("A sentence no catalog has.")
    assert plain.say("fr") == "A sentence no catalog has."
