"""Shard processes on one PostgreSQL, through the fake Discord's sharded gateway: P0 runs shard 0,
P1 shard 1, and S1 — configured for shard 1 too — stands by (storage open, nothing connected).
People play a table in a guild of each shard; P1 is killed (``kill -9``) mid-game; S1 takes the
lease, recovers shard 1's tables, connects shard 1, and the people there play on.

Checked after both games: each stored log is numbered 1..n without a gap or a repeat and replays
to a finished game whose scores are the stored results; every move a person saw accepted is
exactly one logged action of their seat (a click the killed process never answered at most
once); no two gateway sessions were ever live on one shard; the closing checks of the restart
tests (privacy, every interaction answered within 3 s but the lost ones, no 429, no error logged).
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from typing import Any

from tables.records import rebuild
from tables.replay import GameRecord
from tables.table import LogEntry
from tests.e2e.conftest import FAST_LIMITS, _check_pace, _settle
from tests.e2e.test_restart import _match
from tests.fakediscord import FakeDiscord, check_privacy
from tests.fakediscord import payloads as P
from tests.fakediscord.botprocess import BotProcess
from tests.fakediscord.play import accepted_moves, is_over, move_of_code, open_table, play_seat, table_id_of
from tests.tables.stores import PostgresStore

SEED = 11
RUNTIME = {"ai_delay": 0.02}


def shard_config(shard: int) -> dict[str, Any]:
    return {"shard_count": 2, "shard_ids": [shard], "lease_poll": 0.1}


def stored_log(store: PostgresStore, tid: str) -> list[LogEntry]:
    return [LogEntry(seq, seat, code, at, bool(auto)) for seq, seat, code, at, auto in store.rows(
        "SELECT seq, seat, code, time, auto FROM actions WHERE table_id = ? ORDER BY seq", (tid,))]


async def version(store: PostgresStore, tid: str, at_least: int, timeout: float = 30.0) -> None:
    end = time.perf_counter() + timeout
    while store.rows("SELECT version FROM tables WHERE id = ?", (tid,))[0][0] < at_least:
        assert time.perf_counter() < end, f"table {tid} did not reach version {at_least}"
        await asyncio.sleep(0.01)


async def test_a_standby_takes_over_a_killed_shard_process(pg_server) -> None:
    store = await PostgresStore(pg_server).create()
    fd = FakeDiscord(shard_count=2, ratelimit_scale=FAST_LIMITS)
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
                                         config=shard_config(shard), ready_timeout=30.0 if wait else None)
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

        lost: set[int] = set()
        messages = {}
        for k, (host, guest) in people.items():
            messages[k] = await open_table(host, [guest], options="target=1", speed="blitz")
        tids = {k: table_id_of(m) for k, m in messages.items()}

        def seat_player(k: int, person: Any, n: int) -> Any:
            return play_seat(person, messages[k], rng=random.Random(SEED + n), ready=up[k].wait,
                             tolerate=lambda r: r.interaction.id in lost, open_with="mix", timeout=90)

        players = asyncio.gather(*(seat_player(k, p, 2 * k + i) for k, pair in people.items()
                                   for i, p in enumerate(pair)))
        await version(store, tids[1], 16)
        at_kill = store.rows("SELECT version FROM tables WHERE id = ?", (tids[1],))[0][0]
        up[1].clear()
        await p1.kill()
        await asyncio.sleep(0.05)
        lost.update(i.id for i in fd.interactions.values() if i.callback_at is None and i.failed is None)
        killed, killed_at = time.perf_counter(), time.time()
        await s1.ready(timeout=30)
        up[1].set()
        print(f"shard 1 taken over {time.perf_counter() - killed:.2f} s after the kill (at version {at_kill})")
        logs = await asyncio.wait_for(players, 120)
        for m in messages.values():
            await fd.wait_for(lambda m=m: is_over(fd, m), 10, "the finished table")
        assert p0.running and s1.running

        assert not fd.overlaps, fd.overlaps
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
                mine = [move_of_code(e.code) for e in log if e.seat == seat]
                seen = accepted_moves(seat_log)
                gone = {r.interaction.id for r in seat_log.lost}
                assert len(seen) <= len(mine) <= len(seen) + len(gone)
                clicks = [(r, r.interaction.id in gone) for r in seat_log.replies
                          if r.interaction.id in gone or (not r.failed and r.text.startswith("✅")
                                                          and r.interaction.callback_type == P.UPDATE_MESSAGE)]
                _match(seat, clicks, mine)
        assert store.rows("SELECT version FROM tables WHERE id = ?", (tids[1],))[0][0] > at_kill

        await _settle(fd)
        lost_ones = [fd.interactions[i] for i in lost]
        await fd.wait_for(lambda: all(i.done.is_set() for i in lost_ones), fd.answer_within + 1, "the lost ones")
        for bot in (p0, s1):
            await bot.stop()
        tables = []
        for tid in tids.values():
            [row] = store.dicts("SELECT * FROM tables WHERE id = ?", (tid,))
            tables.append(rebuild(row, stored_log(store, tid))[0])
        leaks = check_privacy(fd, tables)
        assert not leaks, "hidden cards were visible:\n" + "\n".join(leaks[:10])
        failed = [f"{i.label}: {i.failed}" for i in fd.interactions.values() if i.failed and i.id not in lost]
        assert not failed, f"interactions failed with a bot up: {failed}"
        fd.assert_clean(allow=("an emoji with this name already exists", *(["not answered within"] if lost else [])))
        edits, which = fd.edits_per_window(5.0)
        if which is not None and edits > 5:  # say which table's message, and when, relative to the kill
            shard = [k for k, m in messages.items() if m.id == which]
            print(f"message {which} (shard {shard}): edits at",
                  [round(v.at - killed_at, 2) for v in fd.messages[which].versions if v.source == "edit"])
        _check_pace(fd, [e for b in bots for e in b.errors])
    finally:
        for bot in bots:
            if bot.running:
                await bot.kill()
        await fd.close()
        await store.cleanup()
