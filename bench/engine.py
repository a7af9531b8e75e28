"""How fast the engine plays, through the public interface only (to_act, decision/random_action,
apply, and the registered AI's choose), on one core.

For every registered game it measures:

* ``games_per_s`` — random playouts per second where a "game" is ONE HAND: the options are set so
  that the game ends after its first hand (the game's first ``short_options``).  This is the unit
  OpenSpiel and other reference implementations count, so the figures compare directly.
* ``full_games_per_s`` — random playouts with the default options.
* ``copy_us`` — one ``state.copy()`` (what search does per playout) of a state halfway through a
  hand, in microseconds; ``roundtrip_us`` the ``from_dict(to_dict())`` copy it replaces.
* ``ai_decisions_per_s`` / ``ai_ms_mean`` / ``ai_ms_p999`` / ``ai_ms_max`` — the registered AI choosing every move of
  one-hand games (only the time spent inside ``choose`` is counted).

Side by side with OpenSpiel (issue 18): when ``open_spiel`` is installed (an optional extra for this
bench only: ``pip install --no-deps -r requirements-bench.txt``; the bot never needs it), a game
whose spec's measure names its OpenSpiel twin (``Measure.openspiel``, engine/measure.py) also has
its one-hand random games played with OpenSpiel's C++ implementation driven from Python, the two
taking turns in short rounds in this one process, and the ratio is printed (``GAME.openspiel`` in
``--json``).  Both are timed in this process's CPU time, so other processes on a shared machine
count against neither; the best round of each is compared (and the median of the paired rounds'
ratios is given too).  OpenSpiel's game is played with its default parameters: its deal (and any
other chance step) drawn uniformly, then random legal moves — as ``legal_actions`` and
``apply_action`` make them from Python.

A game's measure may list several variants to compare (``Measure.openspiel_variants``: a game's
two rule sets, one with its pass), each side by side on its own (``GAME.openspiel_variants`` in
``--json``; ``GAME.openspiel`` is the first).

Targets: each game's speed target as its spec's measure sets it (``Measure.target``), ≥ 1.5×
OpenSpiel side by side in every variant (issue 35); every AI decision under 5 ms.

Which build it measures: a game's rules may be compiled with mypyc when a current build exists
(``make build``; see tools/native.py), else they run from their pure Python source.  Every figure
above is of the build the engine picked (``GAME.engine_build`` in ``--json``); when that is the
compiled one, the side by side also plays the pure source in the same rounds, so both builds are
reported against OpenSpiel.

    python bench/engine.py [--json] [--seconds S] [--no-openspiel]

``--seconds`` is the time spent on each measurement (default 2).  ``--json`` prints only
``{game: {"games_per_s": x, "ai_decisions_per_s": y, ...}}``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import engine  # noqa: E402
from engine.core import TABLE, Game  # noqa: E402
from tools import native  # noqa: E402

#: Deckhand's one-hand random games/s over OpenSpiel's, side by side, in every variant (issue 35).
OPENSPIEL_TARGET = 1.5


def players_for(game: type[Game]) -> int:
    """Seats for the figures: the game's measure's, else the fewest it allows."""
    m = engine.get(game.name).measure
    return m.players if m is not None and m.players is not None else game.min_players


def module_of(game: type[Game]) -> str:
    """The module that holds the game's rules, by its full name (``games.<name>.rules``): a game's
    last name part alone (``rules``) is every game's and named only the compiled one."""
    return game.__module__


def build_of(game: type[Game]) -> str:
    return "compiled" if native.is_compiled(module_of(game)) else "pure"


def one_hand_options(game: type[Game]) -> dict[str, Any]:
    """Options that end ``game`` after its first hand: the first of the game's ``short_options``."""
    return dict(game.short_options[0])


def random_playout(game: type[Game], options: dict[str, Any], seed: int) -> int:
    """Play one game with uniformly random legal moves; returns how many actions it took."""
    g = game.create(players_for(game), options, seed)
    rng = random.Random(seed)
    n = 0
    while not g.is_over:
        # One move at a time, re-reading who acts: a move may end another seat's decision.
        acting = g.to_act()
        seat = acting[0] if len(acting) == 1 else rng.choice(acting)
        g.apply(seat, g.random_action(seat, rng))
        n += 1
    return n


def count_turns(game: type[Game], options: dict[str, Any], seed: int) -> int:
    """The random playout of ``random_playout`` again, counting turns: changes of who acts."""
    g = game.create(players_for(game), options, seed)
    rng = random.Random(seed)
    turns, last = 0, None
    while not g.is_over:
        acting = g.to_act()
        seat = acting[0] if len(acting) == 1 else rng.choice(acting)
        if seat != last:
            turns, last = turns + 1, seat
        g.apply(seat, g.random_action(seat, rng))
    return turns


