"""The message catalogs (words/, issue 31): extract, update, compile.

    python -m tools.catalogs compile        # .po → .mo beside it (make build runs this)
    python -m tools.catalogs extract [OUT]  # the template: every msgid the code says (default locale/deckhand.pot)
    python -m tools.catalogs update         # merge the template into every language's .po
    python -m tools.catalogs check          # what tests/test_catalogs.py checks, as a list

Each game's own words are a domain of their own, named after the game, in its folder
(``games/<name>/locale/<lang>/LC_MESSAGES/<name>.po``, registered by the game's package with
``words.add_domain``): every command here runs over every registered domain, and a game's msgids
come from the Python files of its folder (:data:`GAME_KEYWORDS`).  The shared domain's msgids come
from three places: the sources (babel.cfg's files, the markers in :data:`KEYWORDS`),
the games' registry (each game's title, rules text and quick start: data on GameSpec, translated
where it is shown) and the slash commands (every name, description and choice, under the msgctxt
of its kind: cogs/sync/translator.py).  A translator adds a language: ``update`` after adding its
code to words.LOCALES (``pybabel init -i locale/deckhand.pot -d locale -D deckhand -l xx`` makes
the file), edit the ``.po``, ``compile``, ``check``, then ``pytest tests/test_catalogs.py``.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import words  # noqa: E402

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

KEYWORDS = {"_": None, "N_": None, "ngettext": (2, 3), "translate": (2,), "said_n": (1, 2)}
#: A game's own modules (words.Speaker): ``_("…")``, ``N_("…")``, ``n_("{n} card", "{n} cards", n)``;
#: the rules' refusals and reasons (engine.words): ``said_n("{n} card", "{n} cards", n)``.
GAME_KEYWORDS = {"_": None, "N_": None, "n_": (1, 2), "said_n": (1, 2)}
POT = ROOT / "locale" / f"{words.DOMAIN}.pot"


def domains() -> dict[str, Path]:
    """Every catalog domain by name and folder: the shared one, and each game's own, which the game's
    package registers when it is imported (``words.add_domain``; games/__init__.py imports them all)."""
    import games  # noqa: F401  (each game package registers its domain)

    return words.domains()


def _game_messages(domain: str) -> Iterator[tuple[str | tuple[str, str], str | None, str]]:
    """(msgid or (singular, plural), msgctxt, where) from a game's own folder (its domain's parent)."""
    from babel.messages.extract import extract_from_dir

    folder = domains()[domain].parent
    for filename, lineno, message, _comments, context in extract_from_dir(
            str(folder), [("**.py", "python")], keywords=GAME_KEYWORDS):
        if isinstance(message, tuple):
            message = message[0] if len(message) == 1 or message[1] is None else (message[0], message[1])
        yield message, context, f"{folder.relative_to(ROOT)}/{filename}:{lineno}"


def _source_messages() -> Iterator[tuple[str | tuple[str, str], str | None, str]]:
    """(msgid or (singular, plural), msgctxt, where) from the sources."""
    from babel.messages.extract import extract_from_dir
    from babel.messages.frontend import parse_mapping_cfg

    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    for filename, lineno, message, _comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS):
        if isinstance(message, tuple):
            if message[0] is None:
                continue
            message = message[0] if len(message) == 1 or message[1] is None else (message[0], message[1])
        yield message, context, f"{filename}:{lineno}"


def _registry_messages() -> Iterator[tuple[str, None, str]]:
    """Each game's title, one-line summary (the lobby's), rules text and quick start: the registered
    games', and those of a game package not offered to users (its ``SPEC``: the tests turn it on)."""
    import engine
    import games

    specs = dict(engine.games())
    for name in games.names():
        spec = getattr(sys.modules.get(f"games.{name}"), "SPEC", None)
        if spec is not None:
            specs.setdefault(spec.game.name, spec)
    for name, spec in specs.items():
        g = spec.game
        for text in (g.title, g.summary, g.rules_text, *spec.quick_start):
            if text:
                yield text, None, f"registry:{name}"


def command_texts() -> list[tuple[str, str]]:
    """(msgctxt, msgid) of every command text the bot registers (cogs/sync/translator.py's contexts)."""
    import discord

    import bot
    from cogs.sync.translator import CONTEXTS

    seen: list[tuple[str, str]] = []

    class Recorder(discord.app_commands.Translator):
        async def translate(self, string: discord.app_commands.locale_str, locale: discord.Locale,
                            context: discord.app_commands.TranslationContextTypes) -> str | None:
            if locale is discord.Locale.german and context.location in CONTEXTS:
                key = (CONTEXTS[context.location], string.message)
                if key not in seen:
                    seen.append(key)
            return None

    async def walk() -> None:
        deckhand = bot.Deckhand(bot.Config("t"))
        await deckhand.setup_hook()
        try:
            for c in deckhand.tree.get_commands():
                await c.get_translated_payload(deckhand.tree, Recorder())
        finally:
            if deckhand.runtime is not None:
                await deckhand.runtime.close()

    asyncio.run(walk())
    return seen


