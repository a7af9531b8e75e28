"""Shard processes on one PostgreSQL, through the fake Discord's sharded gateway: P0 runs shard 0,
P1 shard 1, and S1 — configured for shard 1 too — stands by (storage open, nothing connected).
People play a table in a guild of each shard while P1 meets a fault mid-game:

* ``kill``: ``kill -9``; S1 takes the lease, recovers shard 1's tables, connects shard 1, and the
  people there play on;
* ``freeze``: SIGSTOP for 20 s then SIGCONT.  A frozen process keeps its database session (its
  kernel still answers TCP), so its lock; but it stops renewing its lease's term, and S1 ends its
  session and takes shard 1 over well within the freeze (its IDENTIFY ends P1's gateway session,
  the one overlap allowed); the people there play on meanwhile.  The click made into the freeze
  fails for its person, and P1, on waking, must not apply it — a click answered as failed never
  takes effect later — nor reconnect shard 1 or send Discord anything at all;
* ``blip``: P1's gateway session for shard 1 drops and cannot be resumed (a network blip) and,
  while P1 reconnects, its lease session ends; S1 takes over, and P1 — which now waits as a
  standby — must never connect shard 1 again (discord.py's own reconnect would have).

Checked after both games: each stored log is numbered 1..n without a gap or a repeat and replays
to a finished game whose scores are the stored results; every move a person saw accepted is
exactly one logged move of their seat, and a click they saw fail is logged only if it was applied
before it failed (never later); no two gateway sessions were ever live on one shard, and a process
without shard 1's lease had no session on it; the closing checks of the restart tests (privacy,
every interaction answered within 3 s but those of the fault, no 429, no error logged).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import signal
import time
from functools import cache
from typing import Any

import pytest

from tables.history.records import rebuild
from tables.history.replay import GameRecord
from tables.shards import ELSEWHERE
from tables.table import LogEntry
from tests.e2e.conftest import MAX_EDITS_PER_5S, _settle, production_fake
from tests.fakediscord import check_privacy
from tests.fakediscord import payloads as P
from tests.fakediscord.botprocess import BotProcess
from tests.fakediscord.play import (
    _has_controls,
    _use_controls,
    accepted_moves,
    is_over,
    move_of,
    move_of_code,
    open_table,
    play_seat,
    table_id_of,
)
from tests.tables.stores import PostgresStore

SEED = 11
RUNTIME = {"ai_delay": 0.02}
FREEZE = 20.0  # seconds P1 is stopped (SIGSTOP .. SIGCONT)
# S1 must serve shard 1 within this of the freeze (the lease's term of 2.5 s, a poll, a recovery and
# an IDENTIFY): well before P1 wakes.
TAKEOVER_WITHIN = 15.0


def shard_config(shard: int) -> dict[str, Any]:
    return {"shard_count": 2, "shard_ids": [shard], "lease_poll": 0.1}


def stored_log(store: PostgresStore, tid: str) -> list[LogEntry]:
    return [LogEntry(seq, seat, code, at, bool(auto)) for seq, seat, code, at, auto in store.rows(
        "SELECT seq, seat, code, time, auto FROM actions WHERE table_id = ? ORDER BY seq", (tid,))]


async def version(store: PostgresStore, tid: str, at_least: int, timeout: float = 60.0) -> None:
    end = time.perf_counter() + timeout
    while store.rows("SELECT version FROM tables WHERE id = ?", (tid,))[0][0] < at_least:
        assert time.perf_counter() < end, f"table {tid} did not reach version {at_least}"
        await asyncio.sleep(0.01)


def end_lease_session(store: PostgresStore, shard: int) -> int:
    """End the database session holding ``shard``'s lease (as a broken network or an operator
    would); returns its backend pid."""
    [(namespace,)] = store.rows("SELECT hashtext('deckhand.shards:' || current_schema())")
    [(pid,)] = store.rows(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = ?::bigint::oid AND objid = ? "
        "AND objsubid = 2 AND mode = 'ExclusiveLock' AND granted", (namespace & 0xFFFFFFFF, shard))
    assert store.rows("SELECT pg_terminate_backend(?)", (pid,)) == [(True,)]
    return pid


def match_in_time(seat: int, clicks: list[tuple[tuple[str, tuple[str, ...]], float | None]],
                  logged: list[LogEntry]) -> None:
    """The seat's own logged moves are its clicks in order: each accepted one (``failed_at`` None)
    exactly, each failed one either not at all or — applied before the person saw it fail —
    logged no later than ``failed_at`` (a click answered as failed never takes effect later)."""
    moves = [(move_of_code(e.code), e.time) for e in logged]

    @cache
    def fits(c: int, i: int) -> bool:
        if c == len(clicks):
            return i == len(moves)
        move, failed_at = clicks[c]
        here = i < len(moves) and moves[i][0] == move
        if failed_at is not None:
            return fits(c + 1, i) or (here and moves[i][1] <= failed_at and fits(c + 1, i + 1))
        return here and fits(c + 1, i + 1)

    assert fits(0, 0), (f"seat {seat}: the logged moves are not the accepted clicks (and failed ones in time)\n"
                        f"clicks {clicks}\nlog {[(m, round(t, 2)) for m, t in moves]}")


def _versions(msg: Any) -> set[str]:
    """The table versions a hand view's move controls were drawn at (``dh:<kind>:<table>:<version>:...``)."""
    ids = [str(c.get("custom_id") or "") for c in P.walk_components(msg.components)]
    return {i.split(":")[3] for i in ids if re.match(r"dh:[asmpk]:", i)}


