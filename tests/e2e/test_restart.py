"""Nothing lost: the real bot, in its own process on a SQLite file, is killed (``kill -9``) or
stopped in the middle of a game played through the fake Discord, and a new process on the same
database carries on while the fake Discord keeps running.  The people finish the game with what
they already see — the table message's buttons, the hand views they opened before the restart —
or ``/hand``.

What is checked after each game: the final scores are those of replaying the seed and the stored
log through the engine, every AI move in the log is the one the AI makes at that point (so the
restart changed nothing an uninterrupted game would have done), and every move a person saw
accepted is exactly one logged action of their seat — none lost, none applied twice.  The
:class:`~tests.e2e.conftest.RestartWorld` closing checks (privacy, answers within 3 s, no 429, no
error logged by any bot process, edit pacing) run after each test.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import signal
import sqlite3
import time
import zlib
from typing import Any

import pytest

import engine
from engine.core import rng_for
from tables.history.replay import GameRecord
from tables.table import LogEntry
from tests.e2e.conftest import RestartWorld, make_restart_world
from tests.fakediscord import payloads as P
from tests.fakediscord.play import (
    SeatLog,
    accepted_moves,
    is_over,
    move_of_code,
    open_table,
    play_seat,
    table_controls,
    table_id_of,
)
from tests.fakediscord.server import Message

ACTIONS_PER_HAND = 4 + 52  # four passes, then 13 tricks


# ==== what the database says ========================================================================
def stored_game(w: RestartWorld, tid: str) -> tuple[GameRecord, list[LogEntry]]:
    row = w.row(tid)
    with contextlib.closing(sqlite3.connect(w.path)) as conn:
        log = [LogEntry(seq, seat, code, at, bool(auto)) for seq, seat, code, at, auto in conn.execute(
            "SELECT seq, seat, code, time, auto FROM actions WHERE table_id = ? ORDER BY seq", (tid,))]
    return GameRecord.of_stored(row, log), log


def check_the_game(w: RestartWorld, table_message: Message, logs: list[SeatLog]) -> dict[str, Any]:
    """The checks every restarted game must pass; returns a few figures for the report."""
    tid = table_id_of(table_message)
    record, log = stored_game(w, tid)
    row = w.row(tid)
    assert row["phase"] == "finished" and row["broken"] is None
    # One action per version, numbered 1..n without a gap or a repeat.
    assert [e.seq for e in log] == list(range(1, len(log) + 1)) and row["version"] == len(log)

    # The scores: replaying the seed and the stored log gives the standings everyone was shown
    # and the results kept for /stats.
    state, _ = record.replay()
    assert state.is_over
    outcome = state.outcome()
    assert f"Replay: `/game replay id:{tid}`" in table_message.text
    for seat, name in enumerate(record.names):
        shown = re.search(rf"{re.escape(name)}\**\s*— (-?\d+)", table_message.text)
        assert shown is not None and int(shown.group(1)) == outcome.scores[seat], (name, table_message.text)
    with contextlib.closing(sqlite3.connect(w.path)) as conn:
        results = dict(conn.execute("SELECT user_id, score FROM results WHERE table_id = ?", (tid,)).fetchall())
    assert results == {w.ali.id: outcome.scores[0], w.bob.id: outcome.scores[1]}

    # The same game without a restart: each AI move is the one the AI chooses at that point with
    # the table's seed (the runtime seeds it by version and seat), so no restart changed one.
    entry = engine.get(record.game)
    ai = entry.ai()
    game = entry.game
    replay = game.create(record.players, record.options, record.seed)
    for e in log:
        if record.ai[e.seat]:
            assert e.auto, e
            chosen = ai.choose(replay, e.seat, rng_for(record.seed, "ai", e.seq - 1, e.seat))
            assert chosen.code == e.code, f"action {e.seq}: the AI would play {chosen.code}, the log says {e.code}"
        replay.apply(e.seat, game.action_from_code(e.code))

    # People: every move they saw accepted is exactly one logged action of their seat, in order.
    # A click the killed bot never answered may or may not have happened (the person saw "This
    # interaction failed"), never twice.  Nobody timed out, so a person's seat has no auto move.
    for seat, seat_log in enumerate(logs):
        mine = [e for e in log if e.seat == seat]
        assert not any(e.auto for e in mine), f"seat {seat} had a move made for it: {mine}"
        logged = [move_of_code(e.code) for e in mine]
        seen = accepted_moves(seat_log)
        lost = {r.interaction.id for r in seat_log.lost}
        clicks = [(r, lost_one) for r in seat_log.replies
                  for lost_one in [r.interaction.id in lost]
                  if lost_one or (not r.failed and r.interaction.callback_type == P.UPDATE_MESSAGE
                                  and r.text.startswith("✅"))]
        story = "\n".join(
            f"  {r.interaction.label} #{r.interaction.id} type={r.interaction.callback_type} failed={r.failed} "
            f"lost={r.interaction.id in lost} sent={r.interaction.created:.3f} {r.text[:50]!r}"
            for r in seat_log.replies)
        assert len(seen) <= len(logged) <= len(seen) + len(lost), f"seat {seat}\n{story}\nlog {logged}"
        _match(seat, clicks, logged, story)
    return {"actions": len(log), "hands": state.public_view().get("hand_no", 0) + 1}


def _match(seat: int, clicks: list[tuple[Any, bool]], logged: list[tuple[str, tuple[str, ...]]],
           story: str = "") -> None:
    """The logged moves of a seat are its accepted clicks, in order, with each lost click either
    there (at its place) or not.  A person whose click failed often clicks the same card again,
    so a lost click and the next one may name the same move: only one of them is logged."""
    from functools import cache

    from tests.fakediscord.play import move_of

    moves = [(move_of(reply), lost) for reply, lost in clicks]

    @cache
    def fits(c: int, i: int) -> bool:
        if c == len(moves):
            return i == len(logged)
        move, lost = moves[c]
        here = i < len(logged) and logged[i] == move
        if lost:
            return fits(c + 1, i) or (here and fits(c + 1, i + 1))
        return here and fits(c + 1, i + 1)

    assert fits(0, 0), f"seat {seat}: the accepted clicks are not the logged moves\n{story}\nlog {logged}"


def play_both(w: RestartWorld, table_message: Message, seed: int, **kwargs: Any) -> asyncio.Future[list[SeatLog]]:
    return asyncio.gather(
        play_seat(w.ali, table_message, rng=random.Random(seed), ready=w.ready, tolerate=w.tolerate,
                  open_with="mix", **kwargs),
        play_seat(w.bob, table_message, rng=random.Random(seed + 1), ready=w.ready, tolerate=w.tolerate,
                  open_with="mix", **kwargs),
    )


async def finish(w: RestartWorld, table_message: Message, players: Any) -> list[SeatLog]:
    """The people play to the end; when they cannot, the failure says where the table stood."""
    try:
        logs = await players
        await w.until(lambda: is_over(w.fd, table_message), what="the finished table")
    except Exception as e:
        raise AssertionError(f"{e}\n{describe(w, table_id_of(table_message), table_message)}") from e
    return logs


def describe(w: RestartWorld, tid: str, table_message: Message) -> str:
    """What the database, the bot processes and the fake Discord say about a table."""
    row = {k: v for k, v in w.row(tid).items() if k != "snapshot"}
    lines = [f"table {tid}: {row}", f"log tail: {w.actions(tid)[-8:]}", f"table message: {table_message.text!r}"]
    lines += [f"bot {b.pid} (ready in {b.ready_in}), returncode {b.proc.returncode}: {b.stderr[-15:]}" for b in w.bots]
    lines += [f"interaction {i.label} by {i.user_id}: failed {i.failed}, answered in {i.answered_in}, "
              f"lost {i.id in w.lost}" for i in list(w.fd.interactions.values())[-12:]]
    lines.append(f"problems: {w.fd.problems[-10:]}")
    return "\n".join(lines)


async def wait_version(w: RestartWorld, tid: str, at_least: int, timeout: float = 20.0) -> int:
    """Poll the database until the table reached ``at_least`` actions."""
    end = time.perf_counter() + timeout
    while (v := w.version(tid)) < at_least:
        if time.perf_counter() > end:
            raise TimeoutError(f"table {tid} stayed at version {v}, not {at_least}\n"
                               f"{describe(w, tid, _table_message_of(w, tid))}")
        await asyncio.sleep(0.005)
    return v


def _table_message_of(w: RestartWorld, tid: str) -> Message:
    return next(m for m in w.fd.messages.values() if not m.ephemeral and f"table `{tid}`" in m.text)


# ==== 1. kill -9 at random points ===================================================================
KILLS = {
    # name: one kill per (low, high, how): once the table has taken between low and high actions
    # (drawn from the case's seed), either at once ("any": between clicks, while the AIs move), or
    # as a person's next move leaves for the bot ("click", with the longest wait after it: the bot
    # answers a click in 1-2 ms, so 0 kills it before the click leaves the fake, and up to 1.5 ms kills it
    # before it hears it, while applying it, or before it answers — or once it has answered).
    "a pass in flight": [(0, 0, ("click", 0.0))],
    "early tricks": [(5, 20, ("any", 0.05))],
    "a card in flight": [(20, 38, ("click", 0.0015))],
    "last tricks": [(48, 52, ("any", 0.05))],
    "twice": [(2, 20, ("click", 0.0015)), (24, 50, ("any", 0.05))],
}
MOVE_IDS = ("dh:a:", "dh:s:", "dh:m:")  # a click or menu choice that is a move (components.py)


async def a_move_sent(w: RestartWorld, timeout: float = 20.0, *, kill: bool = False) -> Any:
    """The next move a person sends (the interaction, as it leaves for the bot).  With ``kill``, the
    bot gets SIGKILL before the interaction leaves: the hook runs after the fake queued it for the
    gateway but before the fake's writer task can send it, so the bot can never hear it (betting
    that a kill after the send beats the bot's 1-2 ms answer failed under load)."""
    sent: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def hook(i: Any) -> None:
        if not sent.done() and str(i.data.get("custom_id") or "").startswith(MOVE_IDS):
            if kill:
                w.bot.proc.send_signal(signal.SIGKILL)
            sent.set_result(i)

    w.fd.interaction_hooks.append(hook)
    try:
        return await asyncio.wait_for(sent, timeout)
    finally:
        w.fd.interaction_hooks.remove(hook)


