"""Searching AI moves off the event loop: a small pool of worker processes with a time budget per
decision and a cap on concurrent searches.

The ``strong`` AI level (:mod:`engine.search`) spends up to a second of CPU a decision, which
would stall every table if it ran on the event loop.  :class:`AIPool` runs it in worker processes
(a :class:`~concurrent.futures.ProcessPoolExecutor`, one worker per core but one, so the bot's own
process keeps a core), and never makes a table wait for it:

* every search gets a time budget (seconds; the worker passes the engine a ``time_left()`` so the
  search itself stops starting new worlds on time);
* at most ``max_concurrent`` searches run at once; asked for one more, :meth:`AIPool.choose`
  answers ``None`` at once (busy);
* a search that has not answered ``grace`` seconds after its budget is abandoned: ``None`` (late).
  Its worker finishes it in the background and only then counts as free again;
* a worker that fails (or a pool that broke) also gives ``None``.

``None`` means "play the ``normal`` AI's move this time": a busy machine degrades to a weaker move,
never a stalled table.  The table's AI pause hides the thinking time: ask during the pause.

Work that no table waits for (a review of a finished game) goes to :meth:`AIPool.run_background`:
a lane of its own (``background_workers`` processes at the lowest OS priority, ``os.nice``), so it
never takes the worker a table's search needs and only gets the CPU the tables leave over.  Its
answers are ``None`` in the same cases (busy: all its workers taken).

    pool = AIPool()
    action = await pool.choose(game, state, seat, seed="T1/ai/17/2", budget=0.8)
    if action is None:
        action = engine.get(game).ai().choose(state, seat, rng)
    ...
    await pool.close()
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import select
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, TypeVar

import engine
from engine.core import Action, Game

log = logging.getLogger("deckhand.ai_pool")
T = TypeVar("T")  # what a worker's function returns

DEFAULT_BUDGET = 1.0  # seconds per decision (issue 18: at most 1 s, less at faster speeds)
DEFAULT_GRACE = 0.25  # how late past its budget a search may answer and still count


def default_workers() -> int:
    """One worker per core but one (the bot's event loop keeps a core), at least one.  The review
    lane's default too (``DECKHAND_REVIEW_WORKERS``): its workers run at the lowest priority, so
    they only take what the tables and the loop leave over."""
    return max(1, (os.cpu_count() or 2) - 1)


def search_in_worker(game: str, data: dict[str, Any], seat: int, seed: str, level: str,
                     budget: float, playouts: int | None) -> str:
    """Run in a worker process: rebuild the state and search it within ``budget`` seconds; the
    chosen action's code (codes cross the process boundary as the log stores them)."""
    end = time.monotonic() + budget
    state = engine.get(game).game.from_dict(data)
    ai = engine.ai_for(game, level, playouts=playouts, time_left=lambda: end - time.monotonic())
    return ai.choose(state, seat, random.Random(seed)).code


def _warm() -> int:
    return len(engine.games())


#: The background lane's niceness: the lowest priority, so the tables' searches and the bot's own
#: loop take the CPU first (on Linux a nice-19 process gets about 1.5 % of a contended core).
BACKGROUND_NICE = 19
#: The replay viewer's picture worker (cogs/replay_view.py): below the tables' searches, above the
#: background lane (a person waits for a picture; nobody waits for a review).
PICTURE_NICE = 10


def _lower_priority(nice: int) -> None:
    """Lower this process's OS priority (where the OS has one)."""
    if hasattr(os, "nice"):
        try:
            os.nice(nice)
        except OSError:  # not allowed here: it still runs, only not behind the tables
            pass


#: How often a worker without ``os.pidfd_open`` (not Linux) looks whether its bot is still there
#: (a worker outliving the bot by this long does no harm: it only waits for work).
PARENT_POLL = 0.5


def die_with_parent(parent: int) -> None:
    """In a worker process (its pool's initializer calls it; the replay viewer's too): end this
    process as soon as the process ``parent`` (the bot) ends, however it ends.

    A worker blocks reading its call queue, whose pipe it holds both ends of: a SIGKILLed bot
    leaves it waiting forever, holding the bot's stdout and stderr open.  Not PR_SET_PDEATHSIG: it
    fires when the *thread* that spawned the worker ends, and a pool may spawn a worker from any
    thread that submits.  A pidfd becomes readable when the whole process has ended."""
    pidfd: int | None = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(parent)
        except OSError:  # gone already (or no pidfd here: polled below)
            pidfd = None
    # Checked after the pidfd is open: were the bot gone already, this worker would have another
    # parent now, and the pid could name some other process.
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)

    def watch() -> None:
        if pidfd is not None:
            readable = select.poll()  # (not select.select: no limit on the descriptor's number)
            readable.register(pidfd, select.POLLIN)
            readable.poll()
        else:
            while os.getppid() == parent:
                time.sleep(PARENT_POLL)
        # SIGKILL, not an exception: the main thread may be deep in a search.
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="ai-worker-leash", daemon=True).start()


