"""Contest games of Tricks between programs and built-in AIs: the seed's contest server, rebuilt.

    python -m tables.arena tricks PROG1 PROG2 PROG3 PROG4 [--games N] [--seed S] [--target T]
                           [--transcript DIR] [--timeout SECS] [--strikes K] [--names A,B,C,D]

A program is a shell-style command line (``"python3 clients/python_client.py"``), run without a
shell, with the player's name as its first argument; ``ai`` seats the built-in AI.  Each program
talks the line protocol of :mod:`tables.protocol`.  The arena drives the pure engine directly: no
Discord and no table runtime.  Game ``g`` uses seed ``S + g``; seats keep their places (the order
of play rotates every hand anyway).  It prints the standings; ``--transcript DIR`` writes, per
game and seat, every line that seat received, its answers (``> ...``) and notes (``# ...``).

The bad-card rule is the engine's ``bad`` action (−100, the hand abandoned, a fresh deal).  Two
arena policies keep a contest going when a program breaks, both announced in the transcript:

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import engine
from engine.cards import Card
from engine.core import AI, Action, Event, rng_for
from games.tricks.ai import TricksAI
from games.tricks.rules import BAD, Tricks
from tables.procs import ProcessRecord
from tables.protocol import (
    DEFAULT_TIMEOUT,
    QUERY_CARD,
    Answer,
    ProgramError,
    ProgramPlayer,
    answer_action,
    event_lines,
    response,
    start_game,
)

AI_COMMAND = "ai"
GAMES = tuple(name for name, spec in engine.games().items() if spec.programs)
DEFAULT_STRIKES = 10
NAME_OK = re.compile(r"^[A-Za-z0-9_.\-]{1,32}$")


class PlayerSeat:
    """One seat as the arena sees it: what it is told, and how it decides."""

    def __init__(self, name: str, record: bool) -> None:
        self.name = name
        self.transcript: list[str] | None = [] if record else None
        self.bad = 0
        self.retired: str | None = None
        self.sent = 0  # lines sent to this seat, queries included
        self.ai: AI = TricksAI()

    def tell(self, lines: list[str]) -> None:
        self.sent += len(lines)
        if self.transcript is not None:
            self.transcript.extend(lines)

    def note(self, text: str) -> None:
        if self.transcript is not None:
            self.transcript.append("# " + text)

    def ai_action(self, state: Tricks, seat: int, step: int, seed: int | str) -> Action:
        return self.ai.choose(state, seat, rng_for(seed, "ai", step, seat))

    async def start(self) -> None:
        pass

    async def decide(self, state: Tricks, seat: int, step: int, seed: int | str) -> Action:
        # The built-in AI answers as a program would, so its transcript reads the same.
        self.tell([QUERY_CARD])
        action = self.ai_action(state, seat, step, seed)
        if self.transcript is not None:
            self.transcript.append("> " + response(action.cards[0]))
        return action

    async def close(self) -> None:
        pass


class ProgramSeat(PlayerSeat):
    def __init__(self, name: str, command: str, record: bool, timeout: float, strikes: int,
                 stderr: int | None, cwd: str | None, env: Mapping[str, str] | None = None,
                 processes: ProcessRecord | None = None) -> None:
        super().__init__(name, record)
        self.command = command
        self.strikes = strikes
        self.player = ProgramPlayer(command, name, timeout=timeout, stderr=stderr, cwd=cwd, env=env,
                                    record=processes)

    def tell(self, lines: list[str]) -> None:
        if self.retired is None:
            self.player.send(*lines)
            super().tell(lines)

    async def start(self) -> None:
        await self.player.start()

    async def decide(self, state: Tricks, seat: int, step: int, seed: int | str) -> Action:
        if self.retired is not None:
            return self.ai_action(state, seat, step, seed)
        action = self.judge(await self.ask(), state.legal_plays(seat))
        if self.retired is not None:
            await self.player.close(grace=0)
        return action

    async def ask(self) -> Answer:
        """Query the program and wait for its answer (at most the timeout).  The table runtime
        calls this outside its lock, then :meth:`judge` under it."""
        super().tell([QUERY_CARD])
        answer = await self.player.ask()
        if self.transcript is not None:
            self.transcript.append("> " + answer.line if answer.line is not None else f"# no answer: {answer.problem}")
        return answer

    def judge(self, answer: Answer, legal: Sequence[Card]) -> Action:
        """The action for ``answer`` (``bad`` for anything but a legal card); a program that is
        gone, or has played ``strikes`` bad cards, is marked ``retired`` (the caller closes it)."""
        action = answer_action(answer, legal)
        if action.kind == BAD:
            self.bad += 1
            why = self.player.dead or (f"{self.bad} bad cards" if self.bad >= self.strikes else None)
            if why is not None:
                self.retired = why
                self.note(f"retired ({why}): the built-in AI plays this seat from now on")
        return action

    async def close(self) -> None:
        await self.player.close()


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


def check_names(names: Sequence[str]) -> None:
    if len(names) != 4:
        raise ValueError("Tricks needs exactly 4 names.")
    for n in names:
        if not NAME_OK.match(n):
            raise ValueError(f"Name {n!r}: use 1-32 letters, digits, '_', '.' or '-' (it is a protocol field).")
    if len(set(names)) != 4:
        raise ValueError("The 4 names must differ.")


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
    if len(commands) != 4:
        raise ValueError("Tricks needs exactly 4 players.")
    if strikes < 1:
        raise ValueError("--strikes must be at least 1.")
    names = list(names) if names is not None else default_names(commands)
    check_names(names)
    state = Tricks.create(4, {"target": target}, seed)
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
        deliver(seats, lines, state.opening_events())
        step = 0
        while not state.is_over:
            seat = state.turn
            assert seat is not None
            action = await seats[seat].decide(state, seat, step, seed)
            if seats[seat].retired is None or action.kind == BAD:
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
        hands=state.hand_no + 1,
        bad_cards=list(state.bad_cards),
        retired=[s.retired for s in seats],
        messages=sum(s.sent for s in seats) + answers,
        transcripts=[s.transcript for s in seats] if record else None,  # type: ignore[misc]
    )


class Lines:
    """The protocol lines of events, remembering those that recur (a card played, a trick begun)."""

    CACHED = frozenset({"play", "trick_start"})

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names
        self.cache: dict[Event, list[tuple[int | None, str]]] = {}

    def __call__(self, event: Event) -> list[tuple[int | None, str]]:
        if event.kind not in self.CACHED:
            return event_lines(event, self.names)
        found = self.cache.get(event)
        if found is None:
            found = self.cache[event] = event_lines(event, self.names)
        return found


def deliver(seats: Sequence[PlayerSeat], lines: Lines, events: list[Event]) -> None:
    public: list[str] = []
    for e in events:
        for to, line in lines(e):
            if to is None:
                public.append(line)
            else:
                # A private line keeps its place: flush what everyone heard before it first.
                for s in seats:
                    s.tell(public)
                public = []
                seats[to].tell([line])
    if public:
        for s in seats:
            s.tell(public)


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
    p = argparse.ArgumentParser(prog="python -m tables.arena", description=__doc__.split("\n\n")[0])
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