def check_served_before_syncing(w: RestartWorld) -> None:
    """Every bot process logged in to the gateway before it looked at its slash commands, and only
    the first one wrote them.  Discord allows two writes in 20 s and discord.py holds a request that
    used up its window until the window ends: a successor that synced before connecting served
    nobody for ~16 s, and a third start within 20 s provoked a 429 (issue 25)."""
    for n, b in enumerate(w.bots):
        identified = [at for at, how, _, _, agent in w.fd.session_log if how == "identify" and b.agent in agent]
        looked = [r for r in w.fd.requests if b.agent in r.agent and r.route.endswith("/commands")]
        assert identified and looked, (b.pid, identified, looked)
        assert min(identified) < min(r.wall for r in looked), f"bot {b.pid} synced its commands before it connected"
        written = [r.route for r in looked if r.method == "PUT"]
        assert len(written) == (n == 0), f"bot {b.pid} wrote the commands Discord had already: {written}"


@pytest.mark.parametrize("case", list(KILLS))
async def test_sigkill_mid_game_loses_nothing(tmp_path, case: str) -> None:
    seed = zlib.crc32(case.encode())
    rng = random.Random(seed)
    kills = [(rng.randint(lo, hi), how, rng.uniform(0, most)) for lo, hi, (how, most) in KILLS[case]]
    async with make_restart_world(tmp_path / "deckhand.db", seed=seed) as w:
        table_message = await open_table(w.ali, [w.bob], options="target=1", speed="blitz")
        tid = table_id_of(table_message)
        players = play_both(w, table_message, seed)
        killed_at = []
        for point, how, wait in kills:
            await wait_version(w, tid, point)
            click = await a_move_sent(w, kill=not wait) if how == "click" else None
            await asyncio.sleep(wait)  # "any": not always right after a commit
            unanswered = await w.kill_bot()
            if click is not None and not wait:
                assert click in unanswered  # it died before answering: the person sees it fail
            killed_at.append(w.version(tid))
            assert w.row(tid)["phase"] == "running", "the kill came too late to prove anything"
            await w.start_bot()
        logs = await finish(w, table_message, players)
        figures = check_the_game(w, table_message, logs)
        assert figures["actions"] == ACTIONS_PER_HAND * figures["hands"]
        assert all(0 <= v < figures["actions"] for v in killed_at)  # every kill hit the game in play
        assert w.fd.identifies == 1 + len(kills)  # each new process logged in afresh
        check_served_before_syncing(w)
        # What the people were shown after each restart came from the restored table: the table
        # message posted before the first kill is the one that shows the final standings.
        assert not table_message.deleted


