"""Session-wide fixtures: the PostgreSQL server the storage tests run against."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def pg_server():
    """The URL of a PostgreSQL server for the tests: ``DECKHAND_TEST_PG_URL`` if set, else a
    throwaway server started for this test process (each xdist worker has its own; tests inside
    one use a schema each).  Skipped only when ``DECKHAND_SKIP_PG=1`` says so: a machine without
    PostgreSQL fails these tests, with the sentence saying how to install it."""
    if os.environ.get("DECKHAND_SKIP_PG", "").strip() not in ("", "0"):
        pytest.skip("DECKHAND_SKIP_PG is set: the PostgreSQL variants are not run")
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
