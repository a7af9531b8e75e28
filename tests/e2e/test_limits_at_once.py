"""Issue 29 item 13 through the real bot and the fake Discord: every limit on opening and joining
tables holds when the requests come at once — one table per person per server, three tables per
person, a seat at one table per server, the server's running games.  The runtime takes each limit
before its first wait (the lobby's insert into the database), so requests sent together are judged
one after the other; the ones past a limit get their sentence and nothing opens for them."""

from __future__ import annotations

import asyncio

from tests.e2e.conftest import World, make_world
from tests.fakediscord.play import open_table, table_id_of
from tests.fakediscord.users import Reply

AT_ONCE = 10
ELSEWHERE = "You are already seated at table"
TOO_MANY = "unfinished tables"


def opened(replies: list[Reply]) -> list[str]:
    """The lobbies these answers posted (each a public message with its table id)."""
    return [table_id_of(r.message) for r in replies
            if not r.failed and not r.ephemeral and r.message is not None and "Join" in str(r.message.buttons())]


def refused(replies: list[Reply], sentence: str) -> list[Reply]:
    return [r for r in replies if not r.failed and r.ephemeral and sentence in r.text]


async def test_ten_new_tables_at_once_in_one_server_open_one(w: World) -> None:
    replies = list(await asyncio.gather(*(w.ali.slash("game new", game="hearts") for _ in range(AT_ONCE))))
    lobbies = opened(replies)
    assert len(lobbies) == 1, [r.text for r in replies]
    assert len(refused(replies, ELSEWHERE)) == AT_ONCE - 1, [r.text for r in replies]
    assert [t.id for t in w.runtime.list(w.fd.guild_id)] == lobbies


async def test_ten_new_tables_at_once_in_ten_servers_open_three() -> None:
    async with make_world() as w:
        rooms = [w.fd.channel] + [w.fd.add_channel("cards", guild=w.fd.add_guild(f"Server {n}"))
                                  for n in range(AT_ONCE - 1)]
        replies = list(await asyncio.gather(*(w.ali.slash("game new", game="hearts", where=room) for room in rooms)))
        cap = w.runtime.limits.tables_per_person
        assert cap == 3 and len(opened(replies)) == cap, [r.text for r in replies]
        assert len(refused(replies, TOO_MANY)) == AT_ONCE - cap, [r.text for r in replies]
        hosted = [t for t in w.runtime.tables.values() if t.host_id == w.ali.id]
        assert len(hosted) == cap and len({t.guild_id for t in hosted}) == cap


async def test_a_new_table_and_a_join_at_once_seat_a_person_once(w: World) -> None:
    # Bob's lobby is open; Ali opens her own and presses Join on Bob's at the same moment.
    bobs = await w.bob.slash("game new", game="hearts")
    assert bobs.message is not None and not bobs.ephemeral, bobs.text
    new, join = await asyncio.gather(w.ali.slash("game new", game="hearts"), w.ali.click(bobs.message, "Join"))
    seated = [t.id for t in w.runtime.list(w.fd.guild_id) if t.seat_of(w.ali.id) is not None]
    assert len(seated) == 1, (new.text, join.text)
    assert ELSEWHERE in (join.text if opened([new]) else new.text), (new.text, join.text)


async def test_joining_two_lobbies_at_once_seats_a_person_once(w: World) -> None:
    lobbies = [await p.slash("game new", game="hearts") for p in (w.bob, w.stranger)]
    joins = await asyncio.gather(*(w.ali.click(lobby.message, "Join") for lobby in lobbies))
    assert sum("You joined table" in r.text for r in joins) == 1, [r.text for r in joins]
    assert len(refused(list(joins), ELSEWHERE)) == 1
    assert sum(t.seat_of(w.ali.id) is not None for t in w.runtime.list(w.fd.guild_id)) == 1


async def test_play_again_and_a_new_table_at_once_open_one() -> None:
    async with make_world() as w:
        table_message = await open_table(w.ali, [w.bob], options="target=1")
        ended = await w.ali.slash("game end", id=table_id_of(table_message))
        assert "has ended" in ended.text, ended.text
        await w.until(lambda: "Play again" in str(table_message.buttons()), 10.0, "Play again on the finished table")
        again, new = await asyncio.gather(w.ali.click(table_message, "Play again"),
                                          w.ali.slash("game new", game="hearts"))
        assert len(opened([again, new])) == 1, (again.text, new.text)
        assert ELSEWHERE in (new.text if opened([again]) else again.text), (again.text, new.text)
        assert len([t for t in w.runtime.list(w.fd.guild_id) if t.host_id == w.ali.id]) == 1


async def test_starting_games_at_once_keeps_the_servers_cap() -> None:
    # (Start checks the cap and marks its table running with no wait in between: this held already.)
    async with make_world(runtime_options={"limits": {"running_per_server": 2}}) as w:
        hosts = [w.ali, w.bob, w.stranger, w.fd.add_member("Cy")]
        for n, h in enumerate(hosts):  # a channel each (the privacy check reads a channel's tables together)
            h.where = w.fd.add_channel(f"cards-{n}")
        lobbies = [await h.slash("game new", game="hearts") for h in hosts]
        starts = await asyncio.gather(*(h.click(lobby.message, "Start")
                                        for h, lobby in zip(hosts, lobbies, strict=True)))
        assert sum("game is on" in r.text.lower() for r in starts) == 2, [r.text for r in starts]
        assert len(refused(list(starts), "games running")) == 2
        assert sum(str(t.phase) == "running" for t in w.runtime.list(w.fd.guild_id)) == 2
