"""Keeping program players' processes on a leash (Linux; elsewhere what can be done is done).

A program player (:class:`tables.programs.process.ProgramPlayer`) is someone else's code.  Five things make
sure none of its processes outlives its game or sees what it should not:

* **A minimal environment** (:func:`program_env`): ``PATH``, ``HOME``, ``LANG`` and only the
  variables the operator lists (``DECKHAND_PROGRAM_ENV``) — never ``DISCORD_TOKEN`` or a database
  password — plus :data:`MARK`, a token naming this one process tree.
* **A leash** (Linux, :mod:`tables.programs.leash`): the program's parent is a small supervisor, a child
  subreaper (every orphan of the program's tree is re-parented to it, ``setsid`` or not), which
  kills everything below it the moment the bot closes its line or dies, even by ``kill -9``.  The
  program has a parent-death signal on the leash, and the leash one on the bot.
* **A parent-death signal** (:func:`pdeathsig`), where there is no leash: the program is killed by
  the kernel the moment the bot dies (its helpers are left for the record's sweep).
* **A kill of the whole tree** (:func:`kill_tree`): the program's process group, every descendant
  still linked to it by parent ids (a child that called ``setsid`` is in another group but still
  its child), and every process that carries its :data:`MARK` (a daemon that forked twice and was
  re-parented to init still has the environment it was started with).  No cgroup: the bot runs
  as an ordinary user in places without a delegated cgroup; the mark needs nothing.
* **A record** (:class:`ProcessRecord`): one line per running program, in a small file next to
  the database.  A leash that was killed (or a bot without leashes) cannot clean up, so the next
  bot starts by sweeping what the record names (:meth:`ProcessRecord.sweep`): a recorded pid is
  killed only if it still carries its mark, so a pid reused by an unrelated process is left alone.

Nothing of a tree leaves its leash while the leash lives.  Without one (or once it was killed),
what the mark cannot catch is a process that started a fresh program with an emptied environment
*and* left the tree: a program determined to escape then needs a cgroup or a container, which the
operator can give the whole bot.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import logging
import os
import secrets
import signal
import sys
from collections.abc import Callable, Iterable, Mapping

log = logging.getLogger("deckhand.programs")

#: The environment variable that marks every process of one program player's tree.
MARK = "DECKHAND_PROGRAM_MARK"
#: What every program may see from the bot's environment, whatever the operator says.
BASE_ENV = ("PATH", "HOME", "LANG")
#: Never passed on, even if listed: the bot's own secrets.
SECRET_ENV = frozenset({"DISCORD_TOKEN", "DATABASE_URL"})
_PR_SET_PDEATHSIG = 1


def parse_env_names(text: str | None) -> tuple[str, ...]:
    """The operator's ``DECKHAND_PROGRAM_ENV``: variable names separated by commas or spaces.
    Raises ``ValueError`` with a sentence for a name that is not one, or a secret of the bot."""
    out: list[str] = []
    for name in (text or "").replace(",", " ").split():
        if not name.replace("_", "a").isalnum() or name[0].isdigit() or not name.isascii():
            raise ValueError(f"{name!r} is not an environment variable name.")
        if name in SECRET_ENV or name == MARK:
            raise ValueError(f"{name} is the bot's own and is never passed to programs.")
        if name not in out:
            out.append(name)
    return tuple(out)


def program_env(names: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """A program's environment: :data:`BASE_ENV` and ``names``, those the bot has (no mark yet)."""
    environ = os.environ if environ is None else environ
    wanted = [*BASE_ENV, *(n for n in names if n not in SECRET_ENV and n != MARK)]
    return {n: environ[n] for n in wanted if n in environ}


def new_mark() -> str:
    return secrets.token_hex(8)


# ---- the parent-death signal ------------------------------------------------------------------------
def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


# Loaded once, in the parent: the child between fork and exec must only make the system call.
_prctl = _load_prctl()


