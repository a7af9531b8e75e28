"""Program seats at runtime tables: trusted programs playing at Discord tables.

Programs play the game whose spec offers program seats (``GameSpec.programs``: engine/programs.py).
The server operator lists the programs the bot may run (``DECKHAND_PROGRAMS``, read by
:func:`parse_programs`: ``name=command line;name2=command line``); the host of such a table seats
one by *name* (``/game ai program:name``).  A chat user never supplies a command line: the runtime
only ever runs commands from :class:`ProgramSettings`, looked up by a name the operator chose.

A program seat is an AI seat (``Seat.is_ai``) whose ``Seat.program`` names the program, so it is
never pinged and never has a deadline of its own.  :class:`TablePrograms` drives the program
seats of one running table with the arena's pieces (:class:`tables.programs.players.ProgramSeat`,
:func:`tables.programs.players.deliver`), so a program hears exactly what a contest program hears:
``start game`` with the seats' protocol names (:func:`protocol_names`), each hand's ``start hand``
and its own ``cards``, ``start trick``, ``QUERY`` when it must play, ``played``, ``end trick``,
``end hand``, ``bad card`` and ``end game``.

How the runtime uses it (``tables/runtime.py``):

* The processes start in the background when the game starts, never under the table's lock.
* Every change goes through ``Turns.after_change`` (tables/turns.py), which hands the events to
  :meth:`deliver` (lines are queued and reach the program with its next query, or when it is closed).
* When a program seat must play, ``Turns._ai_move`` (through tables/programs/seats.py) calls
  :meth:`answer` OUTSIDE the table lock (a 2 s answer must not hold up anyone's click), then,
  under the lock and only if the table's version is unchanged, :meth:`judge` turns the answer
  into the engine's action: the card, or the ``bad`` action (−100, the hand abandoned, a fresh
  deal) for anything else — unreadable, ``10S``, not in the hand, a revoke, a timeout, an exit, a
  closed pipe, garbage.
* A program that is gone (exited, closed its output, stopped reading, could not be started), or has
  played :attr:`ProgramSettings.strikes` bad cards in the game, is *retired*: the built-in AI plays
  the seat for the rest of the game (``Seat.program`` becomes ``None``, which is stored) and the
  table says so in a public event (``program_replaced``).
* Processes are killed (their whole tree: process group, descendants, anything carrying the
  program's mark) when the table finishes, is ended, is taken over by another process, or the
  runtime closes; each program's leash kills its tree if the bot dies, even by SIGKILL
  (:mod:`tables.programs.leash`); and ``ProgramSettings.processes`` records them so the next start sweeps
  what a killed leash left (:mod:`tables.programs.procs`).
* A program sees only PATH, HOME, LANG and the variables the operator lists
  (``ProgramSettings.env_names``), never the bot's token.
* After a restart (``Runtime.recover``) or a failed write, the program is started afresh and
  brought up to the current point (:func:`catch_up_events`): ``start game``; the current hand's
  ``start hand`` and the cards the program still holds; the current trick's ``start trick`` and
  the cards already played to it.  What was played before the current trick is not replayed.  The strike count
  carries on from the game's record of bad cards.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shlex
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import engine
from engine.cards import Card
from engine.core import Action, Event, Game
from tables.programs.players import NAME_OK, Lines, PlayerSeat, ProgramSeat, check_names, deliver
from tables.programs.procs import ProcessRecord, program_env
from tables.programs.protocol import DEFAULT_TIMEOUT, Answer, program_rules, start_game

log = logging.getLogger("deckhand.programs")

#: Games a program can play (the line protocol's): their GameSpec has `programs`.
PROGRAM_GAMES = tuple(name for name, spec in engine.games().items() if spec.programs is not None)


def program_titles() -> str:
    """The games programs can play, by title (``A``, or ``A and B``)."""
    return " and ".join(engine.get(n).game.title for n in PROGRAM_GAMES) or "no game"

#: Bad cards after which a table's program is replaced by the built-in AI for the rest of the game.
#: (The arena allows 10; a table of friends should not watch many abandoned hands.)
DEFAULT_TABLE_STRIKES = 3
#: What a retired program's public note says, by reason.
WHY = {
    "exit": "it exited",
    "closed": "it closed its output",
    "not reading": "it stopped reading its input",
    "not started": "it could not be started",
    "not configured": "it is no longer in the bot's configuration",
    "failed": "it could not be run",
}


# ==== configuration ==============================================================================
def parse_programs(text: str | None) -> dict[str, str]:
    """The operator's programs: ``name=command line;name2=command line`` → ``{name: command}``.

    Names are 1-32 letters, digits, ``_``, ``.`` or ``-`` (a name is what the host types and what
    the other programs hear); each command is split like a shell would (``shlex``) but never run
    through one.  Blank entries are ignored.  Raises ``ValueError`` with a sentence for anything
    else: a missing ``=``, a bad or repeated name, an empty command, unbalanced quotes."""
    out: dict[str, str] = {}
    for raw in (text or "").split(";"):
        entry = raw.strip()
        if not entry:
            continue
        name, eq, command = entry.partition("=")
        name, command = name.strip(), command.strip()
        if not eq:
            raise ValueError(f"{entry!r} is not name=command (programs are separated by ';').")
        if not NAME_OK.match(name):
            raise ValueError(f"Program name {name!r}: use 1-32 letters, digits, '_', '.' or '-'.")
        if name.lower() == "ai":
            raise ValueError("'ai' names the built-in AI; give the program another name.")
        if name in out:
            raise ValueError(f"The program name {name!r} is listed twice.")
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise ValueError(f"Program {name!r}: cannot read its command {command!r} ({e}).") from None
        if not argv:
            raise ValueError(f"Program {name!r} has an empty command.")
        out[name] = command
    return out


@dataclass(frozen=True)
class ProgramSettings:
    """What the runtime may run: ``commands`` (name → command line, from the operator only), the
    deadline of each query, the strikes before the AI takes over, the programs' working folder."""

    commands: Mapping[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    strikes: int = DEFAULT_TABLE_STRIKES
    cwd: str | None = None
    record: bool = False  # keep every line each program heard (tests)
    #: Variables of the bot's environment a program may see besides PATH, HOME and LANG
    #: (``DECKHAND_PROGRAM_ENV``); nothing else reaches it, the bot's token least of all.
    env_names: tuple[str, ...] = ()
    #: Where the running programs are recorded, so that the next start kills what a crash left
    #: (:class:`tables.programs.procs.ProcessRecord`); ``None``: nowhere.
    processes: ProcessRecord | None = None

    @property
    def names(self) -> list[str]:
        return sorted(self.commands)

    def environment(self) -> dict[str, str]:
        """The environment every program starts with (read from the bot's at each start)."""
        return program_env(self.env_names)


def protocol_names(names: Sequence[str]) -> list[str]:
    """Seat names made safe as protocol fields: letters, digits, ``_ . -`` only (``AI 1`` → ``AI_1``,
    ``Zoë|x`` → ``Zo__x``), at most 32 characters, all different (``Ann``, ``Ann-2``)."""
    out: list[str] = []
    for n in names:
        base = re.sub(r"[^A-Za-z0-9_.\-]", "_", n.strip())[:28] or "player"
        name, k = base, 2
        while name in out:
            name, k = f"{base}-{k}", k + 1
        out.append(name)
    check_names(out)
    return out


def catch_up_events(state: Game) -> list[Event]:
    """The events that bring a program that starts now up to the current point (the game's program
    rules say which: the current hand's deal, the cards each seat holds, the current trick)."""
    return program_rules().catch_up(state)


# ==== one table's programs =======================================================================
class TablePrograms:
    """The program seats of one running table.  ``programs`` maps a seat to its program's
    command line; ``names`` are the seats' names; ``state_of`` returns the table's current state."""

    def __init__(self, settings: ProgramSettings, programs: Mapping[int, str], names: Sequence[str],
                 state_of: Callable[[], Game | None], *, label: str = "?") -> None:
        self.settings = settings
        self.label = label  # the table id, for logs
        self.names = protocol_names(names)
        self.state_of = state_of
        self.lines = Lines(self.names)
        self.seats: list[PlayerSeat] = [
            ProgramSeat(n, programs[i], settings.record, settings.timeout, settings.strikes,
                        subprocess.DEVNULL, settings.cwd, settings.environment(), settings.processes)
            if i in programs else PlayerSeat(n, settings.record)
            for i, n in enumerate(self.names)
        ]
        self.started = False
        self.closed = False
        self._start_task: asyncio.Task[None] | None = None
        self._asks: dict[int, tuple[int, asyncio.Task[Answer]]] = {}
        self._closing: set[asyncio.Task[object]] = set()

    # ---- lookups ------------------------------------------------------------------------------
    def program(self, seat: int) -> ProgramSeat | None:
        s = self.seats[seat] if 0 <= seat < len(self.seats) else None
        return s if isinstance(s, ProgramSeat) else None

    def playing(self, seat: int) -> bool:
        """Whether a program (not the built-in AI) plays ``seat`` now."""
        p = self.program(seat)
        return p is not None and p.retired is None and not self.closed

    def retired(self) -> dict[int, str]:
        """Program seats the built-in AI has taken over, with the reason."""
        return {i: s.retired for i, s in enumerate(self.seats) if isinstance(s, ProgramSeat) and s.retired}

    def pids(self) -> dict[int, int | None]:
        return {i: s.player.pid for i, s in enumerate(self.seats) if isinstance(s, ProgramSeat)}

    def transcript(self, seat: int) -> list[str] | None:
        return self.seats[seat].transcript

    def retire(self, seat: int, why: str) -> None:
        p = self.program(seat)
        if p is not None and p.retired is None:
            p.retired = why
            p.note(f"retired ({why}): the built-in AI plays this seat from now on")
            self._close_later(p)

    # ---- starting -----------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the programs (once; every caller waits for the same start) and tell them the game
        so far.  A program that cannot start is retired; nothing here raises."""
        if self._start_task is None:
            self._start_task = asyncio.ensure_future(self._start())
        with contextlib.suppress(Exception):
            await asyncio.shield(self._start_task)

    async def _start(self) -> None:
        progs = [(i, s) for i, s in enumerate(self.seats) if isinstance(s, ProgramSeat)]
        try:
            results = await asyncio.gather(*(s.start() for _, s in progs), return_exceptions=True)
            for (i, _), r in zip(progs, results, strict=True):
                if isinstance(r, BaseException):
                    log.warning("Table %s: program of seat %d could not be started: %s", self.label, i, r)
                    self.retire(i, "not started")
            if self.closed:
                return
            # From here to ``started`` nothing awaits: the catch-up is the state as it is now, and
            # every later change arrives through deliver().
            state = self.state_of()
            if state is None or state.is_over:
                return
            for s in self.seats:
                s.tell([start_game(self.names)])
            deliver(self.seats, self.lines, catch_up_events(state))
            for i, s in progs:
                s.bad = int(program_rules().bad_cards(state)[i])  # strikes carry on across restarts
            self.started = True
        except Exception:
            log.exception("Table %s: starting its programs failed; the built-in AI plays their seats", self.label)
            for i, _ in progs:
                self.retire(i, "failed")

    # ---- playing ------------------------------------------------------------------------------
    def deliver(self, events: Sequence[Event]) -> None:
        """Queue the protocol lines of a change for every program (before the start: nothing, the
        catch-up covers it)."""
        if not self.started or self.closed or not events:
            return
        try:
            deliver(self.seats, self.lines, list(events))
        except Exception:
            log.exception("Table %s: could not tell the programs about a change", self.label)

    async def answer(self, seat: int, version: int) -> Answer | None:
        """The program's answer to a query for ``seat`` at table version ``version`` (sent at most
        once per version: a caller that was cancelled and comes back waits for the same query), or
        ``None`` when no program plays that seat any more.  Call it outside the table lock."""
        await self.start()
        if not self.playing(seat):
            return None
        pending = self._asks.get(seat)
        if pending is None or pending[0] != version:
            if pending is not None:
                pending[1].cancel()
            pending = (version, asyncio.ensure_future(self._ask(seat)))
            self._asks[seat] = pending
        return await asyncio.shield(pending[1])

    async def _ask(self, seat: int) -> Answer:
        p = self.program(seat)
        assert p is not None
        try:
            return await p.ask()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("Table %s: asking the program of seat %d failed", self.label, seat)
            self.retire(seat, "failed")
            return Answer(None, "failed")

    def judge(self, seat: int, answer: Answer, legal: Sequence[Card]) -> Action | None:
        """Under the table lock, the version unchanged: the engine action for ``answer`` (a legal
        card, else ``bad``), or ``None`` when the program was retired meanwhile (the AI moves)."""
        self._asks.pop(seat, None)
        p = self.program(seat)
        if p is None or p.retired is not None or self.closed:
            return None
        action = p.judge(answer, legal)
        if p.retired is not None:
            self._close_later(p)
        return action

    # ---- the end ------------------------------------------------------------------------------
    def _close_later(self, p: ProgramSeat) -> None:
        try:
            task = asyncio.ensure_future(p.player.close(grace=0))
        except RuntimeError:  # no running loop (cannot happen inside the runtime)
            return
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        """Stop everything: pending queries, the start, every process (queued lines such as
        ``end game`` are sent first; a program that does not exit at once is killed).  Safe to call
        more than once, and again after a close that was cancelled."""
        self.closed = True
        for _, task in self._asks.values():
            task.cancel()
        self._asks.clear()
        start = self._start_task
        if start is not None and not start.done():
            start.cancel()
            # Let a process that was being started finish starting, so it is closed below.
            with contextlib.suppress(BaseException):
                await start
        progs = [s for s in self.seats if isinstance(s, ProgramSeat)]
        await asyncio.gather(*(s.close() for s in progs), *list(self._closing), return_exceptions=True)
