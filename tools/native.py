"""Which build of the engine runs: the modules compiled with mypyc, or the pure Python sources.

``python -m tools.build`` (run by ``make run`` and ``make test``) compiles :data:`COMPILED` into
``build/mypyc/`` with a manifest naming the fingerprint of the sources it was built from.  The
``engine`` package, when imported, first calls :func:`activate`, which puts that folder ahead on the
package's path only if the manifest matches the sources as they are now (and this interpreter), so
a stale build is never picked: the pure modules run instead, with one log line saying why.  The rules are the same
either way (tests/engine/test_native.py plays both side by side); only the speed differs.

This module only chooses where the engine's modules are imported from, reading the build's files
and the environment: it lives outside engine/ because the rules do no I/O.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import logging
import os
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

log = logging.getLogger("deckhand.engine")

ROOT = Path(__file__).resolve().parent.parent
#: The engine modules compiled by mypyc (what search and the benches spend their time in).
COMPILED = ("cards", "hearts")
#: What the compiled code depends on: it reads the types (named tuples' fields, constants) of the
#: modules it imports, so a change to any of these makes the build stale.
SOURCES = ("engine/hearts.py", "engine/cards.py", "engine/core.py", "engine/worlds.py", "tools/build.py")
#: The extension the compiled modules share (mypyc compiles them as one group, so calls and attribute
#: reads between them, Hearts reading a Card's suit, are direct): ``engine/native__mypyc*.so``.
SHARED = "native__mypyc"
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
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ""
    missing = [m for m in (*COMPILED, SHARED) if not (build_dir / "engine" / f"{m}{suffix}").exists()]
    if missing:
        return f"the compiled build lacks {', '.join(missing)}"
    return None


def activate(package_path: list[str]) -> str:
    """Called by ``engine/__init__.py`` before it imports any game: make the package import the
    compiled modules when a current build exists.  Never raises: the pure modules are the fallback."""
    global BUILD, REASON
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
    where = str(BUILD_DIR / "engine")
    package_path.insert(0, where)
    try:
        for m in COMPILED:
            mod = importlib.import_module(f"engine.{m}")
            if not _is_compiled(mod):
                raise ImportError(f"engine.{m} came from {mod.__file__}")
    except Exception as e:  # e.g. built for another machine: undo, and run the sources
        package_path.remove(where)
        for name in [n for n in sys.modules if n.startswith(tuple(f"engine.{m}" for m in COMPILED))]:
            del sys.modules[name]
        BUILD, REASON = "pure", f"the compiled build failed to load ({e!r})"
        log.warning("engine: pure Python (%s)", REASON)
        return BUILD
    BUILD, REASON = "compiled", f"mypyc build in {BUILD_DIR}"
    log.info("engine: compiled with mypyc (%s)", ", ".join(COMPILED))
    return BUILD


def _is_compiled(mod: ModuleType) -> bool:
    return not (getattr(mod, "__file__", "") or "").endswith(".py")


def is_compiled(name: str) -> bool:
    """Whether ``engine.<name>`` as imported now is the compiled build."""
    return _is_compiled(importlib.import_module(f"engine.{name}"))


def pure(name: str) -> ModuleType:
    """``engine/<name>.py`` imported from its source as a separate module (``engine._pure_<name>``),
    whichever build ``engine.<name>`` is: to compare the two builds side by side."""
    mod_name = f"engine._pure_{name}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    spec = importlib.util.spec_from_file_location(mod_name, ROOT / "engine" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[mod_name]
        raise
    return mod