def pdeathsig() -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the kernel SIGKILL the child when the process that started it
    dies (Linux), or ``None`` where there is no such thing.  The signal follows the thread that
    forked: the bot starts programs from its event loop's thread, which lives as long as the bot."""
    prctl = _prctl
    if prctl is None:
        return None
    parent = os.getpid()

    def arm() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the bot died before the signal was armed
            os._exit(1)

    return arm


# ---- finding and killing a tree -----------------------------------------------------------------------
def _pids() -> list[int]:
    try:
        return [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []


def _ppid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def has_mark(pid: int, mark: str) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = f.read()
    except OSError:
        return False
    return f"{MARK}={mark}".encode() in env.split(b"\0")


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` by parent ids (empty where there is no ``/proc``)."""
    children: dict[int, list[int]] = {}
    for p in _pids():
        pp = _ppid(p)
        if pp is not None:
            children.setdefault(pp, []).append(p)
    out: set[int] = set()
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), ()):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def marked(mark: str) -> set[int]:
    """Every process that carries ``mark`` (ours and its descendants, wherever they moved)."""
    me = os.getpid()
    return {p for p in _pids() if p != me and has_mark(p, mark)}


def _kill(pid: int, group: bool) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if group:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)


def kill_group(pid: int) -> None:
    """SIGKILL the process group ``pid`` leads (a program runs in a session of its own)."""
    _kill(pid, group=True)


def kill_tree(pid: int | None, mark: str | None) -> int:
    """SIGKILL a program's whole tree: its group, its descendants and their groups, and everything
    carrying ``mark``.  The tree is found first, then killed (a dead parent's children move to
    init, and out of sight of the parent ids).  Returns how many processes were found."""
    found: set[int] = set()
    if pid is not None:
        found |= descendants(pid)
    if mark:
        found |= marked(mark)
    me = os.getpid()
    groups = {pid} if pid is not None else set()
    for p in found:
        with contextlib.suppress(OSError):
            g = os.getpgid(p)
            if g != os.getpgid(me):  # never the bot's own group
                groups.add(g)
    for g in groups:
        _kill(g, group=True)
    for p in (found | ({pid} if pid is not None else set())) - {me}:
        _kill(p, group=False)
    return len(found)


# ---- the record -------------------------------------------------------------------------------------
class ProcessRecord:
    """The programs this bot has running, one ``mark pid`` line each, in a small file: what a
    bot that was killed leaves for the next one to sweep.  Every write replaces the file whole."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._running: dict[str, int] = {}

    def add(self, mark: str, pid: int) -> None:
        self._running[mark] = pid
        self._write()

    def remove(self, mark: str) -> None:
        if self._running.pop(mark, None) is not None:
            self._write()

    def _write(self) -> None:
        tmp = f"{self.path}.tmp"
        try:
            with open(tmp, "w", encoding="ascii") as f:
                f.write("".join(f"{m} {p}\n" for m, p in self._running.items()))
            os.replace(tmp, self.path)
        except OSError as e:
            log.warning("Cannot write the record of running programs %s: %s", self.path, e)

    def read(self) -> dict[str, int]:
        try:
            with open(self.path, encoding="ascii") as f:
                text = f.read()
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as e:
            log.warning("Cannot read the record of running programs %s: %s", self.path, e)
            return {}
        out: dict[str, int] = {}
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                out[parts[0]] = int(parts[1])
        return out

    def sweep(self) -> int:
        """At start-up, before any program of ours runs: kill every process a previous bot
        recorded (only those still carrying their mark), then start an empty record.  Returns the
        number of processes killed."""
        killed = 0
        for mark, pid in self.read().items():
            if mark in self._running:
                continue
            tree = marked(mark)
            if has_mark(pid, mark):
                tree.add(pid)
            for p in tree:
                _kill(p, group=False)
            killed += len(tree)
        self._write()
        if killed:
            log.warning("Killed %d program process(es) left behind by a previous run (%s)", killed, self.path)
        return killed
