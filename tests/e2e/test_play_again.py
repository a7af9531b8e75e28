"""Issue 24 items 4 and 5 through the real bot and the fake Discord: **Play again** on a finished
table opens one new lobby of the same game and options that the same people can start (from the
database once the finished table has left memory), and **How to play** answers every game's quick
start, privately, as the answer to the click."""

from __future__ import annotations

import asyncio
import random

import engine
from cogs.table.arguments import playable
from tests.e2e.conftest import World, make_world
from tests.fakediscord.play import is_over, open_table, play_seat, table_id_of

RULES_URL = "https://example.org/deckhand/rules"


def _quick_start_shown(text: str, game: str, rules_url: str | None = None) -> None:
    spec = engine.get(game)
    assert f"How to play {spec.game.title}" in text, text
    for line in spec.quick_start:
        assert line in text, (line, text)
    # The way to the full rules is what a person in Discord can open: the command, and the rule
    # book's page only when the operator named one — never a path in the repository.
    assert f"/game rules game:{game}" in text, text
    assert "docs/" not in text and ".md" not in text, text
    assert (f"<{rules_url}>" in text) if rules_url else ("http" not in text), text
    assert len(text.splitlines()) == 6  # the heading and the five lines


async def test_play_again_opens_a_new_lobby_the_same_people_start() -> None:
    async with make_world(config={"database_url": "sqlite:///:memory:"}) as w:
        fd = w.fd
        views: dict[int, object] = {}
        old_message = await open_table(w.ali, [w.bob], options="target=1 rules=mcgill", speed="blitz", views=views)
        old_id = table_id_of(old_message)
        old = w.table(old_message)
        options, speed = dict(old.options), old.speed
        await asyncio.gather(*(play_seat(p, old_message, rng=random.Random(i), timeout=60, view=views.get(p.id),
                                         over=lambda: is_over(fd, old_message))
                               for i, p in enumerate((w.ali, w.bob))))
        # Play again works from the stub and the database once the finished table has left memory.
        await w.until(lambda: old_id not in w.runtime.tables, 10, "the finished table leaving memory")
        record = await w.runtime.history(old_id, fd.guild_id)
        await w.until(lambda: "Play again" in str(old_message.buttons()), what="Play again on the finished table")

        stranger = await w.stranger.click(old_message, "Play again")
        assert stranger.ephemeral and f"Only the people who played at table `{old_id}`" in stranger.text
        assert not w.runtime.list(fd.guild_id)  # nothing opened

        mark = fd.ids.last
        again = await w.bob.click(old_message, "Play again")
        assert not again.failed and not again.ephemeral and again.message is not None, again.text
        lobby = again.message
        new_id = table_id_of(lobby)
        assert new_id != old_id and lobby.channel_id == old_message.channel_id
        t = w.table(new_id)
        assert (t.game, t.options, t.speed, t.host_id) == ("hearts", options, speed, w.bob.id)
        assert [s.is_ai for s in t.seats] == [False, True, True] and t.seat_of(w.ali.id) is None
        # One message invites Ali by name and pings exactly Ali (not Bob, not the stranger).
        assert w.ali.mention in lobby.versions[0].content and lobby.versions[0].pings == {w.ali.id}
        assert [m.id for m in w.ali.pings(mark)] == [lobby.id] and not w.stranger.pings(mark)
        assert {"Join", "Start", "How to play"} <= {b.get("label") for b in lobby.buttons()}

        # A second press points to the open lobby and opens nothing.
        second = await w.ali.click(old_message, "Play again")
        assert second.ephemeral and new_id in second.text and "Join" in second.text, second.text
        assert [x.id for x in w.runtime.list(fd.guild_id)] == [new_id]

        # The same people start it: Ali presses Join, Bob (the host) presses Start.
        joined = await w.ali.click(lobby, "Join")
        assert "You joined table" in joined.text, joined.text
        started = await w.bob.click(lobby, "Start")
        assert "game is on" in started.text.lower(), started.text
        assert str(t.phase) == "running" and [s.user_id for s in t.seats if not s.is_ai] == [w.bob.id, w.ali.id]

        # The old game is as it was: its record, and its replay.
        assert await w.runtime.history(old_id, fd.guild_id) == record
        replay = await w.bob.slash("game replay", id=old_id)
        assert replay.ephemeral and "Final standings" in replay.message.embeds[0]["description"]
        ended = await w.bob.slash("game end", id=new_id)
        assert "has ended" in ended.text, ended.text


