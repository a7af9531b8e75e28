"""The project's modules import one another one way only: no import circles, and each layer only
what it may (a game's pure parts the engine and the standard library; its screens the layers above
too; nothing outside games/ a game by name).

Every import counts, wherever it stands (inside a function or under ``TYPE_CHECKING`` too): a
circle hidden in a function is still two modules that cannot be understood one without the other.
An import of a package's name (``from tables import records``) counts as an import of the
submodule when there is one.  A package's ``__init__`` is not counted as imported by its own
submodules (Python runs it first, but that is no dependency of theirs).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "games", "tables", "cogs")
#: A game's modules that draw it for Discord (games/<name>/screens.py, faces.py): the only ones that may import
#: the layers above the engine.
DISCORD_SIDE = ("screens", "faces")
#: Imports of a game by name outside games/ that are still there: the program seats' line protocol is
#: Tricks' own (issue 30's "packages for the runtime" moves programs and the arena).
KNOWN = {("tables.programs.arena", "games.tricks.ai"), ("tables.programs.arena", "games.tricks.rules"),
         ("tables.programs.driver", "games.tricks.rules"), ("tables.programs.protocol", "games.tricks.rules")}


def project_modules() -> dict[str, Path]:
    mods: dict[str, Path] = {"bot": ROOT / "bot.py"}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join(parts)] = path
    return mods


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in mods}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*up, base] if base else up)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for target in targets:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_checker_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_function_level_and_package_imports(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from pkg.b import B\n")
    (tmp_path / "pkg" / "a.py").write_text("def f():\n    from pkg import b\n")
    (tmp_path / "pkg" / "b.py").write_text("from pkg.a import f\nB = 1\n")
    mods = {"pkg": tmp_path / "pkg" / "__init__.py", "pkg.a": tmp_path / "pkg" / "a.py",
            "pkg.b": tmp_path / "pkg" / "b.py"}
    graph = import_graph(mods)
    assert graph == {"pkg": {"pkg.b"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]


def test_no_import_circles_between_the_projects_modules() -> None:
    mods = project_modules()
    assert {"games.hearts.rules", "tables.runtime", "cogs.table.render", "bot"} <= set(mods)
    found = cycles(import_graph(mods))
    assert found == [], "import circles: " + "; ".join(" ↔ ".join(c) for c in found)


def imported(path: Path, name: str, mods: dict[str, Path]) -> set[str]:
    """Every module a file imports, by its full name (relative imports resolved; ``from a import b``
    is ``a.b`` when that is one of ``mods``, else ``a``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names}
    return found


def layer_problems(mods: dict[str, Path]) -> list[str]:
    """What a module imports that its layer may not: the engine no game and nothing above it; a
    game's pure parts only the engine, words/ (its catalog), the standard library and its own package
    (not its screens);
    its screens also tables/, cogs/ and their libraries; no game another game; tables/, cogs/ and
    bot.py no game by name (the ``games`` package, which finds them, only)."""
    stdlib = set(sys.stdlib_module_names)
    games = {n.split(".")[1] for n in mods if n.startswith("games.")}
    problems = []
    for name, path in sorted(mods.items()):
        parts = name.split(".")
        for target in sorted(imported(path, name, mods)):
            tparts = target.split(".")
            top = tparts[0]
            if parts[0] == "engine":
                ok = top not in ("games", "tables", "cogs", "discord")
            elif parts[0] == "games" and len(parts) > 1:
                discord_side = parts[2:3] in ([d] for d in DISCORD_SIDE)
                if top == "games":
                    ok = tparts[1:2] == parts[1:2] and (discord_side or tparts[2:3] not in ([d] for d in DISCORD_SIDE))
                else:
                    # words/: the catalogs (pure; a game's own words are said where they are drawn)
                    ok = discord_side or top in stdlib or top in ("engine", "mypy_extensions", "words")
            elif parts[0] == "games":
                ok = top in stdlib or top in ("engine", "words")
            else:
                ok = not (top == "games" and len(tparts) > 1 and tparts[1] in games)
            if not ok and (name, target) not in KNOWN:
                problems.append(f"{name} imports {target}")
    return problems


