"""A person's data (tables/privacy.py, migration 0014), on both backends: their export holds every
row about them and only their own moves; "forget me" leaves no row of either database holding their
id (every relation and every column searched, JSON included), the games still replay and the other
player's results and ratings are untouched; it waits while they sit at a table being played; a
server that removed Deckhand has its data deleted after the grace period (a driven clock), unless it
came back; old reviews are pruned with old tables."""

from __future__ import annotations

import json

import pytest

from tables import Phase, persistence
from tables.privacy import GRACE, SWEEP_EVERY, seats_without
from tables.table import SHOWN_ALL

from .conftest import GUILD, new_table, run_until
from .stores import Store, StoredClock

ME = 812345678901234567  # a snowflake-sized id: a shorter one could hide inside other numbers
BOB = 200
CARL, DAN = 300, 400  # (two more people: a ranked table is people only)
OTHER_GUILD = 99
ONE_HAND = {"target": 1}


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


@pytest.fixture(autouse=True)
def _daily_storage_watch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock here crosses weeks, and SQLite's storage watch (persistence.WATCH_EVERY, a minute)
    would wake 1,440 times a day, each waking waiting on a real thread: 70 s of a test's time for a
    watch that none of these tests is about.  It looks once a day here instead; the sweep of
    departed servers and the pruning keep their own pace."""
    monkeypatch.setattr(persistence, "WATCH_EVERY", SWEEP_EVERY)


async def finished_game(rt, clock, *, host: int, others: tuple[int, ...], guild: int = GUILD):
    """A ranked game of Hearts the people leave at once (the AI finishes it), rated as the cog does."""
    t = await new_table(rt, host=host, name=f"P{host}", options=ONE_HAND, guild_id=guild, ranked=True)
    for user in (*others, CARL, DAN):
        await rt.join(t.id, user, f"P{user}")
    await rt.start(t.id, host)
    for user in (host, *others, CARL, DAN):
        await rt.leave(t.id, user)
    await run_until(clock, lambda: t.phase == Phase.FINISHED and t.shown == SHOWN_ALL)
    await rt.ratings.rate_table(t)
    await clock.settle()
    return t


def everything(store: Store) -> dict[str, list[dict]]:
    """Every row of every relation of the database."""
    return {name: store.dicts(f"SELECT * FROM {name}") for name in sorted(store.names())}


def holding(store: Store, needle: str) -> list[tuple[str, str]]:
    """(relation, column) of every value that holds ``needle``, as a number or inside text."""
    return [(name, col) for name, rows in everything(store).items() for row in rows
            for col, value in row.items() if needle in str(value)]


async def two_games_and_a_review(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    await rt.recover()
    hosted = await finished_game(rt, clock, host=ME, others=(BOB,))
    joined = await finished_game(rt, clock, host=BOB, others=(ME,))
    mine = hosted.seat_of(ME)
    await rt.storage.save_review({"table_id": hosted.id, "seat": mine, "guild_id": GUILD, "user_id": ME,
                                  "game": "hearts", "review": json.dumps({"decisions": []}), "judged": 3,
                                  "loss": 1.5, "created_at": clock.now()})
    await rt.storage.save_review_progress(joined.id, joined.seat_of(ME), [(4, json.dumps({"step": 4}))])
    return rt, hosted, joined


async def test_the_export_holds_every_row_about_them_and_only_their_moves(make_runtime, clock, store):
    rt, hosted, joined = await two_games_and_a_review(make_runtime, clock, store)
    got = await rt.privacy.export(ME)
    json.dumps(got)  # a file: JSON all through
    assert got["user_id"] == str(ME)
    assert sorted(r["table_id"] for r in got["results"]) == sorted([hosted.id, joined.id])
    assert {r["game"] for r in got["ratings"]} == {"hearts"} and got["ratings"][0]["games"] == 2
    assert [r["decisions_judged"] for r in got["reviews"]] == [3]
    games = {g["table_id"]: g for g in got["games"]}
    assert set(games) == {hosted.id, joined.id}
    for t in (hosted, joined):
        seat = t.seat_of(ME)
        moves = games[t.id]["your_moves"]
        assert games[t.id]["your_seats"] == [seat]
        # Their own moves, every one of them, and nobody else's (others' passes are hidden cards).
        assert [m["number"] for m in moves] == [e.seq for e in t.log if e.seat == seat]
        assert {m["seat"] for m in moves} == {seat} and all(m["in_words"] for m in moves)
    # Bob's data is not theirs to take.
    assert all(r["table_id"] in games for r in got["results"])
    assert not any(str(BOB) == r.get("user_id") for r in got["results"])


async def test_forget_me_leaves_no_row_holding_their_id_and_the_games_still_replay(make_runtime, clock, store):
    rt, hosted, joined = await two_games_and_a_review(make_runtime, clock, store)
    await rt.servers.change(GUILD, ME, clock.now(), speed="blitz")  # a manager's change, logged with them
    assert holding(store, str(ME))  # the search finds them before
    bob_before = store.rows("SELECT table_id, place, score FROM results WHERE user_id = ? ORDER BY table_id", (BOB,))
    bob_rating = store.rows("SELECT mu, sigma, games FROM ratings WHERE user_id = ?", (BOB,))

    done = await rt.privacy.forget(ME)
    await clock.settle()

    assert not done.busy and sorted(done.tables) == sorted([hosted.id, joined.id])
    assert (done.results, done.ratings, done.reviews) == (2, 1, 1)
    assert holding(store, str(ME)) == []
    assert store.rows("SELECT COUNT(*) FROM review_progress") == [(0,)]
    # Where they finished stays, without them: the others' ratings would recompute the same.
    assert store.rows("SELECT COUNT(*) FROM former_results") == [(2,)]
    assert store.rows("SELECT table_id, place, score FROM results WHERE user_id = ? ORDER BY table_id",
                      (BOB,)) == bob_before
    assert store.rows("SELECT mu, sigma, games FROM ratings WHERE user_id = ?", (BOB,)) == bob_rating
    # Each game still replays, to the same end, with a former player in their seat.
    for t in (hosted, joined):
        record = await rt.persistence.record(t.id, GUILD)
        state, _ = record.replay()
        assert state.outcome() == t.state.outcome()
        assert record.names[t.seat_of(BOB)] == f"P{BOB}" and record.names.count("") == 1
        assert record.user_ids.count(None) == 1  # the former player
    # Their export is empty now.
    got = await rt.privacy.export(ME)
    assert (got["results"], got["ratings"], got["reviews"], got["games"]) == ([], [], [], [])


async def test_forget_me_waits_while_they_sit_at_a_table_being_played(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    await rt.recover()
    await finished_game(rt, clock, host=ME, others=(BOB,))
    t = await new_table(rt, host=BOB, name="Bob", guild_id=GUILD)
    await rt.join(t.id, ME, "Me")
    await clock.settle()
    before = everything(store)

    done = await rt.privacy.forget(ME)
    assert done.busy == [t.id] and not done.tables
    await clock.settle()
    assert everything(store) == before  # nothing changed, here or in the database

    # Another process holds the table: the database alone says they are still playing.
    other = make_runtime(storage=await store.open())
    done = await other.privacy.forget(ME)
    assert done.busy == [t.id]
    await clock.settle()
    assert everything(store) == before


async def test_a_server_that_removed_deckhand_loses_its_data_after_the_grace_period(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    await rt.recover()
    await finished_game(rt, clock, host=ME, others=(BOB,))
    kept = await finished_game(rt, clock, host=BOB, others=(ME,), guild=OTHER_GUILD)
    await rt.servers.set_locale(GUILD, "de", clock.now())
    await rt.servers.change(GUILD, BOB, clock.now(), leaderboard=False)

    await rt.privacy.server_left(GUILD)
    await clock.advance(GRACE - SWEEP_EVERY)  # a sweep a day: nothing goes before the grace period
    await clock.settle()
    assert store.rows("SELECT COUNT(*) FROM results WHERE guild_id = ?", (GUILD,)) == [(4,)]
    await clock.advance(2 * SWEEP_EVERY)
    await run_until(clock, lambda: not store.rows("SELECT * FROM departures"))

    for relation in ("tables", "results", "ratings", "season_boards", "servers", "ai_results",
                     "server_settings_log"):
        assert store.rows(f"SELECT COUNT(*) FROM {relation} WHERE guild_id = ?", (GUILD,)) == [(0,)], relation
    assert store.rows("SELECT COUNT(*) FROM actions WHERE table_id != ?", (kept.id,)) == [(0,)]
    # The other server keeps everything.
    assert store.rows("SELECT COUNT(*) FROM results WHERE guild_id = ?", (OTHER_GUILD,)) == [(4,)]
    assert store.rows("SELECT COUNT(*) FROM tables WHERE id = ?", (kept.id,)) == [(1,)]


async def test_a_server_that_adds_deckhand_back_keeps_its_data(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    await rt.recover()
    await finished_game(rt, clock, host=ME, others=(BOB,))
    await rt.privacy.server_left(GUILD)
    await clock.advance(SWEEP_EVERY)
    await rt.privacy.server_back(GUILD)
    await clock.advance(GRACE + 2 * SWEEP_EVERY)
    await clock.settle()
    assert store.rows("SELECT COUNT(*) FROM results WHERE guild_id = ?", (GUILD,)) == [(4,)]
    assert store.rows("SELECT COUNT(*) FROM departures") == [(0,)]


async def test_old_reviews_are_pruned_with_old_tables(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open(), retention=10 * 86400.0)
    await rt.recover()
    t = await finished_game(rt, clock, host=ME, others=(BOB,))
    await rt.storage.save_review({"table_id": t.id, "seat": 0, "guild_id": GUILD, "user_id": ME, "game": "hearts",
                                  "review": "{}", "judged": 1, "loss": 0.0, "created_at": clock.now()})
    await clock.advance(5 * 86400.0)
    await clock.settle()
    assert store.rows("SELECT COUNT(*) FROM reviews") == [(1,)]
    await clock.advance(6 * 86400.0)
    await run_until(clock, lambda: store.rows("SELECT COUNT(*) FROM reviews") == [(0,)], step=3600.0)
    assert store.rows("SELECT COUNT(*) FROM tables") == [(0,)]
    assert store.rows("SELECT COUNT(*) FROM results") == [(4,)]  # results stay for /stats


def test_a_seat_is_found_by_its_whole_id_only() -> None:
    seats = json.dumps([{"user_id": ME, "name": "Me", "is_ai": False, "hints": 2},
                        {"user_id": ME * 10, "name": "Longer", "is_ai": False},
                        {"user_id": None, "name": "AI", "is_ai": True}])
    text, which = seats_without(seats, ME) or ("", [])
    assert which == [0]
    got = json.loads(text)
    assert got[0] == {"user_id": None, "name": "", "is_ai": False, "former": True}
    assert got[1]["user_id"] == ME * 10 and got[1]["name"] == "Longer"
    assert seats_without(seats, 12345) is None
