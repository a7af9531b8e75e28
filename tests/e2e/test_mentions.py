"""Issue 14 items 9 and 10 through the real bot and the fake Discord: no message pings anyone by
accident (the bot-wide default is no pings; only turn notices opt in, for exactly whom they mean),
and slash commands from a DM are refused once, without an error."""

from __future__ import annotations

import asyncio
import random

from tests.e2e.conftest import World
from tests.fakediscord.play import open_table, play_seat


async def test_a_hand_view_edit_that_names_players_pings_nobody(w: World) -> None:
    # A display name that holds a mention: Ali's name shows in Bob's hand view ("waiting for ...").
    w.fd.members[w.ali.id].name = f"Ali <@{w.bob.id}> <@{w.stranger.id}>"
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    await asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(1)),
                         play_seat(w.bob, table_message, rng=random.Random(2)))
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
