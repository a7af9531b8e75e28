"""Reviews of a person's play in a finished game (``Runtime.review``): the strong search over each of
their decisions (engine/review.py), run in the AI pool's worker processes under a CPU budget per game,
and kept in the storage so a review is paid for once.

The judgement is the strong level's own search (engine/review.py asks ``engine.ai_for(game,
"strong")``, the searcher of a table's strong seat and of a hint), so a stronger search is a
stronger review at the same cost.  The budget: ``GAME_BUDGET`` CPU seconds for a whole game (60: the
longest game the benches review stays within a CPU minute; issue 35), spent piece by piece
(:class:`Plan`): each decision's search stops at its share of the CPU still left, with fewer
playouts when the share is small, and what a decision did not need goes to the ones after it.  The work
goes to the pool's background lane (``AIPool.run_background``: its own workers at the lowest OS
priority, ``DECKHAND_REVIEW_WORKERS`` of them), never to the workers the tables' strong seats and
hints search in: tables in play come first, a review takes the CPU they leave over.  It goes in
pieces of about ``PIECE_BUDGET`` CPU seconds; a piece the lane cannot take now (busy) waits a moment
and asks again — on the event loop that is only a sleep.

Reviews wait in line, first come, first served (:meth:`Reviews.request`): as many run at once as
the background lane has workers, each whole review before the next one in line, so reviews never
share a worker and finish in the order they were asked for.  Each person has one review in line at a
time (asking for another gets :data:`ONE_AT_A_TIME`; asking again for the same one joins it).  A
:class:`ReviewJob` tells its place in line and an estimate of when it is done, from the work left
and the pace of the pieces so far.  Each piece's judged decisions are stored as it completes
(migration 0010): a review cut short (the bot stopped, the workers stayed busy) resumes where it
was.  A review whose asker stopped waiting (Discord's 15-minute token ran out) still finishes and
is stored: the next ask shows it at once.

Only someone who sat at the table may review their own seat, and only once the game is over.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Sequence
from typing import Any

import engine
import words
from engine.core import Game, Options
from engine.review import JUDGED, MADE_FOR_YOU, TIMEOUT, Judged, Review, merge, review, searched
from engine.words import plural
from tables.ai.plan import DECISION_CAP as DECISION_CAP
from tables.ai.plan import GAME_BUDGET as GAME_BUDGET
from tables.ai.plan import PIECE_BUDGET as PIECE_BUDGET
from tables.ai.plan import Plan as Plan
from tables.ai.plan import pieces as pieces
from tables.ai.pool import AIPool
from tables.clock import Clock
from tables.history.replay import GameRecord
from tables.live import TableError, Tasks
from words import N_

log = logging.getLogger("deckhand.reviews")

#: Playouts cap per decision, as a multiple of the strong level's: a review is paid once and read
#: later, so it can afford more worlds than a move at the table (less noise in each judgement); the
#: CPU share above is what normally ends a decision's search in a long game.
PLAYOUTS_FACTOR = 4
#: Wall seconds between two asks to a busy pool, and the wall seconds a piece may wait in all.
RETRY = 0.5
PATIENCE = 600.0
#: Wall seconds a review takes per CPU second of its budget, until pieces have been timed (a worker
#: at the lowest priority on a machine that also plays), and the bounds of what timing may say.
PACE = 1.5
PACE_BOUNDS = (0.2, 30.0)
#: Wall seconds a review takes besides its decisions (its start, the moves made for the person).
OVERHEAD = 3.0

NOT_SEATED = N_("Only the people who played at this table can review their own play there.")
RUNNING = N_("This game is still running — you can review your play once it is over.")
NOT_STARTED = N_("This table never started, so there is no play to review.")
GAVE_UP = N_("The AI workers are too busy to review your play right now; please try again later "
             "(what was reviewed so far is kept).")
ONE_AT_A_TIME = N_("Your review of table `{table}` is still on its way, and each person has one review in line at "
                   "a time: ask for this one once that one is done.")


def review_in_worker(game: str, players: int, options: Options, game_seed: int | str,
                     actions: list[Logged], seat: int, seed: str, steps: list[int], share: float,
                     playouts: int | None, starts: list[tuple[int, float]] | None = None) -> dict[str, Any]:
    """Run in an AI pool worker: judge ``steps`` of ``seat``, each within ``share`` CPU seconds (the
    worker's own CPU time: a busy machine slows a review down, it does not make it shallower).  The
    answer's ``cpu`` is the CPU seconds the piece took in all (the log's replay included): what the
    game's budget is charged.  ``starts`` (a bench's): each judged decision's step and CPU clock at
    its start are appended to it."""
    began = time.process_time()

    def deadline(step: int):
        now = time.process_time()
        if starts is not None:
            starts.append((step, now))
        end = now + share
        return lambda: end - time.process_time()

    out = review(game, players, options, game_seed, actions, seat, seed, playouts=playouts, steps=steps,
                 time_left=deadline).to_dict()
    out["cpu"] = time.process_time() - began
    return out


def review_playouts(game: str) -> int:
    """The playouts cap of one decision's review in ``game``."""
    return PLAYOUTS_FACTOR * engine.get(game).playouts


