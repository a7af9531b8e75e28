"""Figures for reviewing a finished game: how long its pictures take.

Each figure is a function in :data:`FIGURES` (name → async function of the options, returning a
dict of named numbers); ``main`` runs the ones asked for and prints them, or their JSON.  To add
one, write ``async def my_figure(args) -> dict[str, float]`` and list it in ``FIGURES``.

``picture`` — the replay viewer's pictures (cogs/replay/view.py) as the bot gets them: the steps of
a seeded normal-AI game of every kind computed in the worker process, then a picture per sampled
step drawn there (`Replays.picture`, uncached: every step drawn once), timed from the request to
the PNG bytes back on the event loop.  Reports ``picture_ms_p50``, ``picture_ms_p99``,
``picture_ms_max`` (the goal: a picture within 0.5 s), ``worker_start_ms`` (a cold worker: its
start-up and the card faces drawn once, before anything is timed), ``steps_ms`` per game (the whole
game's steps with their words, computed in the worker) and ``picture_kb`` (the mean PNG size).

``review`` — what a review of a person's play costs (tables/ai/reviews.py): a seeded game of the
benches' reference game (``Measure.reference``, engine/measure.py) to ``--target`` (100: a real
game), or with ``--review-games`` a whole game (default options) of each game named, played by
normal AIs, seat 0's decisions reviewed exactly as the runtime does it (``review_in_worker`` on
the pieces of ``Plan``: the strong level's search, each decision's share of the ``--budget`` CPU
seconds still left, at most ``DECISION_CAP``, on the process's own CPU clock, and
``review_playouts``), each decision timed from its start.  Reports ``cpu_s_per_game`` (the goal:
within the budget, ``GAME_BUDGET`` = 60 CPU seconds a game; ``within_budget``),
``decision_cpu_ms_p50`` / ``decision_cpu_ms_p99`` (decisions the search judged), ``decisions``,
``judged``, ``share_s`` (the first share) and ``share_s_max``, ``budget_s``, the marks counted
and the load average (by game with ``--review-games``).

``busy`` — the replay viewer's pictures while such a game's review runs in a real AI pool worker
(the viewer's own worker and the review's side by side, the bot's loop beside them: a 2-core
machine's whole load): ``picture_ms_p99_during_review`` (Discord's limit for an answer is 3 s) and
``loop_lag_ms_max`` (how late a 50 ms sleep on the event loop woke meanwhile).

``fallbacks`` — does a review degrade the tables' strong AI?  A table of strong AIs asks a
real AI pool (one worker for the tables, as on a 2-core machine) for ``--decisions`` moves at the
table's pace (a search of 0.75 s within each 1 s AI pause, as tables/turns.py asks), once with the
pool idle and once while such a game's review runs; both with the review in the pool's background
lane (its own lowest-priority worker: ``fallbacks_background_*``, the runtime's way) and sharing the
tables' worker (``fallbacks_shared_*``, how reviews ran before the background lane).  A fallback is
a decision the pool answered ``None`` (busy or late: the table played the normal move instead).

``queue`` — reviews waiting in line (tables/ai/reviews.py): ``--people`` people ask for a review of
their own game (the reference game) to ``--target`` at once, the first of them also for ``--extra`` more games, on a
real AI pool with ``--review-workers`` review workers (default: as the bot).  Reports ``accepted`` and
``refused`` (one review in line per person), ``finish_s`` (seconds from the first ask to each
review's end, in the order asked), ``estimate_s`` (what each was told when it asked),
``finished_in_order`` and ``loop_lag_ms_max``.

    python bench/review.py [--json] [--figures picture,review,busy,fallbacks,queue] [--steps N]
                           [--games G1,G2,...] [--target 100] [--budget 60] [--review-games G1,G2]
                           [--decisions 24]
                           [--people 10] [--extra 9] [--review-workers N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

# The repository, not bench/ (whose discord.py would shadow the library), first on the path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(_HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import engine  # noqa: E402
from engine.measure import reference_game  # noqa: E402
from engine.review import JUDGED, Review  # noqa: E402
from tables.ai import reviews  # noqa: E402
from tables.history.replay import GameRecord  # noqa: E402
from tables.table import LogEntry  # noqa: E402


def percentile(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    if not ys:
        return float("nan")
    k = min(len(ys) - 1, max(0, round(q * (len(ys) - 1))))
    return ys[k]


def sample_record(game: str, seed: int) -> GameRecord:
    """A whole game of ``game`` (its spec's sample options), every seat the normal AI."""
    spec = engine.get(game)
    assert spec.sample is not None, f"{game} has no sample options"
    players, options = spec.sample
    g = spec.game.create(players, dict(options), seed)
    rng = random.Random(seed)
    log: list[LogEntry] = []
    while not g.is_over:
        seat = g.to_act()[0]
        action = spec.ai().choose(g, seat, rng)
        g.apply(seat, action)
        log.append(LogEntry(len(log) + 1, seat, action.code, 0.0))
    names = ["Ali", "Bob", "Chidi", "Dana", "Emeka"][:players]
    return GameRecord(id=f"BENCH{seed % 10}", game=game, options=dict(options), seed=seed, names=names,
                      ai=[True] * players, log=log)


async def picture_figure(args: argparse.Namespace) -> dict[str, Any]:
    from cogs.replay.view import Replays

    replays = Replays()
    rng = random.Random(args.seed)
    out: dict[str, Any] = {}
    times: list[float] = []
    sizes: list[int] = []
    try:
        # A cold worker first (its start-up, every card face drawn once), timed apart.
        t0 = time.perf_counter()
        await replays.warm()
        out["worker_start_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        for n, game in enumerate(args.games):
            record = sample_record(game, args.seed + n)
            t0 = time.perf_counter()
            steps, meta = await replays.steps(record)
            out[f"steps_ms_{game}"] = round((time.perf_counter() - t0) * 1000, 1)
            chosen = sorted(rng.sample(range(len(steps)), min(args.steps, len(steps))))
            for i in chosen:
                t0 = time.perf_counter()
                png = await replays.picture(record.id, steps[i], meta)
                times.append((time.perf_counter() - t0) * 1000)
                sizes.append(len(png))
    finally:
        replays.close()
    out["pictures"] = len(times)
    out["picture_ms_p50"] = round(percentile(times, 0.5), 1)
    out["picture_ms_p99"] = round(percentile(times, 0.99), 1)
    out["picture_ms_max"] = round(max(times), 1) if times else float("nan")
    out["picture_kb"] = round(sum(sizes) / max(1, len(sizes)) / 1024, 1)
    out["picture_within_0_5_s"] = bool(times) and out["picture_ms_p99"] <= 500
    return out


#: The game the figures play: the benches' reference (engine/measure.py), as many seats as it needs.
REFERENCE = reference_game()
GAME = REFERENCE.name
PLAYERS = REFERENCE.game.min_players
NAMES = ["Ali", "Bob", "Chidi", "Dana", "Eve", "Femi", "Gus", "Hana"][:PLAYERS]
AI_SEATS = [False] + [True] * (PLAYERS - 1)  # one person, seat 0
USER_IDS: list[int | None] = [1] + [None] * (PLAYERS - 1)


def options(target: int) -> dict[str, Any]:
    """The reference game to ``target`` points."""
    length = REFERENCE.measure.length if REFERENCE.measure is not None else None
    return {length: target} if length else {}


def game_log(target: int, seed: int, game: str | None = None) -> list[reviews.Logged]:
    """A whole game of normal AIs: ``[seat, code, auto, timeout]`` per action.  The reference game
    runs to ``target``; another game (``game``) is a whole game with its default options."""
    spec = REFERENCE if game is None or game == GAME else engine.get(game)
    g = spec.game.create(spec.game.min_players, options(target) if spec is REFERENCE else {}, seed)
    ai, rng = spec.ai(), random.Random(seed)
    log: list[reviews.Logged] = []
    while not g.is_over:
        acting = g.to_act()
        s = next((s for s in acting if s >= 0 and g.decision(s) is not None), None)
        if s is None:  # the table's own step (a deal, a look): seats may act first, else the table
            move = next(((x, a) for x in acting if x >= 0 and (a := ai.choose_optional(g, x, rng)) is not None),
                        None)
            if move is None:
                table = g.decision(acting[0])
                assert table is not None  # nobody else acts: the table's own step is due
                move = (acting[0], table.actions[0])
            s, a = move
        else:
            a = ai.choose(g, s, rng)
        g.apply(s, a)
        log.append((s, a.code, False, False))
    return log


def logged(target: int, seed: int) -> list[LogEntry]:
    """:func:`game_log` as a table's log."""
    return [LogEntry(i + 1, s, code, 0.0) for i, (s, code, _, _) in enumerate(game_log(target, seed))]


async def loop_lag(lags: list[float], stop: asyncio.Event) -> None:
    """Until ``stop``: how late (ms) the event loop wakes from each 50 ms sleep, into ``lags``."""
    while not stop.is_set():
        t0 = time.perf_counter()
        await asyncio.sleep(0.05)
        lags.append((time.perf_counter() - t0 - 0.05) * 1000)


async def review_figure(args: argparse.Namespace) -> dict[str, Any]:
    """The review figure of the reference game, or of each game in ``--review-games`` (then by game)."""
    names = [g for g in (getattr(args, "review_games", None) or "").split(",") if g]
    if not names:
        return review_one(args, GAME)
    return {name: review_one(args, name) for name in names}


def review_one(args: argparse.Namespace, game: str) -> dict[str, Any]:
    target, seed = getattr(args, "target", 100), getattr(args, "seed", 5)
    budget = getattr(args, "budget", None) or reviews.GAME_BUDGET
    spec = engine.get(game)
    log = game_log(target, seed, game)
    opts = options(target) if game == GAME else {}
    mine = [i for i, a in enumerate(log) if a[0] == 0]
    # As the runtime spends it (tables/ai/reviews.py's Reviews._run): piece by piece, each decision's
    # share of the CPU still left, each piece charged what it took in the worker.
    plan = reviews.Plan(mine, min(reviews.DECISION_CAP, budget / max(1, len(mine))) * len(mine))
    first_share = plan.share
    cpu: list[float] = []
    shares: list[float] = []
    decisions = []
    total0 = time.process_time()
    while piece := plan.next_piece():
        share = plan.share
        starts: list[tuple[int, float]] = []
        answer = reviews.review_in_worker(game, spec.game.min_players, opts, seed, log, 0, "bench", piece, share,
                                          reviews.review_playouts(game), starts)
        ended = time.process_time()
        part = Review.from_dict(answer)
        plan.charge(piece, answer["cpu"])
        decisions.extend(part.decisions)
        marks = {d.step: d.mark for d in part.decisions}
        for k, (step, t0) in enumerate(starts):
            t1 = starts[k + 1][1] if k + 1 < len(starts) else ended
            if marks.get(step) in JUDGED:
                cpu.append((t1 - t0) * 1000)
                shares.append(share)
    total = time.process_time() - total0
    marks_n: dict[str, int] = {}
    for d in decisions:
        marks_n[d.mark] = marks_n.get(d.mark, 0) + 1
    return {
        "game": game,
        "target": target if game == GAME else None,
        "actions": len(log),
        "decisions": len(mine),
        "judged": len(cpu),
        "share_s": round(first_share, 3),
        "share_s_max": round(max(shares), 3) if shares else float("nan"),
        "budget_s": budget,
        "cpu_s_per_game": round(total, 1),
        "decision_cpu_ms_p50": round(percentile(cpu, 0.5), 1),
        "decision_cpu_ms_p99": round(percentile(cpu, 0.99), 1),
        "decision_cpu_ms_max": round(max(cpu), 1) if cpu else float("nan"),
        "marks": marks_n,
        "within_budget": total <= budget,
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }


async def busy_figure(args: argparse.Namespace) -> dict[str, Any]:
    """The replay viewer's pictures while a review runs in the AI pool (both workers busy beside the
    event loop, as on a 2-core machine): picture times and the event loop's lag meanwhile."""
    from cogs.replay.view import Replays
    from tables.ai.pool import AIPool
    from tables.clock import SystemClock

    target, seed = getattr(args, "target", 100), getattr(args, "seed", 5)
    log = logged(target, seed)
    record = GameRecord(id="BUSY01", game=GAME, options=options(target), seed=seed,
                        names=NAMES, ai=AI_SEATS, log=log, user_ids=USER_IDS)
    pool = AIPool(workers=1)
    await pool.start()
    replays = Replays()
    lags: list[float] = []
    times: list[float] = []
    stop = asyncio.Event()

    try:
        await replays.warm()
        all_steps, meta = await replays.steps(record)
        runs = reviews.Reviews(None, pool, SystemClock(), budget=getattr(args, "budget", None) or reviews.GAME_BUDGET)
        review = asyncio.ensure_future(runs.get(record, 1, 1))
        tick = asyncio.ensure_future(loop_lag(lags, stop))
        await asyncio.sleep(1.0)  # the review's first piece is in the worker
        rng = random.Random(seed)
        for i in sorted(rng.sample(range(len(all_steps)), min(args.steps, len(all_steps)))):
            if review.done():
                break
            t0 = time.perf_counter()
            await replays.picture(record.id, all_steps[i], meta)
            times.append((time.perf_counter() - t0) * 1000)
        reviewing = not review.done()
        stop.set()
        await tick
        review.cancel()
        await runs.close()
    finally:
        replays.close()
        await pool.close()
    return {
        "pictures": len(times),
        "review_still_running": reviewing,
        "pieces_reviewed": pool.counts["searched"],
        "picture_ms_p50_during_review": round(percentile(times, 0.5), 1),
        "picture_ms_p99_during_review": round(percentile(times, 0.99), 1),
        "loop_lag_ms_max": round(max(lags), 1) if lags else float("nan"),
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }


async def table_of_strong_ais(pool: Any, decisions: int, seed: int, pause: float = 1.0) -> int:
    """``decisions`` strong-AI moves of a table asked of ``pool`` at the table's pace; the
    fallbacks (the pool answered ``None``: the normal AI's move is played)."""
    spec = REFERENCE
    g = spec.game.create(PLAYERS, options(100), seed)
    normal, rng = spec.ai(), random.Random(seed)
    fallbacks = 0
    for n in range(decisions):
        if g.is_over:
            break
        t0 = time.perf_counter()
        s = next(s for s in g.to_act() if g.decision(s) is not None)
        action = await pool.choose(GAME, g, s, seed=f"F/{seed}/{n}", budget=0.75 * pause)
        if action is None:
            fallbacks += 1
            action = normal.choose(g, s, rng)
        g.apply(s, action)
        await asyncio.sleep(max(0.0, pause - (time.perf_counter() - t0)))
    return fallbacks


async def fallbacks_figure(args: argparse.Namespace) -> dict[str, Any]:
    from tables.ai.pool import AIPool
    from tables.clock import SystemClock

    seed, decisions = getattr(args, "seed", 5), getattr(args, "decisions", 24)
    target = getattr(args, "target", 100)
    log = logged(target, seed)
    out: dict[str, Any] = {"decisions": decisions}
    for lane, background in (("shared", 0), ("background", 1)):
        for reviewing in (False, True):
            pool = AIPool(workers=1, background_workers=background)
            await pool.start()
            review: asyncio.Future[Any] | None = None
            try:
                if reviewing:
                    record = GameRecord(id=f"FALL{background}", game=GAME, options=options(target), seed=seed,
                                        names=NAMES, ai=AI_SEATS, log=log, user_ids=USER_IDS)
                    runs = reviews.Reviews(None, pool, SystemClock(),
                                           budget=getattr(args, "budget", None) or reviews.GAME_BUDGET)
                    review = asyncio.ensure_future(runs.get(record, 1, 1))
                    await asyncio.sleep(0.5)  # the review's first piece is in a worker
                n = await table_of_strong_ais(pool, decisions, seed)
                name = f"fallbacks_{lane}_{'review' if reviewing else 'idle'}"
                out[name] = n
                if review is not None:
                    out[f"{name}_review_still_running"] = not review.done()
                    # (sharing the tables' lane, its searched count holds the tables' searches too)
                    out[f"{name}_pieces_reviewed"] = pool.background_counts["searched"] - (0 if background
                                                                                          else decisions - n)
            finally:
                if review is not None:
                    review.cancel()
                    await runs.close()  # the review itself, not only our wait
                await pool.close()
    out["loadavg_1m"] = round(os.getloadavg()[0], 2)
    return out


async def queue_figure(args: argparse.Namespace) -> dict[str, Any]:
    """``--people`` people ask for their reviews at once (each of a seeded reference game to ``--target``)
    and the first of them for ``--extra`` more games, on a real AI pool with ``--review-workers``
    background workers: the line as tables/ai/reviews.py serves it."""
    from tables.ai.pool import AIPool, default_workers
    from tables.clock import SystemClock
    from tables.live import TableError

    target, seed = getattr(args, "target", 100), getattr(args, "seed", 5)
    people, extra = getattr(args, "people", 10), getattr(args, "extra", 9)
    workers = getattr(args, "review_workers", None) or default_workers()
    budget = getattr(args, "budget", None) or reviews.GAME_BUDGET

    def record(n: int, user: int) -> GameRecord:
        log = logged(target, seed + n)
        return GameRecord(id=f"Q{n:05d}", game=GAME, options=options(target), seed=seed + n,
                          names=NAMES, ai=AI_SEATS, log=log, user_ids=[user, *USER_IDS[1:]])

    pool = AIPool(workers=1, background_workers=workers)
    await pool.start()
    runs = reviews.Reviews(None, pool, SystemClock(), budget=budget)
    lags: list[float] = []
    stop = asyncio.Event()

    # Every game played out first: the asks come at once, and the loop's lag is the line's alone.
    asks = [r for p in range(people)
            for r in [record(p, p + 1)] + ([record(people + k, 1) for k in range(extra)] if p == 0 else [])]
    tick = asyncio.ensure_future(loop_lag(lags, stop))
    refused = 0
    jobs: list[reviews.ReviewJob] = []
    estimates: list[float] = []
    t0 = time.perf_counter()
    try:
        for r in asks:
            try:
                job = await runs.request(r, 1, r.user_ids[0] or 0)
            except TableError:
                refused += 1
                continue
            assert isinstance(job, reviews.ReviewJob), "a fresh record has no stored review"
            jobs.append(job)
            estimates.append(runs.estimate(job))
        done_at: list[float] = []
        for job in jobs:
            await job.future
            done_at.append(time.perf_counter() - t0)
    finally:
        stop.set()
        await tick
        await runs.close()
        await pool.close()
    return {
        "people": people,
        "review_workers": workers,
        "accepted": len(jobs),
        "refused": refused,
        "finish_s": [round(x, 1) for x in done_at],
        "estimate_s": [round(x, 1) for x in estimates],
        # One worker serves them strictly in turn; more workers finish them in about that order.
        "finished_in_order": done_at == sorted(done_at),
        "loop_lag_ms_max": round(max(lags), 1) if lags else float("nan"),
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }


#: Every figure this bench can report, by name (the order they run and print in).
FIGURES: dict[str, Callable[[argparse.Namespace], Awaitable[dict[str, Any]]]] = {
    "picture": picture_figure,
    "review": review_figure,
    "busy": busy_figure,
    "fallbacks": fallbacks_figure,
    "queue": queue_figure,
}


async def run(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    return {name: await FIGURES[name](args) for name in args.figures}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--figures", default=",".join(FIGURES), help=f"which figures ({', '.join(FIGURES)})")
    p.add_argument("--games", default=",".join(engine.games()), help="games to play (default: all)")
    p.add_argument("--steps", type=int, default=40, help="pictures per game")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--target", type=int, default=100, help="review: the game's target score")
    p.add_argument("--budget", type=float, default=None, help="review: CPU seconds for the whole review "
                                                              "(default: the runtime's GAME_BUDGET)")
    p.add_argument("--review-games", default="", help="review: these games, each a whole game with its default "
                                                      "options (default: the reference game to --target)")
    p.add_argument("--decisions", type=int, default=24, help="fallbacks: strong-AI decisions asked per run")
    p.add_argument("--people", type=int, default=10, help="queue: people asking for a review at once")
    p.add_argument("--extra", type=int, default=9, help="queue: more games the first of them asks for")
    p.add_argument("--review-workers", type=int, default=None,
                   help="queue: the pool's review workers (default: as the bot, cores but one)")
    args = p.parse_args(argv)
    args.figures = [f for f in args.figures.split(",") if f]
    args.games = [g for g in args.games.split(",") if g]
    unknown = [f for f in args.figures if f not in FIGURES] + [g for g in args.games if g not in engine.games()]
    if unknown:
        p.error(f"unknown: {', '.join(unknown)}")
    results = asyncio.run(run(args))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, figures in results.items():
        print(f"== {name}")
        for key, value in figures.items():
            print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
