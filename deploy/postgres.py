"""A throw-away PostgreSQL server for the replicas' shared poll store (issue 36): Debian's server binaries,
a cluster made by ``initdb`` in a temporary folder, started by ``pg_ctl`` on a free loopback port.

PostgreSQL refuses to run as root: when this process is root, the cluster belongs to the ``postgres``
user (Debian's package creates it) and the binaries run through ``runuser -u postgres``. Trust
authentication on 127.0.0.1 only; stopped (``pg_ctl stop -m fast``) and deleted on exit.

    with LocalPostgres() as server:
        os.environ["COVSHIFT_POLL_URL"] = server.url   # postgresql+psycopg://postgres@127.0.0.1:PORT/covshift
"""

import glob
import os
import pathlib
import pwd
import shutil
import socket
import subprocess
import tempfile

#: Where Debian puts the server binaries (the newest version installed wins); COVSHIFT_PG_BIN overrides.
BIN_GLOB = "/usr/lib/postgresql/*/bin"


class PostgresUnavailable(RuntimeError):
    """PostgreSQL cannot be started here; the message says why (tests skip with it)."""


def server_bin():
    """The folder of initdb and pg_ctl, or PostgresUnavailable."""
    chosen = os.environ.get("COVSHIFT_PG_BIN")
    if not chosen:
        found = sorted(glob.glob(BIN_GLOB), key=lambda p: int(pathlib.Path(p).parent.name)
                       if pathlib.Path(p).parent.name.isdigit() else 0)
        chosen = found[-1] if found else None
    if not chosen or not (pathlib.Path(chosen) / "initdb").exists():
        raise PostgresUnavailable("PostgreSQL's server binaries are not installed (apt-get install postgresql)")
    return pathlib.Path(chosen)


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalPostgres:
    """Context manager: a fresh PostgreSQL on 127.0.0.1 with an empty database ``covshift``; ``url`` is
    its SQLAlchemy URL (psycopg 3). :meth:`stop` and :meth:`start` restart it on the same data."""

    def __init__(self, database="covshift"):
        self.database = database
        self.bin = server_bin()
        self.user = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                raise PostgresUnavailable("running as root and there is no 'postgres' user to run the server as")
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="covshift-pg-"))
        if self.user is not None:
            os.chown(self.folder, self.user.pw_uid, self.user.pw_gid)
        self.data = self.folder / "data"
        self.port = _free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *command, timeout=120):
        command = [str(part) for part in command]
        name = pathlib.Path(command[0]).name
        if self.user is not None:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise PostgresUnavailable(f"{name} failed: {(done.stderr or done.stdout).strip()[-500:]}")
        return done

    def __enter__(self):
        try:
            self._run(self.bin / "initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
                      "--no-sync")
            self.start()
            self._run(self.bin / "createdb", "-h", "127.0.0.1", "-p", self.port, "-U", "postgres", self.database)
        except (PostgresUnavailable, OSError, subprocess.TimeoutExpired) as error:
            self.__exit__()
            if isinstance(error, PostgresUnavailable):
                raise
            raise PostgresUnavailable(f"PostgreSQL could not be started: {error}") from error
        return self

    def start(self):
        self._run(self.bin / "pg_ctl", "-D", self.data, "-l", self.folder / "server.log", "-w", "-t", "60",
                  "-o", f"-h 127.0.0.1 -p {self.port} -k {self.folder} -c max_connections=200", "start")

    def stop(self):
        if (self.data / "postmaster.pid").exists():
            self._run(self.bin / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")

    def __exit__(self, *exc):
        try:
            self.stop()
        except (PostgresUnavailable, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(self.folder, ignore_errors=True)
