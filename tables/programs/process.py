"""Running a program player: its process (leashed, marked, killed with its whole tree), its pipes, and
one answer line per query within the timeout (the line protocol itself is :mod:`tables.programs.protocol`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Mapping

from tables.programs.procs import MARK, ProcessRecord, kill_group, kill_tree, new_mark, pdeathsig
from tables.programs.protocol import (
    CLOSED,
    DEFAULT_TIMEOUT,
    EXIT,
    NOT_READING,
    QUERY_CARD,
    TIMEOUT,
    TOO_LONG,
    Answer,
)

#: The longest line a program may print (bytes, without the newline).  A card answer is 21.
MAX_LINE = 4096
#: Output waiting for a program that does not read it; past this the program is dropped.
MAX_PENDING = 1 << 20
#: What a program may print unasked between two queries before the bot stops reading it until the
#: next query (it then waits on its full pipe, at no cost to the bot).
MAX_UNASKED = 64 * 1024
#: After its output closes, how long to wait for a program to exit before calling it ``closed``.
EXIT_WAIT = 0.5
#: Where program processes are leashed (tables/programs/leash.py needs Linux: a subreaper and /proc).
LEASHED = sys.platform.startswith("linux") and bool(sys.executable)
LEASH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "leash.py")
#: How long a leash may take to start the program, and to kill its tree and exit.
LEASH_WAIT = 10.0


# ---- running a program -------------------------------------------------------------------------
class ProgramError(Exception):
    """A program that could not be started (the operator's command is wrong)."""


_EOF = object()  # delivered to a waiter when the program's output closed


def _expire(waiter: asyncio.Future[object]) -> None:
    if not waiter.done():
        waiter.set_result(Answer(None, TIMEOUT))


class _Pipes(asyncio.SubprocessProtocol):
    def __init__(self, owner: ProgramPlayer) -> None:
        self.owner = owner

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.owner._on_data(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self.owner._on_eof()
        elif fd == 0:
            self.owner._stdin_open = False

    def process_exited(self) -> None:
        self.owner._on_exit()


class ProgramPlayer:
    """One program player.  ``send`` queues lines (they go out with the next query or at
    close, which keeps a hand to a few writes); ``ask`` sends a query and waits for one answer
    line at most ``timeout`` seconds.  Blank lines are ignored; any line printed when no query is
    pending is discarded.

    Late answers (docs/rules.md): a query that timed out (or was given up) still owns the next line
    the program prints, which is read and dropped.  The protocol cannot tell a late answer from an
    answer to the next query, so without this one slow answer would shift every later answer by
    one query and cost a bad card for each (a 5 s stall cost 5).  One line is owed per query given
    up; a program that never answers a query loses its next line, which is the rule."""

    def __init__(
        self,
        command: str,
        name: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_line: int = MAX_LINE,
        stderr: int | None = subprocess.DEVNULL,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        record: ProcessRecord | None = None,
    ) -> None:
        self.command = command
        self.name = name
        self.timeout = timeout
        self.max_line = max_line
        self.stderr = stderr
        self.cwd = cwd
        #: The program's whole environment (``None``: the caller's, as the arena runs programs).
        self.env = env
        self.record = record
        #: Carried in the environment of every process of this program's tree (tables/programs/procs.py).
        self.mark = new_mark()
        self.pid: int | None = None
        #: Why the program can no longer play (one of :data:`FATAL`), or ``None``.
        self.dead: str | None = None
        self._transport: asyncio.SubprocessTransport | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._stdin_open = False
        self._out: list[str] = []
        self._partial = bytearray()  # the start of a line whose end has not come yet
        self._skipping = False  # dropping the rest of an over-long line
        self._skipped = 0  # bytes of it dropped while a query waits
        self._unasked = 0  # bytes read since the last query while no line was wanted
        self._paused = False  # reading stopped until the next query (see _pause)
        self._eof = False
        self._waiter: asyncio.Future[object] | None = None
        #: Lines still owed to queries given up (timed out or cancelled): dropped when they come.
        self.owed = 0
        #: Late lines dropped so far (for transcripts and tests).
        self.late = 0
        self._exited: asyncio.Future[None] | None = None
        self._stdout: asyncio.ReadTransport | None = None
        #: The bot's end of the line to the program's leash (tables/programs/leash.py); closing it kills the tree.
        self._line_to_leash: socket.socket | None = None
        #: The program's own pid (``pid`` is its leash's, where there is one).
        self.program_pid: int | None = None
        #: Whether the process the bot started (``pid``) is the program's leash.
        self.leashed = False

    @property
    def reading(self) -> bool:
        """Whether the program's output is being read (``False``: it flooded it unasked, and is
        read again with the next query)."""
        return not self._paused

    @property
    def argv(self) -> list[str]:
        return [*shlex.split(self.command), self.name]

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._exited = loop.create_future()
        try:
            argv = self.argv
            if len(argv) < 2:
                raise ValueError("the command is empty")
            env = dict(os.environ if self.env is None else self.env)
            env[MARK] = self.mark
            if LEASHED:
                await self._start_leashed(loop, argv, env)
                return
            transport, _ = await loop.subprocess_exec(
                lambda: _Pipes(self), *argv,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env,
                cwd=self.cwd, start_new_session=True,  # its own process group, killed as one on close
                preexec_fn=pdeathsig(),  # and killed by the kernel if the bot dies first
            )
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            raise ProgramError(f"Cannot start {self.command!r}: {e}") from None
        self._started(transport)
        self.program_pid = self.pid

    async def _start_leashed(self, loop: asyncio.AbstractEventLoop, argv: list[str], env: dict[str, str]) -> None:
        """Start the program below a leash (tables/programs/leash.py), which holds the other end of a socket
        pair: when the bot closes its end, or dies and the kernel closes it, the leash kills the
        program's whole tree.  Raises ``OSError`` or ``ValueError`` when the program cannot start."""
        ours, theirs = socket.socketpair()  # not inheritable: no other child of the bot holds it
        try:
            try:
                transport, _ = await loop.subprocess_exec(
                    lambda: _Pipes(self), sys.executable, "-I", "-S", LEASH, str(os.getpid()), str(theirs.fileno()),
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env,
                    cwd=self.cwd, start_new_session=True, pass_fds=(theirs.fileno(),),
                )
            finally:
                theirs.close()
            self._line_to_leash = ours
            self.leashed = True
            self._started(transport)
            ours.setblocking(False)
            request = json.dumps({"argv": argv, "env": env}) + "\n"
            reply = b""
            async with asyncio.timeout(LEASH_WAIT):
                await loop.sock_sendall(ours, request.encode("utf-8", "surrogateescape"))
                while not reply.endswith(b"\n"):
                    chunk = await loop.sock_recv(ours, 4096)
                    if not chunk:
                        break
                    reply += chunk
        except TimeoutError:
            await self._unstart()
            raise ValueError("its leash did not answer") from None
        except BaseException:
            await self._unstart()
            raise
        word, _, rest = reply.decode("utf-8", "replace").strip().partition(" ")
        if word != "ok" or not rest.isdigit():
            await self._unstart()
            raise ValueError(rest if word == "error" else "its leash could not start it")
        self.program_pid = int(rest)

    def _started(self, transport: asyncio.SubprocessTransport) -> None:
        self._transport = transport
        self.pid = transport.get_pid()
        if self.record is not None:
            self.record.add(self.mark, self.pid)
        stdin, stdout = transport.get_pipe_transport(0), transport.get_pipe_transport(1)
        # (asyncio's pipe transports: a subprocess's stdin is written, its stdout read)
        assert isinstance(stdin, asyncio.WriteTransport) and isinstance(stdout, asyncio.ReadTransport)
        self._stdin, self._stdout = stdin, stdout
        self._stdin_open = True

    async def _unstart(self) -> None:
        """Undo a start that failed half-way: no process, no pipes, nothing recorded."""
        self.dead = self.dead or EXIT
        self._release()
        transport, self._transport = self._transport, None
        if transport is not None:
            exited = self._exited
            if exited is not None and not exited.done():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(LEASH_WAIT):
                        await asyncio.shield(exited)
            transport.close()
        if self.record is not None:
            self.record.remove(self.mark)

    # ---- output -------------------------------------------------------------------------------
    def send(self, *lines: str) -> None:
        """Queue lines for the program (dropped once it is dead)."""
        if self.dead is None:
            self._out.extend(lines)

    def _flush(self) -> None:
        if not self._out:
            return
        data = ("\n".join(self._out) + "\n").encode()
        self._out.clear()
        stdin = self._stdin
        if stdin is None or not self._stdin_open or stdin.is_closing():
            return
        stdin.write(data)
        if stdin.get_write_buffer_size() > MAX_PENDING:
            self._die(NOT_READING)

    # ---- input --------------------------------------------------------------------------------
    def _on_data(self, data: bytes) -> None:
        """A chunk of the program's output (asyncio reads at most 256 KiB at a time).  Every byte is
        looked at once at most: a line is cut out only while a query waits for it (or a line is
        owed), the rest is dropped with one search for its last line break, and the pieces of a
        line are never joined past :attr:`max_line` bytes."""
        pos, n = 0, len(data)
        while pos < n:
            if not self._wanted():
                self._drop(data, pos)
                break
            i = data.find(b"\n", pos)
            if i < 0:
                self._piece(data, pos, n)
                break
            if self._skipping:  # the end of an over-long line, already reported
                self._skipping = False
            else:
                raw = bytes(self._partial) + data[pos:i] if self._partial else data[pos:i]
                self._partial.clear()
                self._line(raw)
            pos = i + 1
        if self._unasked > MAX_UNASKED and not self._wanted():
            self._pause()

    def _wanted(self) -> bool:
        """Whether the next line means anything: a query waits for it, or it is owed."""
        w = self._waiter
        return self.owed > 0 or (w is not None and not w.done())

    def _drop(self, data: bytes, pos: int) -> None:
        """Output nobody asked for, from ``pos`` on: only the start of its last line is kept."""
        self._unasked += len(data) - pos
        if self._skipping:
            i = data.find(b"\n", pos)
            if i < 0:
                return
            self._skipping = False
            pos = i + 1
        last = data.rfind(b"\n", pos)
        if last >= 0:
            self._partial.clear()
            pos = last + 1
        if len(self._partial) + len(data) - pos > self.max_line:
            self._partial.clear()
            self._skipping = True
            self._skipped = 0
        else:
            self._partial += data[pos:]

    def _piece(self, data: bytes, pos: int, end: int) -> None:
        """A piece of a line that does not end in this chunk, while the line is wanted."""
        if self._skipping:
            # Still the same over-long line: it ends the turn once more every max_line bytes,
            # rather than keep a query waiting for its deadline on a program that never stops.
            self._skipped += end - pos
            if self._skipped > self.max_line:
                self._skipped = 0
                self._deliver(Answer(None, TOO_LONG))
            return
        self._partial += data[pos:end]
        if len(self._partial) > self.max_line:
            self._partial.clear()
            self._skipping = True
            self._skipped = 0
            self._deliver(Answer(None, TOO_LONG))

    def _pause(self) -> None:
        """Stop reading a program that floods its output when nobody asked it anything: it waits on
        its full pipe, at no cost to the bot, until the next query."""
        out = self._stdout
        if out is not None and not self._paused and not out.is_closing():
            out.pause_reading()
            self._paused = True

    def _resume(self) -> None:
        self._unasked = 0
        out = self._stdout
        if self._paused and out is not None and not out.is_closing():
            out.resume_reading()
        self._paused = False

    def _line(self, raw: bytes) -> None:
        if len(raw) > self.max_line:
            self._deliver(Answer(None, TOO_LONG))
            return
        text = raw.decode("utf-8", "replace").rstrip("\r")
        if text.strip():
            self._deliver(Answer(text))

    def _deliver(self, result: object) -> None:
        if self.owed > 0:
            # The answer (or over-long line) of a query that was given up: it answers nothing.
            self.owed -= 1
            self.late += 1
            return
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(result)
        # With nobody waiting the line answers nothing: a late answer or chatter, dropped.

    def _on_eof(self) -> None:
        self._eof = True
        self._deliver(_EOF)

    def _on_exit(self) -> None:
        if self._exited is not None and not self._exited.done():
            self._exited.set_result(None)

    async def _gone(self) -> str:
        """Why a program whose output closed is gone: it exited, or it closed its output."""
        if self.dead is None:
            exited = self._exited
            if exited is not None and not exited.done():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(EXIT_WAIT):
                        await asyncio.shield(exited)
            self._die(EXIT if exited is not None and exited.done() else CLOSED)
        assert self.dead is not None  # _die said why
        return self.dead

    async def ask(self, line: str = QUERY_CARD) -> Answer:
        """Send ``line`` (after any queued ones) and wait for the answer."""
        if self.dead is not None:
            return Answer(None, self.dead)
        if self._eof:
            return Answer(None, await self._gone())
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[object] = loop.create_future()
        self._waiter = waiter
        # A bare timer rather than asyncio.timeout(): this is the arena's hot path.
        timer = loop.call_later(self.timeout, _expire, waiter)
        sent = False
        try:
            self._out.append(line)
            self._resume()
            self._flush()
            if self.dead is not None:
                return Answer(None, self.dead)
            sent = True
            result = await waiter
        finally:
            timer.cancel()
            self._waiter = None
            # A query that got no line (its deadline passed, or the caller gave up on it) still
            # owns the program's next line: see the class docstring.
            if sent and (not waiter.done() or waiter.cancelled() or waiter.result() == Answer(None, TIMEOUT)):
                self.owed += 1
        if isinstance(result, Answer):
            return result
        return Answer(None, await self._gone())  # _EOF: the output closed

    # ---- the end ------------------------------------------------------------------------------
    def _die(self, problem: str) -> None:
        if self.dead is None:
            self.dead = problem
        self._out.clear()
        self._kill()

    def _kill(self) -> None:
        if self.leashed:
            # The leash kills the whole tree the moment its line closes (tables/programs/leash.py); killing
            # the leash's group instead would kill the leash, and set the program's orphans free.
            self._release()
        elif self.pid is not None:
            # The whole group at once (cheap); close() sweeps the rest of the tree.
            kill_group(self.pid)

    def _release(self) -> None:
        line, self._line_to_leash = self._line_to_leash, None
        if line is not None:
            line.close()

    async def _kill_tree(self) -> None:
        """Kill every process of the program's tree, wherever it moved (tables/programs/procs.py); the
        scan of /proc runs in a worker thread, off the event loop."""
        # Its descendants are looked up by parent id only while it runs: once it has been reaped
        # its pid may belong to someone else (its orphans are found by their mark anyway).
        exited = self._exited is not None and self._exited.done()
        await asyncio.to_thread(kill_tree, None if exited else self.pid, self.mark)
        if self.record is not None:
            self.record.remove(self.mark)

    async def close(self, grace: float = 0.5) -> int | None:
        """Send what is queued, close the program's input, give it ``grace`` seconds to exit, then
        kill its process group.  Returns its exit status (``None`` if unknown)."""
        transport = self._transport
        if transport is None:
            return None
        if self.dead is None:
            self._flush()
        stdin = self._stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        exited = self._exited
        if exited is not None and not exited.done() and self.dead is None and grace > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(grace):
                    await asyncio.shield(exited)
        self._kill()
        if self.leashed and exited is not None and not exited.done():
            # The leash exits once it has killed everything below it.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(LEASH_WAIT):
                    await asyncio.shield(exited)
        await self._kill_tree()  # what the leash could not reach, or a leash that was killed
        if exited is not None and not exited.done():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):
                    await asyncio.shield(exited)
        code = transport.get_returncode()
        transport.close()
        self._transport = None
        return code

    async def __aenter__(self) -> ProgramPlayer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
