"""Table options in plain words: what each option of each game means, wherever a person meets it.

The engine names options for programs (``moon=others_plus_26``, ``dead_hand_multiplier=2``); people
read them in the words each game's screens give them (``Screens.words``, next to its renderer),
through here, everywhere a person meets them — the lobby, the table footer, ``/game rules`` and
``/game new``'s autocomplete: "moon: the others get 26", "dead hand ×2".  ``speed`` (the runtime's,
not a game's) is worded and accepted like every other option.

A Discord table may start from other defaults than the engine, which also serves the program
arena: a game may play to 50 here (about a dozen hands) and to 1000 in program contests.
"""

from __future__ import annotations

from collections.abc import Mapping

import engine
import words as catalog
from cogs.i18n.reading import lang
from cogs.table import screens
from cogs.table.screens import Words
from cogs.table.screens import choice as _choice
from engine.core import Game, Option, Options, OptionValue
from engine.words import number as number  # the one count helper (engine/words.py), for the screens
from engine.words import plural as plural
from tables.ids import echo
from tables.offers import no_strong_ai
from tables.table import SPEEDS
from words import N_, spoken, translate


def rule_book_link(url: str | None, before: str = "") -> str:
    """The rule book's page as a person in Discord can open it (``before`` it, link previews off), or
    ``""`` when the operator named none (``DECKHAND_RULES_URL``): a path in the repository opens nothing."""
    return f"{before}<{url}>" if url else ""

#: Speeds from the fastest to the slowest (the order a person compares them in).
SPEED_ORDER = tuple(s for s in ("blitz", "normal", "relaxed", "untimed") if s in SPEEDS)
SPEED = Option("speed", "normal", SPEED_ORDER)
#: The level of the AI players the host adds without naming one (the runtime's, like speed);
#: offered only by games with a strong AI.
AI = Option("ai", "normal", ("normal", "strong"))
#: Whether the game changes ratings and the season's leaderboard (the runtime's, like speed): the
#: host's choice, within the server's settings (docs/rules.md, "Ranked and casual").
RATING = Option("rating", "ranked", ("ranked", "casual"))


_SPEED = {"blitz": N_("blitz timers (half time)"), "normal": N_("normal timers"),
          "relaxed": N_("relaxed timers (double time)"), "untimed": N_("no time limits")}

AI_WORDS = Words(N_("how well the AI players added with Add AI, /game ai or at the start play"),
                 _choice({"normal": N_("normal AI players"), "strong": N_("strong AI players (they think ahead)")}),
                 {"normal": N_("the standard AI, instant"), "strong": N_("searches before each card: harder to beat")})

RATING_WORDS = Words(N_("whether the game changes ratings and the season's leaderboard (only games between "
                        "people do)"),
                     _choice({"ranked": N_("ranked"), "casual": N_("casual")}),
                     {"ranked": N_("changes ratings and the leaderboard"), "casual": N_("for fun: no rating changes")})
NOT_RANKED_HERE = N_("This server's games do not count for the leaderboard (a server manager chose it with "
                     "`/settings leaderboard`), so a table here can only be casual.")

SPEED_WORDS = Words(N_("how long each decision may take before a safe move is made for you"), _choice(_SPEED),
                    {"blitz": N_("half the normal time"), "normal": N_("the rules' own timers"),
                     "relaxed": N_("twice the normal time"), "untimed": N_("no deadlines for people")})

#: Whether people may choose their card before their turn (the runtime's, like speed; tables/ahead.py):
#: offered only by the games whose folder says they play ahead.
AHEAD = Option("ahead", "on", ("on", "off"))
AHEAD_WORDS = Words(N_("whether you may choose your card before your turn; it is played when your turn comes"),
                    _choice({"on": N_("cards chosen ahead"), "off": N_("no choosing ahead")}),
                    {"on": N_("choose your card while the others play"), "off": N_("choose only on your turn")})


def spec(game: str) -> tuple[Option, ...]:
    """The game's options as a table accepts them: the engine's, with the table's defaults, then speed."""
    cls: type[Game] = engine.get(game).game
    defaults = table_defaults(game)
    own = tuple(o._replace(default=defaults[o.name]) if o.name in defaults else o for o in cls.options_spec)
    return (*own, *((AI,) if "strong" in engine.levels(game) else ()),
            *((AHEAD,) if engine.get(game).play_ahead else ()), RATING, SPEED)