def _rate(run_one: Callable[[int], object], seconds: float, rounds: int = 5) -> tuple[float, int]:
    """Runs ``run_one(seed)`` for ``seconds`` split into ``rounds``; returns (the best round's runs
    per second, total runs).  The best round, as timeit advises: other processes on a shared machine
    only ever slow a round down, so the fastest is the closest to the code's own speed."""
    best = 0.0
    runs = 0
    for _ in range(rounds):
        start = time.perf_counter()
        deadline = start + seconds / rounds
        n = 0
        while True:
            run_one(runs)
            runs += 1
            n += 1
            if time.perf_counter() >= deadline:
                break
        best = max(best, n / (time.perf_counter() - start))
    return best, runs


def ai_decisions(game: type[Game], options: dict[str, Any], seconds: float) -> dict[str, float]:
    """Every seat played by the registered AI; times only the ``choose`` calls."""
    ai = engine.get(game.name).ai()
    times: list[float] = []
    seed = 0
    wall_deadline = time.perf_counter() + seconds
    while time.perf_counter() < wall_deadline:
        g = game.create(players_for(game), options, seed)
        rng = random.Random(seed)
        while not g.is_over:
            acting = g.to_act()
            seat, a = _ai_move(ai, g, acting, rng, times)
            g.apply(seat, a)
        seed += 1
    spent = sum(times)
    times.sort()
    return {
        "ai_decisions_per_s": len(times) / spent if spent else 0.0,
        "ai_ms_mean": 1000 * spent / len(times) if times else 0.0,
        # The slowest few include garbage-collector pauses and other processes; p99.9 is the AI's own.
        "ai_ms_p999": 1000 * times[int(0.999 * (len(times) - 1))] if times else 0.0,
        "ai_ms_max": 1000 * times[-1] if times else 0.0,
        "ai_decisions": len(times),
    }


def _ai_move(ai: Any, g: Game, acting: tuple[int, ...], rng: random.Random,
             times: list[float]) -> tuple[int, Any]:
    """The next move as the runtime would make it: while the table itself acts (a timed step), the
    seats' decisions are optional and the table moves only when no AI wants to."""
    if TABLE in acting:
        for seat in acting:
            if seat != TABLE:
                t = time.perf_counter()
                a = ai.choose_optional(g, seat, rng)
                times.append(time.perf_counter() - t)
                if a is not None:
                    return seat, a
        decision = g.decision(TABLE)
        assert decision is not None  # the table is to act
        return TABLE, decision.actions[0]
    seat = acting[0]
    t = time.perf_counter()
    a = ai.choose(g, seat, rng)
    times.append(time.perf_counter() - t)
    return seat, a


