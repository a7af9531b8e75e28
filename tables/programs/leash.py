"""The leash: the parent of one program player's process, so that none of its processes outlives
the bot, however the bot ends (Linux).

:class:`tables.programs.process.ProgramPlayer` runs it as ``python -I -S leash.py BOT_PID FD``, with the
program's stdin, stdout and stderr as its own and ``FD`` one end of a socket pair whose other end
only the bot holds.  It uses the standard library alone: it must start fast, and it must not
import the bot.

1. It makes itself a *child subreaper* (``PR_SET_CHILD_SUBREAPER``): a process of the program's
   tree whose parent dies — the grandchild of a double fork, the helpers of a program that
   exited — is re-parented to the leash instead of to init.  ``setsid`` moves a process to another
   session, not from under its parent, so nothing of the tree can get out from below the leash.
2. It reads the program's command and environment from the socket (one JSON line), starts the
   program in a process group of its own, with a parent-death signal (SIGKILL should the leash
   itself be killed), answers ``ok PID`` (or ``error TEXT`` and exits), and lets go of its copies
   of the program's stdin and stdout: the bot sees the program's output close when the program's
   tree closes it.
3. It waits.  When the socket closes (the bot closed it, or the bot died, even by SIGKILL, and the
   kernel closed it for it), when the bot's death signal comes (``PR_SET_PDEATHSIG``, a second
   line), or when the program exits, it kills every process below it: the program's group, then,
   round after round, each descendant found in /proc by parent ids and that descendant's group,
   reaping whatever is re-parented to it, until it has no child left.  Then it exits, with the
   program's exit status when the program exited by itself (128 + the signal when a signal ended
   it).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: How long the leash goes on killing a tree that keeps forking before it gives up and exits (the
#: bot's own sweep by mark, tables/programs/procs.py, is still behind it).
KILL_FOR = 5.0
#: The most the bot may take to send the program's command: a leash that hears nothing exits.
REQUEST_WAIT = 30.0

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, value: int) -> None:
    if _libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option})")


def _below(me: int) -> dict[int, bytes]:
    """Every process below ``me`` by parent ids, with its state letter (``Z``: a zombie)."""
    children: dict[int, list[tuple[int, bytes]]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        names = []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                # "pid (comm) state ppid ...": comm may hold spaces and ")", so split after the last ")".
                fields = f.read().rsplit(b")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append((int(name), fields[0]))
        except (OSError, ValueError, IndexError):
            continue
    found: dict[int, bytes] = {}
    todo = [me]
    while todo:
        for pid, state in children.get(todo.pop(), ()):
            if pid not in found:
                found[pid] = state
                todo.append(pid)
    return found


class Leash:
    def __init__(self, bot: int, fd: int) -> None:
        self.bot = bot
        self.sock = socket.socket(fileno=fd)
        os.set_inheritable(fd, False)  # the program must never hold the bot's line
        self.program: int | None = None
        self.status: int | None = None  # the program's exit status, once it has been reaped
        self.stop = False

    # ---- reaping and killing ------------------------------------------------------------------
    def reap(self) -> bool:
        """Collect every child that has ended; ``False`` once the leash has no child at all."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.program and self.status is None:
                self.status = os.waitstatus_to_exitcode(status)

    def kill_all(self) -> None:
        me, mine = os.getpid(), os.getpgrp()
        if self.program is not None and self.status is None:
            # Not reaped yet, so its pid (the group's id) cannot have been handed to anyone else.
            with contextlib.suppress(OSError):
                os.killpg(self.program, signal.SIGKILL)
        end = time.monotonic() + KILL_FOR
        while True:
            for pid, state in _below(me).items():
                if state in (b"Z", b"X"):
                    continue  # ended; reaped here once it is re-parented to the leash
                with contextlib.suppress(OSError):
                    group = os.getpgid(pid)
                    if group != mine:  # a whole group at once catches what it forks meanwhile
                        os.killpg(group, signal.SIGKILL)
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            if not self.reap() or time.monotonic() > end:
                return
            time.sleep(0.002)  # let the kernel tear the processes down and re-parent their children

    # ---- the program --------------------------------------------------------------------------
    def request(self) -> tuple[list[str], dict[str, str]]:
        self.sock.settimeout(REQUEST_WAIT)
        data = b""
        while not data.endswith(b"\n"):
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the bot closed the line before saying what to run")
            data += chunk
        self.sock.settimeout(None)
        req = json.loads(data)
        return [str(a) for a in req["argv"]], {str(k): str(v) for k, v in req["env"].items()}

    def spawn(self, argv: list[str], env: dict[str, str]) -> int:
        """Start the program; raises ``OSError`` if it cannot be run."""
        me = os.getpid()
        err_r, err_w = os.pipe()  # close-on-exec: it reads empty once the exec has succeeded
        pid = os.fork()
        if pid == 0:
            try:
                os.close(err_r)
                os.setpgid(0, 0)
                for s in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, signal.SIGTERM):
                    signal.signal(s, signal.SIG_DFL)  # Python ignores the first two; exec keeps that
                with contextlib.suppress(OSError):
                    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
                if os.getppid() != me:  # the leash died before the signal was armed
                    os._exit(1)
                os.execvpe(argv[0], argv, env)
            except BaseException as e:  # noqa: BLE001 - anything at all goes back to the bot
                # The command as the operator wrote it, not the last folder of PATH that was tried.
                text = f"[Errno {e.errno}] {e.strerror}: {argv[0]!r}" if isinstance(e, OSError) else str(e)
                with contextlib.suppress(BaseException):
                    os.write(err_w, text.encode("utf-8", "replace")[:1000])
            os._exit(127)
        os.close(err_w)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)  # also here: whichever of the two runs first, the group exists
        self.program = pid
        chunks = []
        while chunk := os.read(err_r, 1024):
            chunks.append(chunk)
        os.close(err_r)
        if chunks:
            os.waitpid(pid, 0)
            self.program = None
            raise OSError(b"".join(chunks).decode("utf-8", "replace"))
        return pid

    def run(self) -> int:
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that SIGCHLD wakes the wait

        def bot_died(*_: object) -> None:
            self.stop = True

        signal.signal(signal.SIGTERM, bot_died)
        # Without either (an old kernel, a seccomp filter) the leash still kills what it can find
        # below it when the bot's line closes, and the bot's sweep by mark does the rest.
        with contextlib.suppress(OSError):
            _prctl(PR_SET_CHILD_SUBREAPER, 1)
        with contextlib.suppress(OSError):
            _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != self.bot:  # the bot died before the signal was armed
            return 1
        try:
            argv, env = self.request()
            pid = self.spawn(argv, env)
        except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError) as e:
            with contextlib.suppress(OSError):
                self.sock.sendall(f"error {e}\n".encode("utf-8", "replace"))
            return 127
        # The program holds its own stdin and stdout now; the leash's copies would keep its
        # output open after it closed it.
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        with contextlib.suppress(OSError):
            self.sock.sendall(f"ok {pid}\n".encode())
        try:
            while not self.stop:
                ready, _, _ = select.select([self.sock.fileno(), wake_r], [], [])
                if wake_r in ready:
                    with contextlib.suppress(OSError):
                        os.read(wake_r, 512)
                self.reap()
                if self.status is not None:
                    break  # the program exited: what it left behind goes too
                if self.sock.fileno() in ready:
                    try:
                        data = self.sock.recv(512)
                    except OSError:
                        data = b""
                    if not data:
                        break  # the bot closed the line, or the bot is dead
        finally:
            self.kill_all()
        status = self.status
        if status is None:
            return 128 + signal.SIGKILL  # killed on the bot's word
        return status if status >= 0 else 128 - status


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: leash.py BOT_PID FD (run by the bot, not by hand)", file=sys.stderr)
        return 2
    return Leash(int(argv[1]), int(argv[2])).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
