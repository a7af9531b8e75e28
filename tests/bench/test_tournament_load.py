"""bench/tournament_load.py tells the tournament's REST calls from the tables' (so that
bench/discord.py's main figures stay comparable with a run without a tournament), and sorts its
own by kind.  No bench run here: a fake Discord's channels and records only."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bench.tournament_load import TournamentLoad, kind_of
from tests.fakediscord.server import Channel, RequestRecord

TOUR, THREAD, OTHER, TABLES_THREAD = 10, 11, 20, 21


def record(method: str, path: str) -> RequestRecord:
    return RequestRecord(at=0.0, method=method, route=f"{method} {path}", path=path)


def load() -> TournamentLoad:
    channels = {TOUR: Channel(TOUR, "tournament"), THREAD: Channel(THREAD, "t", type=11, parent_id=TOUR),
                OTHER: Channel(OTHER, "table-1"), TABLES_THREAD: Channel(TABLES_THREAD, "x", type=11, parent_id=OTHER)}
    interactions = {1: SimpleNamespace(user_id=7, token="ours"), 2: SimpleNamespace(user_id=8, token="theirs")}
    fd: Any = SimpleNamespace(channels=channels, interactions=interactions)
    return TournamentLoad(fd, [SimpleNamespace(id=7)], channels[TOUR], 2, "hearts", "target=1",
                          message=SimpleNamespace(id=500))


def test_its_channel_threads_and_peoples_tokens_are_the_tournaments_and_nothing_else() -> None:
    t = load()
    mine = [record("POST", f"/channels/{TOUR}/messages"), record("PATCH", f"/channels/{THREAD}/messages/3"),
            record("PATCH", "/webhooks/9/ours/messages/@original")]
    theirs = [record("POST", f"/channels/{OTHER}/messages"), record("PATCH", f"/channels/{TABLES_THREAD}/messages/4"),
              record("PATCH", "/webhooks/9/theirs/messages/@original"), record("GET", "/applications/9/emojis"),
              record("POST", f"/channels/{OTHER}{TOUR}/messages")]  # (another channel whose id starts alike)
    assert t.split(theirs[:2] + mine + theirs[2:]) == (mine, theirs)


def test_its_calls_are_sorted_by_what_they_add_on_discords_budget() -> None:
    assert kind_of("PATCH", f"/channels/{TOUR}/messages/500", TOUR, 500) == "standings edit"
    assert kind_of("POST", f"/channels/{TOUR}/messages", TOUR, 500) == "starter message"
    assert kind_of("POST", f"/channels/{TOUR}/messages/501/threads", TOUR, 500) == "thread"
    assert kind_of("POST", f"/channels/{TOUR}/threads", TOUR, 500) == "thread"
    assert kind_of("PATCH", f"/channels/{TOUR}/messages/501", TOUR, 500) == "other in the tournament's channel"
    assert kind_of("PATCH", f"/channels/{THREAD}/messages/502", TOUR, 500) == "table"
    assert kind_of("PATCH", "/webhooks/9/ours/messages/@original", TOUR, 500) == "table"