def halfway(game: type[Game], options: dict[str, Any], seed: int = 0) -> Game:
    """A state halfway through a random one-hand game (what a search copies)."""
    n = random_playout(game, options, seed)
    g = game.create(players_for(game), options, seed)
    rng = random.Random(seed)
    for _ in range(n // 2):
        acting = g.to_act()
        seat = acting[0] if len(acting) == 1 else rng.choice(acting)
        g.apply(seat, g.random_action(seat, rng))
    return g


def copy_costs(game: type[Game], options: dict[str, Any], seconds: float) -> dict[str, float]:
    g = halfway(game, options)
    out = {}
    costs: tuple[tuple[str, Callable[[], object]], ...] = (
        ("copy_us", g.copy), ("roundtrip_us", lambda: type(g).from_dict(g.to_dict())))
    for key, fn in costs:
        def once(_seed: int, fn: Callable[[], object] = fn) -> object:
            return fn()

        per_s, _ = _rate(once, seconds / 4)
        out[key] = 1e6 / per_s
    return out


def openspiel_playout(game: Any, seed: int) -> int:
    """One random game of OpenSpiel's (chance steps included) driven from Python, the way
    ``random_playout`` drives ours; returns how many steps it took."""
    rnd = random.Random(seed).random
    s = game.new_initial_state()
    legal, apply_action, terminal = s.legal_actions, s.apply_action, s.is_terminal
    n = 0
    while not terminal():
        la = legal()
        apply_action(la[int(rnd() * len(la))])
        n += 1
    return n


def _cpu_rate(run_one: Callable[[int], object], seconds: float, first: int) -> tuple[float, int]:
    """Runs per CPU second of ``run_one(seed)`` for ``seconds`` of this process's CPU time."""
    start = time.process_time()
    deadline = start + seconds
    n = 0
    while True:
        run_one(first + n)
        n += 1
        spent = time.process_time() - start
        if spent >= seconds and time.process_time() >= deadline:
            return n / spent, n


def variants(name: str) -> list[tuple[str, dict[str, Any], str]]:
    """The side by sides of game ``name``: ``(label, our one-hand options, OpenSpiel's game)``, as its
    measure lists them (``Measure.openspiel_variants``), else its first short options against
    ``Measure.openspiel``; none when it names no OpenSpiel twin."""
    m = engine.get(name).measure
    if m is None or not m.openspiel:
        return []
    if m.openspiel_variants:
        return [(label, dict(options), twin) for label, options, twin in m.openspiel_variants]
    return [("default", one_hand_options(engine.get(name).game), m.openspiel)]


def openspiel_side_by_side(name: str, twin: str, seconds: float, rounds: int = 10,
                           options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Deckhand's game ``name`` (one-hand ``options``, default its first short options) and
    OpenSpiel's ``twin`` (a game string with its parameters): one-hand random games/s, measured in
    alternating rounds."""
    try:
        import pyspiel
    except ImportError as e:
        return {"available": False, "reason": f"open_spiel is not installed ({e})"}
    os_game = pyspiel.load_game(twin)
    ours = engine.get(name).game
    one = one_hand_options(ours) if options is None else options
    # The engine's build, OpenSpiel, and (when the engine's build is the compiled one) the pure source.
    sides: dict[str, Callable[[int], object]] = {
        "ours": lambda s: random_playout(ours, one, s),
        "theirs": lambda s: openspiel_playout(os_game, s),
    }
    if build_of(ours) == "compiled":
        pure = getattr(native.pure(module_of(ours)), ours.__name__)
        sides["pure"] = lambda s: random_playout(pure, one, s)
    for run in sides.values():
        run(0)  # warm every side before timing
    best = dict.fromkeys(sides, 0.0)
    ratios: dict[str, list[float]] = {side: [] for side in sides if side != "theirs"}
    seeds = dict.fromkeys(sides, 0)
    per_round = seconds / (len(sides) * rounds)
    names = list(sides)
    for r in range(rounds):
        # Rotate which side goes first, so none always follows another's cache footprint.
        got = {}
        for side in names[r % len(names):] + names[:r % len(names)]:
            got[side], n = _cpu_rate(sides[side], per_round, seeds[side])
            seeds[side] += n
            best[side] = max(best[side], got[side])
        for side in ratios:
            ratios[side].append(got[side] / got["theirs"])
    for rs in ratios.values():
        rs.sort()
    out: dict[str, Any] = {
        "available": True,
        "options": one,
        "twin": twin,
        "open_spiel_version": getattr(pyspiel, "__version__", None) or _dist_version("open_spiel"),
        "deckhand_build": "compiled" if "pure" in sides else "pure",
        "deckhand_games_per_s": best["ours"],
        "openspiel_games_per_s": best["theirs"],
        "ratio": best["ours"] / best["theirs"],
        "ratio_median": ratios["ours"][len(ratios["ours"]) // 2],
        "rounds": rounds,
        "games": [seeds["ours"], seeds["theirs"]],
        "openspiel_steps_per_game": sum(openspiel_playout(os_game, s) for s in range(20)) / 20,
        "load_average": os.getloadavg()[0],
    }
    if "pure" in sides:
        out.update({"pure_games_per_s": best["pure"], "pure_ratio": best["pure"] / best["theirs"],
                    "pure_ratio_median": ratios["pure"][len(ratios["pure"]) // 2], "pure_games": seeds["pure"],
                    "compiled_over_pure": best["ours"] / best["pure"]})
    return out


def _dist_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def measure(name: str, seconds: float) -> dict[str, Any]:
    game = engine.get(name).game
    one = one_hand_options(game)
    random_playout(game, one, 0)  # warm caches before timing
    games_per_s, games = _rate(lambda s: random_playout(game, one, s), seconds)
    # Turns: a player's moves until another seat must act (a turn may be several actions, or one
    # card).  Counted on one-hand games, outside the timed loops.
    turn_count = sum(count_turns(game, one, s) for s in range(20))
    action_count = sum(random_playout(game, one, s) for s in range(20))
    full_per_s, full = _rate(lambda s: random_playout(game, {}, s), seconds)
    out: dict[str, Any] = {
        "games_per_s": games_per_s,
        "turns_per_s": games_per_s * turn_count / 20,
        "actions_per_game": action_count / 20,
        "one_hand_options": one,
        "games": games,
        "full_games_per_s": full_per_s,
        "full_game_options": {o.name: o.default for o in game.options_spec},
        "full_games": full,
    }
    out.update(ai_decisions(game, one, seconds))
    out.update(copy_costs(game, one, seconds))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print only a JSON object")
    p.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement (default 2)")
    p.add_argument("--no-openspiel", action="store_true",
                   help="skip the side by side with OpenSpiel even when open_spiel is installed")
    args = p.parse_args(argv)
    results = {name: measure(name, args.seconds) for name in sorted(engine.games())}
    twins = {name: variants(name) for name in engine.games() if variants(name)}
    for name, r in results.items():
        r["engine_build"] = build_of(engine.get(name).game)
    if not args.no_openspiel:
        for name, listed in twins.items():
            # Twice the time of one figure for each variant: the two sides share it.  The first
            # variant is also ``openspiel`` (the figure earlier runs printed).
            sides = {label: openspiel_side_by_side(name, twin, 2 * args.seconds, options=options)
                     for label, options, twin in listed}
            results[name]["openspiel_variants"] = sides
            results[name]["openspiel"] = next(iter(sides.values()))
    if args.json:
        print(json.dumps(results))
        return 0
    print(f"One core, {args.seconds:g} s per figure. A 'game' is ONE HAND (options that end the game after")
    print("its first hand, the unit OpenSpiel uses); full games use the default options.")
    builds = ", ".join(f"{name} {r['engine_build']}" for name, r in results.items())
    print(f"Engine build: {builds} ({native.REASON}).")
    for name, r in results.items():
        print(f"\n{name}  (one-hand options: {r['one_hand_options'] or 'defaults'})")
        print(f"  random one-hand games/s   {r['games_per_s']:>10,.0f}   ({r['games']:,} games; "
              f"{r['actions_per_game']:,.0f} actions, {r['turns_per_s']:,.0f} turns/s)")
        print(f"  random full games/s       {r['full_games_per_s']:>10,.1f}   "
              f"({r['full_games']:,} games, default options {r['full_game_options']})")
        print(f"  AI decisions/s            {r['ai_decisions_per_s']:>10,.0f}   "
              f"(mean {r['ai_ms_mean']:.3f} ms, p99.9 {r['ai_ms_p999']:.3f} ms, max {r['ai_ms_max']:.3f} ms "
              f"over {r['ai_decisions']:,})")
        print(f"  state copy for search      {r['copy_us']:>9,.1f} µs   (to_dict/from_dict round trip "
              f"{r['roundtrip_us']:,.1f} µs)")
    for name, label, side in _sides(results, twins):
        title = engine.get(name).game.title
        print(f"\n{name} ({label}) side by side with OpenSpiel's C++ {title} driven from Python (one "
              "process, alternating rounds, CPU time)")
        if side["available"]:
            print(f"  ours {side['options']} against {side['twin']}")
        if not side["available"]:
            print(f"  skipped: {side['reason']}; pip install --no-deps -r requirements-bench.txt")
        else:
            print(f"  Deckhand one-hand random games/s   {side['deckhand_games_per_s']:>10,.0f}   "
                  f"({side['deckhand_build']} build)")
            print(f"  OpenSpiel one-hand random games/s  {side['openspiel_games_per_s']:>10,.0f}   "
                  f"(open_spiel {side['open_spiel_version']}, {side['openspiel_steps_per_game']:.0f} "
                  f"steps a game with the deal)")
            print(f"  ratio Deckhand / OpenSpiel         {side['ratio']:>10.2f}×  (best rounds; median of "
                  f"{side['rounds']} paired rounds {side['ratio_median']:.2f}×; load average "
                  f"{side['load_average']:.1f})")
            if "pure_games_per_s" in side:
                print(f"  Deckhand pure Python games/s       {side['pure_games_per_s']:>10,.0f}   "
                      f"({side['pure_ratio']:.2f}× OpenSpiel, median {side['pure_ratio_median']:.2f}×; "
                      f"the compiled build is {side['compiled_over_pure']:.2f}× the pure one)")
            print(f"  Deckhand state copy for search     {results[name]['copy_us']:>9.1f} µs")
    print("\nTargets (from the issues):")
    for name, r in results.items():
        measured = engine.get(name).measure
        if measured is None or measured.target is None:
            continue
        key, low = measured.target
        ok = r[key] >= low
        print(f"  {name:8} {key} ≥ {low:,}: {'met' if ok else 'NOT met'} ({r[key]:,.0f}); AI p99.9 < 5 ms: "
              f"{'met' if r['ai_ms_p999'] < 5 else 'NOT met'} ({r['ai_ms_p999']:.2f} ms; the max, "
              f"{r['ai_ms_max']:.2f} ms, includes pauses of the shared machine)")
    for name, label, side in _sides(results, twins):
        if side["available"]:
            print(f"  {name:8} ≥ {OPENSPIEL_TARGET}× OpenSpiel side by side ({label}): "
                  f"{'met' if side['ratio'] >= OPENSPIEL_TARGET else 'NOT met'} ({side['ratio']:.2f}×)")
    return 0


def _sides(results: dict[str, Any], twins: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every side by side measured: ``(game, variant's label, its figures)``."""
    return [(name, label, side) for name in twins
            for label, side in results[name].get("openspiel_variants", {}).items()]


if __name__ == "__main__":
    sys.exit(main())
