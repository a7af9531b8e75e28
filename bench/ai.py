"""How much stronger the ``strong`` AI level is than ``normal``, and how long it thinks.

Seeded matches over the same deals: each deal is played once with ``normal`` in every seat, then
once per seat with ``strong`` in that seat and ``normal`` in the others (every policy through every
seat).  Per game it prints how much ``strong`` is *better by* than ``normal`` — the strong seat's
result minus what ``normal`` scored in that same seat on that same deal, averaged, with its sign
turned round where a lower result is the better one (e.g. penalty points taken:
``Measure.lower_is_better``), so a positive figure is always a gain — with a 95% interval over
deals, whether the interval excludes zero (``clear``), the number of hands the strong player
played and its decision times (only the searched decisions).  The JSON keeps the raw
``strong_minus_normal`` too, and says which way is better (``better``).

Each game's hand, result and units are its spec's ``measure`` (engine/measure.py, set where the
game registers): points a hand, a side's score a round, the share of games won where
the whole game is the "hand".  A game without a registered ``strong`` level is measured too when
named (``--games NAME``): the searcher is built from its hooks in engine/search.py directly.  By
default every game with a strong level is measured.

By default a decision's budget is its playouts (no clock: the figures do not depend on the load).
``--budget S`` gives each decision a deadline of S seconds of the process's CPU time instead, as
the AI pool gives its workers a wall-clock one (playouts then default to the pool's cap): the
figures then show what a budget does, including the decisions where no world completed and the
normal move was played (``fallbacks``).  ``--max-candidates N`` overrides the hooks' shortlist
size (0: search every candidate, as before the shortlist).  ``--per-deal`` adds each deal's mean
difference to the JSON, so two runs on the same deals can be compared deal by deal.

Targets (issue 18): a measured gain in every game with a strong level (the figures it was offered
on are noted where it registers); strong decision p99 ≤ 1,000 ms on one core.

    python bench/ai.py [--json] [--hands N] [--games G1,G2] [--playouts P] [--jobs J]
                       [--first-deal SEED] [--budget S] [--max-candidates N] [--per-deal]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import engine  # noqa: E402
from engine.core import TABLE  # noqa: E402
from engine.measure import Measure  # noqa: E402
from engine.search import SearchAI  # noqa: E402


def measure_of(name: str) -> Measure:
    """The game's measure (engine/measure.py): one hand's options, the seat's result, its units."""
    found = engine.get(name).measure
    if found is None:
        raise SystemExit(f"{name} has no measure in its spec (engine/measure.py)")
    return found


def strong_games() -> list[str]:
    """Every registered game with a strong level: the default ``--games``."""
    return [name for name, spec in engine.games().items() if spec.strong]


#: Playouts per decision when a time budget ends the search (tables.ai.pool's cap).
BUDGET_PLAYOUTS = 100_000


class Setup:
    """How the strong player searches: playouts, an optional CPU-time budget, a shortlist size."""

    def __init__(self, playouts: int | None = None, budget: float | None = None,
                 max_candidates: int | None = None) -> None:
        self.playouts = BUDGET_PLAYOUTS if playouts is None and budget is not None else playouts
        self.budget = budget
        self.max_candidates = max_candidates


def play_hand(name: str, deal_seed: int, strong_seat: int | None,
              setup: Setup) -> tuple[list[float], list[tuple[float, float]], dict[str, int]]:
    """One hand on deal ``deal_seed``; returns (every seat's result, the strong seat's decision
    times, counts of its searches that fell back to the normal move or searched a shortlist)."""
    spec = engine.get(name)
    m = measure_of(name)
    g = spec.game.create(spec.game.min_players, dict(m.hand), deal_seed)
    start = g.copy()
    normal = spec.ai()
    # Built from the hooks, not engine.ai_for: a game's strong level is registered only once measured.
    end = [0.0]  # the current decision's deadline, in process CPU seconds
    time_left = (lambda: end[0] - time.process_time()) if setup.budget is not None else None
    strong: SearchAI | None = None
    if strong_seat is not None:
        made = engine.search.strong(name)(playouts=setup.playouts, time_left=time_left,
                                          max_candidates=setup.max_candidates)
        assert isinstance(made, SearchAI)  # the strong level is engine.search's
        strong = made
    counts = {"fallbacks": 0, "shortlisted": 0}
    rng = random.Random(f"{deal_seed}/{strong_seat}")
    times: list[tuple[float, float]] = []  # (wall, CPU) seconds of each searched decision
    hooks = engine.get(name).search
    # A game measured whole: its hooks may stop a playout sooner; the figure is about the whole game.
    while not (g.is_over if m.whole_game else hooks.done(start, g)):
        acting = g.to_act()
        if TABLE in acting:
            move = None
            for s in acting:
                if s != TABLE:
                    ai = strong if strong is not None and s == strong_seat else normal
                    a = ai.choose_optional(g, s, rng)
                    if a is not None:
                        move = (s, a)
                        break
            if move is None:
                decision = g.decision(TABLE)
                assert decision is not None  # the table is to act
                move = (TABLE, decision.actions[0])
            g.apply(*move)
            continue
        s = acting[0]
        if strong is not None and s == strong_seat:
            searched = hooks.searchable(g, s)
            t, c = time.perf_counter(), time.process_time()
            end[0] = c + (setup.budget or 0.0)
            a = strong.choose(g, s, rng)
            if searched:
                times.append((time.perf_counter() - t, time.process_time() - c))
                last = strong.last
                counts["fallbacks"] += bool(last.get("out_of_time") and not last.get("worlds"))
                counts["shortlisted"] += "shortlisted" in last
        else:
            a = normal.choose(g, s, rng)
        g.apply(s, a)
    return [m.result(start, g, s) for s in range(g.players)], times, counts


