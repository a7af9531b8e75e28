"""The test suite's CI mode (``CI`` set, as ``.ci/run`` does): a run that did not run everything fails.

Green must mean every test ran and passed.  With ``CI`` set, a test that was skipped (at collection
or while running), xfailed, xpassed or deselected (``-k``, ``-m``, ``DECKHAND_SKIP_PG``) makes the
session fail, with a list of them in the summary; so does a variable that changes what the suite
checks (:data:`WEAKENING_ENV`).  :data:`ALLOWED` is where a test CI may skip would be named, with
why: there is none.

It works with pytest-xdist: each worker notes what it did not run and hands the list to the
controller in ``workeroutput`` (deselection happens in the workers, which do the collecting, and
the controller never hears of it otherwise); the controller decides the exit status.

Loaded by tests/conftest.py, or on its own with ``-p tests.ci_guard`` (tests/test_ci.py runs it so
on scratch tests).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

#: Variables a CI run must not have (.ci/run unsets them; this catches one set after that, say by
#: a Makefile or a wrapper).  tests/test_ci.py checks .ci/run unsets each of them.
WEAKENING_ENV = ("DECKHAND_SKIP_PG", "DECKHAND_TEST_PG_URL", "DECKHAND_PURE", "DECKHAND_REGEN_GOLDEN")
#: Node ids CI may leave out, with the reason.  Empty: every test runs on CI's Linux machine.
ALLOWED: dict[str, str] = {}
_KEY = "deckhand_not_run"
_NAME = "deckhand-ci-guard"


def active(environ: Any = None) -> bool:
    """Whether ``CI`` is set to something other than empty, 0 or false."""
    value = (os.environ if environ is None else environ).get("CI", "").strip().lower()
    return value not in ("", "0", "false", "no")


def pytest_configure(config: pytest.Config) -> None:
    """Installs the guard when CI is set (once, whether loaded by conftest, ``-p`` or both)."""
    if not active() or config.pluginmanager.has_plugin(_NAME):
        return
    weakening = [name for name in WEAKENING_ENV if os.environ.get(name)]
    if weakening:
        raise pytest.UsageError(f"CI is set, and so is {', '.join(weakening)}: that changes what the tests check. "
                                f"Unset it (.ci/run does).")
    config.pluginmanager.register(Guard(config), _NAME)


def _reason(report: Any) -> str:
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # (path, line, "Skipped: why")
        return str(longrepr[2])
    lines = str(longrepr or "").strip().splitlines()
    return lines[-1] if lines else ""


class Guard:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.not_run: dict[str, str] = {}  # node id -> what happened to it

    def _note(self, nodeid: str, what: str) -> None:
        if nodeid not in ALLOWED:
            self.not_run.setdefault(nodeid, what)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        for item in items:
            self._note(item.nodeid, "deselected")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.skipped:
            self._note(report.nodeid or "(collection)", f"skipped while collecting ({_reason(report)})")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if hasattr(report, "wasxfail"):
            what = "xpassed" if report.passed else "xfailed"
            self._note(report.nodeid, f"{what} ({report.wasxfail or 'no reason given'})")
        elif report.skipped:
            self._note(report.nodeid, f"skipped ({_reason(report)})")

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        for nodeid, what in (getattr(node, "workeroutput", None) or {}).get(_KEY, {}).items():
            self._note(nodeid, what)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller judges
            workeroutput[_KEY] = dict(self.not_run)
            return
        if self.not_run and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.not_run or hasattr(self.config, "workerinput"):
            return
        terminalreporter.section("CI: tests that did not run", sep="=", red=True, bold=True)
        for nodeid, what in sorted(self.not_run.items()):
            terminalreporter.line(f"{nodeid}: {what}")
        terminalreporter.line(f"{len(self.not_run)} test(s) did not run, and CI is set: the run fails "
                              f"(tests/ci_guard.py).", red=True)
