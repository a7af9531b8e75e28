"""`/game watch` and **How to play** on the running table message, through the real bot and the fake
Discord.  `/game watch table:` opens the same private watcher's view as the **Watch** button, with
the same refusals; its autocomplete offers the server's running tables.  The world's closing checks
(privacy of every version anyone saw, the watcher's included; answers within 2 s; no 429; no error)
run after each test.
"""

from __future__ import annotations

import asyncio
import random

from cogs.watch import view as watch
from tests.e2e.conftest import World
from tests.fakediscord import payloads as P
from tests.fakediscord.play import open_table, play_seat
from tests.fakediscord.privacy import Timeline, cards_in


async def test_game_watch_follows_a_running_table_privately_with_the_buttons_refusals(w: World) -> None:
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    table = w.table(table_message)
    carol = w.fd.add_member("Carol")
    # Carol's own lobby is not running: it is not offered, the running table is.
    lobby = await carol.slash("game new", game="tricks")
    assert not lobby.failed and not lobby.ephemeral
    choices = await w.stranger.autocomplete("game watch", "table", "")
    assert [c["value"] for c in choices] == [table.id], choices
    assert "Hearts" in choices[0]["name"] and "Ali" in choices[0]["name"] and "Bob" in choices[0]["name"]
    assert await w.stranger.autocomplete("game watch", "table", "tricks") == []
    assert [c["value"] for c in await w.stranger.autocomplete("game watch", "table", table.id[:3].lower())] \
        == [table.id]

    # Refusals in plain words, nothing registered: someone playing there, an id nobody knows.
    mine = await w.ali.slash("game watch", table=table.id)
    assert mine.ephemeral and "You play at table" in mine.text and "My hand" in mine.text
    unknown = await w.stranger.slash("game watch", table="ZZZZZZ")
    assert unknown.ephemeral and "There is no table with id `ZZZZZZ`" in unknown.text
    assert w.runtime.listener.watchers.count(table.id) == 0

    watching = await w.stranger.slash("game watch", table=table.id.lower())
    assert watching.ephemeral and not watching.failed
    view = watching.message
    assert view.ephemeral_to == w.stranger.id
    assert f"You are watching table `{table.id}`" in watching.text and "Players" in watching.text
    assert w.runtime.listener.watchers.count(table.id) == 1
    # A full table of watchers refuses the next one, as the button does.
    w.runtime.listener.watchers.most = 1
    full = await carol.slash("game watch", table=table.id)
    assert full.ephemeral and "already has" in full.text and "the most it takes" in full.text
    assert w.runtime.listener.watchers.count(table.id) == 1

    logs = await asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(5)),
                                play_seat(w.bob, table_message, rng=random.Random(6)))
    assert table.state.is_over and all(log.moves == 14 for log in logs)
    # The view followed the hand through its token, to the end.
    await w.until(lambda: "is over" in view.text and "End of hand" in view.text, 10.0,
                  "the watcher's view showing the end")
    assert len([v for v in view.versions if v.source == "edit"]) >= 10
    timeline = Timeline(table)
    for v in view.versions:
        hidden = timeline.hidden_throughout(None, v.at - 0.5, v.at)
        assert not cards_in(v.text) & hidden, (v.text, sorted(cards_in(v.text) & hidden))
        for c in P.walk_components(v.components):
            assert not cards_in(str(c.get("custom_id") or "").replace(":", " ")), c

    # A finished game: nothing to watch, the replay is where to look; no longer offered.
    over = await w.stranger.slash("game watch", table=table.id)
    assert over.ephemeral and "is over" in over.text and f"/game replay id:{table.id}" in over.text, over.text
    assert over.text == watch.over_line(w.runtime.tables.get(table.id) or w.runtime.finished.get(table.id))
    assert "Replay" in over.text
    assert await w.stranger.autocomplete("game watch", "table", "") == []


async def test_how_to_play_on_the_running_table_message_answers_privately_in_the_response(w: World) -> None:
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    labels = [b.get("label") for b in table_message.buttons()]
    # Beside the way to play and Watch, crowding nothing out.
    assert "Watch" in labels and labels[-1] == "How to play", labels
    assert "Play in the thread" in labels or "My hand" in labels
    howto = await w.stranger.click(table_message, "How to play")
    assert howto.ephemeral and not howto.failed and howto.message.ephemeral_to == w.stranger.id
    assert "How to play Hearts" in howto.text and "/game rules game:hearts" in howto.text
    # The interaction's own response (a callback, which Discord's global limit does not count), no
    # followup, and no other message says it.
    assert howto.interaction.callback_type == P.CHANNEL_MESSAGE and not howto.interaction.followups
    assert howto.message.id == howto.interaction.original_id
    said = [m.id for m in w.fd.messages.values() if "How to play Hearts" in m.text]
    assert said == [howto.message.id]
    # Someone playing there gets the same quick start (it is the game's, not a seat's).
    mine = await w.bob.click(table_message, "How to play")
    assert mine.ephemeral and mine.text == howto.text
