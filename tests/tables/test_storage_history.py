"""History and retention: a finished game's record, its JSON export replaying to the same result
(``python -m tables.history.replay``), ``/game replay``, pruning old tables, and lobbies that expire."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cogs.table.game import GameCog
from tables import Phase, TableError
from tables.history.replay import GameRecord, main
from tests.cogs.fakes import FakeBot, FakeInteraction, FakeUser, World

from .conftest import GUILD, HOST, new_table, run_until, started
from .stores import StoredClock
from .test_stats import BOB, finished_game
from .test_storage import LATEST, db

ROOT = Path(__file__).resolve().parents[2]
DAY = 86400.0


@pytest.fixture
def clock() -> StoredClock:
    return StoredClock()


def export(record: GameRecord, path: Path) -> Path:
    path.write_text(json.dumps(record.to_json()))
    return path


async def test_the_export_replays_to_the_same_result(make_runtime, clock, tmp_path, capsys):
    rt = make_runtime(storage=await db(tmp_path / "d.db"))
    t = await finished_game(rt, clock, options={"target": 30})
    record = await rt.history(t.id, GUILD)
    data = record.to_json()
    assert data["seed"] == t.seed and len(data["actions"]) == t.version
    assert data["result"]["scores"] == list(t.state.outcome().scores)
    assert [s["name"] for s in data["seats"]] == t.names() and "user_id" not in json.dumps(data["seats"])
    file = export(record, tmp_path / "game.json")
    assert main([str(file)]) == 0
    out = capsys.readouterr().out
    assert "Hand 1" in out and "The replay gives the recorded result." in out
    assert out.count("Hand ") == t.state.hand_no + 1
    # A file whose recorded result was changed does not match ...
    data["result"]["scores"][0] += 1
    (tmp_path / "bad.json").write_text(json.dumps(data))
    assert main([str(tmp_path / "bad.json")]) == 1
    # ... and one that is not a Deckhand file, or whose log was tampered with, does not replay.
    (tmp_path / "junk.json").write_text("{}")
    assert main([str(tmp_path / "junk.json")]) == 2
    data["actions"][5][2] = "play ZZ"
    (tmp_path / "tampered.json").write_text(json.dumps(data))
    assert main([str(tmp_path / "tampered.json")]) == 2


async def test_python_dash_m_tables_replay(make_runtime, clock, tmp_path):
    rt = make_runtime(storage=await db(tmp_path / "d.db"))
    t = await finished_game(rt, clock)
    file = export(await rt.history(t.id), tmp_path / "g.json")
    done = subprocess.run([sys.executable, "-m", "tables.history.replay", str(file), "--quiet"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "recorded result" in done.stdout
    winner = t.names()[t.state.outcome().winners[0]]
    assert f"1. {winner}" in done.stdout


async def test_history_comes_from_the_storage_once_the_table_left_memory(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    t = await finished_game(rt, clock)
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    record = await rt2.history(t.id.lower(), GUILD)
    assert record.finished and record.log == t.log and record.names == t.names()
    state, _ = record.replay()
    assert state.to_dict() == t.state.to_dict()
    with pytest.raises(TableError):
        await rt2.history(t.id, GUILD + 1)  # another server's game
    with pytest.raises(TableError):
        await rt2.history("ZZZZZZ", GUILD)


async def test_game_replay_command(make_runtime, clock, tmp_path):
    rt = make_runtime(storage=await db(tmp_path / "d.db"))
    w = World()
    w.runtime = rt
    bot = FakeBot(w)
    cog = GameCog(rt)
    channel = w.channel("cards")
    ann = FakeUser(HOST, "Ann")
    t = await finished_game(rt, clock, options={"target": 30})
    i = FakeInteraction(w, bot, ann, channel, guild_id=GUILD)
    await cog.game_replay.callback(cog, i, t.id)
    msg = i.replies[0]  # the recap; then the step-through viewer (cogs/replay/view.py)
    viewer = i.replies[-1]
    if cog.replays is not None:
        cog.replays.close()
    assert viewer is not msg and viewer.ephemeral and viewer.embed.description.startswith("**Step 1 of ")
    assert msg.ephemeral and f"table {t.id}" in msg.embed.title
    assert "Final standings" in msg.embed.description and "Hand 1" in msg.embed.description
    # The standings in the shape the table showed them: a medal per place, scores with their unit.
    assert "🥇 " in msg.embed.description and " points\n" in msg.embed.description
    assert str(t.seed) in msg.embed.footer.text
    # A game still in play has no replay: its log would show the hands.
    running = await started(rt, host=BOB)
    j = FakeInteraction(w, bot, FakeUser(BOB, "Bob"), channel, guild_id=GUILD)
    await cog.game_replay.callback(cog, j, running.id)
    assert j.last.ephemeral and "still open" in j.last.content
    assert not w.violations


async def test_the_replay_marks_who_asked_for_hints_as_the_table_did(make_runtime, clock, store):
    from cogs.table.answers import replay_standings
    from tables.history.records import record_of

    rt = make_runtime(storage=await store.open())
    t = await finished_game(rt, clock)
    t.seats[1].hints = 2  # as tables.ai.hints counts them (stored with the seats)
    outcome = t.state.outcome()
    for record in (GameRecord.of_table(t), GameRecord.of_stored(record_of(t), t.log),
                   GameRecord.from_json(GameRecord.of_table(t).to_json())):
        assert record.hints[:2] == [0, 2] and record.hint_count(1) == 2
        lines = replay_standings(record, outcome)
        (marked,) = [line for line in lines if "💡" in line]
        assert marked.startswith(tuple("🥇🥈🥉"))
        assert t.names()[1] in marked and marked.endswith(" · 💡 2 hints")
    # Files and rows from before hints: none counted.
    data = GameRecord.of_table(t).to_json()
    assert "hints" in data["seats"][1] and "hints" not in data["seats"][0]
    for seat in data["seats"]:
        seat.pop("hints", None)
    old = GameRecord.from_json(data)
    assert old.hint_count(1) == 0 and not any("💡" in line for line in replay_standings(old, outcome))


async def test_old_finished_tables_are_pruned_but_results_stay(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open(), retention=30 * DAY, prune_every=DAY)
    old = await finished_game(rt, clock)
    lobby = await new_table(rt, host=BOB)  # expires after 30 minutes: finished, ended early
    await clock.advance(20 * DAY)
    recent = await finished_game(rt, clock)
    running = await started(rt, host=HOST + 5)
    await rt.recover()  # starts the housekeeping; nothing to restore in this process
    await clock.advance(11 * DAY)  # the daily pruning has run since `old` turned 30 days old
    tables = {r[0] for r in store.rows("SELECT id FROM tables")}
    assert old.id not in tables and lobby.id not in tables
    assert {recent.id, running.id} <= tables
    assert store.rows("SELECT COUNT(*) FROM actions WHERE table_id = ?", (old.id,)) == [(0,)]
    assert store.rows("SELECT COUNT(*) FROM results WHERE table_id = ?", (old.id,)) != [(0,)]
    assert old.id not in rt.tables  # gone from memory as well


async def test_without_retention_nothing_is_pruned(make_runtime, clock, store):
    rt = make_runtime(storage=await store.open())
    old = await finished_game(rt, clock)
    await clock.advance(400 * DAY)
    assert await rt.prune_storage() == 0
    assert store.rows("SELECT id FROM tables") == [(old.id,)]


async def test_a_lobby_nobody_starts_expires_after_30_minutes(rt, clock, listener):
    t = await new_table(rt)
    await clock.advance(29 * 60)
    assert t.phase == Phase.LOBBY
    await clock.advance(61)
    assert t.phase == Phase.FINISHED and t.ended_early and t.state is None
    assert (t.id, []) in listener.summaries  # the lobby message says it closed
    assert listener.redraws[-1][1:] == (t.id, 0, Phase.FINISHED)
    # The host is free to open another table.
    await new_table(rt)


async def test_a_started_lobby_does_not_expire(rt, clock):
    t = await started(rt)
    await rt.leave(t.id, HOST)
    await run_until(clock, lambda: t.phase == Phase.FINISHED, step=60)
    assert not t.ended_early


async def _a_game_with_a_timeout(rt, clock):
    """A one-hand game where the host's time runs out once (the clock moves for them) and they
    play every other decision themselves."""
    t = await new_table(rt, options={"rules": "mcgill", "target": 1})
    await rt.start(t.id, HOST)
    await run_until(clock, lambda: any(e.timeout for e in t.log))
    for _ in range(2000):
        if t.phase == Phase.FINISHED:
            return t
        d = t.state.decision(0) if 0 in t.to_act() else None
        if d is not None:
            await rt.act(t.id, HOST, d.actions[-1])
        else:
            await clock.advance(1.0)
    raise AssertionError("the game never ended")


async def test_a_timeout_read_back_from_the_storage_reviews_and_replays_as_live(make_runtime, clock, store):
    from cogs.replay.view import Meta, meta_of, step_words, timeout_line
    from engine.review import MADE_FOR_YOU, TIMEOUT, review
    from tables.ai.reviews import summary
    from tables.history.replay_steps import steps

    rt = make_runtime(storage=await store.open())
    t = await _a_game_with_a_timeout(rt, clock)
    live = await rt.history(t.id, GUILD)
    timed = [i for i, e in enumerate(live.log) if e.timeout]
    assert timed and all(live.log[i].seat == 0 and live.log[i].auto for i in timed)
    await rt.close()
    assert store.rows("SELECT seq FROM actions WHERE timed_out = 1 ORDER BY seq") == [(i + 1,) for i in timed]

    # Another process, the table no longer in memory: the same log, flags and all.
    rt2 = make_runtime(storage=await store.open())
    stored = await rt2.history(t.id, GUILD)
    assert stored.log == live.log and [e.timeout for e in stored.log] == [e.timeout for e in live.log]

    def reviewed(record):
        actions = [[e.seat, e.code, e.auto, e.timeout] for e in record.log]
        made = [i for i, a in enumerate(actions) if a[0] == 0 and a[2]]  # no search: only the marks
        r = review(record.game, record.players, record.options, record.seed, actions, 0, "s", steps=made)
        return {d.step: d.mark for d in r.decisions}, summary(record, r)

    (live_marks, live_words), (stored_marks, stored_words) = reviewed(live), reviewed(stored)
    assert stored_marks == live_marks and {live_marks[i] for i in timed} == {TIMEOUT}
    assert MADE_FOR_YOU not in stored_marks.values()
    assert stored_words == live_words
    assert f"{len(timed)} move{' was' if len(timed) == 1 else 's were'} made for you when your time ran out" \
        in "\n".join(stored_words)

    def lines(record):
        got = steps(record, step_words(record))
        meta = meta_of(record, len(got)).to_json()
        return [(s["words"], timeout_line(s, meta)) for s in got], Meta.from_json(meta)

    (live_lines, _), (stored_lines, _) = lines(live), lines(stored)
    assert stored_lines == live_lines
    said = [i for i, (_, line) in enumerate(stored_lines) if line]
    assert said == [i + 1 for i in timed] and "time ran out" in stored_lines[said[0]][1]
    # The exported file keeps the mark too.
    assert GameRecord.from_json(json.loads(json.dumps(stored.to_json()))).log == stored.log
    await rt2.close()


async def test_a_log_stored_before_timeouts_were_stored_still_loads(make_runtime, clock, store):
    from tables.history.records import record_of

    # Rows as a version before migration 8 wrote them (no timed_out column), the game played
    # without a storage and copied in by hand.
    rt = make_runtime()
    t = await started(rt, options={"rules": "mcgill", "target": 1})
    await run_until(clock, lambda: len(t.log) > 3)
    old = await store.open(upto=7)
    # (nor a `locale`: migration 11, nor a `place`: migration 12, …)
    later = ("locale", "place", "house", "ranked", "play_ahead")
    await old.insert_table({**{k: v for k, v in record_of(t).items() if k not in later}, "version": t.version})
    await old.close()
    for e in t.log:
        store.execute("INSERT INTO actions (table_id, seq, seat, code, time, auto) VALUES (?, ?, ?, ?, ?, ?)",
                      (t.id, e.seq, e.seat, e.code, float(e.time), int(e.auto)))
    storage = await store.open()  # migrates to the latest
    try:
        assert store.rows("SELECT MAX(version) FROM schema_version") == [(LATEST,)]
        loaded = await storage.load(t.id)
        assert loaded is not None and [(e.seq, e.seat, e.code) for e in loaded.log] == \
            [(e.seq, e.seat, e.code) for e in t.log]
        assert not any(e.timeout for e in loaded.log)
    finally:
        await storage.close()
    await rt.close()


async def test_the_recap_says_whose_time_ran_out_in_each_hand(make_runtime, clock):
    from tables.history.replay import recap

    rt = make_runtime()
    t = await finished_game(rt, clock, options={"target": 30})
    record = GameRecord.of_table(t)
    plain = recap(record)
    assert len(plain) >= 2 and not any("⏰" in line for line in plain)  # no move made by the clock: no mark
    # The clock moved twice for seat 0 early in the first hand and once for the last mover at the end.
    log = list(record.log)
    early = [i for i, e in enumerate(log) if e.seat == 0][:2]
    for i in (*early, len(log) - 1):
        log[i] = log[i]._replace(timeout=True)
    marked = dataclasses.replace(record, log=log)
    lines = recap(marked)
    last = record.names[log[-1].seat]
    assert lines == [plain[0], f"⏰ {record.names[0]}'s time ran out 2 times — the moves were made for them.",
                     *plain[1:], f"⏰ {last}'s time ran out — the move was made for them."]
    assert not any(code in "\n".join(lines) for code in ("seat", "timeout", "auto"))  # plain words only


async def test_a_stored_timeout_is_marked_in_the_replay_recap(make_runtime, clock, store, tmp_path, capsys):
    from tables.history.replay import recap

    rt = make_runtime(storage=await store.open())
    t = await _a_game_with_a_timeout(rt, clock)
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    stored = await rt2.history(t.id, GUILD)  # read back from the storage, as /game replay reads it
    timed = [e for e in stored.log if e.timeout]
    assert timed and {e.seat for e in timed} == {0}
    name = stored.names[0]
    said = (f"⏰ {name}'s time ran out — the move was made for them." if len(timed) == 1
            else f"⏰ {name}'s time ran out {len(timed)} times — the moves were made for them.")
    lines = recap(stored)
    assert lines[0].startswith("Hand 1") and lines[1] == said
    # The exported file replays with the same mark (python -m tables.history.replay).
    assert main([str(export(stored, tmp_path / "g.json"))]) == 0
    assert said in capsys.readouterr().out
    await rt2.close()
