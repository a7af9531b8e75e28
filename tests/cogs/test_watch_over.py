"""Watching a finished table: one answer, whether the table is in memory or only the stub of it that
stays once it left (tables/finished.py) — issue 29 item 5."""

from __future__ import annotations

from types import SimpleNamespace

from cogs.watch import view as watch
from tables.finished import Ended


def test_a_finished_table_and_its_stub_get_the_same_answer() -> None:
    table = SimpleNamespace(id="ABC234", guild_id=1, channel_id=2, thread_id=None, game="hearts", seed=42,
                            finished_at=5.0, seats=[],
                            state=object())
    stub = Ended(table)  # type: ignore[arg-type]
    for command in (True, False):
        assert watch.over_line(table, command=command) == watch.over_line(stub, command=command)
    said = watch.over_line(stub)
    assert "nothing to watch" in said and "**Replay**" in said and "/game replay id:ABC234" in said
    closed = SimpleNamespace(id="ABC234", guild_id=1, channel_id=2, thread_id=None, game="hearts", seed=None,
                             finished_at=5.0, seats=[])
    stub = Ended(closed)  # type: ignore[arg-type]
    assert watch.over_line(stub) == "Table `ABC234` was closed before its game started: there is nothing to watch."
