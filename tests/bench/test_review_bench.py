"""bench/review.py's review figure still runs and prints the review figures of issue 22 (``--json`` keys), at the
smallest settings; its speed is the bench's business, not a test's."""

from __future__ import annotations

from tests.bench.test_benches import positive, run_bench


def test_review_bench_reviews_a_hearts_game() -> None:
    f = run_bench("review.py", "--figures", "review", "--target", "1", "--budget", "2")["review"]
    assert f["decisions"] >= 13 and f["judged"] >= 1  # one hand: seat 0 passes and plays 13 cards
    for key in ("cpu_s_per_game", "decision_cpu_ms_p50", "decision_cpu_ms_p99"):
        assert positive(f[key]), key
    assert sum(f["marks"].values()) == f["decisions"]


def test_review_bench_times_pictures_while_a_review_runs() -> None:
    f = run_bench("review.py", "--figures", "busy", "--target", "30", "--steps", "3")["busy"]
    # A review of a game to 30 takes a minute of CPU: the three pictures are drawn while it runs.
    assert f["pictures"] == 3 and "pieces_reviewed" in f
    assert positive(f["picture_ms_p99_during_review"]) and f["loop_lag_ms_max"] >= 0


def test_review_bench_counts_strong_ai_fallbacks_with_and_without_a_review() -> None:
    f = run_bench("review.py", "--figures", "fallbacks", "--decisions", "2", "--target", "1", "--budget", "2",
                  timeout=240)["fallbacks"]
    assert f["decisions"] == 2
    for lane in ("shared", "background"):
        for when in ("idle", "review"):
            assert 0 <= f[f"fallbacks_{lane}_{when}"] <= 2, (lane, when)
        assert isinstance(f[f"fallbacks_{lane}_review_review_still_running"], bool)


def test_review_bench_serves_a_line_of_reviews() -> None:
    f = run_bench("review.py", "--figures", "queue", "--people", "3", "--extra", "2", "--target", "1",
                  "--budget", "0.2", "--review-workers", "1", timeout=240)["queue"]
    # Three people, one review each: the first's two more games are refused while theirs is in line.
    # (A fifth of a CPU second a review: the line and its order are the point, not what a review finds.)
    assert f["accepted"] == 3 and f["refused"] == 2 and len(f["finish_s"]) == 3
    assert f["finished_in_order"] is True and all(positive(x) for x in f["estimate_s"])