def _start_worker(parent: int, nice: int) -> None:
    """Every worker's initializer: die with the bot, and (the background lane) step back."""
    die_with_parent(parent)
    if nice:
        _lower_priority(nice)


class _Lane:
    """Worker processes, their running count and their counts (the play lane or the background one)."""

    def __init__(self, workers: int, max_concurrent: int, nice: int = 0) -> None:
        self.workers = workers
        self.max_concurrent = max_concurrent
        self.nice = nice
        self.executor: ProcessPoolExecutor | None = None
        self.running = 0
        self.counts = {"searched": 0, "busy": 0, "late": 0, "failed": 0}

    def pool(self) -> ProcessPoolExecutor:
        if self.executor is None:
            # spawn: a fork of a process running an event loop and threads may inherit held locks.
            ctx = multiprocessing.get_context("spawn")
            self.executor = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_start_worker,
                                                initargs=(os.getpid(), self.nice))
        return self.executor


class AIPool:
    """Searches in worker processes; :meth:`choose` returns ``None`` when busy, late or failing."""

    def __init__(self, workers: int | None = None, max_concurrent: int | None = None,
                 budget: float = DEFAULT_BUDGET, grace: float = DEFAULT_GRACE,
                 playouts: int | None = 100_000,
                 worker: Callable[..., str] = search_in_worker, background_workers: int = 1) -> None:
        workers = workers or default_workers()
        #: No more searches at once than workers: a queued search would only answer late.
        self._play = _Lane(workers, min(max_concurrent or workers, workers))
        #: The lane of work no table waits for (0: none, it shares the tables' workers).
        self._background = (_Lane(background_workers, background_workers, BACKGROUND_NICE)
                            if background_workers > 0 else None)
        self.budget = budget
        self.grace = grace
        #: Playouts cap per search; the time budget is what normally ends a search.
        self.playouts = playouts
        self._worker = worker
        self._closed = False

    @property
    def workers(self) -> int:
        return self._play.workers

    @property
    def max_concurrent(self) -> int:
        return self._play.max_concurrent

    @property
    def counts(self) -> dict[str, int]:
        """The tables' lane: searches answered, busy, late and failed."""
        return self._play.counts

    @property
    def background_counts(self) -> dict[str, int]:
        """The background lane's counts (the tables' lane's when there is no background lane)."""
        return (self._background or self._play).counts

    @property
    def background_workers(self) -> int:
        """How many pieces of background work can run at once (tables/reviews.py serves that many
        reviews at a time): the background lane's workers, else the tables' lane's."""
        return (self._background or self._play).max_concurrent

    @property
    def running(self) -> int:
        """Searches still occupying a worker of the tables' lane (including abandoned late ones)."""
        return self._play.running

    async def start(self) -> None:
        """Start the workers and import the engine in each (else the first searches pay for it)."""
        loop = asyncio.get_running_loop()
        lanes = [lane for lane in (self._play, self._background) if lane is not None]
        try:
            await asyncio.gather(*(loop.run_in_executor(lane.pool(), _warm) for lane in lanes
                                   for _ in range(lane.workers)))
        except BrokenProcessPool:
            if not self._closed:
                raise
            # Closed while the workers were warming up (a bot stopped right after it started): the
            # workers were killed on purpose, nothing failed.


    async def choose(self, game: str, state: Game, seat: int, seed: str, *, level: str = "strong",
                     budget: float | None = None) -> Action | None:
        """The ``level`` AI's move for ``seat``, or ``None`` if the pool is busy, the search is late
        or it failed (then play the ``normal`` AI's move)."""
        budget = self.budget if budget is None else budget
        # The state may change on the loop meanwhile: the worker gets a snapshot.
        code = await self.run(self._worker, game, state.to_dict(), seat, seed, level, budget, self.playouts,
                              budget=budget)
        return None if code is None else type(state).action_from_code(code)

    async def run(self, fn: Callable[..., T], *args: object, budget: float | None = None) -> T | None:
        """``fn(*args)`` in a worker (``fn`` importable by name, ``args`` plain data, ``fn`` keeping
        to ``budget`` itself), or ``None`` when busy, late or failing — as :meth:`choose`."""
        return await self._run(self._play, fn, args, budget)

    async def run_background(self, fn: Callable[..., T], *args: object, budget: float | None = None) -> T | None:
        """As :meth:`run`, for work no table waits for: in the background lane (its own workers at
        the lowest priority), so it never makes a table's search busy or slower."""
        return await self._run(self._background or self._play, fn, args, budget)

    async def _run(self, lane: _Lane, fn: Callable[..., T], args: tuple[object, ...],
                   budget: float | None) -> T | None:
        if lane.running >= lane.max_concurrent:
            lane.counts["busy"] += 1
            return None
        budget = self.budget if budget is None else budget
        try:
            fut: Future[T] = lane.pool().submit(fn, *args)
        except Exception:
            log.exception("AI pool could not start a search; using the normal AI")
            self._reset_broken(lane)
            lane.counts["failed"] += 1
            return None
        lane.running += 1
        loop = asyncio.get_running_loop()
        fut.add_done_callback(lambda _: self._release(loop, lane))
        try:
            result = await asyncio.wait_for(asyncio.wrap_future(fut), budget + self.grace)
        except TimeoutError:
            lane.counts["late"] += 1
            return None
        except Exception:
            log.exception("AI search failed (%s); using the normal AI", getattr(fn, "__name__", fn))
            lane.counts["failed"] += 1
            return None
        lane.counts["searched"] += 1
        return result

    def _release(self, loop: asyncio.AbstractEventLoop, lane: _Lane) -> None:
        # Called in the executor's thread: the count belongs to the loop, so it changes there.
        def release() -> None:
            lane.running = max(0, lane.running - 1)

        try:
            loop.call_soon_threadsafe(release)
        except RuntimeError:  # the loop is closed: nobody counts any more
            pass

    def _reset_broken(self, lane: _Lane) -> None:
        if lane.executor is not None:
            lane.executor.shutdown(wait=False, cancel_futures=True)
            lane.executor = None
            lane.running = 0

    async def close(self) -> None:
        """Stop the workers at once: a search or review still running is killed, not waited for
        (nobody reads its answer any more, and a review at the lowest priority on a busy machine
        could otherwise hold the bot's exit far past an orchestrator's stop timeout)."""
        self._closed = True
        for lane in (self._play, self._background):
            if lane is not None and lane.executor is not None:
                ex, lane.executor = lane.executor, None
                _kill_workers(ex)
                await asyncio.get_running_loop().run_in_executor(None, partial(ex.shutdown, wait=True,
                                                                               cancel_futures=True))


def _kill_workers(ex: ProcessPoolExecutor) -> None:
    """SIGKILL the executor's worker processes (a worker holds no state worth a clean exit).  The
    executor keeps no public list of them before Python 3.14's ``terminate_workers``: its
    ``_processes`` map is read the way that method reads it."""
    processes = getattr(ex, "_processes", None) or {}
    for process in list(processes.values()):
        try:
            process.kill()
        except (OSError, ValueError):  # already gone, or already closed
            pass