async def waiting_for_a_person(store: PostgresStore, tid: str, people: list[Any],
                               timeout: float = 60.0) -> tuple[Any, Any]:
    """Once the table waits for a person (its players held back), that person and their hand view
    offering the move.  Positive signals, not a quiet spell: every click of these people has been
    answered (none can still move the table), and a hand view offers a move drawn at the version
    the database holds (so it is that person's turn now, and the view is not a stale one)."""
    fd = people[0].fd
    ids = {p.id for p in people}

    def waiting() -> tuple[Any, Any] | None:
        if any(not i.done.is_set() for i in list(fd.interactions.values()) if i.user_id in ids):
            return None
        now = str(store.rows("SELECT version FROM tables WHERE id = ?", (tid,))[0][0])
        for p in people:
            for m in fd.visible_to(p.id):
                if m.ephemeral_to == p.id and _has_controls(m) and _versions(m) == {now}:
                    return p, m
        return None

    return await fd.wait_for(waiting, timeout, "the table to wait for a person")


@pytest.mark.parametrize("fault", ["kill", "freeze", "blip"])
async def test_shard_1_plays_on_through_a_fault_of_its_process(pg_server, fault: str) -> None:
    store = await PostgresStore(pg_server).create()
    fd = production_fake(shard_count=2)
    await fd.start()
    bots: list[BotProcess] = []
    try:
        guilds = {0: fd.add_guild("Zero", shard=0), 1: fd.add_guild("One", shard=1)}
        rooms = {k: fd.add_channel("cards", guild=g) for k, g in guilds.items()}
        people = {0: [fd.add_member("Ali"), fd.add_member("Bob")], 1: [fd.add_member("Cid"), fd.add_member("Dee")]}
        for k, pair in people.items():
            for p in pair:
                p.where = rooms[k]
        up = {0: asyncio.Event(), 1: asyncio.Event()}

        async def start(shard: int, wait: bool = True) -> BotProcess:
            bot = await BotProcess.start(fd, database=store.url, runtime=RUNTIME, seed=SEED,
                                         config=shard_config(shard), ready_timeout=60.0 if wait else None)
            bots.append(bot)
            return bot

        # Together, as a deployment starts them: they race to upload the card emoji, and a face
        # another process uploaded first is refused (Discord's 400) and taken as it is.
        p0, p1 = await asyncio.gather(start(0), start(1))
        up[0].set()
        up[1].set()
        s1 = await start(1, wait=False)
        await asyncio.sleep(1.0)  # ten lease polls: the standby must stay off the gateway
        assert s1.running and s1.ready_in is None and fd.identifies == 2

        # time.time() the fault began and P1 or S1 served shard 1 again: a click made around it may fail.
        fault_at = recovered = float("inf")

        def in_window(i: Any) -> bool:
            return fault_at - fd.answer_within <= i.created_wall <= recovered + fd.answer_within
        messages = {}
        for k, (host, guest) in people.items():
            # P1 wakes with the click made into the freeze queued: untimed, so no clock move makes it
            # stale first — only its age must keep it out.
            messages[k] = await open_table(host, [guest], options="target=1",
                                           speed="untimed" if fault == "freeze" else "blitz")
        tids = {k: table_id_of(m) for k, m in messages.items()}

        def seat_player(k: int, person: Any, n: int) -> Any:
            return play_seat(person, messages[k], rng=random.Random(SEED + n), ready=up[k].wait,
                             tolerate=lambda r: in_window(r.interaction),
                             open_with="mix", timeout=240)

        players = asyncio.gather(*(seat_player(k, p, 2 * k + i) for k, pair in people.items()
                                   for i, p in enumerate(pair)))
        await version(store, tids[1], 16)
        at_fault = store.rows("SELECT version FROM tables WHERE id = ?", (tids[1],))[0][0]
        probe: tuple[Any, Any] | None = None  # (person, reply) of the click made into the freeze
        lost_at: float | None = None  # time.time() P1 lost shard 1 (kill, blip)
        woke_at: float | None = None  # time.time() P1 was let run again (freeze)
        if fault == "kill":
            up[1].clear()
            fault_at = time.time()
            await p1.kill()
            lost_at = time.time()
            await s1.ready(timeout=60)
            up[1].set()
            holder = s1
        elif fault == "freeze":
            # Once shard 1's table waits for a person, P1 freezes and that person clicks their move:
            # it waits in P1's socket, unanswered, and fails; P1 wakes with it queued.  Meanwhile S1
            # takes the shard over and the people play on there.
            up[1].clear()
            who, view = await waiting_for_a_person(store, tids[1], people[1])
            fault_at = time.time()
            p1.proc.send_signal(signal.SIGSTOP)
            try:
                probe = (who, await _use_controls(who, view, random.Random(SEED)))
                assert probe[1].failed, f"a click P1 could not read was answered: {probe[1].text!r}"
                await s1.ready(timeout=max(0.0, fault_at + TAKEOVER_WITHIN - time.time()))
                recovered = time.time()
                up[1].set()
                await asyncio.sleep(max(0.0, fault_at + FREEZE - time.time()))
            finally:
                p1.proc.send_signal(signal.SIGCONT)
            woke_at = time.time()
            holder = s1
        else:
            up[1].clear()
            fault_at = time.time()
            await fd.drop_gateway(shard=1, invalidate=True)  # P1 must IDENTIFY again (after 5 s)
            end_lease_session(store, 1)  # ... and meanwhile its lease goes
            lost_at = time.time()
            await s1.ready(timeout=60)
            up[1].set()
            holder = s1
        if fault != "freeze":
            recovered = time.time()
        print(f"{fault}: shard 1 served again {recovered - fault_at:.2f} s after the fault "
              f"(at version {at_fault})")
        try:
            logs = await asyncio.wait_for(players, 300)
        except BaseException:
            for b in bots:  # what each process said, to explain a failed play
                print(f"--- {b.agent} (running: {b.running}):\n" + "\n".join(b.stderr[-15:]))
            raise
        for m in messages.values():
            await fd.wait_for(lambda m=m: is_over(fd, m), 20, "the finished table")
        assert p0.running and p1.running == (fault != "kill") and s1.running
        if woke_at is not None:
            # Let the woken P1 run a while: whatever it still meant to do, it must find its lease over first.
            await asyncio.sleep(3.0)
            # S1's IDENTIFY ended the frozen P1's session (it could not close it itself): the one overlap.
            taken = [o for o in fd.overlaps if re.search(rf"{p1.agent} then .*{s1.agent}\)$", o)]
            assert taken == fd.overlaps and len(taken) == 1, fd.overlaps
            # And P1 noticed, in words its operator reads.
            said = [e for e in p1.errors if "Lost the lease of shard 1" in e]
            assert said, p1.stderr[-20:]
            print(f"freeze: P1 on waking: {said[0]}")
        else:
            assert not fd.overlaps, fd.overlaps
        # Shard 1's one live session is its lease holder's; one that lost the lease opened none since.
        live = [c.agent.split()[-1] for c in list(fd._conns)
                if c.session is not None and c.session.shard == 1 and not c.ws.closed]
        assert live == [holder.agent], (live, holder.agent)
        if lost_at is not None:
            stale = [e for e in fd.session_log if e[2] == 1 and e[4].split()[-1] == p1.agent and e[0] >= fault_at]
            assert not stale, f"P1 connected shard 1 after losing its lease: {stale}"
            # Nor did it post or edit anything later (a ping or a redraw it had not made yet would
            # be stale: the table moves on elsewhere); a second's grace for what was under way.
            after = [(round(r.wall - lost_at, 2), r.route) for r in fd.requests
                     if r.agent.split()[-1:] == [p1.agent] and r.wall > lost_at + 1.0]
            assert not after, f"P1 still spoke for shard 1 after losing it (s after the loss, route): {after}"
        if woke_at is not None:
            # Woken, P1 found its lease's term over before anything else: no gateway session, and not
            # one request (no grace: it was frozen, nothing of it was under way).
            stale = [e for e in fd.session_log if e[2] == 1 and e[4].split()[-1] == p1.agent and e[0] >= fault_at]
            assert not stale, f"P1 connected shard 1 after the freeze: {stale}"
            after = [(round(r.wall - woke_at, 2), r.route) for r in fd.requests
                     if r.agent.split()[-1:] == [p1.agent] and r.wall >= fault_at]
            assert not after, f"P1 spoke to Discord after the freeze (s after waking, route): {after}"
        # Nobody was told their server's games run elsewhere: a process without the lease never
        # heard a click of shard 1 (the issue: P1 reconnected and refused ~1,400 clicks a minute).
        elsewhere = [r.interaction.label for seat_log in logs for r in seat_log.replies if r.text == ELSEWHERE]
        assert not elsewhere, f"clicks answered by a process without their shard: {elsewhere}"
        failed_moves = 0
        for k, tid in tids.items():
            log = stored_log(store, tid)
            [row] = store.dicts("SELECT * FROM tables WHERE id = ?", (tid,))
            assert row["phase"] == "finished" and row["broken"] is None
            assert [e.seq for e in log] == list(range(1, len(log) + 1)) and row["version"] == len(log)
            state, _ = GameRecord.of_stored(row, log).replay()
            assert state.is_over
            outcome = state.outcome()
            results = dict(store.rows("SELECT user_id, score FROM results WHERE table_id = ?", (tid,)))
            assert results == {people[k][0].id: outcome.scores[0], people[k][1].id: outcome.scores[1]}
            for seat, name in enumerate(p.name for p in people[k]):
                shown = re.search(rf"{re.escape(name)}\**\s*— (-?\d+)", messages[k].text)
                assert shown is not None and int(shown.group(1)) == outcome.scores[seat]
            for seat in (0, 1):
                seat_log = logs[2 * k + seat]
                if probe is not None and probe[0] is people[k][seat]:  # the test's own click, in its place
                    seat_log.replies = sorted([*seat_log.replies, probe[1]], key=lambda r: r.interaction.created)
                mine = [e for e in log if e.seat == seat and not e.auto]
                assert len(accepted_moves(seat_log)) <= len(mine)
                clicks = []
                for r in seat_log.replies:
                    move = move_of(r)
                    if move is None:
                        continue
                    if r.failed:
                        clicks.append((move, r.interaction.created_wall + fd.answer_within))
                    elif r.text.startswith("✅") and r.interaction.callback_type == P.UPDATE_MESSAGE:
                        clicks.append((move, None))
                match_in_time(seat, clicks, mine)
                failed_moves += sum(1 for _, failed_at in clicks if failed_at is not None)
        assert store.rows("SELECT version FROM tables WHERE id = ?", (tids[1],))[0][0] > at_fault
        print(f"{fault}: {failed_moves} move click(s) failed")

        await fd.wait_for(lambda: all(i.done.is_set() for i in fd.interactions.values()), fd.answer_within + 1,
                          "every interaction answered or failed")
        for bot in (p0, p1, s1):
            await bot.stop()
        await _settle(fd)  # stopped bots send nothing more: what they sent lands
        tables = []
        for tid in tids.values():
            [row] = store.dicts("SELECT * FROM tables WHERE id = ?", (tid,))
            tables.append(rebuild(row, stored_log(store, tid))[0])
        leaks = check_privacy(fd, tables)
        assert not leaks, "hidden cards were visible:\n" + "\n".join(leaks[:10])
        in_fault = {i.id for i in fd.interactions.values() if in_window(i)}
        failed = [f"{i.label}: {i.failed}" for i in fd.interactions.values() if i.failed and i.id not in in_fault]
        assert not failed, f"interactions failed with a bot up: {failed}"
        fd.assert_clean(allow=("an emoji with this name already exists", "not answered within",
                               "answered after"))
        slow = [(i.label, round(i.answered_in, 3)) for i in fd.interactions.values()
                if i.answered_in is not None and i.answered_in >= fd.answer_within and i.id not in in_fault]
        assert not slow, f"interactions answered after 3 s: {slow}"
        assert not fd.ratelimited, f"the bot provoked 429s: {fd.ratelimited}"
        # The pace of shard 1's messages through the fault (a woken or new holder catching up, a
        # former one's late redraws).  Shard 0's steady one-a-second redraws are the pace tests'
        # business: at exactly that rate, a sixth edit can land 4.99 s after a first.
        for m in fd.messages.values():
            if fd.guild_of(fd.channels[m.channel_id]) != guilds[1]:
                continue
            times = [v.at for v in m.versions if v.source == "edit"]
            most = max((sum(1 for u in times if t <= u < t + 5.0) for t in times), default=0)
            assert most <= MAX_EDITS_PER_5S, (
                f"message {m.id} was edited {most} times within 5 s, at (s from the fault's end) "
                f"{[round(t - recovered, 2) for t in times]}")
        # What the operator reads: P1's loss of shard 1 (blip), nothing else went wrong.
        allowed = r"Lost the lease of shard 1|Shard 1: lease lost" if fault != "kill" else r"^$"
        errors = [e for b in bots for e in b.errors if not re.search(allowed, e)]
        told = [b.stderr[i:i + 25] for b in bots for i, line in enumerate(b.stderr)
                if line.startswith("bot ERROR") and not re.search(allowed, line)]
        assert not errors, "the bot logged errors:\n" + "\n".join("\n".join(t) for t in told[:3])
    finally:
        for bot in bots:
            if bot.running:
                with contextlib.suppress(ProcessLookupError):
                    bot.proc.send_signal(signal.SIGCONT)
                await bot.kill()
        await fd.close()
        await store.cleanup()
