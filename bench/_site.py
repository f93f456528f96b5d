"""A throw-away Armada site for benches: fresh data folder and SQLite database, one user,
`manage.py runserver` and one Celery validation worker on a queue of its own.

    with BenchSite() as site:
        client = ApiClient(site.url, site.token())

Everything it starts is stopped on leaving the block (also on Ctrl-C, SIGTERM and errors);
the folder, the queue's Redis key and the cache prefix are its own, so it runs beside `make up`.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from datetime import datetime
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: `tests` is importable

from tests.support.localsite import ROOT, LocalSite

USERNAME = "bench"
#: The site's text log line (armada_web.runtime.logs): "2024-05-01 07:30:52,123 INFO celery.worker.strategy:
#: Task NAME[ID] received [version=3]".
_TASK_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) \w+ [\w.]+: Task (\S+)\[([0-9a-f-]+)\] (\w+)")


class BenchSite(LocalSite):
    """The site's processes and their environment; `env_extra` adds or overrides settings, `pool`
    is the worker's Celery pool (`solo` as in the tests; `prefork` with one child as `make up`)."""

    def __init__(self, env_extra: dict[str, str] | None = None, pool: str = "solo") -> None:
        self.pool = pool
        folder = Path(tempfile.mkdtemp(prefix="armada-bench-site-"))
        self.queue = f"bench-validation-{uuid.uuid4().hex[:8]}"
        self.password = secrets.token_urlsafe(18)
        super().__init__({
            **os.environ,
            "ARMADA_DATA_DIR": str(folder), "ARMADA_SQLITE_PATH": str(folder / "armada.sqlite3"),
            "DATABASE_URL": "", "ARMADA_VALIDATION_QUEUE": self.queue,
            "CACHE_PREFIX": f"bench-{uuid.uuid4().hex[:8]}", "DEBUG": "false", "PYTHONUNBUFFERED": "1",
            "SECRET_KEY": secrets.token_urlsafe(50), "ARMADA_HTTPS": "false",
            "DJANGO_SETTINGS_MODULE": "armada_web.settings", **(env_extra or {}),
        }, folder)
        self._old_term: Any = None

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> BenchSite:
        self._old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
        signal.signal(signal.SIGTERM, self._old_term)

    def start(self) -> None:
        self._manage("migrate", "--noinput", "-v0")
        self._manage("shell", "-c", "from django.contrib.auth.models import User; "
                     f"User.objects.create_user({USERNAME!r}, password={self.password!r})")
        self.start_web()
        self.start_worker("worker", self.queue, f"{self.queue}@%h", pool=self.pool)
        self.wait_until("the web server", 60, self.web_answers)
        self.wait_until("the worker", 60, lambda: " ready." in self.log("worker"))

    def stop(self) -> None:
        super().stop()
        try:
            import redis

            redis.Redis.from_url(self.env.get("REDIS_URL") or "redis://127.0.0.1:6379/0", socket_timeout=1).delete(
                self.queue)
        except Exception:  # Redis is gone: there is no queue left to drop
            pass
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- helpers -----------------------------------------------------------------------------

    def token(self) -> str:
        """A new API token of the bench user, through `POST /api/tokens/`."""
        from armada.cli.client import ApiClient

        answer = ApiClient(self.url).request("POST", "/api/tokens/", auth=False, json_body={
            "username": USERNAME, "password": self.password, "name": f"bench-{uuid.uuid4().hex[:6]}"})
        return str(answer["token"])

    def task_events(self) -> dict[str, dict[str, float]]:
        """From the worker's log: task id -> {"received": t, "succeeded": t, ...} (epoch seconds, ms precision)."""
        events: dict[str, dict[str, float]] = {}
        for line in self.log("worker").splitlines():
            match = _TASK_LINE.match(line)
            if match:
                stamp = datetime.strptime(match[1], "%Y-%m-%d %H:%M:%S,%f").timestamp()  # local time, as logged
                events.setdefault(match[3], {})[match[4]] = stamp
        return events

    def _manage(self, *args: str) -> None:
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env,
                              capture_output=True, text=True, timeout=300, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {args[0]} failed: {(done.stderr or done.stdout)[-2000:]}")


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