# ==== 2. the table message deleted while the bot was down ==========================================
def merged(*logs: SeatLog) -> SeatLog:
    """One person's play in several parts, as one log."""
    out = SeatLog(logs[0].person)
    for log in logs:
        out.moves += log.moves
        out.opened += log.opened
        out.replies += log.replies
        out.refusals += log.refusals
        out.lost += log.lost
    return out


def table_messages(w: RestartWorld, tid: str) -> list[Message]:
    """Every table message of ``tid`` in the channel, deleted ones too, oldest first."""
    return [m for m in sorted(w.fd.messages.values(), key=lambda m: m.id)
            if m.channel_id == w.fd.channel.id and not m.ephemeral and f"table `{tid}`" in m.text]


async def test_a_table_message_deleted_while_the_bot_was_down_is_posted_again(tmp_path) -> None:
    async with make_restart_world(tmp_path / "deckhand.db", seed=11) as w:
        table_message = await open_table(w.ali, [w.bob], options="target=1", speed="blitz")
        tid = table_id_of(table_message)
        first = await asyncio.gather(*(
            play_seat(p, table_message, rng=random.Random(n), ready=w.ready, tolerate=w.tolerate,
                      over=lambda: w.version(tid) >= 14) for n, p in enumerate((w.ali, w.bob))))
        await w.stop_bot()
        stopped_at = w.version(tid)
        # A moderator deletes the table message while the bot is away.
        w.fd.delete_message(table_message.id)
        assert w.ali.find(f"table `{tid}`", channel=w.fd.channel, ephemeral=False) is None

        await w.start_bot()
        # Recovery redraws the table: the edit finds no message, so it is posted again, in the channel
        # the table was opened in, with the running game's buttons; the new id is stored.
        again = await w.until(lambda: next((m for m in table_messages(w, tid) if not m.deleted), None),
                              what="the table message posted again")
        assert again.id != table_message.id and again.versions[0].source == "create"
        # (the thread stays)
        assert [b["label"] for b in again.buttons()] == ["Play in the thread", "Watch", "How to play"]
        await w.until(lambda: w.row(tid)["message_id"] == again.id, what="the new message id stored")
        assert w.version(tid) >= stopped_at

        # Another restart edits that message: it is not posted a third time.
        edits = len(again.versions)
        await w.restart_bot(kill=True)
        await w.until(lambda: len(again.versions) > edits, what="the re-posted message redrawn after a restart")
        assert [m.id for m in table_messages(w, tid)] == [table_message.id, again.id]

        # The game is finished from the new message (My hand there, or /hand).
        second = await finish(w, again, asyncio.gather(*(
            play_seat(p, again, rng=random.Random(10 + n), ready=w.ready, tolerate=w.tolerate)
            for n, p in enumerate((w.ali, w.bob)))))
        check_the_game(w, again, [merged(a, b) for a, b in zip(first, second, strict=True)])
        assert [m.id for m in table_messages(w, tid)] == [table_message.id, again.id]
        check_served_before_syncing(w)


