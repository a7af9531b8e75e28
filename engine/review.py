"""A review of one person's play: the strong search run over each decision they made in a finished
game, from what they could know at that moment.

For each decision of the seat, the state before it is rebuilt from the log, and the game's
``strong`` level itself (``engine.ai_for(name, "strong")``, the searcher a table's strong seat and
a hint use) weighs the moves: every candidate of its search (its own candidates and shortlist,
plus the move actually made) is played out in the same sampled worlds (``state.sample_world(seat,
rng)``: the cards the seat could not see dealt again, consistently with what it knew), as the
strong level searches (``SearchAI.evaluate``, engine/search.py).  The mean result of the move made
and of the best move found give the loss, in the game's units (``GameSpec.review_units``), and the
mark from the game's thresholds (``GameSpec.review_thresholds``: an inaccuracy from the first, a
mistake from the second).

Hidden means hidden: nothing here reads a hand the seat could not see.  The worlds come from the
seat's knowledge only, so the same judgement comes out of any deal the seat could not tell from the
real one — the cards revealed later never count.

What is not judged, and said so: a move made for the person (the clock's safe move, the AI playing
while they were away: ``auto`` in the log), a decision with one legal move, a decision the search
does not cover (passing, burying, ...), and every decision of a game without a strong search.

Pure and deterministic like the rest of the engine: randomness from the given seed, budgets as
playouts and an optional ``time_left()`` callable per decision (the runtime's clock, never read here).

    r = review(game, players, options, seed, [(seat, code, auto), ...], seat=0, seed="T1/review")
    r.costliest(3), r.average_loss
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.core import Action, Game, get
from engine.levels import ai_for, levels
from engine.search import SearchAI

FINE = "fine"
INACCURACY = "inaccuracy"
MISTAKE = "mistake"
#: Why a decision was not judged (``Judged.mark`` is then one of these).
MADE_FOR_YOU = "made for you"  # the clock's safe move, or the AI playing while the person was away
TIMEOUT = "time ran out"
ONLY_MOVE = "only move"
NOT_SEARCHED = "not searched"  # a kind of decision the search does not cover (a pass, a bury)
NO_TIME = "out of time"  # the budget ran out before one world was played out
JUDGED = (FINE, INACCURACY, MISTAKE)


@dataclass(frozen=True)
class Judged:
    """One decision of the seat: ``step`` is its index in the game's log (the state before it is the
    game after ``step`` actions); values are the search's mean result for the seat (higher is better,
    in the game's units); ``loss`` = best − made (0 when the move made was the best found)."""

    step: int
    made: str
    mark: str
    made_value: float | None = None
    best: str | None = None
    best_value: float | None = None
    loss: float = 0.0
    worlds: int = 0

    @property
    def judged(self) -> bool:
        return self.mark in JUDGED


@dataclass(frozen=True)
class Review:
    """The review of one seat's play in one game."""

    game: str
    seat: int
    units: str
    thresholds: tuple[float, float]
    decisions: list[Judged] = field(default_factory=list)
    #: False for a game without a strong search: nothing is judged, ``note`` says why.
    searched: bool = True
    note: str = ""

    @property
    def judged(self) -> list[Judged]:
        return [d for d in self.decisions if d.judged]

    @property
    def average_loss(self) -> float | None:
        """The mean loss per judged decision (None when none was judged)."""
        js = self.judged
        return sum(d.loss for d in js) / len(js) if js else None

    def costliest(self, n: int = 3) -> list[Judged]:
        """The ``n`` judged decisions that cost the most (only those that cost anything), worst first."""
        bad = [d for d in self.judged if d.mark != FINE]
        return sorted(bad, key=lambda d: (-d.loss, d.step))[:n]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["thresholds"] = list(self.thresholds)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Review:
        return cls(game=str(data["game"]), seat=int(data["seat"]), units=str(data["units"]),
                   thresholds=(float(data["thresholds"][0]), float(data["thresholds"][1])),
                   decisions=[Judged(**j) for j in data["decisions"]], searched=bool(data["searched"]),
                   note=str(data.get("note", "")))


def mark_for(loss: float, thresholds: tuple[float, float]) -> str:
    inaccuracy, mistake = thresholds
    if loss >= mistake:
        return MISTAKE
    if loss >= inaccuracy:
        return INACCURACY
    return FINE


def searched(name: str) -> bool:
    """Whether game ``name`` can be reviewed: it has a strong search."""
    return "strong" in levels(name) and get(name).search is not None