def _answer(answer: dict[str, Any]) -> tuple[Review, float | None]:
    """A worker's answer: the piece's review, and the CPU seconds it took (when it says)."""
    cpu = answer.get("cpu")
    return Review.from_dict(answer), None if cpu is None else float(cpu)


#: One logged action as a review reads it: (seat, code, made for the person, made at their timeout).
Logged = tuple[int, str, bool, bool]


def _actions(record: GameRecord) -> list[Logged]:
    return [(e.seat, e.code, bool(e.auto), bool(getattr(e, "timeout", False))) for e in record.log]


class ReviewJob:
    """One review in line or running: who asked, the work left, and its answer (``future``).
    :meth:`Reviews.place` and :meth:`Reviews.estimate` say where it stands; ``version`` counts the
    times either may have changed (the line moved, a piece was judged, the review ended), and
    :meth:`wait` waits for the next."""

    def __init__(self, record: GameRecord, seat: int, guild_id: int, user_id: int, budget: float) -> None:
        self.record = record
        self.seat = seat
        self.guild_id = guild_id
        self.user_id = user_id
        self.key = (record.id, seat)
        mine = [i for i, a in enumerate(_actions(record)) if a[0] == seat and not a[2]]
        self.searched = searched(record.game)
        #: CPU seconds per decision, and the decisions still to judge (those stored already are taken
        #: off once the review starts).
        self.share = min(DECISION_CAP, budget / max(1, len(mine)))
        self.left = len(mine) if self.searched else 0
        self.future: asyncio.Future[Review] = asyncio.get_running_loop().create_future()
        # Nobody may be waiting any more (the asker's token ran out): a refusal is not an error to log.
        self.future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self.version = 0
        self._next = asyncio.Event()
        self.forgotten = False  # the asker had Deckhand forget them: nothing of it is stored

    @property
    def done(self) -> bool:
        return self.future.done()

    def signal(self) -> None:
        self.version += 1
        woken, self._next = self._next, asyncio.Event()
        woken.set()

    async def wait(self, seen: int) -> None:
        """Return once ``version`` is past ``seen``."""
        while self.version == seen:
            await self._next.wait()


