"""Faults of the services a site needs, made for real on services of one's own (tests and
bench/faults.py): a private Redis that can be stopped, emptied and restarted; a second Docker
engine (infra/dockerd-second.sh) restarted as a host's engine is; a PostgreSQL database closed to
new connections for a few seconds. Nothing here touches the machine's own Redis, engine or
database server: other engineers' tests use them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.support.localsite import free_port


def wait_for(what: str, seconds: float, ready: Any, pause: float = 0.1) -> Any:
    """Poll `ready()` until it returns something true (returned); RuntimeError after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        value = ready()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} not within {seconds:g} s")
        time.sleep(pause)


class RedisServer:
    """A redis-server of one's own on a free loopback port, without persistence: restarting it
    empties it, as a Redis restarted without persistence (or emptied) is."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        self.folder = folder
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / "redis.log", "ab") as log:
            self.proc = subprocess.Popen([binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                          "--appendonly", "no", "--dir", str(self.folder)],
                                         stdout=log, stderr=subprocess.STDOUT)
        wait_for(f"redis-server on port {self.port}", 20, self.answers)
        return self

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: gone at once, with everything it held."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def restart_empty(self) -> None:
        self.kill()
        self.start()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def restart_engine(engine: Any, answer_within_s: float = 120) -> float:
    """Restart the second engine `engine` (tests/support/docker_engine.SecondEngine) as a host restarts its
    own: SIGTERM to dockerd (it stops every container), then the same command line again, with
    the same data root (its stopped containers stay: removing them is the sweeper's job).
    Returns the seconds it was away."""
    pid = engine.daemon_pid()
    if pid is None:
        raise RuntimeError(f"engine {engine.name} is not running")
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    started = time.monotonic()
    os.kill(pid, signal.SIGTERM)
    wait_for(f"dockerd {pid} to stop", 120, lambda: not Path(f"/proc/{pid}").exists())
    with open(engine.run_dir / "dockerd.log", "ab") as log:
        subprocess.Popen([a.decode() for a in argv], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                         start_new_session=True)

    def answers() -> bool:
        try:
            client = engine.client(timeout=5)
        except Exception:  # its socket is not there yet
            return False
        try:
            return bool(client.ping())
        except Exception:
            return False
        finally:
            client.close()

    wait_for(f"engine {engine.name} to answer again", answer_within_s, answers, pause=0.2)
    return time.monotonic() - started


@contextlib.contextmanager
def database_closed(database_url: str, keep: tuple[int, ...] = ()) -> Iterator[None]:
    """PostgreSQL: while the block runs, the database of `database_url` takes no new connection and
    every connection to it is closed but the server processes `keep` (e.g. the test's own)."""
    import psycopg

    server, _, name = database_url.rpartition("/")
    name = name.split("?", 1)[0]
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:  # not from inside the one it closes
        admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
        try:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = %s AND pid <> pg_backend_pid() AND NOT pid = ANY(%s)", [name, list(keep)])
            yield
        finally:
            admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true')
