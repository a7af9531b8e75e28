"""Which build of the engine runs: the modules compiled with mypyc, or the pure Python sources.

``python -m tools.build`` (run by ``make run`` and ``make test``) compiles :data:`COMPILED` into
``build/mypyc/`` with a manifest naming the fingerprint of the sources it was built from.  The
``engine`` package, when imported, first calls :func:`activate`, which makes Python import those
modules from that folder (an import finder that knows only their names, wherever their package
lives: the engine's cards, a game's rules under games/) only if the manifest matches the sources as
they are now (and this interpreter), so a stale build is never picked: the pure modules run
instead, with one log line saying why.  The rules are the same either way
(tests/engine/test_native.py plays both side by side); only the speed differs.

This module only chooses where the engine's modules are imported from, reading the build's files
and the environment: it lives outside engine/ because the rules do no I/O.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import logging
import os
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

log = logging.getLogger("deckhand.engine")

ROOT = Path(__file__).resolve().parent.parent
#: The engine's own modules compiled by mypyc (by full name) and what compiled code depends on: it
#: reads the types (named tuples' fields, constants) of the modules it imports, so a change to any
#: of these makes the build stale.
ENGINE_COMPILED = ("engine.cards",)
ENGINE_SOURCES = ("engine/cards.py", "engine/core.py", "engine/worlds.py", "tools/build.py")
#: The name a game's package (games/<name>/__init__.py) gives the tuple of its own modules to
#: compile, by their names in the package, in the order they import each other (the rules last).
DECLARED = "COMPILED"


def declared(games: Path = ROOT / "games") -> tuple[str, ...]:
    """Every game's modules to compile, by full name (``games.<name>.<module>``), games in name
    order.  Read from the text of each ``games/<name>/__init__.py`` (its ``COMPILED = (...)``, a
    literal), not by importing it: the build is chosen before the engine, which a game imports, is."""
    out: list[str] = []
    for init in sorted(games.glob("*/__init__.py")):
        for node in ast.parse(init.read_text(encoding="utf-8")).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if value is not None and any(isinstance(t, ast.Name) and t.id == DECLARED for t in targets):
                out += [f"games.{init.parent.name}.{m}" for m in ast.literal_eval(value)]
    return tuple(out)


#: The modules compiled by mypyc (what search and the benches spend their time in), by full name:
#: the engine's, then each game's own (:func:`declared`).
COMPILED = (*ENGINE_COMPILED, *declared())
#: What the compiled code depends on: the games' compiled sources and the engine's (above).
SOURCES = (*(f"{m.replace('.', '/')}.py" for m in COMPILED if m not in ENGINE_COMPILED), *ENGINE_SOURCES)
#: The extension the compiled modules share (mypyc compiles them as one group, so calls and attribute
#: reads between them, a game's rules reading a Card's suit, are direct): ``engine/native__mypyc*.so``.
SHARED = "engine.native__mypyc"
BUILD_DIR = ROOT / "build" / "mypyc"
MANIFEST = "manifest.json"
PURE_ENV = "DECKHAND_PURE"

#: ``"compiled"`` or ``"pure"`` once :func:`activate` has run, and why (for logs and benches).
BUILD = "pure"
REASON = "not activated"


def fingerprint() -> dict[str, str]:
    """What a build must match: a digest of every source it depends on, the interpreter's ABI and
    the compiler's version."""
    h = hashlib.sha256()
    for rel in SOURCES:
        h.update(rel.encode() + b"\0")
        h.update((ROOT / rel).read_bytes())
        h.update(b"\0")
    try:
        from importlib.metadata import version

        mypy = version("mypy")
    except Exception:  # no compiler installed: no build can be current anyway
        mypy = "none"
    return {"sources": h.hexdigest(), "abi": sysconfig.get_config_var("EXT_SUFFIX") or "",
            "python": sys.version.split()[0], "mypy": mypy}


def source(module: str) -> Path:
    """``engine.cards`` -> the file it is compiled from, ``engine/cards.py``."""
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def built(module: str, build_dir: Path = BUILD_DIR) -> Path:
    """Where the build keeps ``module``'s extension (``engine.cards`` -> ``engine/cards.<abi>.so``)."""
    *package, last = module.split(".")
    return build_dir.joinpath(*package, last + (sysconfig.get_config_var("EXT_SUFFIX") or ""))


