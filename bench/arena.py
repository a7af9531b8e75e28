"""How fast the program arena runs program players, on this machine.

* ``codec_msgs_per_s`` — protocol lines formatted and parsed per second by :mod:`tables.programs.protocol`
  alone (a hand's worth of the usual lines, round and round).
* ``hands_per_s`` — arena hands per second in a game between four example Python clients
  (``clients/python_client.py``), timed from starting the processes to closing them.
* ``arena_msgs_per_s`` — protocol lines exchanged per second in that game (every line sent to a
  program, queries included, plus every answer).

Target: ≥ 200 hands/s with four example Python clients.

    python bench/arena.py [--json] [--target T] [--rounds R] [--client COMMAND]

Each figure is the best of ``--rounds`` runs (default 3): other processes on a shared machine
only ever slow a run down.  ``--target`` sets the game's length (default 1000, about 300 hands).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from engine.cards import card  # noqa: E402
from engine.core import Event  # noqa: E402
from tables.programs.arena import play_game  # noqa: E402
from tables.programs.protocol import event_lines, parse_message, read_response, response  # noqa: E402

TARGET_HANDS_PER_S = 200


def codec_rate(seconds: float) -> float:
    names = ["Ann", "Bob", "Cy", "Di"]
    qs = card("QS")
    events = [Event("deal", None, (3, 3, 0, 1, 2))] + [Event("trick_start", 1, (5, 1, 2, 3, 0))]
    events += [Event("play", s, (qs,)) for s in range(4)] + [Event("trick", 2, (5, 17, qs, qs, qs, qs))]
    answer = response(qs)
    n = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        for e in events:
            for _, line in event_lines(e, names):
                parse_message(line)
                n += 2
        read_response(answer)
        n += 1
    return n / (time.perf_counter() - start)


def arena_rate(client: str, target: int, rounds: int) -> dict[str, Any]:
    best: dict[str, Any] = {}
    for r in range(rounds):
        start = time.perf_counter()
        result = asyncio.run(play_game([client] * 4, seed=r, target=target, cwd=ROOT))
        spent = time.perf_counter() - start
        hps = result.hands / spent
        if not best or hps > best["hands_per_s"]:
            best = {"hands_per_s": hps, "arena_msgs_per_s": result.messages / spent, "hands": result.hands,
                    "messages": result.messages, "seconds": spent, "bad_cards": sum(result.bad_cards)}
    return best


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print only a JSON object")
    p.add_argument("--target", type=int, default=1000, help="game target (default 1000)")
    p.add_argument("--rounds", type=int, default=3, help="runs per figure; the best counts (default 3)")
    p.add_argument("--client", default=f"{shlex.quote(sys.executable)} clients/python_client.py",
                   help="the program command for all four seats (run from the repository root)")
    args = p.parse_args(argv)
    out: dict[str, Any] = {"codec_msgs_per_s": codec_rate(1.0)}
    out.update(arena_rate(args.client, args.target, args.rounds))
    out["client"] = args.client
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"protocol codec                {out['codec_msgs_per_s']:>12,.0f} lines/s (format + parse)")
    print(f"arena, 4 x {os.path.basename(shlex.split(args.client)[-1])}: {out['hands_per_s']:>10,.0f} hands/s   "
          f"{out['arena_msgs_per_s']:>10,.0f} lines/s   ({out['hands']} hands, {out['messages']:,} lines "
          f"in {out['seconds']:.2f} s, best of {args.rounds})")
    ok = out["hands_per_s"] >= TARGET_HANDS_PER_S
    print(f"Target ≥ {TARGET_HANDS_PER_S} hands/s with four Python clients: {'met' if ok else 'NOT met'}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
