"""The ``strong`` AI level: determinized Monte Carlo search over sampled worlds, for every game whose
``GameSpec`` asks for it (each game's ``Hooks`` live in its own folder, ``games/<name>/search.py``).

For each decision the searcher samples full states consistent with what its seat knows
(``state.sample_world(seat, rng)``), plays every candidate move out to the end of the hand in each
world with the game's ``normal`` AI playing every seat, and picks the move with the best mean
result for its seat.  Every candidate is played out in the same worlds (common random numbers), so
the comparison between moves is much less noisy than the results themselves.  Decisions the search
does not cover (passing, burying, declaring, ...) are the ``normal`` AI's.

Pure like the rest of the engine: no clock.  The budget is a number of playouts, and optionally a
``time_left()`` callable from the caller (seconds left), so a runtime can bound wall time while the
engine never reads a clock.  The deadline is checked before each world, before each playout and
every few moves inside a playout: one world can hold a hundred candidates (a game's
multi-card plays) and a playout a whole round, so checking between worlds only let a search overrun
its budget by a second.  A world interrupted by the deadline is dropped (a move is compared with the
others only in worlds where all of them were played out); with no complete world the move is the
normal AI's.  Without a deadline hit, the result depends only on the generator and the playouts.

A world costs a playout per candidate, so a decision with a hundred candidates (a game
whose follow to a pair lead is any two of twenty cards) finished no world
within a second and fell back to the normal move.  When a game's hooks set ``max_candidates``, a
decision with more is searched over a shortlist: the normal AI's move first, then the best others
by the hooks' ranking (``Hooks.shortlist``; a game's hooks may ask its normal
AI).  The normal move is always compared, so the search can only keep it or find
a better one in the worlds it plays.

    ai = engine.ai_for(game_name, "strong", playouts=400)
    ai.choose(state, seat, rng)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.core import AI, Action, Game, games, get
from engine.levels import register_level
from engine.worlds import NoWorld


class Hooks:
    """What the search needs to know of one game (a game's ``GameSpec.search``)."""

    def searchable(self, state: Any, seat: int) -> bool:
        """Whether ``seat``'s current decision is searched (else the normal AI decides)."""
        return state.phase == "play" and state.to_act() == (seat,)

    #: Candidates searched at most in one decision (None: all of them); see :meth:`shortlist`.
    max_candidates: int | None = None

    def candidates(self, state: Any, seat: int) -> list[Action]:
        d = state.decision(seat)
        return list(d.actions) if d is not None else []

    def shortlist(self, state: Any, seat: int, cands: list[Action], base: AI, default: Action,
                  k: int) -> list[Action]:
        """``k`` of ``cands`` worth searching, ``default`` (the normal AI's move) first.  Here the
        first ones in ``cands``' order; a game's hooks rank them better."""
        return [default, *(a for a in cands if a != default)][:k]

    def done(self, start: Any, now: Any) -> bool:
        """Whether the playout from ``start`` has reached the end of the hand."""
        return now.is_over or now.hand_no != start.hand_no

    def utility(self, start: Any, end: Any, seat: int) -> float:
        """The result for ``seat`` (higher is better) of the hand played from ``start`` to ``end``."""
        raise NotImplementedError

    def own_playout(self, start: Any, x: Any, seat: int, base: AI, normal: type[AI],
                    play_out: Callable[[Any, Any], object]) -> float | None:
        """A ``playout`` by the game's ``normal`` player with its counts kept play by play (``play_out(x,
        base)``: the same moves, cheaper); ``None`` (the search's own playout) for another ``base``."""
        if type(base) is not normal:
            return None
        play_out(x, base)
        return self.utility(start, x, seat)


@dataclass
class Evaluation:
    """One decision's search (:meth:`SearchAI.evaluate`): the normal AI's move (``default``), the
    candidates played out (None: nothing was searched: one candidate, or no world possible), each
    one's total result over ``worlds`` complete worlds, the playouts run, whether the deadline
    ended it, and (candidates searched, candidates in all) when a shortlist was searched."""

    default: Action
    cands: list[Action] | None = None
    totals: list[float] = field(default_factory=list)
    worlds: int = 0
    playouts: int = 0
    out_of_time: bool = False
    shortlisted: tuple[int, int] | None = None
    #: Nothing searched because every move comes to the one candidate (``cands`` is None then).
    only: bool = False

    def means(self) -> dict[str, float]:
        """Each candidate's mean result (by code), once a world is complete."""
        if not self.cands or not self.worlds:
            return {}
        return {a.code: t / self.worlds for a, t in zip(self.cands, self.totals, strict=True)}


class SearchAI(AI):
    """Determinized Monte Carlo over ``state.sample_world``; the game's normal AI plays the
    playouts and every decision the search does not cover."""

    def __init__(self, hooks: Hooks, base: AI, playouts: int = 400,
                 time_left: Callable[[], float] | None = None, max_candidates: int | None = None) -> None:
        self.hooks = hooks
        self.base = base
        self.playouts = playouts
        self.time_left = time_left
        #: Candidates searched at most (None: the hooks' ``max_candidates``; 0: every one).
        self.max_candidates = max_candidates
        #: Figures of the last search: worlds sampled, playouts run, mean result per candidate, and
        #: when a shortlist was searched, ``shortlisted``: (candidates searched, candidates in all).
        self.last: dict[str, Any] = {}

    def choose(self, state: Game, seat: int, rng: random.Random) -> Action:
        return self.search(state, seat, rng, self.playouts, self.time_left)

    def choose_optional(self, state: Game, seat: int, rng: random.Random) -> Action | None:
        return self.base.choose_optional(state, seat, rng)

    def search(self, state: Game, seat: int, rng: random.Random, playouts: int,
               time_left: Callable[[], float] | None = None) -> Action:
        base = self.base
        self.last = {}
        if not self.hooks.searchable(state, seat):
            return base.choose(state, seat, rng)
        e = self.evaluate(state, seat, rng, playouts, time_left)
        if e.cands is None:  # one candidate, or knowledge that admits no deal: the sound move
            return e.default
        cands, totals, worlds = e.cands, e.totals, e.worlds
        self.last = {"worlds": worlds, "playouts": e.playouts, "out_of_time": e.out_of_time,
                     "means": e.means()}
        if e.shortlisted:
            self.last["shortlisted"] = e.shortlisted
        if not worlds:
            return e.default
        # Ties go to the normal AI's choice: a search that sees no difference keeps the sound move.
        best = max(range(len(cands)), key=lambda j: (totals[j], cands[j] == e.default))
        return cands[best]

    def evaluate(self, state: Game, seat: int, rng: random.Random, playouts: int,
                 time_left: Callable[[], float] | None = None, include: Action | None = None) -> Evaluation:
        """The search's work for one decision, without its choice: the candidates (``include``
        among them: the review's move made), each played out in the same sampled worlds.  The
        strong level's :meth:`search` and the review (engine/review.py) both judge from this, so a
        review weighs moves with exactly the search a table's strong seat and a hint use."""
        hooks = self.hooks
        base = self.base
        cands = hooks.candidates(state, seat)
        default = base.choose(state, seat, rng)
        if len(cands) <= 1 and (include is None or include in cands):
            return Evaluation(default, only=True)
        limit = self.hooks.max_candidates if self.max_candidates is None else self.max_candidates
        shortlisted = None
        if limit and len(cands) > limit:
            shortlisted = (limit, len(cands))
            cands = hooks.shortlist(state, seat, cands, base, default, limit)
        if include is not None and include not in cands:
            cands = [*cands, include]
        n = len(cands)
        totals = [0.0] * n
        worlds = 0
        run = 0
        out_of_time = False
        # At least two worlds, so a short playout budget still compares moves rather than returning
        # the first; the caller's deadline overrides even that.
        while worlds < 2 or run + n <= playouts:
            if time_left is not None and time_left() <= 0:
                out_of_time = True
                break
            try:
                world = state.sample_world(seat, rng)
            except NoWorld:
                # Knowledge that admits no deal (a state built by hand, say): no search, the sound move.
                return Evaluation(default)
            results: list[float] = []
            for a in cands:
                x = world.copy()
                x.apply(seat, a)
                r = self._playout(state, x, seat, rng, time_left)
                if r is None:
                    break
                results.append(r)
            if len(results) < n:
                out_of_time = True
                break
            for j, r in enumerate(results):
                totals[j] += r
            worlds += 1
            run += n
        return Evaluation(default, cands, totals, worlds, run, out_of_time, shortlisted)

    #: Moves of a playout between two looks at the deadline (a look costs far less than a move).
    CHECK_EVERY = 8

    def _playout(self, start: Game, x: Game, seat: int, rng: random.Random,
                 time_left: Callable[[], float] | None = None) -> float | None:
        """The seat's result of playing ``x`` out with the normal AI; ``None`` if the deadline came."""
        hooks, base = self.hooks, self.base
        if time_left is not None and time_left() <= 0:
            return None
        fast = getattr(hooks, "playout", None)
        if fast is not None and (u := fast(start, x, seat, base)) is not None:
            return u  # a game's own playout: short, so the look above is enough
        every = self.CHECK_EVERY
        moves = 1  # the deadline was just looked at
        while not hooks.done(start, x):
            if time_left is not None and moves % every == 0 and time_left() <= 0:
                return None
            moves += 1
            acting = x.to_act()
            s = acting[0]
            if len(acting) > 1:
                # A simultaneous step inside a hand (everyone getting ready at once): any order will do.
                s = acting[0] if acting[0] >= 0 else acting[-1]
            x.apply(s, base.choose(x, s, rng))
        return hooks.utility(start, x, seat)


def strong(name: str) -> Callable[..., AI]:
    """The factory registered as ``name``'s ``strong`` level."""

    def make(playouts: int | None = None, time_left: Callable[[], float] | None = None,
             max_candidates: int | None = None) -> AI:
        spec = get(name)
        return SearchAI(spec.search, spec.ai(), spec.playouts if playouts is None else playouts, time_left,
                        max_candidates)

    return make


def register_strong() -> None:
    """Offer the ``strong`` level for every registered game whose spec asks for it (games/__init__.py
    calls this once its games are registered)."""
    for name, spec in games().items():
        if spec.strong and spec.search is not None:
            register_level(name, "strong", strong(name))
