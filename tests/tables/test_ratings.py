"""Ratings: openskill Plackett–Luce per server and game from the finishing orders of ranked games
between people (ties shared; an absent person finishes last); the incremental updates equal a
recomputation from the stored results, season boards included; games stored before ratings existed
(the AI's seats rated then, never listed) are backfilled; a game is rated once; a new season widens
every rating that enters it and keeps the last one's final board.  The storage tests run on both
backends (the ``store`` fixture)."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from engine.core import Outcome
from tables.history.ratings import AI_ID, SIGMA, Rating, Ratings, carried, rate_game, recompute
from tables.nights.seasons import widened
from tables.storage import RESULT_COLUMNS
from tables.table import LogEntry

from .stores import Store

GUILD = 7


def at(year: int, month: int, day: int = 10) -> float:
    return datetime(year, month, day, 12, tzinfo=UTC).timestamp()


@pytest.fixture
async def storage(store: Store):
    s = await store.open()
    yield s
    await s.close()


def finished_table(tid: str, game: str, people: list[int | None], places: list[int], when: float, *,
                   ranked: bool = True, left: tuple[int, ...] = (), auto: dict[int, tuple[int, int]] | None = None
                   ) -> SimpleNamespace:
    """A finished table as the runtime holds it (seats with ``None`` are AIs; ``left``: seats whose
    person left; ``auto``: seat → (moves by the AI, moves by the person))."""
    seats = [SimpleNamespace(user_id=u, is_ai=u is None, name=f"P{u}" if u else f"AI {i}", left=i in left)
             for i, u in enumerate(people)]
    outcome = Outcome(tuple(-p for p in places), tuple(places), tuple(i for i, p in enumerate(places) if p == 1))
    state = SimpleNamespace(is_over=True, outcome=lambda: outcome)
    log = [LogEntry(n, seat, "x", 0.0, auto=i < by_ai) for seat, (by_ai, by_them) in (auto or {}).items()
           for i, n in enumerate(range(by_ai + by_them))]
    return SimpleNamespace(id=tid, game=game, guild_id=GUILD, seats=seats, state=state, ended_early=False,
                           finished_at=when, ranked=ranked, log=log,
                           rated=ranked and not any(s.is_ai for s in seats))


def store_results(store: Store, t: SimpleNamespace, *, legacy: bool = False) -> None:
    """The ``results`` rows the runtime writes when a game ends (people only; ``legacy``: the columns
    of a schema from before hints and ranked games)."""
    from tables.history.stats import absent

    rows = []
    for seat, s in enumerate(t.seats):
        if s.is_ai:
            continue
        place = t.state.outcome().places[seat]
        rows.append({"table_id": t.id, "seat": seat, "guild_id": GUILD, "game": t.game, "user_id": s.user_id,
                     "name": s.name, "players": len(t.seats), "place": place, "score": 0, "won": int(place == 1),
                     "figures": "{}", "finished_at": t.finished_at, "hints": 0, "ranked": int(t.rated),
                     "absent": int(absent(t, seat))})
    cols = [c for c in RESULT_COLUMNS if not legacy or c not in ("hints", "ranked", "absent")]
    for r in rows:
        store.execute(f"INSERT INTO results ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                      [r[c] for c in cols])


def random_games(n: int, seed: int = 1, *, ais: bool = False, start: float = 1000.0, step: float = 1.0
                 ) -> list[SimpleNamespace]:
    """``n`` finished games, ties included; people only and some of them absent (``ais``: with AI
    seats, as every game was rated before ranked tables)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        game = rng.choice(["hearts", "dalmuti"])
        size = 4 if game == "hearts" else rng.randint(4, 8)
        people: list[int | None] = rng.sample(range(101, 113), rng.randint(1, size) if ais else size)
        people += [None] * (size - len(people))
        rng.shuffle(people)
        places = [rng.randint(1, size) for _ in range(size)]
        left = tuple(s for s in range(size) if people[s] is not None and rng.random() < 0.1)
        auto = {s: (rng.randint(0, 5), rng.randint(0, 5)) for s in range(size) if people[s] is not None}
        out.append(finished_table(f"T{i:04d}", game, people, places, start + i * step, left=left, auto=auto))
    return out