class Reviews:
    """Runs and keeps reviews (one collaborator of the runtime)."""

    def __init__(self, storage: Any, ai_pool: AIPool | None, clock: Clock, *, budget: float = GAME_BUDGET,
                 playouts: int | None = None, workers: int | None = None) -> None:
        self.storage = storage
        self.ai_pool = ai_pool
        self.clock = clock
        self.budget = budget
        #: Playouts cap per decision (None: :func:`review_playouts`).
        self.playouts = playouts
        #: Reviews run at once (None: as many as the pool's background lane takes at once; one without a pool).
        self._workers = workers
        #: Waiting in line (first come, first served) and running; every job by its seat and by its asker.
        self._line: list[ReviewJob] = []
        self._running: list[ReviewJob] = []
        self._jobs: dict[tuple[str, int], ReviewJob] = {}
        self._asked: dict[int, ReviewJob] = {}
        self._tasks = Tasks()
        #: Wall seconds per CPU second of budget, as timed on the pieces judged so far.
        self.pace = PACE
        #: Without a storage, reviews and the decisions judged so far are kept here (a test runtime, a
        #: bot without a database; also what a failed write could not store).
        self._kept: dict[tuple[str, int], Review] = {}
        self._owners: dict[tuple[str, int], int] = {}  # whose review each kept one is ("forget me")
        self._partial: dict[tuple[str, int], dict[int, Judged]] = {}

    @property
    def workers(self) -> int:
        if self._workers is not None:
            return max(1, self._workers)
        return max(1, int(getattr(self.ai_pool, "background_workers", 1) or 1))

    @staticmethod
    def seat_of(record: GameRecord, user_id: int) -> int:
        """The person's seat in a finished game, or a refusal."""
        if record.seed is None:
            raise TableError(NOT_STARTED, "not_started")
        if not record.finished:
            raise TableError(RUNNING, "running")
        for i, (uid, ai) in enumerate(zip(record.user_ids, record.ai, strict=False)):
            if uid == user_id and not ai:
                return i
        raise TableError(NOT_SEATED, "not_seated")

    async def get(self, record: GameRecord, guild_id: int, user_id: int) -> Review:
        """The review of ``user_id``'s play in ``record``: stored, or run now (and stored)."""
        got = await self.request(record, guild_id, user_id)
        if isinstance(got, Review):
            return got
        return await asyncio.shield(got.future)

    async def request(self, record: GameRecord, guild_id: int, user_id: int) -> Review | ReviewJob:
        """The stored review of ``user_id``'s play in ``record``, else its place in line: a new one at
        the end, or the one already there for this seat.  A refusal (``TableError``) when the person
        may not review it, or already has another review in line."""
        seat = self.seat_of(record, user_id)
        key = (record.id, seat)
        kept = await self._stored(key)
        if kept is not None:
            return kept
        if not searched(record.game):  # nothing to search (the review only says why): no line to wait in
            found = review(record.game, record.players, record.options, record.seed or 0, _actions(record), seat)
            await self._keep(record, seat, guild_id, user_id, found)
            return found
        job = self._jobs.get(key)
        if job is not None:
            return job
        other = self._asked.get(user_id)
        if other is not None:
            raise TableError(ONE_AT_A_TIME, "one_review", table=other.record.id)
        job = ReviewJob(record, seat, guild_id, user_id, self.budget)
        self._jobs[key] = job
        self._asked[user_id] = job
        self._line.append(job)
        self._pump()
        return job

    @property
    def waiting(self) -> int:
        """Reviews waiting in line (the operator's metrics, tables/metrics.py)."""
        return len(self._line)

    @property
    def running(self) -> int:
        return len(self._running)

    def place(self, job: ReviewJob) -> int:
        """0: the review is running; n: n-th in line (1: next)."""
        return self._line.index(job) + 1 if job in self._line else 0

    def estimate(self, job: ReviewJob) -> float:
        """Wall seconds until ``job`` is done, from the work left of the reviews before it and its own
        (each running review on a worker of its own, the line taking the first worker free)."""
        if job in self._running:
            return self._duration(job)
        free = [self._duration(j) for j in self._running]
        free += [0.0] * max(0, self.workers - len(free))
        for j in self._line:
            first = free.index(min(free))
            free[first] += self._duration(j)
            if j is job:
                return free[first]
        return 0.0

    def _duration(self, job: ReviewJob) -> float:
        return job.left * job.share * self.pace + OVERHEAD

    def _pump(self) -> None:
        """Start the reviews at the head of the line while workers are free; tell every job."""
        while self._line and len(self._running) < self.workers:
            job = self._line.pop(0)
            self._running.append(job)
            self._tasks.spawn(self._work(job), name=f"review-{job.key[0]}-{job.key[1]}")
        self._changed()

    def _changed(self) -> None:
        for j in (*self._running, *self._line):
            j.signal()

    async def _work(self, job: ReviewJob) -> None:
        try:
            result = await self._run(job)
        except TableError as e:
            job.future.set_exception(e)
        except asyncio.CancelledError:
            job.future.cancel()
            raise
        except Exception as e:  # a review that fails says so to whoever waits, and the line moves on
            job.future.set_exception(e)
        else:
            job.future.set_result(result)
        finally:
            self._running.remove(job)
            self._jobs.pop(job.key, None)
            if self._asked.get(job.user_id) is job:
                del self._asked[job.user_id]
            job.signal()
            self._pump()

    def forget(self, user_id: int) -> None:
        """``user_id`` asked Deckhand to forget them (tables/privacy.py): their review in line is
        dropped, one running stores nothing more, and nothing judged of theirs stays in memory."""
        job = self._asked.pop(user_id, None)
        if job is not None:
            job.forgotten = True
            if job in self._line:
                self._line.remove(job)
                self._jobs.pop(job.key, None)
                job.future.cancel()
                job.signal()
        for key in [k for k, owner in self._owners.items() if owner == user_id]:
            self._kept.pop(key, None)
            self._partial.pop(key, None)
            del self._owners[key]

    async def close(self) -> None:
        """Stop the reviews running and waiting (what they judged so far is stored)."""
        waiting, self._line = self._line, []
        for job in waiting:
            self._jobs.pop(job.key, None)
            self._asked.pop(job.user_id, None)
            job.future.cancel()
            job.signal()
        await self._tasks.close()

    async def _stored(self, key: tuple[str, int]) -> Review | None:
        if self.storage is None:
            return self._kept.get(key)
        try:
            row = await self.storage.review_of(*key)
        except Exception:
            log.exception("Could not read the review of %s", key)
            return self._kept.get(key)
        if row is None:
            return self._kept.get(key)
        try:
            return Review.from_dict(json.loads(row["review"]))
        except (ValueError, KeyError, TypeError):
            log.warning("The stored review of %s cannot be read; reviewing again", key)
            return None

    async def _progress(self, key: tuple[str, int]) -> dict[int, Judged]:
        """The decisions of this review judged before (a run cut short)."""
        out = dict(self._partial.get(key, {}))
        if self.storage is None:
            return out
        try:
            rows = await self.storage.review_progress(*key)
        except Exception:
            log.exception("Could not read what was reviewed of %s so far", key)
            return out
        for row in rows:
            try:
                out[int(row["step"])] = Judged(**json.loads(row["judged"]))
            except (ValueError, KeyError, TypeError):
                log.warning("A stored decision of the review of %s cannot be read; judging it again", key)
        return out

    async def _keep_progress(self, key: tuple[str, int], part: Review, job: ReviewJob) -> None:
        if not part.decisions or job.forgotten:
            return
        if self.storage is not None:
            try:
                await self.storage.save_review_progress(
                    key[0], key[1], [(d.step, json.dumps(part.to_dict()["decisions"][n]))
                                     for n, d in enumerate(part.decisions)])
                return
            except Exception:  # kept here instead: only a restart loses it
                log.exception("Could not store what was reviewed of %s so far", key)
        self._partial.setdefault(key, {}).update({d.step: d for d in part.decisions})

    async def _run(self, job: ReviewJob) -> Review:
        record, seat = job.record, job.seat
        actions = _actions(record)
        seed = f"{record.id}/review/{seat}"
        if not job.searched:
            result = review(record.game, record.players, record.options, record.seed or 0, actions, seat, seed)
        else:
            spec = engine.get(record.game)
            mine = [i for i, a in enumerate(actions) if a[0] == seat and not a[2]]
            done = await self._progress(job.key)
            todo = [i for i in mine if i not in done]
            mine_set = set(mine)
            job.left = len(todo)
            self._changed()
            parts = [Review(record.game, seat, spec.review_units, spec.review_thresholds,
                            [d for i, d in sorted(done.items()) if i in mine_set])]
            loop = asyncio.get_running_loop()
            # The budget of the decisions left (a review cut short resumes with their part of it).
            plan = Plan(todo, job.share * len(todo))
            while piece := plan.next_piece():
                share = plan.share
                began = loop.time()
                part, cpu = await self._piece(record, actions, seat, seed, piece, share)
                await self._keep_progress(job.key, part, job)
                parts.append(part)
                plan.charge(piece, share * len(piece) if cpu is None else cpu)
                job.left -= len(piece)
                took = (loop.time() - began) / max(1e-9, share * len(piece))
                self.pace = min(PACE_BOUNDS[1], max(PACE_BOUNDS[0], 0.7 * self.pace + 0.3 * took))
                job.share = plan.share
                self._changed()
            # The moves made for the person, marked not judged (cheap: no search runs for them).
            made_for = [i for i, a in enumerate(actions) if a[0] == seat and a[2]]
            if made_for:
                parts.append(await asyncio.to_thread(review, record.game, record.players, record.options,
                                                     record.seed or 0, actions, seat, seed, steps=made_for))
            result = merge(parts)
        if not job.forgotten:
            await self._keep(record, seat, job.guild_id, job.user_id, result)
        self._partial.pop(job.key, None)
        return result

    async def _piece(self, record: GameRecord, actions: list[Logged], seat: int, seed: str, steps: list[int],
                     share: float) -> tuple[Review, float | None]:
        """The piece judged, and the CPU seconds it took (None when the answer does not say)."""
        playouts = self.playouts if self.playouts is not None else review_playouts(record.game)
        args = (record.game, record.players, record.options, record.seed or 0, actions, seat, seed, steps, share,
                playouts)
        if self.ai_pool is None:
            # No workers (a bot run without them, a test): a thread keeps the loop answering.
            return _answer(await asyncio.to_thread(review_in_worker, *args))
        loop = asyncio.get_running_loop()
        give_up = loop.time() + PATIENCE
        # Wall time for a piece: its CPU budget on a machine busy with other work (the worker counts
        # its own CPU), and a margin; at the lowest priority a busy machine may starve it for longer,
        # so a piece may also take what is left of the patience (it keeps to its CPU budget: it ends).
        wall = 6 * share * len(steps) + 5.0
        while True:
            answer = await self.ai_pool.run_background(review_in_worker, *args,
                                                       budget=max(wall, give_up - loop.time()))
            if answer is not None:
                return _answer(answer)
            # Busy, late or failed: ask again in a moment, for a while (late and failed pieces count
            # against the same patience, so nothing here can go on for ever).
            if loop.time() >= give_up:
                raise TableError(GAVE_UP, "busy")
            await asyncio.sleep(RETRY)

    async def _keep(self, record: GameRecord, seat: int, guild_id: int, user_id: int, r: Review) -> None:
        if self.storage is None:
            self._kept[(record.id, seat)] = r
            self._owners[(record.id, seat)] = user_id
            return
        row = {"table_id": record.id, "seat": seat, "guild_id": guild_id, "user_id": user_id, "game": record.game,
               "review": json.dumps(r.to_dict()), "judged": len(r.judged),
               "loss": float(sum(d.loss for d in r.judged)), "created_at": self.clock.now()}
        try:
            await self.storage.save_review(row)
        except Exception:  # the review is given all the same, and kept here until a restart
            log.exception("Could not store the review of %s seat %s", record.id, seat)
            self._kept[(record.id, seat)] = r
            self._owners[(record.id, seat)] = user_id

    async def losses(self, guild_id: int, user_id: int) -> dict[str, tuple[float, int]]:
        """Per game: (average loss per judged decision, reviewed games) over the person's reviews."""
        if self.storage is None:
            return {}
        out: dict[str, tuple[float, int]] = {}
        for row in await self.storage.review_losses(guild_id, user_id):
            judged = int(row["judged"] or 0)
            if judged:
                out[str(row["game"])] = (float(row["loss"] or 0.0) / judged, int(row["games"]))
        return out


