"""What a program player that floods its output costs the bot, on this machine.

Each run plays a stand-in for a game of ``--seconds`` (default 10) against one program through
:class:`tables.programs.process.ProgramPlayer`: the usual lines of a trick, then a query, again and again
(every query waits for its answer or the deadline, ``--timeout``, default 2 s).  The figure is the
CPU time of the bot's side (this process, every thread) over the run; the program's own CPU is
not counted.

* ``no_newline`` — the program writes ``x`` for ever and never a line break.
* ``lines`` — the program writes short lines for ever, asked or not.
* ``client`` — the example Python client (``clients/python_client.py``), for comparison.

    python bench/programs.py [--json] [--seconds S] [--timeout T] [--only NAME]

Each program also gets the figure ``answers``: how many queries it got through, and ``problems``:
what ended them (a flooding program's turn should end quickly with ``too long`` or a bad card).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tables.programs.process import ProgramPlayer  # noqa: E402

PY = shlex.quote(sys.executable)
# Both flooders read their input in a thread, so that only their output is at fault.
DRAIN = "import os, sys, threading\nthreading.Thread(target=lambda: [None for _ in sys.stdin], daemon=True).start()\n"
FLOODERS = {
    "no_newline": f"{PY} -c " + shlex.quote(DRAIN + "b = b'x' * 65536\nwhile True:\n    os.write(1, b)\n"),
    "lines": f"{PY} -c " + shlex.quote(DRAIN + "b = b'chatter\\n' * 8192\nwhile True:\n    os.write(1, b)\n"),
    "client": f"{PY} {shlex.quote(str(ROOT / 'clients' / 'python_client.py'))}",
}
TRICK = ["|INFO|start trick|0|Ann|Bob|Cy|Di|END|", "|INFO|played|Ann|2C|END|", "|INFO|played|Bob|3C|END|"]


async def one(command: str, seconds: float, timeout: float) -> dict[str, Any]:
    p = ProgramPlayer(command, "Cy", timeout=timeout)
    await p.start()
    p.send("|INFO|start game|Ann|Bob|Cy|Di|END|", "|INFO|start hand|0|END|",
           "|INFO|cards|2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH|END|")
    problems: collections.Counter[str] = collections.Counter()
    answers = 0
    cpu0, wall0 = time.process_time(), time.monotonic()
    try:
        while time.monotonic() - wall0 < seconds:
            p.send(*TRICK)
            answer = await p.ask()
            answers += 1
            problems[answer.problem or "line"] += 1
            if p.dead is not None:
                break
            await asyncio.sleep(0.01)  # a game between queries: the others play
    finally:
        cpu = time.process_time() - cpu0
        wall = time.monotonic() - wall0
        await p.close(grace=0)
    return {"bot_cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "answers": answers, "problems": dict(problems)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print only a JSON object")
    p.add_argument("--seconds", type=float, default=10.0, help="length of each run (default 10)")
    p.add_argument("--timeout", type=float, default=2.0, help="a query's deadline (default 2)")
    p.add_argument("--only", choices=sorted(FLOODERS), action="append", help="run only these programs")
    args = p.parse_args(argv)
    out: dict[str, Any] = {}
    for name in args.only or FLOODERS:
        out[name] = asyncio.run(one(FLOODERS[name], args.seconds, args.timeout))
    if args.json:
        print(json.dumps(out))
        return 0
    for name, r in out.items():
        print(f"{name:<11} bot CPU {r['bot_cpu_s']:6.2f} s in {r['wall_s']:5.1f} s   "
              f"{r['answers']:>5} queries: {r['problems']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
