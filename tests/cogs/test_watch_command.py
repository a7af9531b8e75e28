"""``/game watch``'s autocomplete (cogs/table/autocomplete.py ``table_choices``) and its refusals, on the
real cog and runtime: the server's running tables only, this channel's (or its thread's) first."""

from __future__ import annotations

from cogs.table.autocomplete import table_choices
from tests.cogs.conftest import Harness


async def test_the_running_tables_of_the_server_this_channel_first(h: Harness) -> None:
    here, _ = await h.running_table()
    other = await h.runtime.create(game="tricks", guild_id=1, channel_id=h.channel.id + 50, host_id=h.stranger.id,
                                   host_name="Stranger")
    assert [c.value for c in table_choices(h.runtime.list(1), h.channel.id, "")] == [here.id]  # a lobby: no
    await h.runtime.add_ai(other.id, h.stranger.id)
    await h.runtime.start(other.id, h.stranger.id)
    elsewhere = await h.runtime.create(game="hearts", guild_id=2, channel_id=h.channel.id, host_id=104,
                                       host_name="Dee")
    await h.runtime.start(elsewhere.id, 104)  # another server's table is never offered
    assert [c.value for c in table_choices(h.runtime.list(1), h.channel.id, "")] == [here.id, other.id]
    assert [c.value for c in table_choices(h.runtime.list(1), h.channel.id + 50, "")] == [other.id, here.id]
    # From the game's thread too, and by what was typed: id, game or a player's name.
    assert [c.value for c in table_choices(h.runtime.list(1), here.thread_id, "")][0] == here.id
    assert [c.value for c in table_choices(h.runtime.list(1), None, "trick")] == [other.id]
    assert [c.value for c in table_choices(h.runtime.list(1), None, "bob")] == [here.id]
    assert [c.value for c in table_choices(h.runtime.list(1), None, other.id.lower())] == [other.id]
    names = [c.name for c in table_choices(h.runtime.list(1), None, "")]
    assert all(len(n) <= 100 for n in names) and any("Hearts" in n and "Alice" in n for n in names)


async def test_game_watch_answers_like_the_button(h: Harness) -> None:
    table, _ = await h.running_table()
    i = h.inter(h.stranger)
    await h.cog.game_watch.callback(h.cog, i, table=table.id.lower())
    assert i.last.ephemeral and f"You are watching table `{table.id}`" in i.last.content
    assert h.listener.watchers.count(table.id) == 1
    mine = h.inter(h.alice)
    await h.cog.game_watch.callback(h.cog, mine, table=table.id)
    assert mine.last.ephemeral and "You play at table" in mine.last.content
    unknown = h.inter(h.stranger)
    await h.cog.game_watch.callback(h.cog, unknown, table="nothing")
    assert unknown.last.ephemeral and "There is no table with id" in unknown.last.content
    await h.runtime.end(table.id, h.alice.id)
    over = h.inter(h.stranger)
    await h.cog.game_watch.callback(h.cog, over, table=table.id)
    assert over.last.ephemeral and f"/game replay id:{table.id}" in over.last.content and "Replay" in over.last.content
