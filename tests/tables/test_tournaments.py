"""A tournament at a runtime (tables/tournaments.py): sign-ups, each round's tables opened with the
round's people in order and AIs in the short seats, every finished table scored by the rule
(tables/nights/swiss.py), the next round seated by the standings, someone who leaves a table scored
as absent, and a restart mid-round resuming where it stood (on both storage backends)."""

from __future__ import annotations

import asyncio
import random

import pytest

from tables import Phase
from tables.history.stats import game_events
from tables.live import TableError
from tables.nights.swiss import table_points
from tables.tournaments import Entry

from .conftest import CHANNEL, GUILD, run_until

PEOPLE = [1000 + i for i in range(6)]
ONE_HAND = {"target": 1}


async def play_people(rt, clock, table_ids, rng, leaver: int | None = None) -> None:
    """The people at ``table_ids`` play random legal moves until every game is over (``leaver``
    leaves their table at once: the AI finishes for them)."""
    if leaver is not None:
        for tid in table_ids:
            if rt.tables[tid].seat_of(leaver) is not None:
                await rt.leave(tid, leaver)
    for _ in range(5000):
        tables = [rt.tables[t] for t in table_ids if t in rt.tables]
        if all(t.phase == Phase.FINISHED for t in tables):
            return
        moved = False
        for t in tables:
            if t.phase != Phase.RUNNING or t.state is None:
                continue
            for seat in t.state.to_act():
                s = t.seats[seat]
                if s.is_ai or s.away or s.user_id is None:
                    continue
                legal = t.state.legal_actions(seat)
                if legal:
                    try:
                        await rt.act(t.id, s.user_id, rng.choice(legal))
                        moved = True
                    except TableError:
                        pass
        if not moved:
            await clock.advance(1.0)
    raise AssertionError("the games never ended")


