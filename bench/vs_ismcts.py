"""Our strong AI against OpenSpiel's IS-MCTS in the reference game (engine/measure.py), on duplicate
deals at equal CPU time per decision.

Each deal (one hand of the reference game's measure, engine/measure.py: classic rules, to one
hand) is played twice: once with the strong AI in seats 1 and 3 (0-based: 0 and 2) and OpenSpiel's
``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``, one random rollout per leaf, UCT c = 2,
unlimited world samples, the most visited move: the settings of OpenSpiel's own examples) in the
other two, then again with the sides swapped, so both sides hold the same cards.  The figure is the
strong AI's **margin in points per seat-hand**: what IS-MCTS took minus what the strong AI took
(penalty points, so a positive margin is a win for the strong AI), per seat and hand, averaged over
the deal's eight seat-hands, then over deals, with a 95 % interval over deals (normal
approximation).  Target (issue 35): margin ≥ 3 with the interval's far end (margin − interval)
≥ 1.5, at 0.5 s and at 0.1 s a decision.

Equal CPU time: every decision with more than one legal move gets the same budget on both sides,
measured as this process's CPU time (``time.process_time``: other processes on a shared machine
count against neither side).  The strong AI searches until its deadline (its playout cap lifted);
IS-MCTS runs simulations until the same deadline (at least one).  A decision with one legal move is
played at once by both; the strong AI also plays at once when its legal cards are all equivalent
(one run: the game's search hooks), so its mean CPU a decision is a little under the budget.
Passing: IS-MCTS passes card by card as OpenSpiel's game asks (three budgeted decisions); the
strong level passes as the normal AI does (its search covers play only), which is instant.

The game is played in our engine; an OpenSpiel state of its twin (``Measure.openspiel``, the name
bench/engine.py loads) mirrors it move for move: the same pass direction, the same deal, every
pass and card.  Cards translate as OpenSpiel numbers them: rank × 4 + suit, ranks 2…A as 0…12 and
suits ♣ ♦ ♥ ♠ as 0…3; seats are the same numbers, and OpenSpiel's "left" is our left (seat + 1).
Rule difference: OpenSpiel's default lets Q♠ break the suit (``qs_breaks_hearts``), ours does not
(docs/rules.md §1: only a heart played breaks them), so this bench loads the twin with
``qs_breaks_hearts=false`` (bench/engine.py plays the default: for speed, not strength, it does not
matter).  With that every other default agrees with our classic rules (pass 3, 2♣ opens, no points
on the first trick unless nothing else is held, a heart led once the suit is broken or when nothing else is
held, the moon: 26 to each of the others); the bench checks it at every move (the two legal sets
must be equal and the hand's points the same on both sides) and stops with a clear message if not.

OpenSpiel is installed only for this bench, never for the bot: a separate virtualenv,
``python3 -m venv osvenv && osvenv/bin/pip install open_spiel -r requirements.txt``, then

    osvenv/bin/python bench/vs_ismcts.py [--json] [--hands N] [--budget 0.1,0.5] [--seed S] [--jobs J]
                                         [--per-deal]

``--hands`` is per budget (two hands a deal; default 40), ``--budget`` the CPU seconds per decision
(comma-separated: one figure each; default 0.1,0.5), ``--seed`` the first deal's seed (another value:
other deals), ``--per-deal`` adds each deal's margin to the JSON (runs on other deals pool into one
interval), ``--jobs`` processes (at most the cores you may use: a busy core slows neither side's
CPU clock, but a job waiting for a core waits).  It prints, per budget, the margin ± its interval,
hands played, CPU per decision of each side (and IS-MCTS simulations, the strong AI's worlds) and
the load average; ``--json`` prints ``{budget: {...}}``.
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
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Protocol, runtime_checkable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import engine  # noqa: E402
from engine.cards import Card, card  # noqa: E402
from engine.core import Action  # noqa: E402
from engine.measure import reference_game  # noqa: E402
from engine.search import SearchAI  # noqa: E402

GAME = reference_game().name  # the card game whose twin this bench knows how to mirror
#: OpenSpiel's parameters that make its twin play our classic rules (see the docstring).
OPENSPIEL_PARAMS = {"qs_breaks_hearts": False}
#: Our pass directions as OpenSpiel's first chance outcome numbers them.
PASS_DIRS = {"hold": 0, "left": 1, "across": 2, "right": 3}
SUITS = "CDHS"
#: IS-MCTS's exploration constant (OpenSpiel's examples).
UCT_C = 2.0
#: The strong AI's playout cap when its deadline ends the search (tables.ai.pool's cap).
PLAYOUT_CAP = 100_000


@runtime_checkable
class Twin(Protocol):
    """What this bench reads of the reference game's state to mirror it move for move in OpenSpiel."""

    hands: Sequence[Sequence[Card]]
    phase: str
    scores: Sequence[int]

    @property
    def pass_dir(self) -> str: ...


