"""The seats a program-playing game is dealt to, shared by the contest command line
(:mod:`tables.programs.arena`) and the program seats at runtime tables (:mod:`tables.programs.driver`):
a seat that is told protocol lines and decides (the built-in AI, or a program behind
:class:`~tables.programs.process.ProgramPlayer`), and the delivery of events as lines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from engine.cards import Card
from engine.core import AI, Action, Event, Game, rng_for
from tables.programs.process import ProgramPlayer
from tables.programs.procs import ProcessRecord
from tables.programs.protocol import (
    QUERY_CARD,
    Answer,
    answer_action,
    event_lines,
    program_game,
    program_rules,
    response,
)

NAME_OK = re.compile(r"^[A-Za-z0-9_.\-]{1,32}$")

class PlayerSeat:
    """One seat as the arena sees it: what it is told, and how it decides."""

    def __init__(self, name: str, record: bool) -> None:
        self.name = name
        self.transcript: list[str] | None = [] if record else None
        self.bad = 0
        self.retired: str | None = None
        self.sent = 0  # lines sent to this seat, queries included
        self.ai: AI = program_game().ai()

    def tell(self, lines: list[str]) -> None:
        self.sent += len(lines)
        if self.transcript is not None:
            self.transcript.extend(lines)

    def note(self, text: str) -> None:
        if self.transcript is not None:
            self.transcript.append("# " + text)

    def ai_action(self, state: Game, seat: int, step: int, seed: int | str) -> Action:
        return self.ai.choose(state, seat, rng_for(seed, "ai", step, seat))

    async def start(self) -> None:
        pass

    async def decide(self, state: Game, seat: int, step: int, seed: int | str) -> Action:
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

    async def decide(self, state: Game, seat: int, step: int, seed: int | str) -> Action:
        if self.retired is not None:
            return self.ai_action(state, seat, step, seed)
        action = self.judge(await self.ask(), program_rules().legal(state, seat))
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
        if action.kind == program_rules().bad:
            self.bad += 1
            why = self.player.dead or (f"{self.bad} bad cards" if self.bad >= self.strikes else None)
            if why is not None:
                self.retired = why
                self.note(f"retired ({why}): the built-in AI plays this seat from now on")
        return action

    async def close(self) -> None:
        await self.player.close()


def check_names(names: Sequence[str]) -> None:
    players = program_rules().players
    if len(names) != players:
        raise ValueError(f"{program_game().game.title} needs exactly {players} names.")
    for n in names:
        if not NAME_OK.match(n):
            raise ValueError(f"Name {n!r}: use 1-32 letters, digits, '_', '.' or '-' (it is a protocol field).")
    if len(set(names)) != len(names):
        raise ValueError(f"The {len(names)} names must differ.")


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