async def test_a_tournament_plays_its_rounds_scores_each_table_and_survives_a_restart(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    await rt.recover()
    entry = await rt.tournaments.new(game="hearts", rounds=2, guild_id=GUILD, channel_id=CHANNEL,
                                     organiser=PEOPLE[0], options=ONE_HAND)
    for p in PEOPLE[1:]:
        await rt.tournaments.join(entry.id, p)
    with pytest.raises(TableError, match="signed up already"):
        await rt.tournaments.join(entry.id, PEOPLE[1])
    with pytest.raises(TableError, match="Only the organiser"):
        await rt.tournaments.start(entry.id, PEOPLE[1])
    await rt.tournaments.start(entry.id, PEOPLE[0])
    first = entry.t.played[0]
    # Six people at tables of four: two tables of three people, an AI in each short seat.
    assert sorted(len([p for p in t if p is not None]) for t in first.tables) == [3, 3]
    assert all(tid in rt.tables and rt.tables[tid].phase == Phase.RUNNING for tid in first.table_ids)
    for people, tid in zip(first.tables, first.table_ids, strict=True):
        t = rt.tables[tid]
        seated = [t.seats[s].user_id if not t.seats[s].is_ai else None for s in entry.seats[tid]]
        assert seated == people  # each of the round's places is the seat the tournament says

    await play_people(rt, clock, list(first.table_ids), random.Random(3), leaver=PEOPLE[5])
    await run_until(clock, lambda: entry.t.round_no == 2 and all(entry.t.played[1].table_ids))
    # Each table scored by the rule: a point per seat finished ahead of, the leaver nothing.
    for tid, res in zip(first.table_ids, first.results, strict=True):
        t = rt.tables.get(tid) or await rt._stored_table(tid)
        places = [t.state.outcome().places[s] for s in entry.seats[tid]]
        assert [s.place for s in res] == places
        got = table_points(res)
        for s in res:
            if s.player == PEOPLE[5]:
                assert not s.present and got[s.player] == 0.0
            elif s.player is not None:
                assert s.present and got[s.player] == sum(1.0 if s.place < o.place else 0.5 if s.place == o.place
                                                          else 0.0 for o in res if o is not s)
    second = entry.t.played[1]
    assert all(tid is not None and tid not in first.table_ids for tid in second.table_ids), (second, first)

    # A restart mid-round: a new process on the same database picks the tournament up.
    await clock.settle()
    await rt.close()
    again = make_runtime(storage=await store.open())
    await again.recover()
    back = again.tournaments.get(entry.id)
    assert back.t.round_no == 2 and back.t.played[1].table_ids == second.table_ids
    # A shard gained later recovers again (cogs/ops/shards.py): what runs here already is left as it is.
    await again.recover()
    assert again.tournaments.get(entry.id) is back
    await play_people(again, clock, list(second.table_ids), random.Random(4))
    await run_until(clock, lambda: back.t.state == "finished")
    standings = back.t.standings()
    assert {s.player for s in standings} == set(PEOPLE)
    assert [s.points for s in standings] == sorted((s.points for s in standings), reverse=True)
    stored = store.rows("SELECT finished FROM tournaments WHERE id = ?", (entry.id,))
    assert stored == [(1,)]


async def test_a_tournament_is_in_its_players_export_and_forget_me_waits_for_it_then_forgets_them(
        make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    await rt.recover()
    me, other = 812345678901234567, 200
    entry = await rt.tournaments.new(game="hearts", rounds=1, guild_id=GUILD, channel_id=CHANNEL, organiser=other,
                                     name="Bob", options=ONE_HAND)
    await rt.tournaments.join(entry.id, me, "Me")
    await rt.tournaments.start(entry.id, other)
    assert (await rt.privacy.forget(me)).busy  # their table and their tournament are under way
    [tid] = entry.t.played[0].table_ids
    for user in (me, other):
        await rt.leave(tid, user)
    await run_until(clock, lambda: entry.t.state == "finished")
    [mine] = (await rt.privacy.export(me))["tournaments"]
    assert mine["tournament_id"] == entry.id and mine["your_name"] == "Me" and mine["your_standing"]["place"] >= 1
    await run_until(clock, lambda: not rt.privacy.playing(me))
    for _ in range(60):  # the table's end is shown and stored: forget me may go on
        done = await rt.privacy.forget(me)
        if not done.busy:
            break
        await clock.advance(1.0)
    assert not done.busy
    [(data,)] = store.rows("SELECT data FROM tournaments WHERE id = ?", (entry.id,))
    assert str(me) not in data and "Me" not in data and str(other) in data
    assert (await rt.privacy.export(me))["tournaments"] == []


async def test_a_duplicate_round_deals_every_table_the_same_cards_and_scores_against_the_field(
        make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    await rt.recover()
    people = [2000 + i for i in range(8)]
    with pytest.raises(TableError, match="cannot be played with duplicate deals"):
        await rt.tournaments.new(game="dalmuti", rounds=1, guild_id=GUILD, channel_id=CHANNEL,
                                 organiser=people[0], duplicate=True)
    entry = await rt.tournaments.new(game="hearts", rounds=1, guild_id=GUILD, channel_id=CHANNEL,
                                     organiser=people[0], options={"target": 30}, duplicate=True)
    for p in people[1:]:
        await rt.tournaments.join(entry.id, p)
    await rt.tournaments.start(entry.id, people[0])
    r = entry.t.played[0]
    a, b = (rt.tables[tid] for tid in r.table_ids)
    # The same cards, seat by seat, at both tables (and a deal nobody could have guessed).
    assert a.seed == b.seed
    assert [a.state.view(s)["hand"] for s in range(4)] == [b.state.view(s)["hand"] for s in range(4)]
    a_person = next(p for p in r.tables[0] if p is not None)
    b_person = next(p for p in r.tables[1] if p is not None)
    assert rt.tournaments.withheld(b.id, a_person) and rt.tournaments.withheld(a.id, b_person)
    assert not rt.tournaments.withheld(a.id, a_person) and not rt.tournaments.withheld(a.id, 99)

    await play_people(rt, clock, [a.id], random.Random(5))
    await run_until(clock, lambda: r.results[0] is not None)
    # One table done, the other still playing the same cards: nothing of its result shows yet,
    # /stats included.
    assert b.phase == Phase.RUNNING
    assert entry.t.shown_results(r) == [None, None]
    assert all(s.points == 0 for s in entry.t.standings())
    assert rt.tournaments.withheld_tables() == {a.id, b.id}

    await play_people(rt, clock, [b.id], random.Random(6))
    await run_until(clock, lambda: entry.t.state == "finished")
    assert not rt.tournaments.withheld(b.id, a_person) and rt.tournaments.withheld_tables() == set()
    # Against the field, by hand: on every hand both tables finished, each seat's points against
    # the other table's same seat (lowest wins: fewer points is better).
    hands = []
    for tid in r.table_ids:
        t = rt.tables.get(tid) or await rt._stored_table(tid)
        ends = [e.data for e in _public_events(t) if e.kind == "hand_end"]
        hands.append([list(d[:4]) for d in ends])
    both = min(len(hands[0]), len(hands[1]))
    assert both >= 1
    want: dict[int, float] = {}
    for n, (tid, seated) in enumerate(zip(r.table_ids, r.tables, strict=True)):
        for place, person in enumerate(seated):
            if person is None:
                continue
            seat = entry.seats[tid][place]
            want[person] = sum(hands[1 - n][k][seat] - hands[n][k][seat] for k in range(both))
    got = {s.player: s.points for s in entry.t.standings()}
    assert got == pytest.approx(want) and any(v != 0 for v in want.values())
    # Kept across a restart: the stored tournament reads back with its boards (once stored).
    await run_until(clock, lambda: store.rows("SELECT finished FROM tournaments WHERE id = ?", (entry.id,)) == [(1,)])
    [(data,)] = store.rows("SELECT data FROM tournaments WHERE id = ?", (entry.id,))
    back = Entry.from_row({"data": data, "guild_id": GUILD, "channel_id": CHANNEL})
    assert {s.player: s.points for s in back.t.standings()} == pytest.approx(want)


def _public_events(t):
    return [e for e in game_events(t) if e.to is None]


async def test_one_group_playing_duplicate_is_scored_against_the_strong_ais_par(make_runtime, clock, store):
    from tables.ai.pool import AIPool
    from tables.par import par_in_worker

    pool = AIPool(workers=1, budget=30.0, grace=30.0)
    try:
        rt = make_runtime(storage=await store.open(), ai_pool=pool)
        await rt.recover()
        rt.tournaments.par_playouts = 20  # (a quick strong AI: the test checks the arithmetic)
        people = [3000 + i for i in range(4)]
        entry = await rt.tournaments.new(game="hearts", rounds=1, guild_id=GUILD, channel_id=CHANNEL,
                                         organiser=people[0], options=ONE_HAND, duplicate=True)
        for p in people[1:]:
            await rt.tournaments.join(entry.id, p)
        await rt.tournaments.start(entry.id, people[0])
        assert entry.t.against_par
        [tid] = entry.t.played[0].table_ids
        await play_people(rt, clock, [tid], random.Random(8))
        for _ in range(600):  # the par is replayed in the pool's worker, on the wall clock
            if entry.t.state == "finished":
                break
            await asyncio.sleep(0.1)
        assert entry.t.state == "finished"
        [b] = entry.t.played[0].boards
        assert b is not None and b.par is not None and len(b.hands) == 1 and b.par[0] is not None
        t = rt.tables.get(tid) or await rt._stored_table(tid)
        # The par is the strong AI's replay of the same hand from the same start, seat by seat.
        again = par_in_worker("hearts", 4, dict(t.options), t.seed, [[e.seat, e.code] for e in t.log], 0,
                              f"{t.seed}/par/0", 20)
        assert again == b.par[0] and sum(again) in (26, 78, -26)  # every point of the hand went somewhere
        # Against par, by hand: par less one's own points on the hand (fewer is better).
        want = {entry.t.played[0].tables[0][place]: b.par[0][seat] - b.hands[0][seat]
                for seat, place in enumerate(b.holders)}
        assert {s.player: s.points for s in entry.t.standings()} == pytest.approx(want)
    finally:
        await pool.close()