def template(domain: str = words.DOMAIN) -> Catalog:
    """The catalog of every msgid of ``domain`` (a babel Catalog, no translations)."""
    from babel.messages.catalog import Catalog

    cat = Catalog(domain=domain, project="Deckhand", fuzzy=False)
    if domain != words.DOMAIN:
        for message, context, where in _game_messages(domain):
            cat.add(message, locations=[(where.split(":")[0], int(where.split(":")[1]))], context=context)
        return cat
    for message, context, where in _source_messages():
        cat.add(message, locations=[(where.split(":")[0], int(where.split(":")[1]))], context=context)
    for message, context, where in _registry_messages():
        cat.add(message, auto_comments=[where], context=context)
    for context, message in command_texts():
        cat.add(message, context=context)
    return cat


def extract(out: Path = POT) -> list[Path]:
    """The shared template (``out``) and each game's (``games/<name>/locale/<name>.pot``)."""
    from babel.messages.pofile import write_po

    written = []
    for domain, folder in domains().items():
        path = out if domain == words.DOMAIN else folder / f"{domain}.pot"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, template(domain), width=100, sort_output=True, omit_header=False)
        written.append(path)
    return written


def po_files() -> list[tuple[str, Path]]:
    """(domain, .po) of every catalog of every registered domain."""
    return [(domain, po) for domain, folder in domains().items()
            for po in sorted(folder.glob(f"*/LC_MESSAGES/{domain}.po"))]


def update() -> None:
    """Merge each domain's template into its catalog in every language (a game's catalog that is
    missing in a language is started, empty, for the translator to fill)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    for domain, folder in domains().items():
        tmpl = template(domain)
        for lang in words.LOCALES:
            if lang == words.ENGLISH:
                continue
            po = folder / lang / "LC_MESSAGES" / f"{domain}.po"
            if po.exists():
                with po.open("rb") as f:
                    cat = read_po(f, locale=lang)
            elif domain != words.DOMAIN:
                po.parent.mkdir(parents=True, exist_ok=True)
                cat = Catalog(locale=lang, domain=domain, project="Deckhand", fuzzy=False)
            else:
                continue
            cat.update(tmpl, no_fuzzy_matching=True)
            with po.open("wb") as f:
                write_po(f, cat, width=100, sort_output=True, ignore_obsolete=True)
            print(f"updated {po.relative_to(ROOT)}")


def read(po: Path) -> Catalog:
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        return read_po(f, locale=po.parent.parent.name)


def problems(catalog: Catalog) -> list[str]:
    """What keeps a catalog (a babel Catalog) from being complete: an untranslated or fuzzy entry,
    a translation whose ``{placeholders}`` differ from its msgid's, plural forms other than the
    language's count (its ``Plural-Forms`` header)."""
    out = []
    for m in catalog:
        if not m.id:
            continue
        ids = tuple(m.id) if isinstance(m.id, tuple | list) else (m.id,)
        strs = tuple(m.string) if isinstance(m.string, tuple | list) else (m.string,)
        name = f"{m.context + ': ' if m.context else ''}{ids[0]!r}"
        if m.fuzzy:
            out.append(f"fuzzy: {name}")
        if isinstance(m.id, tuple) and len(strs) != catalog.num_plurals:
            out.append(f"{len(strs)} plural forms, the language has {catalog.num_plurals}: {name}")
        if not all(strs):
            out.append(f"untranslated: {name}")
            continue
        want = words.fields_of(ids[-1]) | words.fields_of(ids[0])
        for s in strs:
            if s and words.fields_of(s) != want:  # (every one is, by now)
                out.append(f"placeholders {sorted(words.fields_of(s))} instead of {sorted(want)}: {name}")
    return out


def stale(catalog: Catalog, tmpl: Catalog) -> list[str]:
    """How a catalog differs from the code's template: msgids it lacks, and ones the code no longer says."""
    def keys(c: Catalog) -> set[tuple[str | None, str | tuple[str, ...]]]:
        return {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)) for m in c if m.id}

    ours, code = keys(catalog), keys(tmpl)
    return ([f"missing: {k}" for k in sorted(code - ours, key=str)] +
            [f"no longer in the code: {k}" for k in sorted(ours - code, key=str)])


def compile_all() -> int:
    n = 0
    for _domain, po in po_files():
        words.compile_catalog(po, po.with_suffix(".mo"))
        n += 1
    return n


def main(argv: list[str]) -> int:
    what = argv[0] if argv else "compile"
    if what == "compile":
        print(f"catalogs: compiled {compile_all()} message catalogs")
    elif what == "extract":
        for path in extract(Path(argv[1]) if len(argv) > 1 else POT):
            print(f"catalogs: wrote {path.relative_to(ROOT)}")
    elif what == "update":
        update()
    elif what == "check":
        tmpls = {domain: template(domain) for domain in domains()}
        found = [f"{po.relative_to(ROOT)}: {p}" for d, po in po_files()
                 for p in (problems(read(po)) + stale(read(po), tmpls[d]))]
        print("\n".join(found) or "catalogs: every catalog is complete and current")
        return 1 if found else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
