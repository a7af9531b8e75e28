"""Compile the engine's hot modules with mypyc into ``build/mypyc/`` (see tools/native.py).

    python -m tools.build [--force] [--strict]

Does nothing when the build there is current (its manifest matches the sources).  Otherwise it
compiles ``tools.native.COMPILED`` in a fresh folder (mypy's compiler and gcc, one or two minutes)
and swaps it in whole, so a half-made build is never visible.  A build that fails leaves no build
at all: the engine then runs its pure Python sources, as fast as before this tool existed, and this
tool says so in one line and still exits 0, so ``make run``/``make test`` go on.  ``--strict`` (CI)
exits 1 instead, and also when a build exists but a fresh interpreter would not load it (the engine
would quietly run its sources).  The compiler's output is kept in ``build/mypyc.log``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import native  # noqa: E402  (imports nothing of the engine: it only judges the build)

LOG = ROOT / "build" / "mypyc.log"

# Run in a child interpreter so setuptools' and mypy's state never touch the caller.  mypy checks
# the compiled modules against the modules it imports; errors elsewhere in the engine are not this
# build's business (follow-imports=silent).
_SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify
# The modules are one group, compiled into one shared library (argv[3], engine.native: it lands in
# engine/ as native__mypyc), so calls and attribute reads between them are direct C.  Each module is
# named by its file (argv[4:], e.g. engine/cards.py); mypy names it by its packages.
work, cache, group = sys.argv[1], sys.argv[2], sys.argv[3]
modules = sys.argv[4:]
setup(
    name="deckhand-engine-native", packages=[], py_modules=[],
    ext_modules=mypycify(["--follow-imports=silent", f"--cache-dir={cache}", *modules],
                         opt_level="3", target_dir=f"{work}/c", group_name=group),
    script_args=["build_ext", "--build-lib", f"{work}/lib", "--build-temp", f"{work}/tmp"],
)
"""


def build(force: bool = False) -> tuple[bool, str]:
    """(a current build exists now, a sentence saying what happened)."""
    if not force and native.check() is None:
        return True, f"engine build: compiled build in {native.BUILD_DIR} is current"
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return False, ("engine build: mypy (which provides mypyc) is not installed "
                       "(pip install -r requirements-build.txt); the engine runs as pure Python")
    target = native.BUILD_DIR
    work = target.parent / f"mypyc-work-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    started = time.monotonic()
    fp = native.fingerprint()  # of the sources as they were when the compiler read them
    with open(LOG, "w") as log:
        proc = subprocess.run(
            [sys.executable, "-c", _SETUP, str(work), str(target.parent / "mypy-cache"),
             native.SHARED.removesuffix("__mypyc"),
             *(str(native.source(m).relative_to(ROOT)) for m in native.COMPILED)],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(target, ignore_errors=True)  # an old build is stale anyway
        return False, (f"engine build: mypyc failed (exit {proc.returncode}; see {LOG}); "
                       "the engine runs as pure Python")
    out = work / "out"
    out.mkdir()
    for package in sorted({m.split(".")[0] for m in (*native.COMPILED, native.SHARED)}):
        shutil.copytree(work / "lib" / package, out / package)
    (out / native.MANIFEST).write_text(json.dumps(
        {"fingerprint": fp, "modules": list(native.COMPILED), "built": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                                  time.gmtime())}, indent=1))
    shutil.rmtree(target, ignore_errors=True)
    out.rename(target)
    shutil.rmtree(work, ignore_errors=True)
    why = native.check()
    if why is not None:  # a source changed while compiling: the next run builds again
        return False, f"engine build: {why}; the engine runs as pure Python"
    return True, (f"engine build: compiled {', '.join(native.COMPILED)} with mypyc in "
                  f"{time.monotonic() - started:.0f} s into {target}")


def loads() -> tuple[bool, str]:
    """(a fresh interpreter's engine runs the compiled build, why not): what ``engine`` picks on import."""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    proc = subprocess.run([sys.executable, "-c", "import engine, tools.native as n; print(n.BUILD, n.REASON)"],
                          cwd=ROOT, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    said = proc.stdout.strip() if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["no output"])[-1]
    if proc.returncode != 0 or not said.startswith("compiled "):
        return False, f"engine build: the engine does not load the compiled build ({said})"
    return True, ""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--force", action="store_true", help="build even when the build is current")
    p.add_argument("--strict", action="store_true", help="exit 1 when no current build results")
    args = p.parse_args(argv)
    LOG.parent.mkdir(parents=True, exist_ok=True)
    ok, message = build(args.force)
    print(message, flush=True)
    if ok and args.strict:
        ok, message = loads()
        if not ok:
            print(message, flush=True)
    return 0 if ok or not args.strict else 1


if __name__ == "__main__":
    sys.exit(main())
