"""What a review of a person's play costs (issue 22, item 2): the CPU of reviewing a whole Hearts game
to 100 with the production budget, and per decision.

A seeded Hearts game to ``--target`` (100: a real game) is played by normal AIs; seat 0's decisions
are reviewed exactly as the AI pool's worker does it (``tables.reviews.review_in_worker``: the
per-decision share of ``GAME_BUDGET``, at most ``DECISION_CAP``, measured on the process's own CPU
clock, and ``review_playouts``), one decision at a time so each is timed.  Reports
``cpu_s_per_hearts_game`` (the goal: about two CPU minutes), ``decision_cpu_ms_p50`` /
``decision_cpu_ms_p99`` (decisions the search judged), ``decisions`` (seat 0's decisions),
``judged``, ``share_s`` (the CPU budget each decision got), the marks counted and the load
average (on a shared machine the wall time also holds the time waited for a core).

``review_figure(args)`` is the figure in the shape of bench/review.py's ``FIGURES`` (replay's bench,
where ``picture_ms_p99`` is measured): listed there as ``"review": review_figure`` once both land.

    python bench/review_cpu.py [--json] [--target 100] [--seed 5] [--budget 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(_HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import engine  # noqa: E402
from engine.review import JUDGED, Review  # noqa: E402
from tables import reviews  # noqa: E402


def percentile(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    if not ys:
        return float("nan")
    k = min(len(ys) - 1, max(0, round(q * (len(ys) - 1))))
    return ys[k]


def hearts_log(target: int, seed: int) -> list[list[Any]]:
    """A whole Hearts game of normal AIs: ``[seat, code, auto, timeout]`` per action."""
    spec = engine.get("hearts")
    g = spec.game.create(4, {"target": target}, seed)
    ai, rng = spec.ai(), random.Random(seed)
    log: list[list[Any]] = []
    while not g.is_over:
        s = next(s for s in g.to_act() if g.decision(s) is not None)
        a = ai.choose(g, s, rng)
        g.apply(s, a)
        log.append([s, a.code, False, False])
    return log


async def review_figure(args: argparse.Namespace) -> dict[str, Any]:
    target, seed = getattr(args, "target", 100), getattr(args, "seed", 5)
    budget = getattr(args, "budget", reviews.GAME_BUDGET)
    log = hearts_log(target, seed)
    mine = [i for i, a in enumerate(log) if a[0] == 0]
    share = min(reviews.DECISION_CAP, budget / max(1, len(mine)))
    cpu: list[float] = []
    decisions = []
    total0 = time.process_time()
    for i in mine:
        t0 = time.process_time()
        part = Review.from_dict(reviews.review_in_worker("hearts", 4, {"target": target}, seed, log, 0, "bench", [i],
                                                         share, reviews.review_playouts("hearts")))
        spent = time.process_time() - t0
        decisions.extend(part.decisions)
        if part.decisions and part.decisions[0].mark in JUDGED:
            cpu.append(spent * 1000)
    total = time.process_time() - total0
    marks: dict[str, int] = {}
    for d in decisions:
        marks[d.mark] = marks.get(d.mark, 0) + 1
    return {
        "target": target,
        "actions": len(log),
        "decisions": len(mine),
        "judged": len(cpu),
        "share_s": round(share, 3),
        "cpu_s_per_hearts_game": round(total, 1),
        "decision_cpu_ms_p50": round(percentile(cpu, 0.5), 1),
        "decision_cpu_ms_p99": round(percentile(cpu, 0.99), 1),
        "decision_cpu_ms_max": round(max(cpu), 1) if cpu else float("nan"),
        "marks": marks,
        "within_2_cpu_minutes": total <= 120.0,
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--target", type=int, default=100, help="the Hearts game's target score")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--budget", type=float, default=reviews.GAME_BUDGET, help="CPU seconds for the whole review")
    args = p.parse_args(argv)
    out = asyncio.run(review_figure(args))
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