async def test_how_to_play_answers_for_each_game(w: World) -> None:
    for game in sorted(playable()):
        new = await w.ali.slash("game new", game=game)
        assert new.message is not None and not new.ephemeral, new.text
        mark, tid = w.fd.ids.last, table_id_of(new.message)
        howto = await w.bob.click(new.message, "How to play")  # anyone, seated or not
        assert howto.ephemeral and howto.message.versions[0].source == "response", howto.message.versions[0]
        _quick_start_shown(howto.text, game)
        # Nothing public for it (the last table's closing notice may still be on its way: not this one's).
        assert not [m for m in w.fd.public() if m.id > mark and tid in m.text]
        ended = await w.ali.slash("game end", id=tid)
        assert "has ended" in ended.text, ended.text


async def test_how_to_play_in_a_hand_view(w: World) -> None:
    table_message = await open_table(w.ali, [], options="target=1")
    hand = await w.ali.slash("hand", where=w.thread_of(table_message))
    assert hand.ephemeral and "How to play" in {b.get("label") for b in hand.message.buttons()}
    howto = await w.ali.click(hand.message, "How to play")
    assert howto.ephemeral and howto.message.id != hand.message.id
    _quick_start_shown(howto.text, "hearts")


async def test_how_to_play_links_the_rule_book_the_operator_names() -> None:
    """DECKHAND_RULES_URL: every How to play (lobby, running table message, hand view) and /game
    rules link to that page, and to nothing in the repository."""
    async with make_world(config={"rules_url": RULES_URL}) as w:
        lobby = await w.ali.slash("game new", game="dalmuti")
        _quick_start_shown((await w.bob.click(lobby.message, "How to play")).text, "dalmuti", RULES_URL)
        await w.ali.slash("game end", id=table_id_of(lobby.message))
        table_message = await open_table(w.ali, [], options="target=1")
        _quick_start_shown((await w.stranger.click(table_message, "How to play")).text, "hearts", RULES_URL)
        hand = await w.ali.slash("hand", where=w.thread_of(table_message))
        _quick_start_shown((await w.ali.click(hand.message, "How to play")).text, "hearts", RULES_URL)
        rules = await w.stranger.slash("game rules", game="siege")
        text = "\n".join(f["value"] for f in rules.message.embeds[0]["fields"])
        assert f"<{RULES_URL}>" in text and "docs/" not in text, text


async def test_play_again_opens_one_rematch_ever_and_never_pings_again(w: World) -> None:
    # Issue 29 item 7: leaving the rematch lobby and pressing Play again on the old table opened
    # another public lobby that pinged the others, as often as anyone liked.  A finished table has
    # one rematch: once it has closed, a press says so, privately, and pings nobody.
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    old_id = table_id_of(table_message)
    ended = await w.ali.slash("game end", id=old_id)
    assert "has ended" in ended.text, ended.text
    await w.until(lambda: "Play again" in str(table_message.buttons()), 10.0, "Play again on the finished table")
    mark = w.fd.ids.last
    first = await w.bob.click(table_message, "Play again")
    assert not first.ephemeral and first.message is not None, first.text
    new_id = table_id_of(first.message)
    assert [m.id for m in w.ali.pings(mark)] == [first.message.id]
    left = await w.bob.click(first.message, "Leave")  # the lobby closes: nobody is seated any more
    assert left.ephemeral and new_id not in [t.id for t in w.runtime.list(w.fd.guild_id)], left.text
    for _ in range(3):
        for who in (w.bob, w.ali):
            again = await who.click(table_message, "Play again")
            assert again.ephemeral and "already been played again" in again.text and new_id in again.text, again.text
            assert "/game new" in again.text
    assert [m.id for m in w.ali.pings(mark)] == [first.message.id] and not w.bob.pings(mark)
    assert not w.runtime.list(w.fd.guild_id)