def one_deal(args: tuple[str, int, Setup]) -> tuple[list[float], list[tuple[float, float]], dict[str, int]]:
    """Every seat's difference strong − normal on one deal, the strong decision times and counts."""
    name, deal_seed, setup = args
    base, _, _ = play_hand(name, deal_seed, None, setup)
    diffs: list[float] = []
    times: list[tuple[float, float]] = []
    counts = {"fallbacks": 0, "shortlisted": 0}
    for seat in range(len(base)):
        res, t, c = play_hand(name, deal_seed, seat, setup)
        diffs.append(res[seat] - base[seat])
        times.extend(t)
        for key in counts:
            counts[key] += c[key]
    return diffs, times, counts


def measure(name: str, hands: int, playouts: int | None, jobs: int, first_deal: int = 10_000,
            setup: Setup | None = None, per_deal: bool = False) -> dict[str, Any]:
    setup = setup or Setup(playouts)
    seats = engine.get(name).game.min_players
    deals = max(1, math.ceil(hands / seats))
    work = [(name, first_deal + d, setup) for d in range(deals)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            done = list(pool.map(one_deal, work))
    else:
        done = [one_deal(w) for w in work]
    means = [statistics.fmean(d) for d, _, _ in done]
    times = sorted(t for _, ts, _ in done for t, _ in ts)
    cpu = sorted(c for _, ts, _ in done for _, c in ts)
    mean = statistics.fmean(means)
    ci = 1.96 * statistics.stdev(means) / math.sqrt(len(means)) if len(means) > 1 else float("nan")
    lower = measure_of(name).lower_is_better
    better_by = -mean if lower else mean
    out = {
        "strong_minus_normal": mean,
        # The same difference with its sign turned so that positive is a gain for strong.
        "better_by": better_by,
        "better": "lower" if lower else "higher",
        "ci95": ci,
        # The gain is beyond its 95% interval: the interval excludes zero in the good direction.
        "clear": better_by - ci > 0,
        "hands": deals * seats,
        "deals": deals,
        "decisions": len(times),
        "strong_ms_p50": 1000 * times[len(times) // 2] if times else 0.0,
        "strong_ms_p99": 1000 * times[int(0.99 * (len(times) - 1))] if times else 0.0,
        "strong_ms_max": 1000 * times[-1] if times else 0.0,
        # CPU time of the deciding process: the one-core cost even on a machine busy with others.
        "strong_cpu_ms_p50": 1000 * cpu[len(cpu) // 2] if cpu else 0.0,
        "strong_cpu_ms_p99": 1000 * cpu[int(0.99 * (len(cpu) - 1))] if cpu else 0.0,
        "playouts": setup.playouts or engine.get(name).playouts,
        "budget_s": setup.budget,
        "max_candidates": (engine.get(name).search.max_candidates if setup.max_candidates is None
                           else setup.max_candidates),
        # Searched decisions where no world completed in the budget (the normal move was played),
        # and those searched over a shortlist of their candidates.
        "fallbacks": sum(c["fallbacks"] for _, _, c in done),
        "shortlisted": sum(c["shortlisted"] for _, _, c in done),
        "first_deal": first_deal,
        "load_average": list(os.getloadavg()),
        "registered": "strong" in engine.levels(name),
    }
    if per_deal:
        out["per_deal"] = means
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print only a JSON object")
    p.add_argument("--hands", type=int, default=200, help="hands the strong player plays per game (default 200)")
    p.add_argument("--games", default=",".join(strong_games()),
                   help="comma-separated games (default: every game with a strong level)")
    p.add_argument("--playouts", type=int, default=None, help="playouts per decision (default: the level's)")
    p.add_argument("--jobs", type=int, default=1, help="processes (default 1: timings on one core)")
    p.add_argument("--first-deal", type=int, default=10_000,
                   help="seed of the first deal (another value: a run on other deals, to confirm a figure)")
    p.add_argument("--budget", type=float, default=None,
                   help="CPU seconds per decision (default: none, the playouts are the budget)")
    p.add_argument("--max-candidates", type=int, default=None,
                   help="shortlist size (default: the game's hooks'; 0: search every candidate)")
    p.add_argument("--per-deal", action="store_true", help="add each deal's mean difference to the JSON")
    args = p.parse_args(argv)
    setup = Setup(args.playouts, args.budget, args.max_candidates)
    out = {g: measure(g, args.hands, args.playouts, args.jobs, args.first_deal, setup, args.per_deal)
           for g in args.games.split(",")}
    if args.json:
        print(json.dumps(out))
        return 0
    for g, r in out.items():
        verdict = "clear" if r["clear"] else "NOT clear"
        print(f"{g:7} strong better by {r['better_by']:+.3f} ± {r['ci95']:.3f} {measure_of(g).units} "
              f"[{verdict}; strong − normal {r['strong_minus_normal']:+.3f}, {r['better']} is better]  "
              f"({r['hands']} hands, {r['decisions']} searched decisions: p50 {r['strong_ms_p50']:.0f} ms, "
              f"p99 {r['strong_ms_p99']:.0f} ms, max {r['strong_ms_max']:.0f} ms; "
              f"CPU p50 {r['strong_cpu_ms_p50']:.0f} ms, "
              f"p99 {r['strong_cpu_ms_p99']:.0f} ms; {r['playouts']} playouts; "
              f"{r['fallbacks']} fallbacks, {r['shortlisted']} shortlisted; "
              f"load average {r['load_average'][0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
