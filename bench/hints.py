"""How long a hint takes, and how its moves and reasons come out, per game.

At seeded positions of every game (each decision a person could ask about), it asks for the strong
hint within the runtime's budget (``tables.ai.hints.HINT_BUDGET`` seconds) exactly as the AI pool's
worker does (``tables.ai.hints.hint_in_worker``: the state rebuilt from its record, the search given a
``time_left`` from the clock, the reason worded) and prints per game:
decision times (p50, p99, max, ms, one core; and the CPU time, with the load average: on a shared
machine the wall time also holds the time the process waited for a core), how often the search
was run (decisions with a choice the search covers and time for at least one whole world), how
often the strong hint differs from the normal AI's move, and how many reasons carry a figure of
the search.  Games without a strong level time the normal hint.

    python bench/hints.py [--json] [--positions N] [--games G1,G2] [--budget S]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import engine  # noqa: E402
from engine.core import Game  # noqa: E402
from tables.ai.hints import HINT_BUDGET, hint_in_worker  # noqa: E402
from tests.engine.test_search import table_step  # noqa: E402


def options_of(e: engine.GameSpec) -> dict[str, Any]:
    """One hand, as the game's measure says (engine/measure.py); else its spec's sample game."""
    m = e.measure
    if m is None:
        return dict((e.sample or (0, {}))[1])
    return dict(m.hints if m.hints is not None else m.hand)


def positions(name: str, n: int, seed: int) -> list[tuple[Game, int]]:
    """``n`` positions where a seat must decide (not a table step), from seeded normal-AI games."""
    e = engine.get(name)
    ai = e.ai()
    rng = random.Random(seed)
    out: list[tuple[Game, int]] = []
    game = 0
    while len(out) < n:
        g = e.game.create(e.game.min_players, options_of(e), seed * 1000 + game)
        game += 1
        while not g.is_over and len(out) < n:
            if table_step(g, ai, rng):
                continue
            s = g.to_act()[0]
            if rng.random() < 0.15:
                out.append((g.copy(), s))
            g.apply(s, ai.choose(g, s, rng))
    return out


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def measure(name: str, n: int, budget: float, seed: int) -> dict[str, Any]:
    times: list[float] = []
    cpus: list[float] = []  # CPU time of each hint: less than the wall time when the machine is busy
    searched = differs = figures = 0
    normal = engine.get(name).ai()
    for g, s in positions(name, n, seed):
        data = g.to_dict()  # what the runtime sends the worker
        start, cpu = time.perf_counter(), time.process_time()
        code, reason, means = hint_in_worker(name, data, s, str(seed), budget, 100_000)
        times.append((time.perf_counter() - start) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        searched += bool(means)
        figures += "the search" in reason
        differs += code != normal.choose(g, s, random.Random(seed)).code
    return {"positions": len(times), "level": "strong" if "strong" in engine.levels(name) else "normal",
            "ms_p50": round(percentile(times, 0.5), 2), "ms_p99": round(percentile(times, 0.99), 2),
            "ms_max": round(max(times), 2), "cpu_ms_p50": round(percentile(cpus, 0.5), 2),
            "cpu_ms_p99": round(percentile(cpus, 0.99), 2), "load_average": list(os.getloadavg()),
            "searched": searched, "differs_from_normal": differs,
            "reasons_with_figures": figures, "budget_ms": budget * 1000}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print only a JSON object")
    p.add_argument("--positions", type=int, default=40, help="positions per game (default 40)")
    p.add_argument("--games", default=",".join(engine.games()), help="comma-separated games")
    p.add_argument("--budget", type=float, default=HINT_BUDGET, help=f"seconds per hint (default {HINT_BUDGET})")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    out = {g: measure(g, args.positions, args.budget, args.seed) for g in args.games.split(",") if g}
    if args.json:
        print(json.dumps(out))
    else:
        for g, f in out.items():
            print(f"{g:8} {f['level']:6} p50 {f['ms_p50']:7.1f} ms  p99 {f['ms_p99']:7.1f} ms"
                  f"  max {f['ms_max']:7.1f} ms  (CPU p50 {f['cpu_ms_p50']:.0f}, p99 {f['cpu_ms_p99']:.0f} ms)"
                  f"  searched {f['searched']}/{f['positions']}  differs {f['differs_from_normal']}"
                  f"  with figures {f['reasons_with_figures']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
