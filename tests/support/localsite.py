"""A site as local processes, for tests and benches: `manage.py runserver` or gunicorn, and Celery
workers started with one environment, each logging to a file in one folder, all stopped together.

`make up` (infra/up.sh) does the same for people; this is the Python form that tests
(tests/support/fixtures.py) and benches (bench/_site.py) drive.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

#: The repository root (manage.py), from tests/support/localsite.py.
ROOT = Path(__file__).resolve().parents[2]
#: Static files collected once for every test and bench site of this machine, a folder per inputs.
STATIC_CACHE = Path(tempfile.gettempdir()) / f"armada-static-{os.getuid()}"
#: What `collectstatic` reads besides the installed packages below: our static files and the settings.
STATIC_SOURCES = (ROOT / "platform" / "armada_web", ROOT / "sdk" / "armada" / "viewer")
STATIC_PACKAGES = ("django", "djangorestframework", "drf-spectacular-sidecar", "whitenoise", "brotli")


def _static_key() -> str:
    """A hash of everything `collectstatic` reads: our static files and settings, the packages' versions."""
    digest = hashlib.sha256()
    for source in STATIC_SOURCES:
        for path in sorted(source.rglob("*")):
            parts = path.relative_to(source).parts
            if path.is_file() and ("static" in parts or source.name == "viewer" or path.name == "settings.py"):
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    for package in STATIC_PACKAGES:
        try:
            digest.update(f"{package}={importlib.metadata.version(package)};".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{package}=none;".encode())
    return digest.hexdigest()[:16]


def collected_static(env: dict[str, str]) -> Path:
    """The site's static files as `manage.py collectstatic` makes them with DEBUG off (hashed and
    compressed names), collected once per machine for the same inputs (12 s of two cores each time
    otherwise) and shared read-only by every site of the tests and benches; `env` is a site's
    environment (DEBUG off, a secret key)."""
    key = _static_key()
    target = STATIC_CACHE / key
    if (target / "staticfiles.json").is_file():
        return target
    STATIC_CACHE.mkdir(mode=0o700, exist_ok=True)
    with open(STATIC_CACHE / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one process collects, the others wait for it
        if not (target / "staticfiles.json").is_file():
            work = Path(tempfile.mkdtemp(dir=STATIC_CACHE))
            try:
                subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT,
                               env={**env, "ARMADA_DATA_DIR": str(work)}, capture_output=True, check=True,
                               timeout=600)
                (work / "static").rename(target)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            for old in sorted(STATIC_CACHE.iterdir(), key=lambda p: p.stat().st_mtime)[:-6]:
                if old.is_dir() and old != target:  # the older inputs' folders (a lock file each)
                    shutil.rmtree(old, ignore_errors=True)
                    old.with_suffix(".lock").unlink(missing_ok=True)
    return target


def free_port() -> int:
    """A TCP port nobody listens on now, on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalSite:
    """Processes of one site: `env` is their whole environment, `folder` holds their logs."""

    def __init__(self, env: dict[str, str], folder: Path, port: int | None = None) -> None:
        self.env = env
        self.folder = folder
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        #: The latest process of each name; every process ever started is in `_all`.
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self._all: list[subprocess.Popen[bytes]] = []

    def spawn(self, name: str, argv: list[str], log_name: str | None = None,
              env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Start `argv` in the repository root (with `env` added to the site's environment); its
        output goes to FOLDER/LOG_NAME.log."""
        with open(self.folder / f"{log_name or name}.log", "wb") as log:
            proc = subprocess.Popen(argv, cwd=ROOT, env={**self.env, **(env or {})}, stdout=log,
                                    stderr=subprocess.STDOUT)
        self.procs[name] = proc
        self._all.append(proc)
        return proc

    def start_web(self) -> subprocess.Popen[bytes]:
        """Django's development server (tests that need it; `make up` serves with gunicorn). With
        DEBUG off its static files are collected first (the hashed names the pages link to, served
        by whitenoise), as `make up` does."""
        if self.env.get("DEBUG", "").lower() in ("false", "0", "no", "off"):
            self.link_static()
        return self.spawn("web", [sys.executable, "manage.py", "runserver", f"127.0.0.1:{self.port}", "--noreload"])

    def link_static(self) -> None:
        """The data folder's `static` is the machine's collected static files (`collected_static`),
        unless the folder already holds files of its own."""
        static = Path(self.env.get("ARMADA_DATA_DIR", self.folder)) / "static"
        if static.is_symlink() or (static.is_dir() and any(static.iterdir())):
            return
        if static.is_dir():
            static.rmdir()
        static.parent.mkdir(parents=True, exist_ok=True)
        static.symlink_to(collected_static(self.env), target_is_directory=True)

    def start_gunicorn(self, workers: int | None = None) -> subprocess.Popen[bytes]:
        """gunicorn as `make up` runs it (infra/gunicorn.conf.py; `workers` overrides its count), its
        access log in FOLDER/access.log. Pages need `manage.py collectstatic` first (hashed names)."""
        argv = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "infra" / "gunicorn.conf.py"),
                "--bind", f"127.0.0.1:{self.port}", "--access-logfile", str(self.folder / "access.log")]
        return self.spawn("web", argv + (["--workers", str(workers)] if workers else []))

    def start_worker(self, name: str, queues: str, node: str, pool: str = "solo",
                     log_prefix: str | None = None, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """A Celery worker named `node` consuming `queues` (comma-separated); its log is PREFIX-N.log
        (the prefix defaults to `name`; N counts the processes started); `env` adds variables.
        With `pool="prefork"` it runs its tasks in one child process, as `make up`'s workers do."""
        argv = [sys.executable, "-m", "celery", "-A", "armada_web", "worker", "-Q", queues, "--pool", pool,
                "--concurrency", "1", "--loglevel", "INFO", "-n", node,
                "--without-heartbeat", "--without-gossip", "--without-mingle"]
        return self.spawn(name, argv, log_name=f"{log_prefix or name}-{len(self._all)}", env=env)

    def start_beat(self, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Celery beat (the periodic jobs: matchmaking, the reapers, the sweeper), its schedule file in
        the folder; the jobs go to ARMADA_PERIODIC_QUEUE, which a worker must serve."""
        argv = [sys.executable, "-m", "celery", "-A", "armada_web", "beat", "--loglevel", "INFO",
                "--schedule", str(self.folder / "celerybeat-schedule")]
        return self.spawn("beat", argv, env=env)

    def children(self, name: str) -> list[int]:
        """Pids of the child processes of the latest process `name` (a prefork worker's pool)."""
        pid = self.procs[name].pid
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if int(stat[1]) == pid:
                    found.append(int(entry.name))
        return sorted(found)

    def web_answers(self) -> bool:
        try:
            urllib.request.urlopen(f"{self.url}/api/version/", timeout=2).read()
            return True
        except OSError:
            return False

    def wait_until(self, what: str, seconds: float, ready: Callable[[], bool]) -> None:
        """Poll `ready` until true; fail at once when a process has exited, or after `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"the {name} process exited ({proc.returncode}): {self.log(name)[-2000:]}")
            if ready():
                return
            time.sleep(0.1)
        raise RuntimeError(f"{what} was not ready within {seconds:g} s: {self.log('web')[-2000:]}")

    def kill(self, name: str) -> None:
        """SIGKILL the latest process of that name (a worker dying mid-task) and reap it."""
        proc = self.procs[name]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    def log(self, name: str) -> str:
        """Every log whose file name starts with `name`, one after the other."""
        return "\n".join(path.read_text(errors="replace") for path in sorted(self.folder.glob(f"{name}*.log")))

    def stop(self, grace: float = 5) -> None:
        """Terminate every process started, then kill what has not ended within `grace` seconds in all.

        A Celery worker given SIGTERM finishes its match first (a slow one takes 10 s and more); what a
        killed worker leaves, the sites' `stop` sweeps (tests/support/fixtures.py)."""
        for proc in self._all:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + grace
        for proc in self._all:
            try:
                proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
