"""Issue 14 items 9 and 10 through the real bot and the fake Discord: no message pings anyone by
accident (the bot-wide default is no pings; only turn notices opt in, for exactly whom they mean),
and slash commands from a DM are refused once, without an error."""

from __future__ import annotations

import asyncio
import random

from tests.e2e.conftest import World, make_world
from tests.fakediscord.play import open_table, play_seat
from tests.fakediscord.users import Reply


async def test_a_hand_view_edit_that_names_players_pings_nobody(w: World) -> None:
    # A display name that holds a mention: Ali's name shows in Bob's hand view ("waiting for ...").
    w.fd.members[w.ali.id].name = f"Ali <@{w.bob.id}> <@{w.stranger.id}>"
    views: dict[int, Reply] = {}
    table_message = await open_table(w.ali, [w.bob], options="target=1", views=views)
    # Bob passes from his join answer, then dismisses it: his next turns come as pings (a live
    # view shows the turn itself, and then nobody is pinged).
    bob_view = views[w.bob.id]
    await w.until(lambda: bob_view.message.selects(), what="Bob's join answer showing his pass menu")
    menu = bob_view.message.selects()[0]
    await w.bob.choose(bob_view.message, [o["value"] for o in menu["options"][:3]], custom_id=menu["custom_id"])
    w.bob.dismiss(bob_view.message)
    mark = w.fd.ids.last
    ali = asyncio.create_task(play_seat(w.ali, table_message, rng=random.Random(1), view=views[w.ali.id]))
    try:
        ping = await w.until(lambda: [m for m in w.bob.pings(mark) if "My hand" in str(m.buttons())], 20.0,
                             "a ping to Bob with My hand")
        fresh = await w.bob.click(ping[-1], "My hand")
        await play_seat(w.bob, table_message, rng=random.Random(2), view=fresh)
    finally:
        await ali
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    named = [v for m in w.fd.messages.values() for v in m.versions if f"<@{w.bob.id}>" in v.content
             and v.source != "create"]
    assert named, "no edit named a player: the test proves nothing"
    accidental = [(m.id, v.source, v.content[:80], sorted(v.pings)) for m in w.fd.messages.values()
                  for v in m.versions if v.pings and "your turn" not in v.content and "press **My hand**"
                  not in v.content]
    assert not accidental, accidental
    # Turn notices ping exactly the people whose turn it is: never the stranger, named or not.
    assert not w.stranger.pings()
    notices = [m for m in w.fd.messages.values() if m.versions[0].pings]
    assert notices and all(m.versions[0].pings <= {w.ali.id, w.bob.id} for m in notices)


async def test_the_commands_are_offered_everywhere_and_answer_in_the_bots_dm() -> None:
    # Issue 32 (it replaces issue 14 item 9's "servers only"): every command is installable to a
    # server and to a person's account, and offered in servers, DMs and group DMs (global commands,
    # as in production: a server's own commands exist only in that server).
    async with make_world(sync_to_guild=False) as w:
        await _everywhere(w)


async def _everywhere(w: World) -> None:
    synced = w.fd.commands.get(w.fd.guild_id) or w.fd.commands.get(None) or {}
    assert {"game", "hand", "play", "stats", "leaderboard"} <= set(synced)
    for name, cmd in synced.items():
        assert cmd.get("contexts") == [0, 1, 2] and cmd.get("integration_types") == [0, 1], (name, cmd)
    # In the bot's own DM a command is answered once, in plain words, and nothing is posted there
    # but that answer.
    dm = w.fd.add_dm(w.ali.id)
    for command, options in [("game list", {}), ("hand", {}), ("play", {"cards": "QS"}), ("stats", {}),
                             ("leaderboard", {"game": "hearts"})]:
        reply = await w.ali.slash(command, where=dm, **options)
        # (the leaderboard is for everyone where it is asked; the rest only for the person)
        assert not reply.failed and (reply.ephemeral or command == "leaderboard"), (command, reply.text)
        assert "went wrong" not in reply.text, (command, reply.text)
    await w.until(lambda: all(i.done.is_set() for i in w.fd.interactions.values()), what="the answers")
    for i in w.fd.interactions.values():
        assert not i.followups, f"{i.label} was answered twice"
    assert not w.runtime.tables  # nothing was opened from the DM