RUNTIME_OPTIONS = ("ai", "ahead", "rating", "speed")  # the table's, not the game's: kept apart from its options
_RUNTIME_WORDS = {"ai": AI_WORDS, "ahead": AHEAD_WORDS, "rating": RATING_WORDS, "speed": SPEED_WORDS}


def words(game: str, name: str) -> Words:
    """How an option reads (``KeyError`` for an option nobody worded: a test keeps that from shipping)."""
    if name in _RUNTIME_WORDS:
        return _RUNTIME_WORDS[name]
    found = screens.get(game)
    if found is None:
        raise KeyError(game)
    return found.words[name]


def table_defaults(game: str) -> Options:
    """Defaults of a Discord table that differ from the engine's (its game's screens say them)."""
    found = screens.get(game)
    return found.table_defaults if found is not None else {}


def say(game: str, name: str, value: object) -> str:
    """One option's value in plain words, in the language being drawn (cogs/i18n/reading.py: a msgid's
    translation; a game's words that are not one yet read as they are); the raw ``name value`` if
    the option has no words yet."""
    try:
        return catalog.translate(lang(), words(game, name).say(value))
    except KeyError:
        return f"{name} {value}"


def values(opt: Option) -> list[OptionValue]:
    """An option's choices in a sensible order: numbers ascending, speeds fastest first, words as the
    game lists them (default first)."""
    if opt.name == "speed":
        return list(SPEED_ORDER)
    if opt.choices and all(isinstance(c, int | float) for c in opt.choices):
        return sorted(opt.choices)
    return list(opt.choices)


def allowed(opt: Option) -> str:
    """What ``options:`` accepts for one option: ``rules=classic|mcgill``, ``target=1…1000``."""
    if opt.choices:
        return f"{opt.name}=" + "|".join(number(v) for v in values(opt))
    return f"{opt.name}={opt.low}…{opt.high}"


def accepted_line(game: str) -> str:
    """Every option ``options:`` accepts for ``game``, as ``key=values`` in code spans."""
    return " ".join(f"`{allowed(o)}`" for o in spec(game))


def settings_line(game: str, options: Options | None, speed: str | None, ai: str | None = None,
                  ahead: bool = True) -> str:
    """A table's settings in plain words, in the game's own order, then its AI level (when not
    normal) and speed."""
    given = dict(options or {})
    parts = [say(game, o.name, given[o.name]) for o in spec(game) if o.name in given and o.name not in RUNTIME_OPTIONS]
    parts += [say(game, name, v) for name, v in given.items() if name not in {o.name for o in spec(game)}]
    if ai and ai != AI.default:
        parts.append(say(game, "ai", ai))
    if not ahead:
        parts.append(say(game, "ahead", "off"))
    parts.append(say(game, "speed", speed or SPEED.default))
    return " · ".join(parts)


def changes_line(game: str, options: Mapping[str, object] | None, speed: str | None, ai: str | None = None,
                 ahead: bool = True) -> str:
    """Only what a table plays differently from a Discord table's defaults, in plain words and the
    game's own order ("" when it plays them all): what the lobby and the footers say."""
    given = dict(options or {})
    parts = [say(game, o.name, given[o.name]) for o in spec(game)
             if o.name in given and o.name not in RUNTIME_OPTIONS and given[o.name] != o.default]
    parts += [say(game, name, v) for name, v in given.items() if name not in {o.name for o in spec(game)}]
    if ai and ai != AI.default:
        parts.append(say(game, "ai", ai))
    if not ahead:
        parts.append(say(game, "ahead", "off"))
    if (speed or SPEED.default) != SPEED.default:
        parts.append(say(game, "speed", speed))
    return " · ".join(parts)


def _own(w: Words, text: str | None) -> str | None:
    """A game's option words (msgids of its own domain, ``Words.domain``) in the language being drawn."""
    return translate(spoken(), text, domain=w.domain) if w.domain and text else text


