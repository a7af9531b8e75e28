"""A throwaway PostgreSQL server for the tests and benches: ``initdb`` into a temporary folder, a
server listening only on a unix socket in that folder, stopped and deleted at the end.

PostgreSQL refuses to run as root, so as root (CI) the server runs as an unprivileged user
(``nobody``, else a ``deckhand-test`` user made with ``useradd``).  The binaries are Debian's
(``apt-get install postgresql``): found through ``pg_config --bindir``, ``/usr/lib/postgresql/*/bin``
or the PATH.

    python -m tests.pgcluster        # start one, print its URL, stop it on Ctrl-C (for the bench)
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

USER = "deckhand-test"


class NoPostgres(RuntimeError):
    """PostgreSQL cannot be started here; the message says why and how to fix it."""


def bindir() -> Path:
    """Where ``initdb``, ``pg_ctl`` and ``postgres`` are."""
    candidates: list[str] = []
    try:
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, timeout=10)
        if out.returncode == 0:
            candidates.append(out.stdout.strip())
    except OSError:
        pass
    # Debian: /usr/lib/postgresql/<major>/bin, the newest first.
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name)
                         if Path(p).parent.name.isdigit() else 0, reverse=True)
    found = shutil.which("initdb")
    if found:
        candidates.append(str(Path(found).resolve().parent))
    for c in candidates:
        if c and (Path(c) / "initdb").is_file() and (Path(c) / "pg_ctl").is_file():
            return Path(c)
    raise NoPostgres("PostgreSQL's server programs (initdb, pg_ctl) were not found: install them "
                     "(Debian: apt-get install postgresql), or set DECKHAND_TEST_PG_URL to a server to use, "
                     "or DECKHAND_SKIP_PG=1 to skip the PostgreSQL tests.")


def _server_user() -> tuple[int, int] | None:
    """(uid, gid) to run the server as: None when we are not root (run as ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in ("nobody", USER):
        try:
            p = pwd.getpwnam(name)
            return p.pw_uid, p.pw_gid
        except KeyError:
            continue
    subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True)
    p = pwd.getpwnam(USER)
    return p.pw_uid, p.pw_gid


class Cluster:
    """One PostgreSQL server in a temporary folder, reachable as :attr:`url` (database ``postgres``,
    superuser ``deckhand``, trust authentication over its private socket)."""

    def __init__(self, *, durable: bool = False) -> None:
        # durable=False: fsync off (tests: a crash of this machine loses nothing anyone wants); the
        # bench keeps the server's normal durability to measure real commits.
        self.durable = durable
        self.bin = bindir()
        self.owner = _server_user()
        self.root = Path(tempfile.mkdtemp(prefix="deckhand-pg-"))
        self.data = self.root / "data"
        self.socket = self.root  # a short path: unix socket paths are limited to ~100 bytes
        self.started = False

    @property
    def url(self) -> str:
        return f"postgresql://deckhand@/postgres?host={self.socket}"

    def _run(self, args: list[str], **kw) -> subprocess.CompletedProcess[str]:
        user = {}
        if self.owner is not None:
            user = {"user": self.owner[0], "group": self.owner[1], "extra_groups": []}
        return subprocess.run(args, cwd=self.root, capture_output=True, text=True, timeout=120,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                                   "LC_ALL": "C.UTF-8"}, **user, **kw)

    def start(self) -> Cluster:
        if self.owner is not None:
            os.chown(self.root, *self.owner)
        self.root.chmod(0o700)
        out = self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "deckhand", "-A", "trust",
                         "-E", "UTF8", "--no-sync", "--no-instructions"])
        if out.returncode != 0:
            raise NoPostgres(f"initdb failed: {out.stderr.strip() or out.stdout.strip()}")
        settings = [f"-c unix_socket_directories='{self.socket}'", "-c listen_addresses=''",
                    "-c max_connections=100", "-c shared_buffers=32MB"]
        if not self.durable:
            settings += ["-c fsync=off", "-c full_page_writes=off", "-c synchronous_commit=off"]
        out = self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "server.log"),
                         "-w", "-t", "60", "-o", " ".join(settings), "start"])
        if out.returncode != 0:
            log = (self.root / "server.log").read_text() if (self.root / "server.log").exists() else ""
            self.stop()
            raise NoPostgres(f"PostgreSQL did not start: {out.stderr.strip()} {log[-2000:]}")
        self.started = True
        return self

    def stop(self) -> None:
        if self.started:
            self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
            self.started = False
        shutil.rmtree(self.root, ignore_errors=True)


def main() -> int:
    cluster = Cluster(durable="--fast" not in sys.argv).start()
    print(cluster.url, flush=True)
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})  # for sigwait
    sys.exit(main())
