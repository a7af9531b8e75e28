"""Results become stats: rows stored with the move that ends a game, per-game figures from the log,
and the /stats and /leaderboard commands reading them."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from cogs.table.stats import StatsCog
from engine.cards import card
from engine.core import Event
from games.hearts.figures import hearts_figures
from tables import Phase
from tables.history.stats import results_of, summarise
from tests.cogs.fakes import FakeBot, FakeInteraction, FakeUser, World

from .conftest import GUILD, HOST, new_table, run_until
from .stores import StoredClock

BOB, CARL, DAN = 200, 300, 400
ONE_HAND = {"target": 1}


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


async def finished_game(rt, clock, *, host=HOST, others=(BOB,), options=ONE_HAND, guild=GUILD, ranked=False):
    """A game the people leave at once (the AI finishes it for them)."""
    t = await new_table(rt, host=host, options=options, guild_id=guild, ranked=ranked)
    for user in others:
        await rt.join(t.id, user, f"P{user}")
    await rt.start(t.id, host)
    for user in (host, *others):
        await rt.leave(t.id, user)
    await run_until(clock, lambda: t.phase == Phase.FINISHED)
    return t


def test_hearts_figures_count_moons_and_the_queen():
    qs = card("QS")
    events = [
        Event("deal", None, (0, "left")),
        Event("trick", 2, (1, 13, card("2S"), qs, card("3S"), card("4S"))),
        Event("trick", 1, (2, 1, card("2H"), card("5S"), card("6S"), card("7S"))),
        Event("hand_end", None, (0, 26, 26, 26, 0, 0, 26, 26, 26)),
        Event("hand_end", None, (3, 13, 5, 5, -1, 3, 39, 31, 31)),
        Event("passed", 0, (1, qs, card("2C"), card("3C")), to=0),  # private: never counted
    ]
    assert hearts_figures(events, 4) == [
        {"moons": 1, "queens": 0, "hands": 2},
        {"moons": 0, "queens": 0, "hands": 2},
        {"moons": 0, "queens": 1, "hands": 2},
        {"moons": 0, "queens": 0, "hands": 2},
    ]


async def test_results_are_stored_with_the_last_move(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await finished_game(rt, clock)
    await clock.settle()
    outcome = t.state.outcome()
    stored = store.rows("SELECT seat, user_id, name, place, score, won, players, game, guild_id, finished_at, "
                        "figures FROM results WHERE table_id = ? ORDER BY seat", (t.id,))
    assert [r[:8] for r in stored] == [
        (s, t.seats[s].user_id, t.seats[s].name, outcome.places[s], outcome.scores[s], int(s in outcome.winners), 4,
         "hearts") for s in (0, 1)
    ]  # people only, never the AIs
    assert all(r[8] == GUILD and r[9] == t.finished_at for r in stored)
    expected = results_of(t, t.finished_at)
    assert [json.loads(r[10]) for r in stored] == [json.loads(e["figures"]) for e in expected]
    assert json.loads(stored[0][10])["hands"] == 1
    # The row and the results are one write: the table is finished in the same transaction.
    assert store.rows("SELECT phase FROM tables WHERE id = ?", (t.id,)) == [("finished",)]


async def test_a_game_ended_early_or_a_lobby_gives_no_results(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await new_table(rt)
    await rt.start(t.id, HOST)
    await rt.end(t.id, HOST)
    lobby = await new_table(rt, host=BOB)
    await rt.end(lobby.id, BOB)
    await clock.settle()
    assert store.rows("SELECT COUNT(*) FROM results") == [(0,)]


async def test_summaries_and_leaderboard(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    games = [await finished_game(rt, clock, others=(BOB, CARL)) for _ in range(3)]
    await finished_game(rt, clock, host=HOST, others=(), guild=GUILD + 1)  # another server
    await clock.settle()
    mine = summarise(await rt.storage.player_results(GUILD, HOST))
    [hearts] = mine
    places = [g.state.outcome().places[0] for g in games]
    assert hearts.game == "hearts" and hearts.games == 3
    assert hearts.wins == sum(1 for g in games if 0 in g.state.outcome().winners)
    assert hearts.average_place == pytest.approx(sum(places) / 3)
    assert hearts.best == min(g.state.outcome().scores[0] for g in games)
    assert hearts.figures["hands"] == 3
    board = await rt.storage.leaderboard(GUILD, "hearts")
    assert {r["user_id"] for r in board} == {HOST, BOB, CARL}
    assert [r["wins"] for r in board] == sorted((r["wins"] for r in board), reverse=True)
    assert all(r["games"] == 3 for r in board)
    assert await rt.storage.leaderboard(GUILD, "tricks") == []


# ==== the cog ======================================================================================
@pytest.fixture
async def world(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    w = World()
    w.runtime = rt
    bot = FakeBot(w)
    cog = StatsCog(rt)
    channel = w.channel("cards")
    return w, bot, cog, channel, rt


async def test_own_stats_are_ephemeral_and_others_public(world, clock):
    w, bot, cog, channel, rt = world
    await finished_game(rt, clock, host=HOST, others=(BOB,))
    ann, bob = FakeUser(HOST, "Ann"), FakeUser(BOB, "Bob")
    mine = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.stats.callback(cog, mine, None)
    msg = mine.last
    assert msg.ephemeral and "Ann" in msg.embed.title
    [field] = msg.embed.fields
    assert field.name == "Hearts" and "**1** game" in field.value and "average finish" in field.value
    theirs = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.stats.callback(cog, theirs, bob)
    assert not theirs.last.ephemeral and "Bob" in theirs.last.embed.title
    nobody = FakeInteraction(w, bot, FakeUser(999, "Zed"), channel, guild_id=GUILD)
    await cog.stats.callback(cog, nobody, None)
    assert "No finished games yet" in nobody.last.embed.description
    assert not w.violations


async def test_leaderboard_is_public(world, clock):
    w, bot, cog, channel, rt = world
    await finished_game(rt, clock, host=HOST, others=(BOB, CARL, DAN), ranked=True)  # people only: rated
    i = FakeInteraction(w, bot, FakeUser(HOST, "Ann"), channel, guild_id=GUILD)
    await cog.leaderboard.callback(cog, i, "hearts")
    msg = i.last
    assert not msg.ephemeral and msg.embed.title == "Hearts leaderboard — November 2023"  # (the clock's month)
    assert all(f"<@{u}>" in msg.embed.description for u in (HOST, BOB, CARL, DAN))
    empty = FakeInteraction(w, bot, FakeUser(HOST, "Ann"), channel, guild_id=GUILD)
    await cog.leaderboard.callback(cog, empty, "koth")
    assert "Nobody has played a ranked game of King of the Hill" in empty.last.embed.description


async def test_an_earlier_seasons_board_is_shown_with_season(world, clock):
    w, bot, cog, channel, rt = world
    await finished_game(rt, clock, host=HOST, others=(BOB, CARL, DAN), ranked=True)  # November 2023
    await finished_game(rt, clock, others=(BOB, CARL), ranked=False)  # casual: on no board
    await clock.advance(31 * 86400.0)  # December: a new season nobody has played in yet
    ann = FakeUser(HOST, "Ann")
    now = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.leaderboard.callback(cog, now, "hearts")
    assert now.last.embed.title == "Hearts leaderboard — December 2023"
    assert "Nobody has played a ranked game of Hearts in this server in December 2023." in now.last.embed.description
    pick = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    pick.namespace = SimpleNamespace(game="hearts")
    offered = await cog._seasons(pick, "nov")
    assert [(c.name, c.value) for c in offered] == [("November 2023", "2023-11")]
    then = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.leaderboard.callback(cog, then, "hearts", "2023-11")
    assert then.last.embed.title == "Hearts leaderboard — November 2023" and not then.last.ephemeral
    assert all(f"<@{u}>" in then.last.embed.description for u in (HOST, BOB, CARL, DAN))
    never = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.leaderboard.callback(cog, never, "hearts", "1999-01")
    assert never.last.ephemeral and "There is no such season of Hearts here" in never.last.content
    # /stats counts the ranked games they played to the end (everyone left this one: none).
    mine = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.stats.callback(cog, mine, None)
    assert "finished **0** of 1 ranked game" in mine.last.embed.fields[0].value


async def test_without_a_database_the_cog_says_so(make_runtime):
    rt = make_runtime()
    w = World()
    cog = StatsCog(rt)
    i = FakeInteraction(w, FakeBot(w), FakeUser(HOST, "Ann"), w.channel("cards"), guild_id=GUILD)
    await cog.stats.callback(cog, i, None)
    assert i.last.ephemeral and "DATABASE_URL" in i.last.content


async def test_own_results_everywhere_are_summed_over_every_place_and_shown_only_to_their_owner(world, clock):
    w, bot, cog, channel, rt = world
    await finished_game(rt, clock, host=HOST, others=(BOB,))
    await finished_game(rt, clock, host=HOST, others=(CARL,), guild=GUILD + 1)  # another server
    ann = FakeUser(HOST, "Ann")
    here = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.stats.callback(cog, here, None)
    assert "**1** game" in here.last.embed.fields[0].value
    everywhere = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.stats.callback(cog, everywhere, None, True)
    msg = everywhere.last
    assert msg.ephemeral and msg.embed.title == "Ann's results everywhere"
    assert "**2** games" in msg.embed.fields[0].value and "rating **" not in msg.embed.fields[0].value
    theirs = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.stats.callback(cog, theirs, FakeUser(BOB, "Bob"), True)
    assert theirs.last.ephemeral and "shown only to their owner" in theirs.last.content
    assert not w.violations


async def test_a_duplicate_rounds_results_count_only_once_its_last_table_has_finished(world, clock):
    import random

    from .test_tournaments import play_people

    w, bot, cog, channel, rt = world
    people = [4000 + i for i in range(8)]
    entry = await rt.tournaments.new(game="hearts", rounds=1, guild_id=GUILD, channel_id=channel.id,
                                     organiser=people[0], options=ONE_HAND, duplicate=True)
    for p in people[1:]:
        await rt.tournaments.join(entry.id, p)
    await rt.tournaments.start(entry.id, people[0])
    r = entry.t.played[0]
    first, second = r.table_ids
    await play_people(rt, clock, [first], random.Random(2))
    await run_until(clock, lambda: r.results[0] is not None)
    await clock.settle()
    done = next(p for p in r.tables[0] if p is not None)
    asker = FakeUser(next(p for p in r.tables[1] if p is not None), "Asker")

    async def shown() -> str:
        i = FakeInteraction(w, bot, asker, channel, guild_id=GUILD)
        await cog.stats.callback(cog, i, FakeUser(done, "Done"))
        return str(i.last.embed.description) + " ".join(f.value for f in i.last.embed.fields)

    # Stored already, but the other table still holds the same cards: nothing of it counts yet.
    assert await rt.storage.player_results(GUILD, done)
    assert "No finished games yet" in await shown()
    await play_people(rt, clock, [second], random.Random(3))
    await run_until(clock, lambda: entry.t.state == "finished")
    assert "**1** game" in await shown()
