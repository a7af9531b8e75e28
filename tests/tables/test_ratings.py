"""Ratings: openskill Plackett–Luce per server and game from finishing orders (ties shared), the AI
rated but never listed; the incremental updates equal a recomputation from the stored results;
games stored before ratings existed are backfilled; a game is rated once.  The storage tests run on
both backends (the ``store`` fixture)."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from engine.core import Outcome
from tables.history.ratings import AI_ID, Rating, Ratings, rate_game, recompute
from tables.storage import RESULT_COLUMNS

from .stores import Store

GUILD = 7


@pytest.fixture
async def storage(store: Store):
    s = await store.open()
    yield s
    await s.close()


def finished_table(tid: str, game: str, people: list[int | None], places: list[int], at: float) -> SimpleNamespace:
    """A finished table as the runtime holds it (seats with ``None`` are AIs)."""
    seats = [SimpleNamespace(user_id=u, is_ai=u is None, name=f"P{u}" if u else f"AI {i}")
             for i, u in enumerate(people)]
    outcome = Outcome(tuple(-p for p in places), tuple(places), tuple(i for i, p in enumerate(places) if p == 1))
    state = SimpleNamespace(is_over=True, outcome=lambda: outcome)
    return SimpleNamespace(id=tid, game=game, guild_id=GUILD, seats=seats, state=state, ended_early=False,
                           finished_at=at)


def store_results(store: Store, t: SimpleNamespace) -> None:
    """The ``results`` rows the runtime writes when a game ends (people only)."""
    rows = []
    for seat, s in enumerate(t.seats):
        if s.is_ai:
            continue
        place = t.state.outcome().places[seat]
        rows.append({"table_id": t.id, "seat": seat, "guild_id": GUILD, "game": t.game, "user_id": s.user_id,
                     "name": s.name, "players": len(t.seats), "place": place, "score": 0, "won": int(place == 1),
                     "figures": "{}", "finished_at": t.finished_at})
    # The columns every schema since results has (hints, from migration 6, default to none).
    cols = [c for c in RESULT_COLUMNS if c != "hints"]
    for r in rows:
        store.execute(f"INSERT INTO results ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                      [r[c] for c in cols])


def random_games(n: int, seed: int = 1) -> list[SimpleNamespace]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        game = rng.choice(["hearts", "dalmuti"])
        size = 4 if game == "hearts" else rng.randint(4, 8)
        people: list[int | None] = rng.sample(range(101, 110), rng.randint(1, size))
        people += [None] * (size - len(people))
        rng.shuffle(people)
        places = [rng.randint(1, size) for _ in range(size)]  # ties included
        out.append(finished_table(f"T{i:04d}", game, people, places, 1000.0 + i))
    return out


def stored_ratings(store: Store) -> dict[tuple[int, str, int], tuple[float, float, int]]:
    return {(g, game, u): (mu, sigma, n) for g, game, u, mu, sigma, n in
            store.rows("SELECT guild_id, game, user_id, mu, sigma, games FROM ratings")}


def test_winner_gains_loser_loses_and_shared_places_are_ties() -> None:
    new = rate_game({}, [(1, 1), (2, 2), (3, 2), (4, 4)])
    assert new[1].mu > 25 > new[4].mu and all(r.games == 1 for r in new.values())
    assert new[2].mu == pytest.approx(new[3].mu) and new[2].sigma == pytest.approx(new[3].sigma)
    assert all(r.sigma < Rating().sigma for r in new.values())
    # The AI in two seats is one player: one game, the average of its two seats.
    both = rate_game({}, [(AI_ID, 1), (5, 2), (AI_ID, 3)])
    assert both[AI_ID].games == 1 and set(both) == {AI_ID, 5}


async def test_incremental_updates_equal_a_recomputation(storage, store: Store) -> None:
    ratings = Ratings(storage)
    changes = {}
    for t in random_games(60):
        store_results(store, t)  # the runtime stores the results first, then the summary rates
        changes[t.id] = await ratings.rate_table(t)
    incremental = stored_ratings(store)
    assert incremental and any(u == AI_ID for _, _, u in incremental)
    # A recomputation from what is stored gives exactly the same numbers…
    again = recompute(await storage.rating_inputs())
    assert {k: (r.mu, r.sigma, r.games) for k, r in again.items()} == incremental
    # …and so does rebuilding the table from scratch.
    assert await ratings.rebuild() == 60
    assert stored_ratings(store) == incremental
    # Each change reported is a person's before → after.
    some = next(c for c in changes.values() if c)
    assert all(c.user_id != AI_ID and c.before.games + 1 == c.after.games for c in some)


async def test_a_game_is_rated_once(storage, store: Store) -> None:
    ratings = Ratings(storage)
    t = finished_table("ONCE01", "hearts", [101, 102, None, None], [1, 2, 3, 4], 5.0)
    store_results(store, t)
    first = await ratings.rate_table(t)
    before = stored_ratings(store)
    assert [c.user_id for c in first] == [101, 102] and first[0].after.mu > first[1].after.mu
    assert await ratings.rate_table(t) == [] and stored_ratings(store) == before


async def test_the_ai_is_rated_but_never_listed(storage, store: Store) -> None:
    ratings = Ratings(storage)
    for i in range(3):  # the AI wins every time
        t = finished_table(f"AI{i:04d}", "hearts", [None, 101, 102, None], [1, 3, 4, 2], 10.0 + i)
        store_results(store, t)
        await ratings.rate_table(t)
    board = await storage.rating_board(GUILD, "hearts")
    assert [r["user_id"] for r in board] == [101, 102]
    assert board[0]["name"] == "P101" and board[0]["games"] == 3
    assert board[0]["conservative"] == pytest.approx(board[0]["mu"] - 3 * board[0]["sigma"])
    assert stored_ratings(store)[(GUILD, "hearts", AI_ID)][0] > board[0]["mu"]


async def test_results_stored_before_ratings_are_backfilled(store: Store) -> None:
    old = await store.open(upto=3)  # results, no ratings yet
    games = random_games(20, seed=5)
    for t in games:
        store_results(store, t)
    await old.close()
    storage = await store.open()  # migration 4
    try:
        assert await storage.unrated_results() == 20
        await Ratings(storage).ensure()
        assert await storage.unrated_results() == 0
        backfilled = stored_ratings(store)
        # The old games' people are rated (their AIs' places were never stored).
        people = {s.user_id for t in games for s in t.seats if not s.is_ai}
        assert {u for _, _, u in backfilled} == people
        # A new game then carries on from the backfilled ratings.
        t = finished_table("NEW001", "hearts", [101, 102, 103, 104], [1, 2, 3, 4], 9999.0)
        store_results(store, t)
        [c1, *_] = await Ratings(storage).rate_table(t)
        key = (GUILD, "hearts", 101)
        if key in backfilled:
            assert c1.before.mu == backfilled[key][0]
    finally:
        await storage.close()
