"""Deckhand's words in every supported language: GNU gettext catalogs read with Babel.

Pure (no discord, no clock): the catalogs are ``.po`` files in the repository
(``locale/<lang>/LC_MESSAGES/deckhand.po``, one shared domain, ``deckhand``); ``make build``
(tools/catalogs.py) compiles each into the ``.mo`` beside it, which is never committed.  A game's
own words may later live in its own folder (``games/<name>/locale/``, a domain named after the
game): :func:`add_domain` registers such a folder, and :func:`translate` takes ``domain=``.

At render time a translation is a dictionary lookup: a catalog is loaded once per (domain, locale)
and cached.  A renderer takes a ``locale`` (one of :data:`LOCALES`, from :func:`resolve`) and says
every sentence through :func:`translate` / :func:`ngettext`; :data:`ENGLISH` reads the msgid itself.

Markers the extraction knows (babel.cfg): ``_("…")`` and ``ngettext("…", "…", n)`` where text is
made, ``N_("…")`` to mark a text kept as data (a GameSpec's quick start, a game's rules) that is
translated later, where it is shown.
"""

from __future__ import annotations

import gettext
import logging
import numbers
import re
import string
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any, cast

log = logging.getLogger("deckhand.words")

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = "deckhand"
ENGLISH = "en"
#: The catalogs shipped, Babel's names (English is the msgids themselves: it has no catalog).
LOCALES = ("en", "de", "fr", "es", "pt_BR", "pl", "zh_CN", "ja")
#: Discord's locale strings (``Interaction.locale``, ``guild_locale``, ``discord.Locale`` values)
#: that name a catalog; any other regional one falls back to its base language, the rest to English.
_DISCORD = {"en-US": "en", "en-GB": "en", "de": "de", "fr": "fr", "es-ES": "es", "es-419": "es",
            "pt-BR": "pt_BR", "pl": "pl", "zh-CN": "zh_CN", "ja": "ja"}
#: Base languages of a regional locale Discord may send (``es-419`` → Spanish, ``pt-PT`` → Brazilian
#: Portuguese, the only Portuguese we ship).  Traditional Chinese (``zh-TW``) is deliberately not
#: Simplified Chinese: it falls back to English.
_BASE = {"en": "en", "de": "de", "fr": "fr", "es": "es", "pt": "pt_BR", "pl": "pl", "ja": "ja"}
#: Discord's locale for each catalog (the command localizations are registered under these).
DISCORD_LOCALES: dict[str, tuple[str, ...]] = {
    "de": ("de",), "fr": ("fr",), "es": ("es-ES", "es-419"), "pt_BR": ("pt-BR",), "pl": ("pl",),
    "zh_CN": ("zh-CN",), "ja": ("ja",)}

_domains: dict[str, Path] = {DOMAIN: ROOT / "locale"}
#: The language a renderer speaks right now (:func:`speaking`): English unless a caller says otherwise.
_SPOKEN: ContextVar[str] = ContextVar("spoken", default=ENGLISH)


def N_(message: str) -> str:  # noqa: N802  (gettext's name for a lazy mark)
    """Mark ``message`` for extraction without translating it here (it is data, translated where shown)."""
    return message


class Lazy(str):
    """A field's value that is itself a msgid (a game's title inside a refusal): the sentence that
    holds it translates it too, into the sentence's language (``tables.live.TableError.say``)."""


def add_domain(domain: str, folder: Path) -> None:
    """Register a catalog folder (``<folder>/<lang>/LC_MESSAGES/<domain>.po``), e.g. a game's own."""
    _domains[domain] = folder
    _catalog.cache_clear()


def domains() -> dict[str, Path]:
    return dict(_domains)


def resolve(locale: object) -> str:
    """Our catalog for a Discord locale (a ``discord.Locale`` or its string; None: English)."""
    text = str(getattr(locale, "value", locale) or "")
    if text in _DISCORD:
        return _DISCORD[text]
    if text in LOCALES:
        return text
    base = text.replace("_", "-").split("-")[0].lower()
    return _BASE.get(base, ENGLISH)


