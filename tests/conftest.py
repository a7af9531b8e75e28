"""Session-wide fixtures: the PostgreSQL server the storage tests run against; and, with ``CI`` set,
the guard that fails a run which skipped, xfailed or deselected anything (tests/ci_guard.py)."""

from __future__ import annotations

import os

import pytest

from tests import ci_guard


def pytest_configure(config: pytest.Config) -> None:
    ci_guard.pytest_configure(config)


@pytest.fixture(scope="session")
def pg_server():
    """The URL of a PostgreSQL server for the tests: ``DECKHAND_TEST_PG_URL`` if set, else a
    throwaway server started for this test process (each xdist worker has its own; tests inside
    one use a schema each).  A machine without PostgreSQL fails these tests, with the sentence
    saying how to install it; only ``DECKHAND_SKIP_PG=1`` leaves them out (see below)."""
    url = os.environ.get("DECKHAND_TEST_PG_URL", "").strip()
    if url:
        yield url
        return
    from tests.pgcluster import Cluster

    cluster = Cluster().start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


def _skip_pg() -> bool:
    return os.environ.get("DECKHAND_SKIP_PG", "").strip() not in ("", "0")


def _uses_pg(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    return "pg_server" in getattr(item, "fixturenames", ()) or (
        callspec is not None and "postgres" in callspec.params.values())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``DECKHAND_SKIP_PG=1`` (said explicitly, never by default) deselects the PostgreSQL variants,
    and says how many; CI never sets it (.ci/run unsets it, and with CI set the guard fails the run)."""
    if not _skip_pg():
        return
    dropped = [i for i in items if _uses_pg(i)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if not _uses_pg(i)]