# ==== words ======================================================================================
def places(record: GameRecord, steps: Sequence[int], locale: str = words.ENGLISH) -> dict[int, str]:
    """Where each decision was, as a player counts (one replay of the log): ``Hand 2, trick 5``
    (``Round 1, trick 3``, ``Hand 2`` where no trick is numbered), else the move's
    number in the game; in ``locale``."""
    wanted = set(steps)
    out = {i: words.translate(locale, "Move {n}", n=i + 1) for i in wanted}
    try:
        cls = engine.get(record.game).game
        state = cls.create(record.players, record.options, record.seed or 0)
        for i, e in enumerate(record.log):
            if i in wanted:
                out[i] = _place(state, locale) or out[i]
            if i >= max(wanted, default=-1):
                break
            state.apply(e.seat, cls.action_from_code(e.code))
    except Exception:  # a log that no longer replays: the moves' numbers will do
        log.exception("Review places: table %s does not replay", record.id)
    return out


def _place(state: Game, locale: str = words.ENGLISH) -> str:
    trick = getattr(state, "trick_no", None)
    hand = getattr(state, "hand_no", None)
    rnd = getattr(state, "round_no", None)
    where = (words.translate(locale, "Hand {n}", n=hand + 1) if isinstance(hand, int) else
             words.translate(locale, "Round {n}", n=rnd) if isinstance(rnd, int) else "")
    if where and isinstance(trick, int):
        return words.translate(locale, "{where}, trick {n}", where=where, n=trick + 1)
    return where