def mo_path(domain: str, locale: str) -> Path:
    return _domains[domain] / locale / "LC_MESSAGES" / f"{domain}.mo"


def compile_catalog(po: Path, mo: Path) -> None:
    """``.po`` → ``.mo`` (what ``pybabel compile`` does; fuzzy entries are left out)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, locale=po.parent.parent.name)
    tmp = mo.with_suffix(".mo.tmp")
    with tmp.open("wb") as f:
        write_mo(f, catalog)
    tmp.replace(mo)


@cache
def _catalog(domain: str, locale: str) -> gettext.NullTranslations:
    if locale == ENGLISH or domain not in _domains:
        return gettext.NullTranslations()
    mo = mo_path(domain, locale)
    po = mo.with_suffix(".po")
    if po.exists() and (not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime):
        # Not built yet (a fresh checkout run without make): compiled once here, as make build would.
        log.info("Compiling %s (make build does this ahead of time)", po)
        try:
            compile_catalog(po, mo)
        except OSError as e:  # a read-only checkout: an older .mo if any, else English; never a failure
            log.warning("Could not compile %s (%s); run make build", po, e)
    if not mo.exists():
        return gettext.NullTranslations()
    with mo.open("rb") as f:
        return gettext.GNUTranslations(f)


def _fill(text: str, fields: dict[str, Any], locale: str = ENGLISH) -> str:
    if not fields:
        return text
    return text.format(**{k: translate(locale, v) if isinstance(v, Lazy) else v for k, v in fields.items()})


def translate(locale: str, msgid: str, /, *, domain: str = DOMAIN, context: str | None = None,
              **fields: Any) -> str:
    """``msgid`` in ``locale`` (a catalog name, :func:`resolve`'s), its ``{fields}`` filled in."""
    cat = _catalog(domain, locale)
    text = cat.pgettext(context, msgid) if context is not None else cat.gettext(msgid)
    return _fill(text, fields, locale)


def ngettext(locale: str, singular: str, plural: str, n: int, /, *, domain: str = DOMAIN, **fields: Any) -> str:
    """The form of ``singular``/``plural`` for ``n`` under ``locale``'s plural rule (the catalog's
    ``Plural-Forms`` header); ``{n}`` is filled with the number, written the locale's way."""
    # A fraction (0.5 seconds) takes the form of a plural count (gettext's plural rules read integers).
    count = n if isinstance(n, int) else int(n) if float(n).is_integer() else 2
    text = _catalog(domain, locale).ngettext(singular, plural, count)
    return _fill(text, {"n": number(locale, n), **fields}, locale)


def number(locale: str, value: float) -> str:
    """A number written the locale's way (``1,234.5``, ``1.234,5``, ``1 234,5``)."""
    if isinstance(value, int) and abs(value) < 1000:
        return str(value)  # the common case, and the same in every language we ship
    return _format_decimal(value, locale)


def _format_decimal(value: float, locale: str) -> str:
    from babel.numbers import format_decimal

    return str(format_decimal(value, locale=locale))


def join(locale: str, items: Iterable[str], style: str = "standard") -> str:
    """``a, b and c`` in ``locale`` (Babel's list patterns: ``a, b und c``, ``a、b和c``)."""
    from babel.lists import format_list

    return str(format_list(list(items), style=style, locale=locale))  # type: ignore[arg-type]


def fields_of(text: str) -> set[str]:
    """The ``{placeholders}`` of a message (the tests hold every translation to its msgid's)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def make_(locale: str) -> Callable[..., str]:
    """A ``_`` bound to ``locale``, for a renderer that says many sentences: ``_ = make_(locale)``."""
    def _(msgid: str, /, **fields: Any) -> str:
        return translate(locale, msgid, **fields)
    return _


# ---- the language a screen is drawn in -------------------------------------------------------------
@contextmanager
def speaking(locale: str) -> Iterator[None]:
    """Draw everything inside in ``locale`` (a catalog name: :func:`resolve`'s).  A game's renderer
    says its words through its :class:`Speaker`, which reads this; cogs/table/renderers.py's calls set it
    (the table's stored locale for what the table reads, the person's for what one person reads).
    Rendering is synchronous, so nothing else runs inside it."""
    token = _SPOKEN.set(locale if locale in LOCALES else resolve(locale))
    try:
        yield
    finally:
        _SPOKEN.reset(token)


def spoken() -> str:
    """The language of the screen being drawn (:func:`speaking`; English outside one)."""
    return _SPOKEN.get()


class Speaker:
    """A game's own words (``games/<name>/locale/``, a domain named after the game) said in the
    language being drawn (:func:`spoken`).  A game's modules write::

        _, n_ = Speaker("hearts").pair()
        _("Hand {n} dealt.", n=3)            # a sentence (extracted by tools/catalogs.py)
        n_("{n} card", "{n} cards", left)    # a count agreeing with its noun, {n} the number
        N_("moons shot")                     # data translated where it is shown: say(text)
    """

    def __init__(self, domain: str) -> None:
        self.domain = domain

    def __call__(self, msgid: str, /, **fields: Any) -> str:
        return translate(spoken(), msgid, domain=self.domain, **fields)

    def n(self, singular: str, plural: str, n: int, /, **fields: Any) -> str:
        return ngettext(spoken(), singular, plural, n, domain=self.domain, **fields)

    def pair(self) -> tuple[Callable[..., str], Callable[..., str]]:
        return self, self.n


# ---- the rules' own sentences (engine.words.Phrase: refusals, hints' reasons) ----------------------
def _found(locale: str, msgid: str, domain: str, plural: str | None = None, n: int = 1) -> str | None:
    """``msgid`` translated in ``domain`` or else the shared one; None when neither has it."""
    for d in dict.fromkeys((domain, DOMAIN)):
        cat = _catalog(d, locale) if d in _domains else None
        held = getattr(cat, "_catalog", None)
        if cat is None or held is None:
            continue
        if plural is None and msgid in held:
            return cat.gettext(msgid)
        if plural is not None and (msgid, 0) in held:
            return cat.ngettext(msgid, plural, n)
    return None


def _say_field(locale: str, value: Any, domain: str) -> Any:
    from engine.cards import Card
    from engine.words import Either, Phrase, Suit
    from words import cards as card_words

    if isinstance(value, Phrase):
        return say(locale, value, domain)
    if isinstance(value, Suit):
        return card_words.suit_name(value.code, locale)
    if isinstance(value, Card):
        return card_words.label(value, locale)
    if isinstance(value, (list, tuple)):
        return join(locale, [str(_say_field(locale, v, domain)) for v in value],
                    style="or" if isinstance(value, Either) else "standard")
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        return number(locale, cast(float, value))
    label = getattr(value, "label", None)  # a game's own card
    return label if isinstance(label, str) else value


def say(locale: str, text: str, /, domain: str = DOMAIN) -> str:
    """A sentence of the rules (an ``engine.words.Phrase``: a refusal's, a hint's reason) in
    ``locale``: its msgid found in the game's ``domain`` or the shared one, its fields said in the
    same language (cards, suits, numbers, nested phrases).  English is the rules' own sentence; a
    plain string is a msgid of ``domain`` or the shared one (or said as it is)."""
    from engine.words import Phrase

    if locale == ENGLISH:
        return str(text)
    if not isinstance(text, Phrase):
        return _found(locale, text, domain) or str(text)
    found = _found(locale, text.msgid, domain, text.plural, text.n if text.n is not None else 1)
    if found is None and text.fields and not re.sub(r"\{[^{}]*\}", "", text.msgid).strip(" ;,:·-—()"):
        found = text.msgid  # fields put together ("{pile} {mark}"): each is said in the language
    if found is None:
        return str(text)  # a sentence no catalog has (a new one, before its translation)
    fields = {k: _say_field(locale, v, domain) for k, v in text.fields.items()}
    if text.n is not None:
        fields["n"] = number(locale, text.n)
    return found.format(**fields) if fields else found