def check(build_dir: Path = BUILD_DIR) -> str | None:
    """``None`` when ``build_dir`` holds a current build, else why not (a sentence)."""
    try:
        manifest = json.loads((build_dir / MANIFEST).read_text())
    except FileNotFoundError:
        return "no compiled build (make build, or python -m tools.build, compiles it)"
    except (OSError, ValueError) as e:
        return f"the compiled build's manifest is unreadable ({e})"
    if manifest.get("fingerprint") != fingerprint():
        return "the compiled build is stale (sources, Python or mypy changed since): run make build"
    missing = [m for m in (*COMPILED, SHARED) if not built(m, build_dir).exists()]
    if missing:
        return f"the compiled build lacks {', '.join(missing)}"
    return None


class _Finder(importlib.abc.MetaPathFinder):
    """Imports each compiled module (and the library they share) from the build, by its full name."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        where = self.files.get(fullname)
        if where is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, where, loader=importlib.machinery.ExtensionFileLoader(fullname, str(where)))


_finder: _Finder | None = None


def activate() -> str:
    """Called by ``engine/__init__.py`` before anything else of the engine is imported: make Python
    import the compiled modules when a current build exists.  The engine's own are imported here
    to check they load; a game's (games/<name>/) when its package imports it.  Never raises: the
    pure modules are the fallback."""
    global BUILD, REASON, _finder
    if os.environ.get(PURE_ENV):
        BUILD, REASON = "pure", f"{PURE_ENV} is set"
        return BUILD
    try:
        why = check()
    except Exception as e:  # a broken build folder must never stop the engine
        why = f"the compiled build could not be checked ({e!r})"
    if why is not None:
        BUILD, REASON = "pure", why
        # Absent is the normal state of a checkout that was never built: say so quietly.
        (log.info if why.startswith("no compiled build") else log.warning)("engine: pure Python (%s)", why)
        return BUILD
    if _finder is None:
        _finder = _Finder({m: built(m) for m in (*COMPILED, SHARED)})
        sys.meta_path.insert(0, _finder)
    try:
        for m in (SHARED, *(m for m in COMPILED if m.startswith("engine."))):
            mod = importlib.import_module(m)
            if not _is_compiled(mod):
                raise ImportError(f"{m} came from {mod.__file__}")
    except Exception as e:  # e.g. built for another machine: undo, and run the sources
        sys.meta_path.remove(_finder)
        _finder = None
        for name in [n for n in sys.modules if n.startswith((*COMPILED, SHARED))]:
            del sys.modules[name]
        BUILD, REASON = "pure", f"the compiled build failed to load ({e!r})"
        log.warning("engine: pure Python (%s)", REASON)
        return BUILD
    BUILD, REASON = "compiled", f"mypyc build in {BUILD_DIR}"
    log.info("engine: compiled with mypyc (%s)", ", ".join(COMPILED))
    return BUILD


def _is_compiled(mod: ModuleType) -> bool:
    return not (getattr(mod, "__file__", "") or "").endswith(".py")


def module(name: str) -> str:
    """A compiled module's full name: ``engine.cards`` as it is, or a part of one name of
    :data:`COMPILED` (``cards``, or a game's name, which names its rules).  A last name that both
    the engine and a game's package use (``cards``) names the engine's."""
    if "." in name:
        return name
    found = [m for m in COMPILED if name in m.split(".")]
    if len(found) > 1:
        found = ([m for m in found if m.split(".")[-2:] == [name, "rules"]]
                 or [m for m in found if m == f"engine.{name}"])
    if len(found) != 1:
        raise KeyError(f"{name!r} names {len(found)} compiled modules: {', '.join(COMPILED)}")
    return found[0]


def is_compiled(name: str) -> bool:
    """Whether the module (:func:`module`'s name) as imported now is the compiled build."""
    return _is_compiled(importlib.import_module(module(name)))


def pure(name: str) -> ModuleType:
    """A compiled module (:func:`module`'s name) imported from its source as a separate module
    (``engine._pure_cards``), whichever build the module is: to compare the two builds side by side.
    The compiled modules of its package listed before it (a game's rules split by phase, which the
    rules import) are imported from their sources too, each as its own ``_pure_`` module, so that
    nothing of the pure module runs compiled."""
    full = module(name)
    package, _, last = full.rpartition(".")
    mod_name = f"{package}._pure_{last}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    family = [m for m in COMPILED[:COMPILED.index(full)] if m.rpartition(".")[0] == package]
    saved = {m: sys.modules.get(m) for m in family}
    try:
        for m in family:  # while the family is read, its imports of each other find the pure ones
            sys.modules[m] = _pure_source(m)
        return _pure_source(full)
    finally:
        for m, was in saved.items():
            if was is None:
                sys.modules.pop(m, None)
            else:
                sys.modules[m] = was


def _pure_source(full: str) -> ModuleType:
    package, _, last = full.rpartition(".")
    mod_name = f"{package}._pure_{last}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    spec = importlib.util.spec_from_file_location(mod_name, source(full))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[mod_name]
        raise
    return mod