def summary(record: GameRecord, r: Review, n: int = 3, where: dict[int, str] | None = None,
            locale: str = words.ENGLISH) -> list[str]:
    """The review in plain words: what was judged, then the ``n`` costliest decisions with the
    better move, in the game's units (``where``: :func:`places` of the decisions, else worked out
    here); in ``locale`` (the reader's: the review is theirs alone)."""
    title = engine.get(record.game).game.title
    if not r.searched:
        return [words.translate(locale, r.note)]
    judged = r.judged
    counts = {m: sum(1 for d in judged if d.mark == m) for m in JUDGED}
    timed_out = sum(1 for d in r.decisions if d.mark == TIMEOUT)
    skipped = sum(1 for d in r.decisions if d.mark == MADE_FOR_YOU)
    units = words.translate(locale, r.units)
    tally = ("、" if locale in ("zh_CN", "ja") else ", ").join([
        words.ngettext(locale, "{n} fine", "{n} fine", counts["fine"]),
        words.ngettext(locale, "{n} inaccuracy", "{n} inaccuracies", counts["inaccuracy"]),
        words.ngettext(locale, "{n} mistake", "{n} mistakes", counts["mistake"])])
    lines = [words.ngettext(locale, "Review of your play in {game} (table {id}): {n} decision judged — {tally}.",
                            "Review of your play in {game} (table {id}): {n} decisions judged — {tally}.",
                            len(judged), game=words.Lazy(title), id=record.id, tally=tally)]
    if r.average_loss is not None:
        lines.append(words.translate(locale, "On average a decision cost you {loss} {units}.",
                                     loss=_fixed(locale, r.average_loss, 2), units=units))
    if timed_out:
        lines.append(words.ngettext(locale, "{n} move was made for you when your time ran out: it is not judged.",
                                    "{n} moves were made for you when your time ran out: they are not judged.",
                                    timed_out))
    if skipped:  # logs from before timeouts were stored cannot tell the two apart
        lines.append(words.ngettext(locale, "{n} move was made for you (time ran out, or the AI played while you "
                                    "were away): it is not judged.", "{n} moves were made for you (time ran out, "
                                    "or the AI played while you were away): they are not judged.", skipped))
    worst = r.costliest(n)
    if where is None:
        where = places(record, [d.step for d in worst], locale)
    if not worst:
        lines.append(words.translate(locale, "The search found nothing better than what you played."))
    for d in worst:
        fields = dict(where=where.get(d.step, words.translate(locale, "Move {n}", n=d.step + 1)),
                      made=move_words(record.game, d.made, locale),
                      best=move_words(record.game, d.best or "", locale),
                      loss=_fixed(locale, d.loss, 1), units=units)
        if d.mark == "mistake":
            said = words.translate(locale, "{where}: you played {made}; {best} was better by about {loss} {units} "
                                   "(a mistake).", **fields)
        else:
            said = words.translate(locale, "{where}: you played {made}; {best} was better by about {loss} {units} "
                                   "(an inaccuracy).", **fields)
        lines.append(said)
    return lines


def _fixed(locale: str, value: float, places: int) -> str:
    """``value`` with ``places`` decimals, written the locale's way (``2.50``, ``2,50``)."""
    if locale == words.ENGLISH:
        return f"{value:.{places}f}"
    from babel.numbers import format_decimal

    return str(format_decimal(value, format="0." + "0" * places, locale=locale))


def _n(n: int, one: str, many: str | None = None) -> str:
    return plural(n, one, many)


def move_words(game: str, code: str, locale: str = words.ENGLISH) -> str:
    """A move as a player reads it: its cards (``Q♠``), or the kind of move in words (``pass``)."""
    try:
        a = engine.get(game).game.action_from_code(code)
    except Exception:
        return words.translate(locale, "another move")
    labels = [getattr(c, "label", None) for c in a.cards]
    if a.cards and all(labels):
        return " ".join(str(x) for x in labels)
    return words.translate(locale, a.kind.replace("_", " "))
