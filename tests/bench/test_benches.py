"""Every bench still runs and prints the figures its issue names (``--json`` keys).

Smallest settings, and no figure is compared with a target here: speed is the benches' business
(run them on a quiet machine), never a test's.  What a test can check is that a refactor did not
leave a bench broken or silently measuring nothing."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import engine
from cogs.pictures.faces import face_codes

ROOT = Path(__file__).resolve().parents[2]


def run_bench(name: str, *args: str, timeout: float = 120.0) -> dict:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / name), "--json", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def positive(value: object) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def test_engine_bench_measures_every_game() -> None:
    figures = run_bench("engine.py", "--seconds", "0.02")
    import engine

    assert set(engine.games()) <= set(figures)
    for game, f in figures.items():
        assert positive(f["games_per_s"]) and positive(f["ai_decisions_per_s"]), (game, f)
        # (not p99.9 >= mean: one long pause of a shared machine can lift the mean above p99.9)
        assert f["ai_ms_max"] >= f["ai_ms_p999"] > 0 and f["ai_ms_max"] >= f["ai_ms_mean"] > 0, (game, f)
        assert positive(f["copy_us"]) and positive(f["roundtrip_us"]), (game, f)
    assert positive(figures["siege"]["turns_per_s"])
    # Each game's build as the engine loaded it (only a game whose package declares COMPILED can be
    # compiled; the label once said "compiled" for every game).
    from tools import native

    for game, f in figures.items():
        if game in engine.games():
            module = engine.get(game).game.__module__
            assert f["engine_build"] == ("compiled" if native.is_compiled(module) else "pure"), (game, f)
    assert "pure" in {f["engine_build"] for g, f in figures.items() if g in engine.games()}


def test_storage_bench_commits_recovers_and_weighs_tables(tmp_path: Path) -> None:
    f = run_bench("storage.py", "--tables", "20", "--actions", "200", "--dir", str(tmp_path))
    assert positive(f["actions_per_s"]) and positive(f["kib_per_table"])
    recover = [k for k in f if k.startswith("recover_") and k.endswith("_tables_s")]
    assert recover and all(positive(f[k]) for k in recover)
    assert f["tables_restored"] == 20 and f["database"] == "sqlite"


def test_storage_bench_on_postgresql(pg_server: str) -> None:
    f = run_bench("storage.py", "--tables", "20", "--actions", "200", "--database-url", pg_server)
    assert f["database"] == "postgresql" and f["tables_restored"] == 20
    assert positive(f["actions_per_s"]) and positive(f["actions_per_s_full"]) and positive(f["runtime_actions_per_s"])
    assert positive(f["recover_20_tables_s"])
    # 20 tables' memory is within the noise of RSS after asyncpg's own allocations (it came out
    # negative once): a figure, not necessarily above zero at this size.
    assert isinstance(f["kib_per_table"], float) and math.isfinite(f["kib_per_table"])


def test_arena_bench_plays_hands_with_a_program() -> None:
    f = run_bench("arena.py", "--target", "30", "--rounds", "1")
    assert positive(f["hands_per_s"]) and f["hands"] > 0 and f["bad_cards"] == 0


def test_programs_bench_measures_the_bot_against_flooding_programs() -> None:
    f = run_bench("programs.py", "--seconds", "1", "--timeout", "10")
    assert set(f) == {"no_newline", "lines", "client"}
    for name, r in f.items():
        assert isinstance(r["bot_cpu_s"], float) and r["bot_cpu_s"] >= 0 and r["answers"] > 0, (name, r)
    # A line that never ends loses every query at once; chatter and the client answer with lines.
    assert f["no_newline"]["problems"] == {"too long": f["no_newline"]["answers"]}
    assert f["lines"]["problems"] == {"line": f["lines"]["answers"]}
    assert f["client"]["problems"] == {"line": f["client"]["answers"]}


def test_discord_bench_plays_tables_through_the_real_bot() -> None:
    f = run_bench("discord.py", "--tables", "2", "--think", "0.02", "--ai-delay", "0", "--stagger", "0.2",
                  "--watchers", "0.5")
    # The production setting by default: a SQLite database, Discord's global limit and real windows.
    assert f["database"] == "sqlite" and f["global_limit"] == 50 and f["ratelimit_scale"] == 1.0
    assert f["tables"] == 2 and f["hands"] == 2 and f["problems"] == [] and f["provoked_429"] == 0
    # Someone watched one of the two tables to its end, through their interaction's token.
    assert f["watched_tables"] == 1 and f["watched_to_the_end"] == 1 and positive(f["watcher_edits_per_hand"])
    assert positive(f["interaction_p50_ms"]) and f["interaction_p99_ms"] >= f["interaction_p50_ms"]
    assert positive(f["rest_calls_per_hand"]) and f["max_edits_per_message_5s"] >= 1
    # People open their hand once and click; the bot keeps their views current through tokens.
    assert positive(f["interactions_per_person_move"]) and positive(f["live_view_edits_per_hand"])
    assert 0 < f["non_interaction_rest_calls_per_hand"] <= f["rest_calls_per_hand"]
    # The table message: the lobby, the phases and the end at least; people with live views are not pinged.
    assert f["public_edits_per_hand"] >= 3 and f["turn_pings_per_hand"] == 0
    # How late the table message showed the plays: every play measured (the finished table at least).
    assert f["public_lag_s_p99"] >= f["public_lag_s_p50"] >= 0 and 0 <= f["public_plays_shown"] <= 1
    assert positive(f["bot_cpu_percent"]) and len(f["load_average"]) == 3
    # A first start uploads every card face after one list call; a second, nothing changed, only lists.
    assert f["startup_emoji_calls"] == {"first": {"list": 1, "upload": len(face_codes()), "delete": 0},
                                        "second": {"list": 1, "upload": 0, "delete": 0}}, f["startup_emoji_calls"]


async def test_discord_bench_runs_the_bot_as_two_shard_processes_on_postgresql(pg_server: str) -> None:
    from tables.shards import shard_of
    from tests.tables.stores import PostgresStore

    store = await PostgresStore(pg_server).create()
    try:
        f = run_bench("discord.py", "--processes", "2", "--database-url", store.url, "--tables", "4", "--think",
                      "0.02", "--ai-delay", "0", "--stagger", "0.2", "--ratelimit-scale", "0.05", timeout=240)
        assert f["processes"] == 2 and f["tables"] == 4 and f["hands"] == 4
        assert f["problems"] == [] and f["provoked_429"] == 0
        assert len(f["bot_cpu_percent_by_process"]) == 2 and all(positive(c) for c in f["bot_cpu_percent_by_process"])
        assert f["bot_cpu_percent"] >= max(f["bot_cpu_percent_by_process"])
        # How late the table message showed the plays: read from each process's play log (issue 25).
        assert f["public_lag_s_p99"] >= f["public_lag_s_p50"] >= 0 and 0 <= f["public_plays_shown"] <= 1
        # The first process uploads the faces, the second finds them; a second start only lists.
        assert f["startup_emoji_calls"] == {"first": {"list": 2, "upload": len(face_codes()), "delete": 0},
                                            "second": {"list": 2, "upload": 0, "delete": 0}}, f["startup_emoji_calls"]
        # The tables were spread over both shards, and each ran to its end in the shared database.
        rows = store.rows("SELECT guild_id, phase FROM tables")
        assert sorted(shard_of(g, 2) for g, _ in rows) == [0, 0, 1, 1] and {p for _, p in rows} == {"finished"}
    finally:
        await store.cleanup()

def test_ai_bench_plays_strong_against_normal_in_every_seat() -> None:
    f = run_bench("ai.py", "--hands", "4", "--playouts", "8", "--games", "hearts,tricks,koth", timeout=300)
    for game in ("hearts", "tricks", "koth"):
        r = f[game]
        assert r["hands"] >= 4 and r["decisions"] > 0 and math.isfinite(r["strong_minus_normal"]), (game, r)
        assert r["strong_ms_p99"] >= r["strong_ms_p50"] > 0, (game, r)


def test_ai_bench_counts_shortlists_and_fallbacks() -> None:
    # Deal 10,000 of King of the Hill has follows of a pair lead with more than 24 plays.
    f = run_bench("ai.py", "--hands", "5", "--playouts", "8", "--games", "koth", "--per-deal", timeout=300)["koth"]
    assert f["max_candidates"] == 24 and f["shortlisted"] > 0 and f["fallbacks"] == 0, f
    assert f["budget_s"] is None and len(f["per_deal"]) == f["deals"] == 1, f
    # A budget of 10 ms of CPU is less than one world of a lead (~25 playouts of ~5 ms): fallbacks.
    f = run_bench("ai.py", "--hands", "5", "--budget", "0.01", "--max-candidates", "0", "--games", "koth",
                  timeout=300)["koth"]
    assert f["budget_s"] == 0.01 and f["max_candidates"] == 0 and f["shortlisted"] == 0, f
    assert 0 < f["fallbacks"] <= f["decisions"] and "per_deal" not in f, f


def test_ai_bench_tries_search_for_dalmuti_and_siege_too() -> None:
    # Their strong level is registered only once this bench measures a gain: the figures say which.
    f = run_bench("ai.py", "--hands", "4", "--playouts", "4", "--games", "dalmuti,siege", timeout=300)
    for game in ("dalmuti", "siege"):
        r = f[game]
        assert r["hands"] >= 4 and r["decisions"] > 0 and math.isfinite(r["strong_minus_normal"]), (game, r)
        assert r["registered"] == ("strong" in engine.levels(game)), (game, r)


def test_ai_bench_says_which_way_is_better_for_every_strong_game() -> None:
    # Hearts counts points taken (fewer is better): "better by" turns strong − normal round there
    # and only there, and says whether the interval excludes zero in the good direction.
    sys.path.insert(0, str(ROOT))
    from bench.ai import strong_games

    assert strong_games() == [g for g in engine.games() if "strong" in engine.levels(g)]
    f = run_bench("ai.py", "--hands", "8", "--playouts", "4", "--games", "hearts,tricks", timeout=300)
    for game, better in (("hearts", "lower"), ("tricks", "higher")):
        r = f[game]
        sign = -1 if better == "lower" else 1
        assert r["better"] == better and r["better_by"] == sign * r["strong_minus_normal"], (game, r)
        assert r["clear"] == (r["better_by"] - r["ci95"] > 0), (game, r)
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "ai.py"), "--hands", "4", "--playouts", "4",
                           "--games", "hearts"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "hearts  strong better by " in done.stdout, done.stdout + done.stderr


def test_soak_bench_kills_the_bot_mid_game_and_checks_the_game() -> None:
    f = run_bench("soak.py", "--games", "1", "--kills", "1", timeout=240.0)
    assert f["games"] == 1 and f["kills"] == 1 and f["games_checked"] == 1, f
    assert f["kills_survived"] == 1 and f["actions_lost"] == 0 and f["actions_doubled"] == 0, f
    assert f["leftover_processes"] == 0 and f["errors"] == [] and f["problems"] == [], f
    assert (f["global_limit"], f["ratelimit_scale"]) == (50, 1.0), f  # the production setting by default


def test_hints_bench_times_every_game() -> None:
    f = run_bench("hints.py", "--positions", "2", "--budget", "0.02")
    import engine

    assert set(f) == set(engine.games())
    for game, g in f.items():
        assert g["positions"] == 2 and g["ms_max"] >= g["ms_p99"] >= g["ms_p50"] > 0, (game, g)
        assert g["level"] == ("strong" if "strong" in engine.levels(game) else "normal"), (game, g)
        assert g["reasons_with_figures"] <= g["searched"] <= g["positions"], (game, g)


def test_discord_bench_times_a_replay_viewer_clicked_through_while_the_tables_play() -> None:
    f = run_bench("discord.py", "--tables", "2", "--think", "0.3", "--ai-delay", "0.3", "--stagger", "0.2",
                  "--ratelimit-scale", "0.05", "--viewer", "--viewer-think", "0.2", "--review-wait", "0",
                  timeout=240)
    assert f["tables"] == 2 and f["hands"] == 2 and f["problems"] == []  # the viewer's own game is not counted
    assert f["viewer_clicks"] >= 4 and f["viewer_games_opened"] >= 1 and f["viewer_review_pressed"] is True
    assert positive(f["viewer_answer_ms_p50"]) and f["viewer_answer_ms_max"] >= f["viewer_answer_ms_p99"]
    assert isinstance(f["viewer_answers_after_3s"], int) and f["viewer_answers_after_3s"] >= 0