class Missing(Exception):
    """open_spiel is not installed in this Python."""


class RuleMismatch(Exception):
    """Our game and OpenSpiel's twin disagreed on a legal move or a hand's points."""


def to_openspiel(c: Card) -> int:
    """OpenSpiel's number of a card: rank × 4 + suit (ranks 2…A as 0…12, suits ♣ ♦ ♥ ♠)."""
    return (c.value - 2) * 4 + SUITS.index(c.suit)


def from_openspiel(a: int) -> Card:
    """Our card of OpenSpiel's action number ``a`` (a dealt, passed or played card)."""
    return card("23456789TJQKA"[a // 4] + SUITS[a % 4])


def interval95(xs: list[float]) -> float:
    """Half the width of the 95 % interval of the mean of ``xs`` (normal approximation)."""
    if len(xs) < 2:
        return float("nan")
    return 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))


def deal_margin(points: list[list[float]], ours: list[list[int]]) -> float:
    """The strong AI's margin on one deal: ``points[h][s]`` are the points seat ``s`` took in hand
    ``h``, ``ours[h]`` the seats the strong AI held in it; IS-MCTS's mean points per seat-hand minus
    the strong AI's."""
    mine = [p[s] for p, seats in zip(points, ours, strict=True) for s in range(4) if s in seats]
    theirs = [p[s] for p, seats in zip(points, ours, strict=True) for s in range(4) if s not in seats]
    return statistics.fmean(theirs) - statistics.fmean(mine)


def load_openspiel() -> tuple[Any, Any, Any, Any]:
    """pyspiel, OpenSpiel's ISMCTS module, its MCTS module and numpy; :class:`Missing` if absent."""
    try:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts
    except ImportError as e:
        raise Missing(str(e)) from None
    return pyspiel, ismcts, mcts, np


def resample_passing(game: Any, state: Any, player: int, rng: Any) -> Any:
    """A state of OpenSpiel's twin that ``player``, about to pass, cannot tell from ``state``: its
    own deal and the cards it has passed so far as they are, the other hands dealt again at random
    from the rest and the passes made before it drawn again at random from them.  (OpenSpiel's own
    ``resample_from_infostate`` is right once play starts, but during the pass it keeps no record
    of the passes made so far, and deals worlds whose playouts run out of cards.)"""
    h = state.history()
    mine = [h[1 + i] for i in range(52) if i % 4 == player]
    passes = h[53:]
    done = len(passes) // 3  # players 0 … done-1 have passed all three, in seat order
    own = passes[3 * player:]
    rest = [c for c in range(52) if c not in mine]
    rng.shuffle(rest)
    hands = [rest[:13], rest[13:26], rest[26:39]]
    hands.insert(player, mine)
    x = game.new_initial_state()
    x.apply_action(h[0])
    for k in range(13):
        for s in range(4):
            x.apply_action(hands[s][k])
    for s in range(done):
        for c in rng.sample(hands[s], 3):
            x.apply_action(c)
    for c in own:
        x.apply_action(c)
    return x


def timed_ismcts(game: Any, budget: float, seed: int) -> Any:
    """OpenSpiel's ``ISMCTSBot`` searching for ``budget`` seconds of process CPU time a decision
    (its own loop counts simulations; this one runs them until the deadline, at least one)."""
    pyspiel, ismcts, mcts, np = load_openspiel()

    class TimedISMCTS(ismcts.ISMCTSBot):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            rs = np.random.RandomState(seed)
            super().__init__(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs), UCT_C,
                             max_simulations=1, random_state=rs)
            self.simulations: list[int] = []
            passing_rng = random.Random(seed)
            sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)

            def resampler(state: Any, player: int) -> Any:
                h = state.history()
                if h[0] != PASS_DIRS["hold"] and len(h) < 1 + 52 + 12:
                    return resample_passing(game, state, player, passing_rng)
                return state.resample_from_infostate(player, sampler)

            self.set_resampler(resampler)

        def run_search(self, state: Any) -> Any:
            self.reset()
            legal = state.legal_actions()
            if len(legal) == 1:
                return [(legal[0], 1.0)]
            self._root_node = self.create_new_node(state)
            end = time.process_time() + budget
            n = 0
            while n == 0 or time.process_time() < end:
                self.run_simulation(self.sample_root_state(state))
                n += 1
            self.simulations.append(n)
            return self.get_final_policy(state, self._root_node)

    return TimedISMCTS()


