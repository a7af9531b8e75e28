"""Program seats at a table: which programs a host may seat, their processes for the length
of a game (:mod:`tables.programs.driver`), their answers asked outside the table's lock, and the built-in AI
taking a seat over for good when a program fails.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine

from engine.core import Action, Event
from tables.delivery import Delivery
from tables.live import Live, TableError, Tasks, md
from tables.programs.driver import PROGRAM_GAMES, WHY, ProgramSettings, TablePrograms, program_titles
from tables.programs.protocol import Answer, program_rules
from tables.table import RECENT_EVENTS, Phase, Table

log = logging.getLogger("deckhand.tables")


class ProgramSeats:
    def __init__(
        self,
        settings: ProgramSettings,
        tasks: Tasks,
        delivery: Delivery,
        commit_quietly: Callable[[Table], Coroutine[object, object, None]],
    ) -> None:
        self.settings = settings
        self.tasks = tasks
        self.delivery = delivery
        self.commit_quietly = commit_quietly
        # Closing drivers stay reachable, so Runtime.close() can close them should that be cut short.
        self._closing: set[TablePrograms] = set()

    @property
    def names(self) -> list[str]:
        return self.settings.names

    # ==== the lobby ============================================================================
    def program_of(self, t: Table, name: str) -> str:
        """The configured program a host named, or a refusal.  Only names are ever accepted here:
        a command line typed in a chat is just an unknown name."""
        if t.game not in PROGRAM_GAMES:
            raise TableError(f"Programs can only play {program_titles()}; this table plays "
                             f"{t.spec.game.title}.", "not_program_game")
        known = self.settings.names
        if not known:
            raise TableError("No programs are set up on this bot (its operator lists them in its "
                             "configuration).", "no_programs")
        wanted = str(name).strip()
        if wanted not in self.settings.commands:
            shown = md(wanted[:40]) or "?"
            raise TableError(f"There is no program called `{shown}`. Programs: "
                             f"{', '.join(f'`{n}`' for n in known)}.", "unknown_program")
        return wanted

    @staticmethod
    def seat_name(t: Table, program: str) -> str:
        used = {s.name for s in t.seats}
        name, n = program, 2
        while name in used:
            name, n = f"{program}-{n}", n + 1
        return name

    # ==== processes ============================================================================
    def setup(self, t: Table, live: Live) -> None:
        """(Re)start a running table's programs from scratch: at the start of the game, after a
        restart, after a failed write put the table back.  The processes start in the background."""
        self.stop(t, live)
        if t.phase != Phase.RUNNING or t.state is None:
            return
        seats = {i: s.program for i, s in enumerate(t.seats) if s.is_ai and s.program}
        if not seats:
            return
        commands: dict[int, str] = {}
        for i, name in seats.items():
            command = self.settings.commands.get(name) if t.game in PROGRAM_GAMES else None
            if command is None:
                self.note(t, i, "not configured")
            else:
                commands[i] = command
        if not commands:
            return
        try:
            drv = TablePrograms(self.settings, commands, t.names(), lambda: t.state, label=t.id)
        except Exception:
            log.exception("Table %s: cannot seat its programs", t.id)
            for i in commands:
                self.note(t, i, "failed")
            return
        live.programs = drv
        self.tasks.spawn(self._start(t, live, drv), f"programs:{t.id}")

    async def _start(self, t: Table, live: Live, drv: TablePrograms) -> None:
        await drv.start()
        if drv.retired():  # a program that could not start: say so now, not at its first turn
            async with live.lock:
                if live.programs is drv and t.phase == Phase.RUNNING and self.sync(t, live):
                    self.delivery.redraw(t)
                    await self.commit_quietly(t)

    def stop(self, t: Table, live: Live) -> None:
        drv, live.programs = live.programs, None
        if drv is not None:
            self._closing.add(drv)
            self.tasks.spawn(self._close(drv), f"programs-close:{t.id}")

    async def _close(self, drv: TablePrograms) -> None:
        await drv.close()
        self._closing.discard(drv)

    async def close_all(self, lives: list[Live]) -> None:
        """Every program process goes, whatever its table was doing (safe to repeat)."""
        drivers = [live.programs for live in lives if live.programs is not None]
        drivers += list(self._closing)
        self._closing = set()
        await asyncio.gather(*(d.close() for d in drivers), return_exceptions=True)

    # ==== during the game ======================================================================
    @staticmethod
    def deliver(live: Live, events: list[Event]) -> None:
        if live.programs is not None:
            live.programs.deliver(events)  # queued: the programs hear it with their next query

    def note(self, t: Table, seat: int, why: str) -> None:
        """Hand a program's seat to the built-in AI for good, and say so on the table."""
        s = t.seats[seat]
        if s.program is None:
            return
        s.program = None
        text = WHY.get(why, why)
        t.recent.append(Event("program_replaced", seat, (f"by the built-in AI: {text}",)))
        del t.recent[:-RECENT_EVENTS]
        log.info("Table %s: the program of seat %d is replaced by the built-in AI (%s)", t.id, seat, why)

    def sync(self, t: Table, live: Live) -> bool:
        """Under the lock: seats whose program was retired become built-in AI seats."""
        drv = live.programs
        if drv is None:
            return False
        changed = False
        for seat, why in drv.retired().items():
            if t.seats[seat].program is not None:
                self.note(t, seat, why)
                changed = True
        return changed

    async def answers(self, t: Table, live: Live, version: int) -> dict[int, Answer]:
        """Outside the lock: the answers of the programs that must play now, by seat."""
        drv = live.programs
        if drv is None or t.phase != Phase.RUNNING or t.version != version or t.state is None:
            return {}
        out: dict[int, Answer] = {}
        for s in t.state.to_act():
            if s < 0 or not drv.playing(s):
                continue
            try:
                answer = await drv.answer(s, version)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Table %s: the program of seat %d could not be asked", t.id, s)
                drv.retire(s, "failed")
                continue
            if answer is not None:
                out[s] = answer
        return out

    @staticmethod
    def judge(t: Table, live: Live, seat: int, answer: Answer) -> Action | None:
        """Under the lock, the version unchanged: the program's card, or the engine's ``bad``
        action for anything else; None should the program be gone meanwhile."""
        drv = live.programs
        state = t.state
        assert state is not None
        if drv is None:
            return None
        return drv.judge(seat, answer, program_rules().legal(state, seat))