# ==== 3. buttons after a restart ===================================================================
def action_buttons(msg: Message) -> list[dict[str, Any]]:
    return [b for b in msg.buttons() if str(b.get("custom_id", "")).startswith("dh:a:") and not b.get("disabled")]


async def test_buttons_from_before_a_restart_work_and_stale_ones_are_refused(rw: RestartWorld) -> None:
    from tables.runtime import STALE

    w = rw
    fd, ali, bob = w.fd, w.ali, w.bob
    rng = random.Random(23)
    table_message = await open_table(ali, [bob], options="target=1")  # normal speed: time to look around
    tid = table_id_of(table_message)
    thread = w.thread_of(table_message)

    # Bob looks at his hand, then plays from other views: this one's pass menu goes stale.
    stale = await bob.slash("hand", where=thread)
    assert stale.ephemeral and stale.message.selects()
    # Ali passes from her hand view; Bob passes and plays until it is Ali's turn to play a card.
    ali_log = SeatLog(ali)
    hand = await ali.click(table_controls(ali.fd, table_message), "My hand")
    menu = hand.message.selects()[0]
    passed = await ali.choose(hand.message, rng.sample([o["value"] for o in menu["options"]], 3))
    assert passed.text.startswith("✅"), passed.text
    ali_log.replies += [hand, passed]
    alis_turn = asyncio.Event()
    bob_part = asyncio.create_task(play_seat(bob, table_message, rng=random.Random(24), over=alis_turn.is_set))
    while True:
        mark = fd.ids.last
        view = await ali.slash("hand", where=thread)
        ali_log.replies.append(view)
        if action_buttons(view.message):
            break
        # Her live view shows her turn (no ping while it is live); a ping if it is not.
        seen = len(view.message.versions)
        await w.until(lambda: ali.pings(mark) or len(view.message.versions) > seen,  # noqa: B023
                      timeout=10, what="Ali's turn")
    alis_turn.set()
    bob_log = await bob_part
    version = w.version(tid)
    assert f"dh:a:{tid}:{version}:" in action_buttons(view.message)[0]["custom_id"]

    await w.restart_bot(kill=True)  # nothing in flight: the table waits for Ali
    assert not w.lost

    # Bob's stale pass menu, chosen after the restart: an ephemeral sentence, nothing changed.
    before = (w.row(tid), w.actions(tid))
    options = [o["value"] for o in stale.message.selects()[0]["options"]]
    refused = await bob.choose(stale.message, options[:3])
    assert refused.ephemeral and refused.interaction.callback_type == P.CHANNEL_MESSAGE
    assert refused.text == STALE
    assert (w.row(tid), w.actions(tid)) == before
    assert stale.message.selects()  # his old view itself is left as it was

    # The table message's My hand, posted before the restart, still opens Ali's hand ...
    fresh = await ali.click(table_controls(ali.fd, table_message), "My hand")
    assert fresh.ephemeral and "Your hand" in fresh.text and action_buttons(fresh.message)
    ali_log.replies.append(fresh)
    # ... and a card button of the hand view she opened before the restart plays that card.
    button = rng.choice(action_buttons(view.message))
    played = await ali.click(view.message, custom_id=button["custom_id"])
    assert played.interaction.callback_type == P.UPDATE_MESSAGE and played.text.startswith("✅"), played.text
    ali_log.replies.append(played)
    code = button["custom_id"].split(":", 4)[4].replace("_", " ")
    assert w.actions(tid)[version] == (version + 1, 0, code, False)
    # The view opened after the restart is out of date now: refused, and Ali plays nothing more.
    late = await ali.click(fresh.message, custom_id=rng.choice(action_buttons(fresh.message))["custom_id"])
    assert late.ephemeral and late.text == STALE
    ali_log.replies.append(late)
    assert [a for a in w.actions(tid) if a[1] == 0 and a[0] > version] == [(version + 1, 0, code, False)]

    # The rest of the game, as usual.
    rest = await finish(w, table_message, asyncio.gather(
        play_seat(ali, table_message, rng=random.Random(25), ready=w.ready, tolerate=w.tolerate),
        play_seat(bob, table_message, rng=random.Random(26), ready=w.ready, tolerate=w.tolerate)))
    check_the_game(w, table_message, [merged(ali_log, rest[0]), merged(bob_log, rest[1])])