def play_hand(deal_seed: int, ours: tuple[int, ...], budget: float) -> dict[str, Any]:
    """One hand of deal ``deal_seed`` with the strong AI in seats ``ours`` and IS-MCTS in the others,
    mirrored move for move in OpenSpiel's game; every seat's points and the decision figures."""
    pyspiel, _, _, _ = load_openspiel()
    spec = engine.get(GAME)
    m = spec.measure
    assert m is not None
    g = spec.game.create(4, dict(m.hand), deal_seed)
    start = g.copy()
    assert isinstance(g, Twin) and isinstance(start, Twin), f"{GAME} is not the game this bench mirrors"
    os_game = pyspiel.load_game(m.openspiel, OPENSPIEL_PARAMS)
    x = os_game.new_initial_state()
    x.apply_action(PASS_DIRS[g.pass_dir])
    hands = [list(h) for h in g.hands]
    for k in range(13):
        for s in range(4):
            x.apply_action(to_openspiel(hands[s][k]))
    deadline = [0.0]
    strong = engine.search.strong(GAME)(playouts=PLAYOUT_CAP,
                                        time_left=lambda: deadline[0] - time.process_time())
    assert isinstance(strong, SearchAI)  # the strong level is engine.search's
    normal = spec.ai()
    bot = timed_ismcts(os_game, budget, deal_seed * 8 + ours[0])
    rng = random.Random(f"{deal_seed}/{ours}")
    ours_cpu: list[float] = []
    theirs_cpu: list[float] = []
    worlds: list[int] = []

    def bot_card() -> Card:
        if x.current_player() != s:
            raise RuleMismatch(f"OpenSpiel has seat {x.current_player()} to move, we have seat {s}")
        c0 = time.process_time()
        n = len(x.legal_actions())
        a = bot.step(x)
        if n > 1:
            theirs_cpu.append(time.process_time() - c0)
        x.apply_action(int(a))
        return from_openspiel(int(a))

    if g.phase == "pass":
        passes: list[Action] = []
        for s in range(4):
            if s in ours:
                act = normal.choose(g, s, rng)
                for c in act.cards:
                    x.apply_action(to_openspiel(c))
            else:
                act = Action("pass", tuple(bot_card() for _ in range(3)))
            passes.append(act)
        for s in range(4):
            g.apply(s, passes[s])
    while not spec.search.done(start, g):
        (s,) = g.to_act()
        decision = g.decision(s)
        assert decision is not None  # the seat to act has a decision
        legal = sorted(to_openspiel(a.cards[0]) for a in decision.actions)
        if legal != sorted(x.legal_actions()):
            raise RuleMismatch(f"seat {s}: our legal cards {[from_openspiel(a).code for a in legal]}, "
                               f"OpenSpiel's {[from_openspiel(a).code for a in x.legal_actions()]}")
        if s in ours:
            c0 = time.process_time()
            deadline[0] = c0 + budget
            act = strong.choose(g, s, rng)
            if len(legal) > 1:
                ours_cpu.append(time.process_time() - c0)
                worlds.append(strong.last.get("worlds", 0))
            x.apply_action(to_openspiel(act.cards[0]))
        else:
            act = Action("play", (bot_card(),))
        g.apply(s, act)
    points = [float(g.scores[s] - start.scores[s]) for s in range(4)]
    if not x.is_terminal():
        raise RuleMismatch("our hand is over, OpenSpiel's is not")
    # OpenSpiel's return is 26 − the points taken (no bonuses with its defaults).
    os_points = [26.0 - r for r in x.returns()]
    if os_points != points:
        raise RuleMismatch(f"points: ours {points}, OpenSpiel's {os_points}")
    return {"points": points, "ours_cpu": ours_cpu, "theirs_cpu": theirs_cpu, "worlds": worlds,
            "simulations": bot.simulations}


