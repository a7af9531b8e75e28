"""What a restart must not forget besides the tables (tables/kept.py): the rematch link of a finished
table (a second **Play again** after a restart still finds the first rematch's lobby) and the turn
pings standing in a thread (the successor deletes one once its person moved, so a thread never
holds two standing pings for one person).  The real bot in a child process, killed (``kill -9``)
and started again on the same SQLite file; the world's closing checks run after each test.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import sqlite3
from typing import Any

import pytest

from tests.e2e.conftest import RestartWorld
from tests.fakediscord.play import _controls, _ping_button, _play_by_text, _use_controls, open_table, table_id_of


def stored_pings(w: RestartWorld, table_id: str) -> list[int]:
    with contextlib.closing(sqlite3.connect(w.path, timeout=5)) as conn:
        return [r[0] for r in conn.execute("SELECT message_id FROM pings WHERE table_id = ?", (table_id,))]


async def test_a_second_play_again_after_a_restart_finds_the_first_rematch(rw: RestartWorld) -> None:
    w = rw
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    tid = table_id_of(table_message)
    ended = await w.ali.slash("game end", id=tid)
    assert ended.ephemeral and "has ended" in ended.text
    await w.until(lambda: "Play again" in [b.get("label") for b in table_message.buttons()], 10.0,
                  "Play again on the finished table")
    first = await w.bob.click(table_message, "Play again")
    assert not first.failed
    lobby = next(m for m in w.fd.public(w.fd.channel.id) if m.id > table_message.id and "Join" in str(m.buttons()))
    new_id = table_id_of(lobby)
    assert new_id != tid and w.row(new_id)["phase"] == "lobby"

    await w.restart_bot(kill=True)
    assert not w.lost
    # Ali presses Play again on the old table: the rematch of before the restart is still the one.
    again = await w.ali.click(table_message, "Play again")
    assert again.ephemeral and "already being played again" in again.text and new_id in again.text, again.text
    lobbies = [m for m in w.fd.public(w.fd.channel.id) if m.id > table_message.id and "Join" in str(m.buttons())]
    assert [table_id_of(m) for m in lobbies] == [new_id]
    # The rematch goes on as before: Ali takes her seat in it.
    joined = await w.ali.click(lobby, "Join")
    assert "You joined table" in joined.text, joined.text


async def test_a_ping_from_before_a_restart_is_deleted_once_its_person_moved(rw: RestartWorld) -> None:
    w = rw
    rng = random.Random(11)
    views: dict[int, object] = {}
    table_message = await open_table(w.ali, [w.bob], options="target=1", speed="relaxed", views=views)
    tid = table_id_of(table_message)
    # Both pass from their first views, then dismiss them: their turns now come as pings.
    for person in (w.ali, w.bob):
        view = views[person.id].message
        await w.until(lambda v=view: v.selects(), 10.0, f"{person.name}'s pass menu")
        await _use_controls(person, view, rng)
        person.dismiss(view)
    # A turn that came while a view was still open showed there (no ping): that person plays it by
    # text and dismisses the answer, until a turn finds a person's view closed and pings them.
    ping = None
    for _ in range(30):
        try:
            ping = await w.until(lambda: _ping_button(w.ali, 0) or _ping_button(w.bob, 0), 3.0, "a turn ping")
            break
        except TimeoutError:
            for someone in (w.ali, w.bob):
                played = await _play_by_text(someone, table_message, rng)
                if played is not None and played.message is not None and played.ephemeral:
                    someone.dismiss(played.message)
    assert ping is not None, "nobody was pinged: the test proves nothing"
    person = w.ali if ping in w.ali.pings() else w.bob
    version = w.version(tid)
    # The ping is stored just after it is posted (its id comes with the post): a bot killed in
    # between leaves it unknown to its successor.  What a restart keeps is what was stored.
    await w.until(lambda: ping.id in stored_pings(w, tid), 5.0, "the ping stored")

    await w.restart_bot(kill=True)
    assert not w.lost
    assert not ping.deleted and w.version(tid) == version  # the table waited for that person
    # The person moves from a fresh hand view opened on the ping (posted by the bot before).
    fresh = await person.click(ping, "My hand")
    assert fresh.ephemeral and not fresh.failed
    await w.until(lambda: bool([b for b in _controls(fresh.message)["a"] if not b.get("disabled")]), 10.0,
                  "the move offered")
    moved = await _use_controls(person, fresh.message, rng)
    assert moved.text.startswith("✅"), moved.text
    # The successor deletes the ping posted by the process it replaced.
    await w.until(lambda: ping.deleted, 10.0, "the ping from before the restart deleted")
    await w.until(lambda: ping.id not in stored_pings(w, tid), 5.0, "the ping forgotten")
    standing = [m for m in person.pings() if not m.deleted and "My hand" in str(m.buttons())]
    assert len(standing) <= 1, [m.text for m in standing]


CALLBACK = "POST /interactions/{interaction_id}/{interaction_token}/callback"


@pytest.mark.parametrize("reached", [False, True], ids=["answer-lost", "answer-posted"])
async def test_a_lobby_stored_but_never_posted_is_posted_after_a_restart(rw: RestartWorld, reached: bool) -> None:
    # Issue 29 item 8: the bot was killed while it answered Play again — after the rematch lobby was
    # stored, before its message reached Discord.  The presser saw the click fail; after the restart
    # the lobby was in the database with no message, nobody could see or join it, and its host was
    # told to leave it first.  A restored table with no message is posted in its channel — or, when
    # the answer did reach Discord but the dead bot never stored its id (``reached``), that message
    # is found in the channel and kept: one lobby message either way.
    w = rw
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    old_id = table_id_of(table_message)
    ended = await w.ali.slash("game end", id=old_id)
    assert ended.ephemeral and "has ended" in ended.text
    await w.until(lambda: "Play again" in [b.get("label") for b in table_message.buttons()], 10.0,
                  "Play again on the finished table")
    bobs = lambda p: w.fd.interactions[int(p["interaction_id"])].user_id == w.bob.id  # noqa: E731
    if reached:
        # Discord takes the answer (the lobby message is posted) and the bot dies before it hears back.
        answer_click = w.fd._h_callback

        async def answered_then_killed(params: dict[str, str], body: Any, query: Any) -> Any:
            out = await answer_click(params, body, query)
            if bobs(params):
                w.bot.proc.send_signal(signal.SIGKILL)
            return out

        w.fd._h_callback = answered_then_killed  # type: ignore[method-assign]
        answer = await w.bob.click(table_message, "Play again")
        await w.kill_bot()
        assert not answer.failed and answer.message is not None
    else:
        # Discord holds the answer to the click until the bot is dead; then it is lost.
        held = w.fd.hold(CALLBACK, when=bobs)
        click = asyncio.ensure_future(w.bob.click(table_message, "Play again"))
        await w.until(lambda: held.hits, 10.0, "the answer to Play again on its way")
        await w.kill_bot()
        held.status = 404  # (the dead bot's answer never arrives)
        assert held.held is not None
        held.held.set()
        assert (await click).failed
    with contextlib.closing(sqlite3.connect(w.path, timeout=5)) as conn:
        [(new_id,)] = conn.execute("SELECT new_id FROM rematches WHERE old_id = ?", (old_id,)).fetchall()
    assert w.row(new_id)["phase"] == "lobby" and w.row(new_id)["message_id"] is None
    mark = w.fd.ids.last

    await w.start_bot()
    def lobbies() -> list[Any]:
        return [m for m in w.fd.public(w.fd.channel.id) if f"table `{new_id}`" in m.text and "Join" in str(m.buttons())]

    await w.until(lambda: w.row(new_id)["message_id"] is not None, 10.0, "the lobby's message stored")
    [lobby] = lobbies()
    assert w.row(new_id)["message_id"] == lobby.id and (lobby.id <= mark) == reached
    if not reached:
        assert not lobby.versions[0].pings  # posted again, not a second invitation
    joined = await w.ali.click(lobby, "Join")
    assert "You joined table" in joined.text, joined.text
    await w.until(lambda: w.ali.name in lobby.text, 5.0, "the lobby message showing Ali seated")
    assert len(lobbies()) == 1
    again = await w.ali.click(table_message, "Play again")
    assert again.ephemeral and new_id in again.text, again.text
