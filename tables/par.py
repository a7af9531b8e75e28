"""Par: the same deals replayed by the strong AI in every seat, after a game is over.

When one group plays duplicate alone (a duplicate tournament whose round has a single table: nobody
else holds the same cards), each hand of its game is played again from the same start — the same
cards, the same scores before it — with the strong AI in every seat; what each seat scores there is
the hand's *par*, and each person is scored against it (tables/nights/duplicate.py).  It runs only
after the game is over, in the AI pool's background lane (tables/ai/pool.py), so nothing of it can
show or weigh on anything during play; a hand the pool could not replay in time has no par and
counts for nothing.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence

import engine
from engine.core import TABLE, Event, Options
from tables.ai.pool import AIPool
from tables.history.stats import game_events
from tables.table import Table

log = logging.getLogger("deckhand.tables")

#: CPU seconds the strong AI may think for one decision of a par replay (its playouts cap the rest).
DECISION_BUDGET = 0.5
#: Wall seconds the pool may take for one hand's replay before it is given up.
HAND_BUDGET = 120.0


def par_in_worker(game: str, players: int, options: Options, seed: int, actions: list[tuple[int, str]],
                  hand: int, ai_seed: str, playouts: int | None,
                  decision_budget: float = DECISION_BUDGET) -> list[float]:
    """Run in an AI pool worker: the game replayed from its log to the start of hand ``hand`` (from
    0), then that hand played by the strong AI in every seat; each seat's score on it."""
    spec = engine.get(game)
    cls = spec.game
    state = cls.create(players, options, seed)
    events: list[Event] = list(state.start_events)
    ends = 0
    for who, code in actions:
        if ends >= hand:
            break
        got = state.apply(who, cls.action_from_code(code))
        events.extend(got)
        ends += sum(1 for e in got if e.kind == "hand_end" and e.to is None)
    if ends != hand:
        raise ValueError(f"the game has no hand {hand}")

    def budget() -> Callable[[], float]:
        end = time.process_time() + decision_budget
        return lambda: end - time.process_time()

    rng = random.Random(ai_seed)
    while not state.is_over:
        seat = next(iter(state.to_act()), None)
        if seat is None:  # nobody to decide: the rules' own step, after its delay
            timer = state.table_timer()
            if timer is None:
                break
            got = state.apply(TABLE, timer[1])
        else:
            ai = engine.ai_for(game, "strong", playouts=playouts, time_left=budget())
            got = state.apply(seat, ai.choose(state, seat, rng))
        events.extend(got)
        if any(e.kind == "hand_end" and e.to is None for e in got):
            break
    assert spec.hand_scores is not None
    scores = spec.hand_scores(events, players)
    if len(scores) <= hand:
        raise ValueError(f"hand {hand} did not end")
    return scores[hand]


async def pars(pool: AIPool | None, t: Table, hands: int, playouts: int | None = None) -> list[list[float] | None]:
    """Each of the first ``hands`` hands' par at finished table ``t``, seat by seat (None for a hand
    the pool could not replay: busy, too slow, or no pool at all)."""
    out: list[list[float] | None] = []
    if pool is None or t.seed is None:
        return [None] * hands
    actions = [(e.seat, e.code) for e in t.log]
    for k in range(hands):
        got = await pool.run_background(par_in_worker, t.game, len(t.seats), dict(t.options), t.seed, actions, k,
                                        f"{t.seed}/par/{k}", playouts, budget=HAND_BUDGET)
        if got is None:
            log.info("No par for hand %d of table %s (the AI pool could not replay it)", k + 1, t.id)
        out.append(None if got is None else [float(x) for x in got])
    return out


def hands_played(t: Table) -> int:
    """How many hands the finished game at ``t`` played to their end."""
    hand_scores = t.spec.hand_scores
    return 0 if hand_scores is None else len(hand_scores(game_events(t), len(t.seats)))


def with_par(hands: Sequence[Sequence[float]], par: Sequence[Sequence[float] | None]) -> dict[tuple[int, int], float]:
    """The par of every board (hand, seat) that has one."""
    return {(k, seat): float(v) for k, row in enumerate(par) if row is not None and k < len(hands)
            for seat, v in enumerate(row)}
