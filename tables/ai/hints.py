"""Hints at a table: what the strong AI would play for a person's seat, and why — privately.

The search runs in the AI pool's worker processes (never on the event loop), within a budget;
when the pool is busy, late or absent, or the game has no strong level, the hint is the
normal AI's choice (instant) with a simpler reason.  The engine's :func:`engine.hints.hint` does
both, from what the seat may know only (worlds sampled from that seat), and the runtime gives the
answer to that person only.

What is counted (``Seat.hints``, stored with the seats and in the game's results for ``/stats``,
shown in the final standings): the decisions for which the person asked for a hint.  A decision
is the runtime's own (``Live.since``: it begins when the seat's options change or it acts; another
seat passing does not begin a new one).  Asking again for the same decision — a double click, or
the question repeated — counts once: while the first search runs, the second joins it (one search
per seat at a time); once it has answered, a searched hint is given again as it was.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import engine
from engine.core import TABLE
from engine.hints import Hint, hint
from tables.ai.pool import AIPool
from tables.live import Live, TableError
from tables.persistence import Persistence
from tables.table import Phase, Table
from words import N_

#: Seconds a hint may take in the worker (the person is waiting for the answer).
HINT_BUDGET = 0.8
#: Of which kept back from the search (at most a tenth of the budget) for rebuilding the state,
#: wording the reason and the last moves of a playout after the deadline (measured: a few ms, ~10
#: on a busy machine).
REPLY_RESERVE = 0.02
NOT_YOUR_DECISION = "A hint is for your own decision — it is not your turn. Ask again when it is."
TABLE_STEP = "A hint is for your own decision — wait a moment for the table."
MOVED_ON = "The table moved on while I was thinking; ask again for a hint on your new decision."


def hint_in_worker(game: str, data: dict[str, Any], seat: int, seed: str, budget: float,
                   playouts: int | None) -> tuple[str, str, dict[str, float]]:
    """Run in an AI pool worker: the strong hint for ``seat`` within ``budget`` seconds, as plain
    data (action code, reason, the search's means)."""
    end = time.monotonic() + budget - min(REPLY_RESERVE, budget / 10)
    state = engine.get(game).game.from_dict(data)
    h = hint(state, seat, random.Random(seed), level="strong", playouts=playouts,
             time_left=lambda: end - time.monotonic())
    return h.action.code, h.reason, h.means


class Hints:
    """Gives hints and counts them (one collaborator of the runtime)."""

    def __init__(self, persistence: Persistence, ai_pool: AIPool | None = None,
                 budget: float = HINT_BUDGET) -> None:
        self.persistence = persistence
        self.ai_pool = ai_pool
        self.budget = budget

    async def give(self, t: Table, live: Live, user_id: int) -> Hint:
        """The hint for ``user_id``'s current decision at ``t``, or a refusal (``TableError``)."""
        while True:
            async with live.lock:
                seat = self._asker(t, user_id)
                since = live.since.get(seat, t.version)
            held = live.hints.get(seat)
            if held is not None and held[0] == since:
                task = held[1]
                if not task.done():
                    return await asyncio.shield(task)  # a second click: the same search
                if not task.cancelled() and task.exception() is None and task.result().level == "strong":
                    return task.result()  # asked again: the same answer, counted once
                break  # the first answer was the normal AI's (or failed): try the search again
            if held is None or held[1].done():
                break
            # This seat's question about an earlier decision is still being searched (it will find
            # the table moved on): one search per seat at a time.
            await asyncio.wait({held[1]})
        task = asyncio.ensure_future(self._give(t, live, user_id, seat, since))
        task.add_done_callback(_retrieved)
        live.hints[seat] = (since, task)
        return await asyncio.shield(task)

    async def _give(self, t: Table, live: Live, user_id: int, seat: int, since: int) -> Hint:
        async with live.lock:
            if live.since.get(seat, t.version) != since or self._asker(t, user_id) != seat:
                raise TableError(MOVED_ON, "moved_on")
            state = t.state
            assert state is not None and t.seed is not None
            seed = f"{t.seed}/hint/{t.version}/{seat}"
            strong = "strong" in engine.levels(t.game) and self.ai_pool is not None
            data = state.to_dict() if strong else None
            found: Hint | None = None
            if not strong:
                found = hint(state, seat, random.Random(seed), level="normal")
        if found is None:
            assert self.ai_pool is not None and data is not None
            answer = await self.ai_pool.run(hint_in_worker, t.game, data, seat, seed, self.budget,
                                            self.ai_pool.playouts, budget=self.budget)
            if answer is not None:
                code, reason, means = answer
                found = Hint(type(state).action_from_code(code), reason, "strong", dict(means))
        async with live.lock:
            state = t.state
            running = state is not None and t.phase == Phase.RUNNING and seat in state.to_act()
            # The seat's decision is the one asked about while the runtime says it began at ``since``
            # (another seat's pass in between leaves it as it was).
            if not running or live.since.get(seat, t.version) != since:
                raise TableError(MOVED_ON, "moved_on")
            seat = self._asker(t, user_id)
            assert state is not None
            if found is None:  # the pool was busy, late or failing: the normal AI's choice, at once
                found = hint(state, seat, random.Random(seed), level="normal")
            s = t.seats[seat]
            if s.hinted_at != since:  # the first hint for this decision (else it was counted)
                s.hints += 1
                s.hinted_at = since
                await self.persistence.commit_quietly(t)
            return found

    @staticmethod
    def _asker(t: Table, user_id: int) -> int:
        """The person's seat, when a hint may be given now: the game runs and the seat has a decision
        of its own.  The sentences depend only on what the person may know (their own turn)."""
        if t.phase != Phase.RUNNING or t.state is None:
            raise TableError(N_("Hints are for a game in play.") if t.phase == Phase.LOBBY
                             else N_("This game is over."), "not_running")
        seat = t.seat_of(user_id)
        if seat is None:
            raise TableError(N_("You are not seated at this table."), "not_seated")
        if TABLE in t.state.to_act():
            raise TableError(TABLE_STEP, "table_step")
        if seat not in t.state.to_act() or t.state.decision(seat) is None:
            raise TableError(NOT_YOUR_DECISION, "not_your_turn")
        return seat


def _retrieved(task: asyncio.Task[object]) -> None:
    """Mark the task's failure seen (its askers got it; a refusal nobody waited for is no error)."""
    if not task.cancelled():
        task.exception()