def rules_lines(game: str) -> list[tuple[str, str]]:
    """``(name, sentence)`` per option for ``/game rules``, in words only: what it does, its choices
    in words, the default marked (what a host types is :func:`accepted_line`, shown apart)."""
    loc = lang()  # (the asker's: cogs/i18n/reading.py)
    default = catalog.translate(loc, " (default)")
    lines = []
    for opt in spec(game):
        w = words(game, opt.name)
        # A game's own words are msgids of its domain; speed's and the AI's of the shared one.
        def word(text: str | None, w: Words = w) -> str:
            return ((_own(w, text) or "") if w.domain else catalog.translate(loc, text)) if text else ""

        about = word(w.about)
        about = f"{about[:1].upper()}{about[1:]}"
        if opt.choices:
            each = " · ".join((word(w.values.get(v)) or word(w.say(v))) + (default if v == opt.default else "")
                              for v in values(opt))
            lines.append((opt.name, f"{about}: {each}."))
        else:
            lines.append((opt.name, catalog.translate(loc, "{about}: from {low} to {high} (default: {value}).",
                                                      about=about, low=number(opt.low), high=number(opt.high),
                                                      value=word(w.say(opt.default)))))
    return lines


def read(game: str, given: Mapping[str, str], speed: str | None = None) -> tuple[Options, str]:
    """``options:`` (already split into ``key: value`` strings) and the separate ``speed:`` read
    for a new table: ``(the game's options with the table's defaults, the speed)``.  Raises
    ``ValueError`` with a sentence for the person when something is wrong; nothing is created."""
    opts = {k.lower(): v for k, v in given.items()}
    if engine.get(game).play_ahead:
        opts.pop("ahead", None)  # choosing ahead (the table's): read_ahead
    typed = opts.pop("speed", None)
    if typed is not None and speed is not None and typed.strip().lower() != speed.strip().lower():
        raise ValueError(f"Speed given twice (`{echo(speed)}` and `speed={echo(typed)}`): give it once.")
    chosen = SPEED.read(typed if typed is not None else speed or SPEED.default)
    opts.pop("ai", None)  # the table's AI level: read_ai
    opts.pop("rating", None)  # ranked or casual: read_ranked
    known = {o.name for o in spec(game)}
    for name in opts:
        if name not in known:
            title = engine.get(game).game.title
            raise ValueError(f"{title} has no option `{echo(name)}`. `/game rules {game}` lists what a host can "
                             "change, and how to type it.")
    full = {o.name: o.default for o in spec(game) if o.name in table_defaults(game)}
    full.update(opts)
    engine.get(game).game.read_options(full)  # the engine's own sentence for a bad value
    return full, chosen


def read_ahead(game: str, given: Mapping[str, str]) -> bool:
    """Whether people may choose their card ahead (``ahead=off`` turns it off), or ``ValueError``
    with a sentence.  A game that does not play ahead has no such option (:func:`read` says so)."""
    typed = {k.lower(): v for k, v in given.items()}.get("ahead")
    return typed is None or not engine.get(game).play_ahead or AHEAD.read(typed) == "on"


def read_ai(game: str, given: Mapping[str, str]) -> str | None:
    """The table's AI level from ``options:`` (``ai=strong``; None: normal), or ``ValueError`` with
    a sentence — a game without a strong AI says so."""
    typed = {k.lower(): v for k, v in given.items()}.get("ai")
    if typed is None:
        return None
    if "strong" not in engine.levels(game):
        raise ValueError(no_strong_ai(engine.get(game).game.title))
    level = AI.read(typed)
    return None if level == AI.default else level


def read_ranked(given: Mapping[str, str], allowed: bool = True) -> bool:
    """Whether the table is ranked, from ``options:`` (``rating=casual``; default: ranked where the
    server's games count for the leaderboard, ``allowed``), or ``ValueError`` with a sentence."""
    typed = {k.lower(): v for k, v in given.items()}.get("rating")
    if typed is None:
        return allowed
    ranked = RATING.read(typed) == "ranked"
    if ranked and not allowed:
        raise ValueError(NOT_RANKED_HERE)
    return ranked