def judge(state: Game, seat: int, made: Action, rng: random.Random, playouts: int | None = None,
          time_left: Callable[[], float] | None = None, step: int = 0) -> Judged:
    """Judge ``made`` as ``seat``'s move in ``state`` (which is not changed), from ``seat``'s knowledge.

    The strong level's own search weighs the moves (``SearchAI.evaluate``, engine/search.py: its
    candidates, shortlist, worlds and playouts), the move made always among them, every one played
    out in the same worlds; ``playouts`` caps the playouts (None: the strong level's; at least two
    worlds unless the deadline comes first)."""
    name = type(state).name
    spec = get(name)
    thresholds = spec.review_thresholds
    d = state.decision(seat)
    legal = state.legal_actions(seat) if d is not None and not d.pick else []
    if d is not None and not d.pick and len(legal) <= 1:
        return Judged(step, made.code, ONLY_MOVE)
    if not searched(name):
        return Judged(step, made.code, NOT_SEARCHED)
    # The strong level itself, as a table's strong seat and a hint get it (engine.ai_for): whatever
    # makes that search stronger makes the review's judgement stronger too.
    searcher = ai_for(name, "strong", playouts=playouts, time_left=time_left)
    if not isinstance(searcher, SearchAI) or not searcher.hooks.searchable(state, seat):
        return Judged(step, made.code, NOT_SEARCHED)
    e = searcher.evaluate(state, seat, rng, searcher.playouts, time_left, include=made)
    if e.only:  # every legal move comes to the same one (equivalent cards): nothing to fault
        return Judged(step, made.code, FINE, best=made.code)
    if e.cands is None or not e.worlds:
        return Judged(step, made.code, NO_TIME)
    cands, means = e.cands, [t / e.worlds for t in e.totals]
    n, mine = len(cands), cands.index(made)
    # Ties go to the move made: a search that sees no difference finds nothing to fault.
    best = max(range(n), key=lambda j: (means[j], j == mine))
    loss = max(0.0, means[best] - means[mine])
    return Judged(step, made.code, mark_for(loss, thresholds), round(means[mine], 4),
                  cands[best].code, round(means[best], 4), round(loss, 4), e.worlds)


def seat_decisions(actions: Sequence[Sequence[Any]], seat: int) -> list[int]:
    """The log indexes of ``seat``'s own actions (``actions``: ``(seat, code[, auto[, timeout]])``)."""
    return [i for i, a in enumerate(actions) if int(a[0]) == seat]


def review(name: str, players: int, options: dict[str, Any] | None, game_seed: int | str,
           actions: Sequence[Sequence[Any]], seat: int, seed: int | str = 0, *,
           playouts: int | None = None, steps: Iterable[int] | None = None,
           time_left: Callable[[int], Callable[[], float] | None] | None = None) -> Review:
    """Review ``seat``'s decisions in the game logged as ``actions`` (each ``(seat, code)``, with
    optional ``auto`` and ``timeout`` flags as the runtime's log keeps them).

    ``steps``: only these log indexes (a runtime reviews a game in pieces); ``time_left(step)``: the
    deadline callable for one decision (None: playouts only).  Decision ``step`` is judged with a
    generator seeded from ``seed`` and ``step`` only, so pieces give what a whole review gives."""
    spec = get(name)
    units = spec.review_units
    thresholds = spec.review_thresholds
    if not searched(name):
        return Review(name, seat, units, thresholds, [], False,
                      f"{spec.game.title} has no strong AI to compare your moves with, so it cannot be reviewed.")
    wanted = set(seat_decisions(actions, seat) if steps is None else steps)
    cls = spec.game
    state = cls.create(players, options, game_seed)
    out: list[Judged] = []
    last = max(wanted, default=-1)
    for i, entry in enumerate(actions):
        if i > last:
            break  # (the rest of the log changes no judgement: a piece replays only as far as it needs)
        s, code = int(entry[0]), str(entry[1])
        action = cls.action_from_code(code)
        if s == seat and i in wanted:
            auto = bool(entry[2]) if len(entry) > 2 else False
            timeout = bool(entry[3]) if len(entry) > 3 else False
            if timeout:
                out.append(Judged(i, code, TIMEOUT))
            elif auto:
                out.append(Judged(i, code, MADE_FOR_YOU))
            else:
                rng = random.Random(f"{seed}/review/{seat}/{i}")
                out.append(judge(state.copy(), seat, action, rng, playouts,
                                 None if time_left is None else time_left(i), step=i))
        state.apply(s, action)
    return Review(name, seat, units, thresholds, out)


def merge(parts: Sequence[Review]) -> Review:
    """One review from the pieces of one (their decisions in log order)."""
    first = parts[0]
    decisions = sorted((d for p in parts for d in p.decisions), key=lambda d: d.step)
    return Review(first.game, first.seat, first.units, first.thresholds, decisions, first.searched, first.note)
