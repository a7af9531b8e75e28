"""Figures for reviewing a finished game: how long its pictures take.

Each figure is a function in :data:`FIGURES` (name → async function of the options, returning a
dict of named numbers); ``main`` runs the ones asked for and prints them, or their JSON.  To add
one, write ``async def my_figure(args) -> dict[str, float]`` and list it in ``FIGURES``.

``picture`` — the replay viewer's pictures (cogs/replay_view.py) as the bot gets them: the steps of
a seeded normal-AI game of every kind computed in the worker process, then a picture per sampled
step drawn there (`Replays.picture`, uncached: every step drawn once), timed from the request to
the PNG bytes back on the event loop.  Reports ``picture_ms_p50``, ``picture_ms_p99``,
``picture_ms_max`` (the goal: a picture within 0.5 s), ``worker_start_ms`` (a cold worker: its
start-up and the card faces drawn once, before anything is timed), ``steps_ms`` per game (the whole
game's steps with their words, computed in the worker) and ``picture_kb`` (the mean PNG size).

    python bench/review.py [--json] [--figures picture] [--steps N] [--games hearts,tricks,...]
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
from tables.replay import GameRecord  # noqa: E402
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
    players, options = spec.sample
    g = spec.game.create(players, options, seed)
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
    from cogs.replay_view import Replays

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


#: Every figure this bench can report, by name (the order they run and print in).
FIGURES: dict[str, Callable[[argparse.Namespace], Awaitable[dict[str, Any]]]] = {
    "picture": picture_figure,
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