def stored_ratings(store: Store) -> dict[tuple[int, str, int], tuple[float, float, int, str, int]]:
    return {(g, game, u): (mu, sigma, n, season, sn) for g, game, u, mu, sigma, n, season, sn in
            store.rows("SELECT guild_id, game, user_id, mu, sigma, games, season, season_games FROM ratings")}


def stored_boards(store: Store) -> dict[tuple[int, str, str, int], tuple[float, float, int]]:
    return {(g, game, season, u): (mu, sigma, n) for g, game, season, u, mu, sigma, n in
            store.rows("SELECT guild_id, game, season, user_id, mu, sigma, games FROM season_boards")}


def test_winner_gains_loser_loses_and_shared_places_are_ties() -> None:
    new = rate_game({}, [(1, 1), (2, 2), (3, 2), (4, 4)])
    assert new[1].mu > 25 > new[4].mu and all(r.games == 1 for r in new.values())
    assert new[2].mu == pytest.approx(new[3].mu) and new[2].sigma == pytest.approx(new[3].sigma)
    assert all(r.sigma < Rating().sigma for r in new.values())
    # The AI in two seats is one player: one game, the average of its two seats.
    both = rate_game({}, [(AI_ID, 1), (5, 2), (AI_ID, 3)])
    assert both[AI_ID].games == 1 and set(both) == {AI_ID, 5}


def test_a_new_season_widens_a_rating_once_and_never_past_a_newcomers() -> None:
    settled = Rating(30.0, 2.0, 40, "2026-10", 12)
    entering = carried(settled, "2026-11")
    assert entering.mu == 30.0 and entering.sigma == pytest.approx(widened(2.0, SIGMA))
    assert 2.0 < entering.sigma < SIGMA
    assert entering.games == 40 and (entering.season, entering.season_games) == ("2026-11", 0)
    assert carried(entering, "2026-11") is entering  # within a season: as it is
    assert carried(Rating(25.0, SIGMA, 3, "2026-10", 3), "2026-11").sigma == SIGMA
    after = rate_game({1: settled}, [(1, 1), (2, 2)], "2026-11")[1]
    assert (after.games, after.season, after.season_games) == (41, "2026-11", 1)


async def test_incremental_updates_equal_a_recomputation(storage, store: Store) -> None:
    ratings = Ratings(storage)  # monthly seasons: the games span three months
    changes = {}
    for t in random_games(60, start=at(2026, 9, 20), step=86400.0):
        store_results(store, t)  # the runtime stores the results first, then the summary rates
        changes[t.id] = await ratings.rate_table(t)
    incremental, boards = stored_ratings(store), stored_boards(store)
    assert {r[3] for r in incremental.values()} == {"2026-11"}
    assert {k[2] for k in boards} == {"2026-09", "2026-10"}
    # A recomputation from what is stored gives exactly the same numbers…
    again, kept = recompute(await storage.rating_inputs())
    assert {k: (r.mu, r.sigma, r.games, r.season, r.season_games) for k, r in again.items()} == incremental
    assert {(*k, u): (r.mu, r.sigma, r.season_games) for k, b in kept.items() for u, r in b.items()} == boards
    # …and so does rebuilding both from scratch.
    assert await ratings.rebuild() == 60
    assert stored_ratings(store) == incremental and stored_boards(store) == boards
    # Each change reported is a person's before → after.
    some = next(c for c in changes.values() if c)
    assert all(c.before.games + 1 == c.after.games for c in some)


async def test_a_game_is_rated_once(storage, store: Store) -> None:
    ratings = Ratings(storage)
    t = finished_table("ONCE01", "hearts", [101, 102, 103, 104], [1, 2, 3, 4], 5.0)
    store_results(store, t)
    first = await ratings.rate_table(t)
    before = stored_ratings(store)
    assert [c.user_id for c in first] == [101, 102, 103, 104] and first[0].after.mu > first[1].after.mu
    assert await ratings.rate_table(t) == [] and stored_ratings(store) == before


async def test_casual_games_and_games_with_an_ai_seat_change_no_rating(storage, store: Store) -> None:
    ratings = Ratings(storage)
    casual = finished_table("CAS001", "hearts", [101, 102, 103, 104], [1, 2, 3, 4], 5.0, ranked=False)
    with_ai = finished_table("AIS001", "hearts", [101, 102, None, 104], [1, 2, 3, 4], 6.0)
    for t in (casual, with_ai):
        store_results(store, t)
        assert await ratings.rate_table(t) == []
    assert stored_ratings(store) == {}
    assert await storage.unrated_results() == 0  # nothing to backfill either
    assert await ratings.rebuild() == 0 and stored_ratings(store) == {}


