"""The real bot in its own process, pointed at a fake Discord that runs elsewhere (the bench runs
the fake and its scripted people in one process and the bot in this one, so each has a core).

    python -m tests.fakediscord.botprocess --port 8123 --token T --guild 123 [--ai-delay 1.0]

Prints ``ready`` on stdout once logged in; stops on SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import discord.http  # noqa: E402
import yarl  # noqa: E402
from discord.gateway import DiscordWebSocket  # noqa: E402


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--guild", type=int, required=True)
    parser.add_argument("--runtime", default="{}", help="Runtime options as JSON, e.g. {\"ai_delay\": 1.0}")
    parser.add_argument("--profile", help="write a cProfile of the run to this file")
    parser.add_argument("--gc-log", action="store_true", help="report garbage-collector pauses on stderr at exit")
    parser.add_argument("--without-intent", action="append", default=[],
                        help="experiment: identify without this intent (e.g. guild_messages)")
    args = parser.parse_args(argv)
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    logging.basicConfig(level=logging.ERROR, format="bot %(levelname)s %(name)s: %(message)s")
    discord.http.Route.BASE = f"http://127.0.0.1:{args.port}/api/v10"
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{args.port}/gateway")

    from bot import Config, Deckhand

    bot = Deckhand(Config(token=args.token, dev_guild_id=args.guild), runtime_options=json.loads(args.runtime),
                   guild_ready_timeout=0.01)
    for name in args.without_intent:
        setattr(bot._connection._intents, name, False)  # an experiment, not how Deckhand runs
    pauses: list[tuple[float, int]] = []
    if args.gc_log:
        import gc
        import time

        started = [0.0]

        def on_gc(phase: str, info: dict) -> None:
            if phase == "start":
                started[0] = time.perf_counter()
            else:
                pauses.append((time.perf_counter() - started[0], info["generation"]))

        gc.callbacks.append(on_gc)

        async def sample() -> None:
            import collections

            while True:
                await asyncio.sleep(20)
                objects = gc.get_objects()
                kinds = collections.Counter(type(o).__qualname__ for o in objects).most_common(8)
                print(f"bot heap: {len(objects)} tracked objects, most {kinds}", file=sys.stderr)
                del objects

        sampler = asyncio.create_task(sample())  # noqa: F841 (kept alive until exit)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await bot.login(args.token)
    runner = asyncio.create_task(bot.connect(reconnect=True))
    await bot.wait_until_ready()
    print("ready", flush=True)
    await asyncio.wait({runner, asyncio.create_task(stop.wait())}, return_when=asyncio.FIRST_COMPLETED)
    await bot.close()
    runner.cancel()
    if args.gc_log:
        import collections
        import gc

        objects = gc.get_objects()
        kinds = collections.Counter(type(o).__qualname__ for o in objects)
        print(f"bot heap at exit: {len(objects)} tracked objects, most {kinds.most_common(12)}", file=sys.stderr)
    if pauses:
        worst = sorted(pauses)[-5:]
        total = sum(p for p, _ in pauses)
        print(f"bot gc: {len(pauses)} collections, {total * 1000:.0f} ms in all, worst "
              f"{[(round(p * 1000, 1), g) for p, g in worst]} (ms, generation)", file=sys.stderr)
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