def one_deal(args: tuple[int, float]) -> dict[str, Any]:
    """Both hands of a deal (the strong AI in seats 0 and 2, then 1 and 3) and its margin."""
    deal_seed, budget = args
    arrangements = [(0, 2), (1, 3)]
    hands = [play_hand(deal_seed, ours, budget) for ours in arrangements]
    return {"margin": deal_margin([h["points"] for h in hands], [list(a) for a in arrangements]),
            **{k: [v for h in hands for v in h[k]] for k in ("ours_cpu", "theirs_cpu", "worlds", "simulations")}}


def measure(hands: int, budget: float, seed: int, jobs: int, per_deal: bool = False) -> dict[str, Any]:
    deals = max(2, math.ceil(hands / 2))
    work = [(seed + d, budget) for d in range(deals)]
    load_before = os.getloadavg()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            done = list(pool.map(one_deal, work))
    else:
        done = [one_deal(w) for w in work]
    margins = [d["margin"] for d in done]
    ci = interval95(margins)
    margin = statistics.fmean(margins)

    def mean_of(key: str, scale: float = 1.0) -> float:
        xs = [v for d in done for v in d[key]]
        return scale * statistics.fmean(xs) if xs else 0.0

    out = {
        "margin": margin,
        "ci95": ci,
        "far_end": margin - ci,
        "target_met": margin >= 3 and margin - ci >= 1.5,
        "deals": deals,
        "hands": 2 * deals,
        "seat_hands": 8 * deals,
        "budget_s": budget,
        "ours_cpu_ms_mean": mean_of("ours_cpu", 1000),
        "ismcts_cpu_ms_mean": mean_of("theirs_cpu", 1000),
        "ours_worlds_mean": mean_of("worlds"),
        "ismcts_simulations_mean": mean_of("simulations"),
        "first_deal": seed,
        "load_average_before": list(load_before),
        "load_average": list(os.getloadavg()),
    }
    if per_deal:
        out["per_deal"] = margins
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print only a JSON object")
    p.add_argument("--hands", type=int, default=40, help="hands per budget, two a deal (default 40)")
    p.add_argument("--budget", default="0.1,0.5", help="CPU seconds per decision, comma-separated (default 0.1,0.5)")
    p.add_argument("--seed", type=int, default=50_000, help="seed of the first deal (default 50000)")
    p.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    p.add_argument("--per-deal", action="store_true",
                   help="add each deal's margin to the JSON (runs on other deals can then be pooled)")
    args = p.parse_args(argv)
    try:
        pyspiel, _, _, _ = load_openspiel()
    except Missing as e:
        print(f"open_spiel is not installed in this Python ({e}). It is installed only for this bench: "
              "python3 -m venv osvenv && osvenv/bin/pip install open_spiel -r requirements.txt, "
              "then run osvenv/bin/python bench/vs_ismcts.py.", file=sys.stderr)
        return 2
    out: dict[str, Any] = {}
    for budget in (float(v) for v in args.budget.split(",")):
        try:
            out[f"{budget:g}"] = measure(args.hands, budget, args.seed, args.jobs, args.per_deal)
        except RuleMismatch as e:
            print(f"Our game and OpenSpiel's twin disagree ({e}): the comparison would not be fair.", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(out))
        return 0
    from importlib.metadata import version

    print(f"strong {GAME} AI vs OpenSpiel {version('open_spiel')} IS-MCTS (random rollouts), duplicate deals")
    for b, r in out.items():
        verdict = "target met" if r["target_met"] else "target NOT met"
        print(f"{b:>4} s a decision: margin {r['margin']:+.2f} ± {r['ci95']:.2f} points per seat-hand "
              f"(far end {r['far_end']:+.2f}; {verdict})  ({r['hands']} hands, {r['seat_hands']} seat-hands; "
              f"CPU a decision: ours {r['ours_cpu_ms_mean']:.0f} ms, {r['ours_worlds_mean']:.0f} worlds; "
              f"IS-MCTS {r['ismcts_cpu_ms_mean']:.0f} ms, {r['ismcts_simulations_mean']:.0f} simulations; "
              f"load average {r['load_average_before'][0]:.2f} → {r['load_average'][0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