async def test_someone_absent_from_a_ranked_game_loses_it(storage, store: Store) -> None:
    ratings = Ratings(storage)
    # 101 "won" with the AI playing 3 of their 5 moves; 102 left and the AI won seat 2's hand for them.
    t = finished_table("ABS001", "hearts", [101, 102, 103, 104], [1, 2, 3, 4], 5.0, left=(1,),
                       auto={0: (3, 2), 2: (2, 3)})
    store_results(store, t)
    after = {c.user_id: c.after.mu for c in await ratings.rate_table(t)}
    assert after[103] > after[104] > 25 > after[101] == pytest.approx(after[102])
    places = dict(store.rows("SELECT user_id, absent FROM results WHERE table_id = 'ABS001'"))
    assert places == {101: 1, 102: 1, 103: 0, 104: 0}


async def test_a_new_seasons_first_game_keeps_the_last_seasons_board(storage, store: Store) -> None:
    clock = [at(2026, 11, 20)]
    ratings = Ratings(storage, now=lambda: clock[0])
    nov = finished_table("NOV001", "hearts", [101, 102, 103, 104], [1, 2, 3, 4], at(2026, 11, 5))
    store_results(store, nov)
    await ratings.rate_table(nov)
    board = await ratings.board(GUILD, "hearts")
    assert [r["user_id"] for r in board] == [101, 102, 103, 104] and board[0]["name"] == "P101"
    assert board[0]["games"] == 1 and board[0]["conservative"] == pytest.approx(board[0]["mu"] - 3 * board[0]["sigma"])
    clock[0] = at(2026, 12, 2)  # a new season, nobody has played yet: an empty board, November's still there
    assert await ratings.board(GUILD, "hearts") == []
    assert [r["user_id"] for r in await ratings.board(GUILD, "hearts", "2026-11")] == [101, 102, 103, 104]
    dec = finished_table("DEC001", "hearts", [104, 103, 105, 106], [1, 2, 3, 4], at(2026, 12, 3))
    store_results(store, dec)
    [c103, c104, *_] = await ratings.rate_table(dec)  # (in id order)
    # November's final board is kept as it stood, 104 and 103 included…
    final = await ratings.board(GUILD, "hearts", "2026-11")
    assert [(r["user_id"], r["games"]) for r in final] == [(101, 1), (102, 1), (103, 1), (104, 1)]
    assert stored_boards(store)[(GUILD, "hearts", "2026-11", 104)][:2] == (c104.before.mu, c104.before.sigma)
    # …and December's lists only who played in December, their ratings carried over (wider).
    december = {r["user_id"]: r for r in await ratings.board(GUILD, "hearts")}
    assert set(december) == {103, 104, 105, 106} and all(r["games"] == 1 for r in december.values())
    assert c103.after.games == 2 and c103.before.season == "2026-11" and c103.after.season == "2026-12"
    assert await ratings.seasons(GUILD, "hearts") == ["2026-12", "2026-11"]


async def test_results_stored_before_ratings_are_backfilled(store: Store) -> None:
    old = await store.open(upto=3)  # results, no ratings yet
    games = random_games(20, seed=5, ais=True)
    for t in games:
        store_results(store, t, legacy=True)
    await old.close()
    storage = await store.open()  # every migration since: those games count as ranked
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


def test_the_summary_marks_someone_absent_from_a_ranked_game() -> None:
    from cogs.table.endgame import change_lines
    from tables.history.ratings import Change

    t = finished_table("MARK01", "hearts", [101, 102, 103, 104], [1, 2, 3, 4], 5.0, left=(1,),
                       auto={0: (1, 4)})
    t.locale = "en"
    changes = [Change(u, Rating(), Rating(26.0 if u != 102 else 24.0)) for u in (101, 102, 103, 104)]
    lines = change_lines(t, changes)
    assert len(lines) == 4 and lines[0].startswith("P101 25.0 → **26.0** (+1.0)")
    marked = [line for line in lines if "counted as a loss" in line]
    assert marked == ["P102 25.0 → **24.0** (-1.0) · counted as a loss: left, or the AI played most of it"]
