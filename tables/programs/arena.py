"""Contest games between programs and built-in AIs: the seed's contest server, rebuilt.

    python -m tables.programs.arena GAME PROG1 PROG2 PROG3 PROG4 [--games N] [--seed S] [--target T]
                           [--transcript DIR] [--timeout SECS] [--strikes K] [--names A,B,C,D]

A program is a shell-style command line (``"python3 clients/python_client.py"``), run without a
shell, with the player's name as its first argument; ``ai`` seats the built-in AI.  Each program
talks the line protocol of :mod:`tables.programs.protocol`, in the game whose spec offers program seats
(``GameSpec.programs``: engine/programs.py).  The arena drives the pure engine directly: no
Discord and no table runtime.  Game ``g`` uses seed ``S + g``; seats keep their places (the order
of play rotates every hand anyway).  It prints the standings; ``--transcript DIR`` writes, per
game and seat, every line that seat received, its answers (``> ...``) and notes (``# ...``).

The bad-card rule is the engine's ``bad`` action (docs/rules.md, "Programs as players": the
penalty and a fresh deal).  Two arena policies keep a contest going when a program breaks, both
announced in the transcript:

* a program that exits, closes its output or stops reading is *retired* after that bad card: the
  built-in AI plays its seat for the rest of the game (it is never started again);
* so is a program that has played ``--strikes`` bad cards (default 10) in one game, so that one
  program answering garbage or nothing cannot abandon every hand for ever.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import engine
from tables.programs.players import Lines, PlayerSeat, ProgramSeat, check_names, deliver
from tables.programs.process import ProgramError
from tables.programs.protocol import DEFAULT_TIMEOUT, program_game, program_rules, start_game

AI_COMMAND = "ai"
GAMES = tuple(name for name, spec in engine.games().items() if spec.programs is not None)
DEFAULT_STRIKES = 10



@dataclass
class GameResult:
    seed: int | str
    names: list[str]
    scores: list[int]
    places: list[int]
    winners: list[int]
    hands: int  # hands begun, abandoned ones included
    bad_cards: list[int]
    retired: list[str | None]
    messages: int  # protocol lines exchanged: sent to seats (queries included) plus answers
    transcripts: list[list[str]] | None = field(default=None, repr=False)


def default_names(commands: Sequence[str]) -> list[str]:
    """Seat names from the commands: ``AI`` for the built-in AI, else the program file's stem
    (``python3 clients/python_client.py`` → ``python_client``), numbered when repeated."""
    bases = []
    for cmd in commands:
        if cmd.strip().lower() == AI_COMMAND:
            bases.append("AI")
            continue
        words = [w for w in shlex.split(cmd) if not w.startswith("-")] or ["program"]
        stem = os.path.splitext(os.path.basename(words[-1].rstrip("/")))[0]
        bases.append(re.sub(r"[^A-Za-z0-9_.\-]", "_", stem)[:24] or "program")
    out = []
    for i, b in enumerate(bases):
        out.append(f"{b}{bases[: i + 1].count(b)}" if bases.count(b) > 1 else b)
    return out


async def play_game(
    commands: Sequence[str],
    *,
    seed: int | str = 0,
    target: int = 1000,
    timeout: float = DEFAULT_TIMEOUT,
    strikes: int = DEFAULT_STRIKES,
    names: Sequence[str] | None = None,
    record: bool = False,
    stderr: int | None = subprocess.DEVNULL,
    cwd: str | None = None,
) -> GameResult:
    """One game between four seats (program commands or ``ai``).  Raises :class:`ProgramError`
    when a program cannot be started at all; once it runs, nothing it does stops the game."""
    spec, rules = program_game(), program_rules()
    if len(commands) != rules.players:
        raise ValueError(f"{spec.game.title} needs exactly {rules.players} players.")
    if strikes < 1:
        raise ValueError("--strikes must be at least 1.")
    names = list(names) if names is not None else default_names(commands)
    check_names(names)
    state = spec.game.create(rules.players, {rules.target_option: target}, seed)
    seats: list[PlayerSeat] = [
        PlayerSeat(n, record) if c.strip().lower() == AI_COMMAND
        else ProgramSeat(n, c, record, timeout, strikes, stderr, cwd)
        for n, c in zip(names, commands, strict=True)
    ]
    answers = 0
    try:
        started = await asyncio.gather(*(s.start() for s in seats), return_exceptions=True)
        for r in started:
            if isinstance(r, BaseException):
                raise r
        for s in seats:
            s.tell([start_game(names)])
        lines = Lines(names)
        deliver(seats, lines, rules.catch_up(state))  # at the start: the events that open the game
        step = 0
        while not state.is_over:
            seat = state.to_act()[0]
            action = await seats[seat].decide(state, seat, step, seed)
            if seats[seat].retired is None or action.kind == rules.bad:
                answers += 1
            deliver(seats, lines, state.apply(seat, action))
            step += 1
    finally:
        await asyncio.gather(*(s.close() for s in seats), return_exceptions=True)
    out = state.outcome()
    assert out is not None
    return GameResult(
        seed=seed,
        names=names,
        scores=list(out.scores),
        places=list(out.places),
        winners=list(out.winners),
        hands=rules.hands_begun(state),
        bad_cards=rules.bad_cards(state),
        retired=[s.retired for s in seats],
        messages=sum(s.sent for s in seats) + answers,
        transcripts=[s.transcript or [] for s in seats] if record else None,  # (recorded: each has one)
    )


def write_transcripts(result: GameResult, directory: str, game_index: int) -> list[str]:
    """``DIR/game{g}-seat{s}.txt`` for each seat; returns the paths written."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for s, lines in enumerate(result.transcripts or []):
        path = os.path.join(directory, f"game{game_index}-seat{s}.txt")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(f"# seat {s}: {result.names[s]}\n")
            f.write("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def standings(results: Sequence[GameResult]) -> str:
    """A table of the seats over all games: shared wins count as a fraction."""
    if not results:
        return "No games played."
    names = results[0].names
    rows = []
    for s, n in enumerate(names):
        wins = sum(1 / len(r.winners) for r in results if s in r.winners)
        total = sum(r.scores[s] for r in results)
        bad = sum(r.bad_cards[s] for r in results)
        retired = sum(1 for r in results if r.retired[s])
        rows.append((wins, total, s, n, bad, retired))
    rows.sort(key=lambda r: (-r[0], -r[1], r[2]))
    width = max(len(n) for n in names)
    lines = [f"{len(results)} game(s), {sum(r.hands for r in results)} hands",
             f"{'#':>2}  {'seat':<{width}}  {'wins':>6}  {'points':>8}  {'mean':>8}  {'bad':>4}  retired"]
    for place, (wins, total, _seat, n, bad, retired) in enumerate(rows, 1):
        lines.append(f"{place:>2}  {n:<{width}}  {wins:>6.2f}  {total:>8}  {total / len(results):>8.1f}  "
                     f"{bad:>4}  {retired}")
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> list[GameResult]:
    results = []
    names = args.names.split(",") if args.names else None
    for g in range(args.games):
        r = await play_game(
            args.programs, seed=args.seed + g, target=args.target, timeout=args.timeout, strikes=args.strikes,
            names=names, record=args.transcript is not None, stderr=None if args.show_stderr else subprocess.DEVNULL,
        )
        if args.transcript is not None:
            write_transcripts(r, args.transcript, g)
        results.append(r)
        if args.games > 1:
            scores = ", ".join(f"{n} {sc}" for n, sc in zip(r.names, r.scores, strict=True))
            print(f"game {g} (seed {r.seed}, {r.hands} hands): {scores}", flush=True)
    return results


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m tables.programs.arena", description=__doc__.split("\n\n")[0])
    p.add_argument("game", choices=GAMES)
    p.add_argument("programs", nargs=4, metavar="PROG", help="a command line, or 'ai' for the built-in AI")
    p.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game; game g uses seed+g (default 0)")
    p.add_argument("--target", type=int, default=1000, help="the game ends at this score (default 1000)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                   help=f"seconds a program has for each answer (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--strikes", type=int, default=DEFAULT_STRIKES,
                   help=f"bad cards after which a program is retired for the game (default {DEFAULT_STRIKES})")
    p.add_argument("--names", help="comma-separated seat names (default: from the commands)")
    p.add_argument("--transcript", metavar="DIR", help="write every seat's messages to DIR/game{g}-seat{s}.txt")
    p.add_argument("--show-stderr", action="store_true", help="let the programs' stderr through")
    args = p.parse_args(argv)
    if args.games < 1 or args.target < 1 or args.timeout <= 0 or args.strikes < 1:
        p.error("--games, --target and --strikes must be at least 1, --timeout above 0")
    if args.names:
        try:
            check_names(args.names.split(","))
        except ValueError as e:
            p.error(str(e))
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        results = asyncio.run(run(args))
    except ProgramError as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2
    print(standings(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
