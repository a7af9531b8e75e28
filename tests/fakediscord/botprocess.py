"""The real bot in its own process, pointed at a fake Discord that runs elsewhere (the bench runs
the fake and its scripted people in one process and the bot in this one, so each has a core).

    python -m tests.fakediscord.botprocess --port 8123 --token T --guild 123 [--runtime '{"ai_delay": 1.0}']
        [--database sqlite:///path/deckhand.db] [--seed 7]

The bot is configured as ``bot.main`` configures it: ``config.load_config`` reads the environment
(``DISCORD_TOKEN``, ``DEV_GUILD_ID``, ``DATABASE_URL``, ``DECKHAND_*``, ...); ``--token``,
``--guild`` and ``--database`` set those three.  Without ``--guild`` (and no ``DEV_GUILD_ID``) it
syncs its commands globally, as in production.  Without a database named, it keeps its tables in
a throwaway SQLite file (production always has a database; the default ``deckhand.db`` beside
bot.py is not for tests).  ``--config '{"programs": {...}}'`` then changes more of that ``Config``.
Prints ``ready`` on stdout once logged in; stops on SIGTERM or SIGINT.  With ``--database`` the
tables live in that SQLite file, so a second process started on the same file after this one is
killed carries on with them: :class:`BotProcess` runs it for tests.
Errors are logged to stderr as ``bot ERROR <logger>: <message>``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import logging
import os
import random
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import discord.http  # noqa: E402
import yarl  # noqa: E402
from discord.gateway import DiscordWebSocket  # noqa: E402


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", help="the bot's DISCORD_TOKEN (default: the environment's)")
    parser.add_argument("--guild", type=int, help="the bot's DEV_GUILD_ID (default: the environment's; none: "
                                                  "commands are synced globally)")
    parser.add_argument("--runtime", default="{}", help="Runtime options as JSON, e.g. {\"ai_delay\": 1.0}")
    parser.add_argument("--database", help="the bot's DATABASE_URL, e.g. sqlite:///tmp/deckhand.db (default: the "
                                           "environment's, else a throwaway SQLite file)")
    parser.add_argument("--seed", type=int, help="seed the runtime's generator (table ids, game seeds)")
    parser.add_argument("--config", default="{}",
                        help="more config.Config fields as JSON, e.g. {\"programs\": {\"py\": \"python3 client.py\"}}")
    parser.add_argument("--profile", help="write a cProfile of the run to this file")
    parser.add_argument("--gc-log", action="store_true", help="report garbage-collector pauses on stderr at exit")
    parser.add_argument("--play-log", help="at exit, write each table's actions and their times (its table "
                                           "message id -> [[time, code], ...]) to this JSON file")
    parser.add_argument("--stages", help="at exit, write how long each stage of the card clicks' answers took "
                                         "(wall and CPU milliseconds, :func:`time_stages`) to this JSON file")
    parser.add_argument("--without-intent", action="append", default=[],
                        help="experiment: identify without this intent (e.g. guild_messages)")
    args = parser.parse_args(argv)
    profiler = None
    if args.profile:
        import cProfile
        from time import thread_time

        # BENCH_PROFILE_CLOCK=cpu: the bot's own CPU time (its thread's), not the wall clock, which a
        # busy machine's other processes inflate.
        cpu = os.environ.get("BENCH_PROFILE_CLOCK") == "cpu"
        profiler = cProfile.Profile(thread_time) if cpu else cProfile.Profile()
        profiler.enable()
    logging.basicConfig(level=logging.ERROR, format="bot %(levelname)s %(name)s: %(message)s")
    discord.http.Route.BASE = f"http://127.0.0.1:{args.port}/api/v10"
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{args.port}/gateway")

    import dataclasses
    import tempfile

    from bot import Deckhand, ShardedDeckhand
    from config import ConfigError, load_config

    runtime_options = json.loads(args.runtime)
    if args.seed is not None:
        runtime_options["rng"] = random.Random(args.seed)
    extra = json.loads(args.config)
    for key in ("program_env", "shard_ids", "metrics_address"):
        if extra.get(key) is not None:
            extra[key] = tuple(extra[key])
    env = dict(os.environ)
    for key, value in (("DISCORD_TOKEN", args.token), ("DEV_GUILD_ID", args.guild), ("DATABASE_URL", args.database)):
        if value is not None:
            env[key] = str(value)
    scratch = None
    if not env.get("DATABASE_URL", "").strip():
        scratch = tempfile.TemporaryDirectory(prefix="deckhand-botprocess-")
        env["DATABASE_URL"] = f"sqlite:///{scratch.name}/deckhand.db"
    try:
        config = dataclasses.replace(load_config(env), **extra)
    except ConfigError as e:
        print(e, file=sys.stderr)
        return 2
    # As in production (bot.main): the start-up heap frozen, out of the collector's way.
    bot = (ShardedDeckhand if config.shard_count else Deckhand)(config, runtime_options=runtime_options,
                                                                guild_ready_timeout=0.01, freeze_heap=True)
    # The fake Discord names this process in its session log (FakeDiscord.session_log) by this.
    bot.http.user_agent = f"{bot.http.user_agent} {AGENT_PID}{os.getpid()}"
    for name in args.without_intent:
        setattr(bot._connection._intents, name, False)  # an experiment, not how Deckhand runs
    pauses: list[tuple[float, int, float]] = []
    freed = [0, 0, 0]  # cyclic garbage the collector freed, by generation
    garbage_kinds: collections.Counter[str] = collections.Counter()
    if args.gc_log:
        import gc
        import time

        started = [0.0, 0.0]

        def on_gc(phase: str, info: dict) -> None:
            if phase == "start":
                started[0] = time.perf_counter()
                started[1] = time.thread_time()
            else:
                pauses.append((time.perf_counter() - started[0], info["generation"], time.thread_time() - started[1]))
                freed[info["generation"]] += info["collected"]

        gc.callbacks.append(on_gc)
        # BENCH_GC_SAVEALL=1 (a diagnosis, not a measurement: nothing cyclic is ever freed then): the
        # kinds of the cyclic garbage, tallied and let go every 20 s, printed at exit.
        save_all = bool(os.environ.get("BENCH_GC_SAVEALL"))
        if save_all:
            gc.set_debug(gc.DEBUG_SAVEALL)

        asked = [False]

        async def sample() -> None:
            while True:
                await asyncio.sleep(20)
                if save_all:
                    gc.collect()
                    garbage_kinds.update(type(o).__qualname__ for o in gc.garbage)
                    gc.garbage.clear()
                objects = gc.get_objects()
                kinds = collections.Counter(type(o).__qualname__ for o in objects).most_common(8)
                print(f"bot heap: {len(objects)} tracked objects, most {kinds}", file=sys.stderr)
                if os.environ.get("BENCH_HEAP_WHO") and not asked[0]:
                    asked[0] = True
                    named = tuple(k for k in os.environ["BENCH_HEAP_WHO"].split(",") if k != "1")
                    for kind, (n, owners) in heap_owners(objects, *([named] if named else [])).items():
                        print(f"bot heap who: {kind} {n}: {owners}", file=sys.stderr)
                del objects

        sampler = asyncio.create_task(sample())  # noqa: F841 (kept alive until exit)
    slow_steps = watch_slow_steps() if os.environ.get("BENCH_SLOW_STEPS") else None
    if os.environ.get("BENCH_GC_THRESHOLD"):  # an experiment: e.g. 2000,10,10 (Python's default 700,10,10)
        import gc

        gc.set_threshold(*(int(x) for x in os.environ["BENCH_GC_THRESHOLD"].split(",")))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    # A standby waits inside login (the bot's setup_hook) until it holds a shard: a stop still stops it.
    login = asyncio.create_task(bot.login(config.token))
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({login, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if not login.done():
        login.cancel()
        await bot.close()
        return 0
    login.result()
    runner = asyncio.create_task(bot.connect(reconnect=True))
    await bot.wait_until_ready()
    tables = watch_tables(bot) if args.play_log else {}
    stages = time_stages(bot) if args.stages else {}
    print("ready", flush=True)
    await asyncio.wait({runner, asyncio.create_task(stop.wait())}, return_when=asyncio.FIRST_COMPLETED)
    await bot.close()
    runner.cancel()
    if args.play_log:
        Path(args.play_log).write_text(json.dumps(play_log(tables)))
    if args.stages:
        Path(args.stages).write_text(json.dumps(stages))
    if args.gc_log:
        import gc

        objects = gc.get_objects()
        kinds = collections.Counter(type(o).__qualname__ for o in objects)
        print(f"bot heap at exit: {len(objects)} tracked objects, most {kinds.most_common(12)}", file=sys.stderr)
        if os.environ.get("BENCH_HEAP_WHO"):
            named = tuple(k for k in os.environ["BENCH_HEAP_WHO"].split(",") if k != "1")
            for kind, (n, owners) in heap_owners(objects, *([named] if named else [])).items():
                print(f"bot heap who at exit: {kind} {n}: {owners}", file=sys.stderr)
    if pauses:
        worst = sorted(pauses)[-5:]
        total = sum(p for p, _, _ in pauses)
        print(f"bot gc: {len(pauses)} collections, {total * 1000:.0f} ms in all, worst "
              f"{[(round(p * 1000, 1), g) for p, g, _ in worst]} (ms, generation)", file=sys.stderr)
        for gen in range(3):
            mine = [p for p, g, _ in pauses if g == gen]
            cpu = [c for _, g, c in pauses if g == gen]
            if mine:
                print(f"bot gc generation {gen}: {len(mine)} collections, {sum(mine) * 1000:.0f} ms in all "
                      f"({sum(cpu) * 1000:.0f} ms CPU), longest {max(mine) * 1000:.1f} ms "
                      f"({max(cpu) * 1000:.1f} ms CPU), {freed[gen]} cyclic objects freed", file=sys.stderr)
    if garbage_kinds:
        print(f"bot cyclic garbage ({sum(garbage_kinds.values())} objects): most "
              f"{garbage_kinds.most_common(25)}", file=sys.stderr)
    if slow_steps is not None:

        by_what = collections.Counter(w for _, w in slow_steps)
        print(f"bot loop steps over {SLOW_STEP * 1000:g} ms: {len(slow_steps)}, longest "
              f"{sorted((round(d * 1000, 1), w) for d, w in slow_steps)[-8:]}; most often {by_what.most_common(8)}",
              file=sys.stderr)
        # The steps no collection ran in: the loop's own work (rendering, parsing, the engine).
        clean = [(d, w) for d, w in slow_steps if " (gc " not in w]
        cpu_of: collections.Counter[str] = collections.Counter()
        for d, w in clean:
            cpu_of[w] += d
        print(f"bot loop steps over {SLOW_STEP * 1000:g} ms with no collection: {len(clean)}, "
              f"{sum(d for d, _ in clean) * 1000:.0f} ms CPU, by what (ms) "
              f"{[(w, round(c * 1000)) for w, c in cpu_of.most_common(10)]}", file=sys.stderr)
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    return 0


def heap_owners(objects: list[Any], kinds: tuple[str, ...] = ("list", "tuple", "Button", "PartialEmoji", "LogEntry",
                "Context", "coroutine", "cell", "dict", "Event"), per_kind: int = 300,
                depth: int = 5) -> dict[str, tuple[int, list[tuple[str, int]]]]:
    """BENCH_HEAP_WHO=1: who holds a sample of each kind of tracked object (the chain of its
    referrers' types, first referrer each step, ``+n`` more), from one reverse map of ``objects``."""
    import collections
    import gc
    import random
    import types

    back: dict[int, list[Any]] = collections.defaultdict(list)
    for o in objects:
        for r in gc.get_referents(o):
            back[id(r)].append(o)
    by: dict[str, list[Any]] = collections.defaultdict(list)
    for o in objects:
        n = type(o).__qualname__
        if n in kinds:
            by[n].append(o)

    def name_of(r: Any, cur: Any) -> str:
        name = type(r).__qualname__
        if isinstance(r, dict):
            key = next((k for k, v in r.items() if v is cur), None)
            name += f"[{key!r}]" if isinstance(key, str) else ""
        elif isinstance(r, (types.FunctionType, types.CoroutineType)):
            name += ":" + getattr(r, "__qualname__", "?")
        else:
            attr = None
            for k in getattr(type(r), "__slots__", ()) or ():
                if isinstance(k, str) and getattr(r, k, None) is cur:
                    attr = k
            d = getattr(r, "__dict__", None)
            if isinstance(d, dict) and attr is None:
                attr = next((k for k, v in d.items() if v is cur), None)
            if attr:
                name += "." + attr
        return name

    out = {}
    for kind, objs in by.items():
        tally: collections.Counter[str] = collections.Counter()
        for o in random.sample(objs, min(per_kind, len(objs))):
            chain: list[str] = []
            cur = o
            for _ in range(depth):
                refs = back.get(id(cur), [])
                if not refs:
                    chain.append("-")
                    break
                r = refs[0]
                chain.append(name_of(r, cur) + (f"(+{len(refs) - 1})" if len(refs) > 1 else ""))
                cur = r
            extra = ""
            if kind in ("list", "tuple"):
                extra = f" len={len(o)} el={type(o[0]).__qualname__ if o else '-'}"
            tally[" <- ".join(chain) + extra] += 1
        out[kind] = (len(objs), tally.most_common(15))
    return out


SLOW_STEP = 0.002  # BENCH_SLOW_STEPS=1: the loop's steps that took at least this much CPU


def watch_slow_steps() -> list[tuple[float, str]]:
    """Every step of the event loop (one callback, or one step of a task) that took SLOW_STEP or
    more of the main thread's CPU (not the wall clock: a busy machine's other processes would count),
    with what ran (the task's coroutine, or the callback): what held the loop while a click waited."""
    import gc
    from asyncio import events

    steps: list[tuple[float, str]] = []
    run = events.Handle._run
    collected = [-1]  # the oldest generation collected during the step

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            collected[0] = max(collected[0], info["generation"])

    gc.callbacks.append(on_gc)

    def timed_run(self: Any) -> None:
        collected[0] = -1
        t = time.thread_time()
        run(self)
        took = time.thread_time() - t
        if took >= SLOW_STEP:
            cb = self._callback
            task = getattr(cb, "__self__", None)
            coro = task.get_coro() if isinstance(task, asyncio.Task) else None
            what = getattr(coro, "__qualname__", None) or getattr(cb, "__qualname__", None) or repr(cb)
            steps.append((took, f"{what}{f' (gc {collected[0]})' if collected[0] >= 0 else ''}"))

    events.Handle._run = timed_run  # type: ignore[method-assign]
    return steps


class Played(NamedTuple):
    """What :func:`play_log` reads of a finished table (its message and its actions' times and
    codes as tuples of atomic values: kept to the end of the run, they stay out of the collector's
    sight, as the finished table the runtime let go would be)."""
    message_id: int | None
    actions: tuple[tuple[float, str], ...]


def watch_tables(bot: Any) -> dict[str, Any]:
    """Every table the listener is asked to redraw, kept (a finished one leaves the runtime; of it
    only a :class:`Played`): the bench reads their action logs at the end (:func:`play_log`)."""
    from tables.table import Phase

    tables: dict[str, Any] = {}
    listener = bot.runtime.listener
    redraw = listener.redraw

    async def watched(table: Any) -> Any:
        if table.phase == Phase.FINISHED:
            tables[table.id] = Played(table.message_id, tuple((e.time, e.code) for e in table.log))
        else:
            tables[table.id] = table
        return await redraw(table)

    listener.redraw = watched
    return tables


def time_stages(bot: Any) -> dict[str, list[tuple[float, float]]]:
    """Time the stages of every card click's answer (a card button or a card menu on a hand view),
    each as ``[wall ms, CPU ms]`` (the CPU: this process's main thread, so what other work the loop
    ran meanwhile counts, and what other processes of a busy machine ran does not):

    * ``queued`` — from the bot reading the INTERACTION_CREATE off the gateway to its click handler;
    * ``act`` — the runtime applying the move (the table's lock, the engine, the storage write),
      of which ``commit`` — the storage write the answer waits for (a move answered is on disk);
    * ``render`` — drawing the hand view that answers the click;
    * ``answer`` — sending it (the interaction callback) until Discord's reply;
    * ``click`` — the handler, from its start to the answer sent.
    """
    import cogs.live.game_clicks as clicks_module
    from tables.persistence import Persistence
    from tables.runtime import Runtime

    stages: dict[str, list[tuple[float, float]]] = {
        k: [] for k in ("queued", "act", "commit", "render", "answer", "click")}
    received: dict[int, tuple[float, float]] = {}
    clicking: set[Any] = set()  # the tasks answering a click now (not the tasks they start)

    def now() -> tuple[float, float]:
        return time.perf_counter(), time.thread_time()

    def note(stage: str, since: tuple[float, float]) -> None:
        wall, cpu = now()
        # A tuple of two floats, not a list: the collector stops tracking it, so the thousands of
        # them a run keeps do not make the bot's own collections (what the bench measures) longer.
        stages[stage].append((round((wall - since[0]) * 1000, 3), round((cpu - since[1]) * 1000, 3)))

    parsers = bot._connection.parsers  # (discord.py's gateway dispatch: event name -> bound parse_ method)
    parse = parsers["INTERACTION_CREATE"]

    def parse_interaction_create(data: Any) -> None:
        received[int(data["id"])] = now()
        parse(data)

    parsers["INTERACTION_CREATE"] = parse_interaction_create

    def timed(owner: Any, name: str, stage: str) -> None:
        original = getattr(owner, name)
        if asyncio.iscoroutinefunction(original):
            async def wrapper(*a: Any, **kw: Any) -> Any:
                if asyncio.current_task() not in clicking:
                    return await original(*a, **kw)
                since = now()
                try:
                    return await original(*a, **kw)
                finally:
                    note(stage, since)
        else:
            def wrapper(*a: Any, **kw: Any) -> Any:
                if asyncio.current_task() not in clicking:
                    return original(*a, **kw)
                since = now()
                try:
                    return original(*a, **kw)
                finally:
                    note(stage, since)
        setattr(owner, name, wrapper)

    timed(Runtime, "act", "act")
    timed(Persistence, "commit", "commit")
    timed(clicks_module, "hand_payload", "render")
    timed(clicks_module, "update_message", "answer")
    for name in ("on_action_button", "on_pick"):
        original = getattr(clicks_module.ComponentClicks, name)

        def make(original: Any) -> Any:
            async def handler(self: Any, interaction: Any, *a: Any, **kw: Any) -> Any:
                got = received.pop(int(interaction.id), None)
                if got is not None:
                    note("queued", got)
                task = asyncio.current_task()
                clicking.add(task)
                since = now()
                try:
                    return await original(self, interaction, *a, **kw)
                finally:
                    note("click", since)
                    clicking.discard(task)
            return handler

        setattr(clicks_module.ComponentClicks, name, make(original))
    return stages


def play_log(tables: dict[str, Any]) -> dict[str, list[list[Any]]]:
    """Table message id -> the table's actions as ``[time, code]`` (the runtime's clock: wall time)."""
    return {str(t.message_id): [list(a) for a in t.actions] if isinstance(t, Played)
            else [[e.time, e.code] for e in t.log] for t in tables.values() if t.message_id}


# ==== for tests: start it, kill it, start it again =================================================
ERROR_LINE = re.compile(r"^bot (ERROR|CRITICAL) ")
AGENT_PID = "deckhand-test-pid/"
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before it runs: SIGKILL it if the test process dies (Linux), so a test killed
    half way never leaves a bot reconnecting to a fake Discord that is gone."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class BotProcess:
    """This module run as a child process against ``fd`` (a :class:`~tests.fakediscord.FakeDiscord`
    in the test's own process).  :meth:`start` returns once the child printed ``ready``; its stderr
    is collected (:attr:`errors`: what it logged at ERROR and above).  :meth:`kill` is ``kill -9``,
    :meth:`stop` a graceful SIGTERM."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.stderr: list[str] = []
        self.ready_in: float | None = None  # seconds from the start to ``ready``
        self._began = time.perf_counter()
        self._commands: tuple[Any, bool] | None = None  # (the fake, sync_to_guild): ready() waits for them
        self._reader = asyncio.create_task(self._read(), name=f"botprocess-stderr:{proc.pid}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def agent(self) -> str:
        """What this process adds to its User-Agent (the fake's ``session_log`` names it by that)."""
        return f"{AGENT_PID}{self.proc.pid}"

    @property
    def running(self) -> bool:
        return self.proc.returncode is None

    @classmethod
    async def start(cls, fd: Any, *, database: str | None = None, runtime: dict[str, Any] | None = None,
                    seed: int | None = None, config: dict[str, Any] | None = None,
                    ready_timeout: float | None = 30.0, sync_to_guild: bool = True) -> BotProcess:
        """``ready_timeout=None``: return at once (a standby prints ``ready`` only once it holds a
        shard's lease); :meth:`ready` waits for it then.  The bot reads its configuration from its
        environment (:func:`~tests.fakediscord.botrunner.production_env`): ``database`` (default: a
        throwaway SQLite file) and, with ``sync_to_guild``, the fake's guild as DEV_GUILD_ID."""
        from .botrunner import production_env

        args = ["--port", str(fd.port), "--runtime", json.dumps(runtime or {}), "--config", json.dumps(config or {})]
        env = production_env(fd, database or "", sync_to_guild=sync_to_guild, base=os.environ)
        if seed is not None:
            args += ["--seed", str(seed)]
        began = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.fakediscord.botprocess", *args, cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env={**env, "PYTHONPATH": str(ROOT)}, preexec_fn=_die_with_parent,
        )
        bot = cls(proc)
        bot._began = began
        bot._commands = (fd, sync_to_guild)
        if ready_timeout is not None:
            await bot.ready(ready_timeout)
        return bot

    async def ready(self, timeout: float = 30.0) -> None:
        """Until the process printed ``ready`` (logged in, its shards connected)."""
        if self.ready_in is not None:
            return
        try:
            assert self.proc.stdout is not None
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        except TimeoutError:
            line = b"(nothing after %d s)" % timeout
        if line.strip() != b"ready":
            await self.kill()
            tail = "\n".join(self.stderr[-30:])
            raise RuntimeError(f"the bot process did not start: {line!r}\n{tail}")
        self.ready_in = time.perf_counter() - self._began
        if self._commands is not None:
            from .botrunner import commands_registered

            await commands_registered(*self._commands, timeout)

    async def said_ready(self, timeout: float = 0.5) -> bool:
        """Whether the process printed ``ready`` (waiting up to ``timeout`` for it; unlike
        :meth:`ready`, a process that did not is left running)."""
        if self.ready_in is None:
            assert self.proc.stdout is not None
            try:
                line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
            except TimeoutError:
                return False
            if line.strip() == b"ready":
                self.ready_in = time.perf_counter() - self._began
        return self.ready_in is not None

    async def _read(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        while line := await stream.readline():
            self.stderr.append(line.decode(errors="replace").rstrip("\n"))

    @property
    def errors(self) -> list[str]:
        """What the bot logged at ERROR or above, one line each."""
        return [line[len("bot "):] for line in self.stderr if ERROR_LINE.match(line)]

    async def kill(self) -> None:
        """SIGKILL: the process gets no chance to finish anything.  Its AI workers die with it by
        themselves (tables/ai/pool.py; tests/e2e/test_ai_workers.py), as its program leashes do."""
        if self.running:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGKILL)
        await self._finish()

    async def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM: the bot closes (its runtime and database) and exits."""
        if self.running:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                self.stderr.append(f"bot ERROR botprocess: did not stop within {timeout:g} s of SIGTERM; killed")
        await self.kill()

    async def _finish(self) -> None:
        await self.proc.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._reader), 5)
        if self.proc.stdout is not None:
            # Bounded: a process it left behind may still hold the pipe open.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.proc.stdout.read(), 5)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
