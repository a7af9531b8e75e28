"""A game is one folder (issue 30): nothing outside a game's own modules names it.

Every registered game's name (``hearts``) and title (``King of the Hill``) is looked for, as a word
and in any case, in the product code (``PRODUCT``) outside the places a game's own code lives
(``OWN``).  A hit is listed with its file and line, so whoever adds one sees where.  ``OWN`` says
where a game's code lives: its folder, ``games/<name>/``; ``LEFT`` the shared files allowed to
name a game (none), and why.
"""

from __future__ import annotations

import re
from fnmatch import fnmatch
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parent.parent
#: The product code: every Python file of these (tests and docs may name games).
PRODUCT = ("engine", "tables", "cogs", "bench", "tools", "games", "bot.py")
#: Where a game's own code lives, by pattern (``{game}``: its name): its modules, its screens.
OWN = ("games/{game}/*", "games/{game}/**/*")
#: Shared files allowed to name a game: none (the build reads the modules a game compiles with
#: mypyc from the game's own package: tools/native.py's ``declared``).
LEFT: tuple[str, ...] = ()
#: Where a game's name is an English word that means something else: file -> those games' names.
WORDS = {"engine/cards.py": ("hearts",)}  # the suit of the standard deck


def product_files() -> list[Path]:
    out: list[Path] = []
    for part in PRODUCT:
        path = ROOT / part
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            out += sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
    return out


def words_of(spec: engine.GameSpec) -> re.Pattern[str]:
    """The game's name and title (without a leading "The"), as words, in any case."""
    names = {spec.name, spec.game.title, re.sub(r"^the\s+", "", spec.game.title, flags=re.IGNORECASE)}
    alternatives = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE)


def own(rel: str, games: list[str]) -> bool:
    """Whether ``rel`` is a game's own module (any game's: how games name each other is not this
    check's business) or a shared module still being emptied."""
    return rel in LEFT or any(fnmatch(rel, pattern.format(game=g)) for g in games for pattern in OWN)


def hits() -> list[str]:
    """``path:line: game: text`` for every place outside a game's own that names it."""
    specs = engine.games()
    patterns = {name: words_of(spec) for name, spec in specs.items()}
    out: list[str] = []
    for path in product_files():
        rel = path.relative_to(ROOT).as_posix()
        if own(rel, list(specs)):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name, pattern in patterns.items():
                if name not in WORDS.get(rel, ()) and pattern.search(line):
                    out.append(f"{rel}:{n}: {name}: {line.strip()[:100]}")
    return out


def test_nothing_outside_a_games_own_modules_names_it() -> None:
    found = hits()
    assert not found, f"{len(found)} lines outside a game's own modules name it:\n" + "\n".join(found)


def test_the_check_sees_a_name_and_a_title() -> None:
    spec = next(iter(engine.games().values()))
    pattern = words_of(spec)
    assert pattern.search(f"x = {spec.name.upper()!r}") and pattern.search(f"# {spec.game.title.lower()} only")
    assert not pattern.search(f"{spec.name}_x = 1")  # part of another word is not the name


def test_war_the_sixth_game_is_its_folder_alone() -> None:
    """War (games/war/) is found by the folder scan and, once registered, named nowhere outside its
    folder: adding it needed no list, no import and no branch anywhere else in the product."""
    import games
    from games.war import NAME
    from games.war.screens import registered

    assert NAME in games.names()
    with registered():
        assert NAME in engine.games()
        found = [h for h in hits() if f": {NAME}: " in h]
    assert not found, "War is named outside games/war/:\n" + "\n".join(found)
