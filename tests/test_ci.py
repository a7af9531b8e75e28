""".ci/run fails closed: it unsets every variable that changes what the suite runs (its list is held
against every DECKHAND_* name the code and tests read), sets CI, installs what the tests need and
builds strictly; and the suite's CI mode (tests/ci_guard.py) fails a run that skipped, xfailed or
deselected anything, with pytest-xdist as without."""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import ci_guard

ROOT = Path(__file__).resolve().parent.parent
CI_RUN = ROOT / ".ci" / "run"
NAME = re.compile(r"\bDECKHAND_[A-Z0-9_]*[A-Z0-9]\b")
SKIP_DIRS = {".git", ".venv", "build", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache"}
SUFFIXES = {".py", ".js", ".mjs", ".sh", ".toml", ".cfg", ".ini", ".yaml", ".yml"}

#: DECKHAND_* names in the code that .ci/run need not unset, and why.
HARMLESS = {
    "DECKHAND_TEST_SHARED": "set by tests/tables/test_procs.py itself (monkeypatch), for one test",
    "DECKHAND_TEST_PRIVATE": "set by tests/tables/test_procs.py itself (monkeypatch), for one test",
    "DECKHAND_TEST_TAG": "set by tests/tables/test_procs.py itself, per test, to find the programs it started",
    "DECKHAND_PROGRAM": "not a variable: the start its error messages share, matched by a test",
}


def ci_run_list() -> list[str]:
    """The names in .ci/run's ``WEAKENING=( … )`` (comments dropped)."""
    text = CI_RUN.read_text()
    body = re.search(r"^WEAKENING=\((.*?)^\)", text, re.S | re.M)
    assert body, ".ci/run has no WEAKENING=( … ) list"
    return [w for line in body.group(1).splitlines() for w in line.split("#", 1)[0].split()]


def names_in_code() -> dict[str, str]:
    """Every DECKHAND_* name in the repository's code, tests and scripts (besides .ci/run's list and
    this file's examples) -> one file naming it."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for f in sorted(filenames):
            path = Path(dirpath, f)
            if path in (CI_RUN, Path(__file__).resolve()) or (path.suffix not in SUFFIXES and f != "Makefile"):
                continue
            for name in NAME.findall(path.read_text(encoding="utf-8", errors="replace")):
                found.setdefault(name, str(path.relative_to(ROOT)))
    return found


def test_ci_run_unsets_every_deckhand_variable_the_code_reads():
    listed = set(ci_run_list())
    found = names_in_code()
    assert {"DECKHAND_SKIP_PG", "DECKHAND_PURE", "DECKHAND_REGEN_GOLDEN", "DECKHAND_TEST_PG_URL"} <= found.keys()
    missing = {name: where for name, where in found.items() if name not in listed and name not in HARMLESS}
    assert not missing, f"add these to .ci/run's WEAKENING list, or to HARMLESS here with why: {missing}"
    # Neither list names what the code no longer reads, and none is in both.
    assert {n for n in listed if n.startswith("DECKHAND_")} <= found.keys()
    assert set(HARMLESS) <= found.keys() and not set(HARMLESS) & listed
    # What the suite's CI mode refuses, .ci/run removes.
    assert set(ci_guard.WEAKENING_ENV) <= listed


def _fake(bin_dir: Path, name: str, log: Path, *, dump_env: bool = False) -> None:
    env = f'/usr/bin/env > "{log}.env.$$"; ' if dump_env else ""
    (bin_dir / name).write_text(f'#!/bin/sh\n{env}echo "$$ {name} $*" >> "{log}"\n')
    (bin_dir / name).chmod(0o755)


@pytest.mark.parametrize("uid", ["0", "1000"], ids=["root", "not-root"])
def test_ci_run_clears_the_environment_installs_what_is_missing_and_builds_strictly(tmp_path, uid):
    """.ci/run in a copy of the repository with no node, no C compiler and fakes for make, apt-get,
    sudo and id: what it runs, and with which environment, as root and as anyone else."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(CI_RUN, repo / ".ci" / "run")
    (repo / ".venv").mkdir()  # a stale venv: .ci/run starts afresh
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "log"
    for tool in ("dirname", "grep", "rm", "env"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    (bin_dir / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (bin_dir / "id").chmod(0o755)
    _fake(bin_dir, "make", log, dump_env=True)
    for tool in ("apt-get", "sudo", "tee", "mkdir"):
        _fake(bin_dir, tool, log)
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "CI": "true", "DECKHAND_A_NEW_SWITCH": "1",
           **{name: "1" for name in ci_run_list()}}
    out = subprocess.run(["/bin/bash", str(repo / ".ci" / "run")], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    calls = [line.split(" ", 1) for line in log.read_text().splitlines()]
    made = [(pid, call) for pid, call in calls if call.startswith("make ")]
    assert [call for _, call in made] == ["make lint", "make test BUILD_FLAGS=--strict"]
    installs = [call for _, call in calls if "apt-get install " in call]  # (through sudo when not root)
    wanted = ["nodejs", "gcc"]
    if not glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        wanted.insert(0, "postgresql")
    assert [call.split()[-1] for call in installs] == wanted
    assert all(call.startswith("sudo " if uid != "0" else "apt-get ") for call in installs)
    assert not (repo / ".venv").exists()
    for pid, _ in made:
        seen = dict(line.split("=", 1) for line in Path(f"{log}.env.{pid}").read_text().splitlines() if "=" in line)
        assert seen["CI"] == "1"
        assert not [name for name in seen if name.startswith("DECKHAND_") or name in ci_run_list()]


# ---- the guard, on scratch tests in a child pytest ----------------------------------------------
SCRATCH = """
import pytest

def test_passes():
    pass

def test_also_passes():
    pass

def test_skips():
    if {skip}:
        pytest.skip("no reason at all")

def test_xfails():
    if {xfail}:
        pytest.xfail("known")
"""


def run_scratch(tmp_path: Path, *args: str, skip: bool = False, xfail: bool = False, ci: str | None = "1",
                **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not the repository's settings
    (tmp_path / "test_scratch.py").write_text(SCRATCH.format(skip=skip, xfail=xfail))
    # Not this run's CI, weakening variables, pytest options or xdist worker settings.
    environ = {k: v for k, v in os.environ.items()
               if k != "CI" and k not in ci_guard.WEAKENING_ENV and not k.startswith(("PYTEST_", "DECKHAND_"))}
    environ.update(env, PYTHONPATH=str(ROOT))
    if ci is not None:
        environ["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "tests.ci_guard", "-p", "no:cacheprovider",
                           *args], cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_the_guard_passes_a_run_where_every_test_ran(tmp_path, workers):
    out = run_scratch(tmp_path, "-n", workers)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "did not run" not in out.stdout
    assert "4 passed in" in out.stdout


@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.parametrize("case, args, flags, what", [
    ("skip", (), {"skip": True}, "test_scratch.py::test_skips: skipped (Skipped: no reason at all)"),
    ("xfail", (), {"xfail": True}, "test_scratch.py::test_xfails: xfailed (known)"),
    ("deselect", ("-k", "not also"), {}, "test_scratch.py::test_also_passes: deselected"),
])
def test_the_guard_fails_a_run_that_left_a_test_out(tmp_path, workers, case, args, flags, what):
    out = run_scratch(tmp_path, "-n", workers, *args, **flags)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "CI: tests that did not run" in out.stdout and what in out.stdout
    assert "1 test(s) did not run" in out.stdout


@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.parametrize("ci", [None, "false"], ids=["unset", "false"])
def test_without_ci_a_run_that_left_tests_out_passes(tmp_path, workers, ci):
    """The guard is CI's: without CI (unset, or "false") a run that skipped, xfailed and deselected
    passes.  One run leaves out all three ways at once (it would fail if any of them failed it),
    rather than a child pytest for each way: they are the slow part of this file."""
    out = run_scratch(tmp_path, "-n", workers, "-k", "not also", skip=True, xfail=True, ci=ci)
    assert out.returncode == 0, out.stdout + out.stderr
    # (xdist's summary leaves the deselected out)
    assert re.search(r"\b1 passed, 1 skipped, (1 deselected, )?1 xfailed in ", out.stdout), out.stdout


@pytest.mark.parametrize("name", ci_guard.WEAKENING_ENV)
def test_the_guard_refuses_a_weakening_variable(tmp_path, name):
    out = run_scratch(tmp_path, "-n", "0", **{name: "1"})
    assert out.returncode == pytest.ExitCode.USAGE_ERROR, out.stdout + out.stderr
    assert f"CI is set, and so is {name}" in out.stderr


def test_the_guard_fails_a_run_that_skipped_a_whole_module(tmp_path):
    (tmp_path / "test_module.py").write_text('import pytest\npytest.skip("not today", allow_module_level=True)\n')
    out = run_scratch(tmp_path, "-n", "2")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "test_module.py: skipped while collecting (Skipped: not today)" in out.stdout