def test_the_layer_check_finds_each_kind_of_slip(tmp_path: Path) -> None:
    files = {
        "engine.core": "import games\n",
        "games": "import discord\n",
        "games.hearts": "from games.hearts.screens import X\nfrom games.hearts.rules import Y\n",
        "games.hearts.rules": "import tables.table\nfrom games.tricks import rules\nimport collections\n",
        "games.hearts.ai": "import numpy\nfrom engine.core import AI\nfrom . import rules\n",
        "games.hearts.screens": (
            "import discord\nfrom cogs.table.render import Renderer\nfrom games.tricks.rules import T\n"
        ),
        "games.tricks": "",
        "tables.runtime": "import games\nfrom games.tricks import rules\n",
        "cogs.table.render": "from games import hearts\n",
    }
    mods = {}
    for name, text in files.items():
        path = tmp_path / f"{name}.py"
        if name in ("games", "games.hearts", "games.tricks"):
            (tmp_path / name).mkdir()
            path = tmp_path / name / "__init__.py"
        path.write_text(text)
        mods[name] = path
    assert layer_problems(mods) == [
        "cogs.table.render imports games.hearts",
        "engine.core imports games",
        "games imports discord",
        "games.hearts imports games.hearts.screens",
        "games.hearts.ai imports numpy",
        "games.hearts.rules imports games.tricks",
        "games.hearts.rules imports tables.table",
        "games.hearts.screens imports games.tricks.rules",
        "tables.runtime imports games.tricks",
    ]


def test_each_layer_imports_only_what_it_may() -> None:
    mods = project_modules()
    assert any(n.startswith("games.") and n.endswith(".screens") for n in mods)
    assert layer_problems(mods) == []


#: The rooms of tables/ (issue 30 part 3) and which rooms each may import (besides the engine, words
#: and libraries): ``base`` is the vocabulary every room shares (tables.table, clock, ids), ``core``
#: the runtime's other top-level modules.  The contest command line (tables.programs.arena) is no
#: room's: nothing in tables/ imports it.  Nothing in tables/ imports discord, cogs or bot.
TABLE_BASE = ("tables.table", "tables.clock", "tables.ids")
TABLE_ROOMS = {
    "base": {"base"},
    "storage": {"storage", "base"},
    "history": {"history", "storage", "base", "nights"},
    "nights": {"nights"},
    "programs": {"programs", "base", "core"},
    "shards": {"shards", "storage", "base", "core"},
    "ai": {"ai", "history", "base", "core"},
    "core": {"core", "base", "storage", "history", "programs", "shards", "ai", "nights"},
}
ARENA = "tables.programs.arena"


def table_room(name: str) -> str:
    parts = name.split(".")
    if name in TABLE_BASE or name == "tables":
        return "base" if name != "tables" else "core"
    return parts[1] if len(parts) > 2 or parts[1] in TABLE_ROOMS else "core"


def table_room_problems(mods: dict[str, Path]) -> list[str]:
    """What a module of tables/ imports that its room may not (TABLE_ROOMS)."""
    problems = []
    for name, path in sorted(mods.items()):
        if name.split(".")[0] != "tables":
            continue
        room = table_room(name)
        for target in sorted(imported(path, name, mods)):
            top = target.split(".")[0]
            if top in ("discord", "cogs", "bot"):
                problems.append(f"{name} imports {target}")
            elif top == "tables" and target != "tables" and target in mods:
                if (target == ARENA and name != ARENA) or table_room(target) not in TABLE_ROOMS[room]:
                    problems.append(f"{name} ({room}) imports {target} ({table_room(target)})")
    return problems


def test_the_room_check_finds_each_kind_of_slip(tmp_path: Path) -> None:
    files = {
        "tables.live": "from tables.programs.arena import main\nfrom tables.table import Table\n",
        "tables.storage.base": "from tables.programs.driver import X\nfrom tables.table import LogEntry\n",
        "tables.history.records": "from tables.live import TableError\nfrom tables.storage.base import R\n",
        "tables.shards.lease": "import discord\nfrom cogs import game\n",
        "tables.programs.arena": "from tables.programs.players import P\n",
        "tables.programs.driver": "from tables.ai.pool import AIPool\nfrom tables.programs.players import P\n",
        "tables.programs.players": "", "tables.ai.pool": "", "tables.table": "",
    }
    mods = {}
    for name, text in files.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        mods[name] = path
    assert table_room_problems(mods) == [
        "tables.history.records (history) imports tables.live (core)",
        "tables.live (core) imports tables.programs.arena (programs)",
        "tables.programs.driver (programs) imports tables.ai.pool (ai)",
        "tables.shards.lease imports cogs",
        "tables.shards.lease imports discord",
        "tables.storage.base (storage) imports tables.programs.driver (programs)",
    ]


def test_each_room_of_tables_imports_only_what_it_may() -> None:
    mods = project_modules()
    assert {ARENA, "tables.storage.base", "tables.history.records", "tables.ai.pool", "tables.shards.lease",
            "tables.runtime"} <= set(mods)
    assert table_room_problems(mods) == []


#: The rooms of cogs/ and the direction between them (issue 30 part 3), bottom first: a room imports
#: only the rooms before it in COG_ORDER, and any room the services (COG_SERVICES), which import no
#: other room of cogs/.  cogs/table/ holds three rooms, by module: ``screens`` (the registry each
#: game's screens fill: cogs/table/screens.py), ``commands`` (the cogs of /game, /settings, /stats,
#: /tournament and the parts of the game cog: COG_COMMANDS) and ``drawing`` (every other module:
#: the table message, the hand view, its controls and custom ids, options in words, the game-over
#: summary).  ``top`` is cogs/'s own modules (the package, privacy.py, wiring.py).  A new module of
#: cogs/table/ is ``drawing`` until listed in COG_COMMANDS.
COG_SERVICES = ("i18n", "ops", "sync")
COG_ORDER = ("screens", "pictures", "drawing", "watch", "live", "replay", "commands", "top")
COG_COMMANDS = ("cogs.table.game", "cogs.table.plumbing", "cogs.table.arguments", "cogs.table.answers",
                "cogs.table.settings", "cogs.table.stats", "cogs.table.tournament")


def cog_room(name: str) -> str:
    parts = name.split(".")
    if name == "cogs.table.screens":
        return "screens"
    if name in COG_COMMANDS:
        return "commands"
    if len(parts) == 1 or (len(parts) == 2 and not (ROOT / "cogs" / parts[1]).is_dir()):
        return "top"
    return "drawing" if parts[1] == "table" else parts[1]


def cog_room_problems(mods: dict[str, Path]) -> list[str]:
    """What a module of cogs/ imports of cogs/ that its room may not (COG_ORDER, COG_SERVICES)."""
    problems = []
    for name, path in sorted(mods.items()):
        if name.split(".")[0] != "cogs":
            continue
        room = cog_room(name)
        for target in sorted(imported(path, name, mods)):
            if target.split(".")[0] != "cogs" or target not in mods:
                continue
            other = cog_room(target)
            if other == room or other in COG_SERVICES:
                continue
            if room in COG_SERVICES or other not in COG_ORDER[: COG_ORDER.index(room)]:
                problems.append(f"{name} ({room}) imports {target} ({other})")
    return problems


def test_the_cog_room_check_finds_each_kind_of_slip(tmp_path: Path) -> None:
    files = {
        "cogs.table.render": "from cogs.i18n.reading import lang\nfrom cogs.live.hand import LiveViews\n",
        "cogs.table.screens": "from cogs.pictures.faces import F\n",
        "cogs.pictures.faces": "from cogs.table.screens import Screens\n",
        "cogs.live.hand": "from cogs.table import render\nfrom cogs.replay.view import V\n",
        "cogs.replay.view": "from cogs.live.hand import LiveViews\nfrom cogs.table.game import GameCog\n",
        "cogs.table.game": "from cogs.live import hand\nfrom cogs.privacy import P\n",
        "cogs.i18n.reading": "from cogs.table.render import clean\n",
        "cogs.privacy": "from cogs.table.game import GameCog\nfrom cogs.sync.translator import T\n",
        "cogs.sync.translator": "",
    }
    mods = {}
    for name, text in files.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        mods[name] = path
    assert cog_room_problems(mods) == [
        "cogs.i18n.reading (i18n) imports cogs.table.render (drawing)",
        "cogs.live.hand (live) imports cogs.replay.view (replay)",
        "cogs.replay.view (replay) imports cogs.table.game (commands)",
        "cogs.table.game (commands) imports cogs.privacy (top)",
        "cogs.table.render (drawing) imports cogs.live.hand (live)",
        "cogs.table.screens (screens) imports cogs.pictures.faces (pictures)",
    ]


def test_each_room_of_cogs_imports_only_what_it_may() -> None:
    mods = project_modules()
    rooms = {cog_room(n) for n in mods if n.startswith("cogs")}
    assert rooms == set(COG_ORDER) | set(COG_SERVICES), rooms  # every room is there, and no other
    assert set(COG_COMMANDS) <= set(mods)
    assert cog_room_problems(mods) == []
