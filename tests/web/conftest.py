"""Fixtures for the site's tests: private storage and caches per test, users, API clients,
and `live_site`: a real web server process and a real Celery validation worker on the test
database, with Redis and Docker, for end-to-end tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a-long-test-password-42"


@pytest.fixture(autouse=True)
def _isolated_site(settings, tmp_path):
    """Each test: its own private storage folder, an in-process cache, its own validation queue."""
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "armada_web.bots.storage.PrivateFileStorage",
                    "OPTIONS": {"location": str(tmp_path / "private")}},
    }
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": f"test-{uuid.uuid4().hex}"}}
    settings.ARMADA_VALIDATION_QUEUE = f"test-unconsumed-{uuid.uuid4().hex[:8]}"
    settings.CELERY_BROKER_URL = settings.REDIS_URL
    yield
    _drop_queue(settings.REDIS_URL, settings.ARMADA_VALIDATION_QUEUE)


def _drop_queue(url: str, queue: str) -> None:
    """Remove the messages a test sent to a queue no worker reads."""
    try:
        import redis

        redis.Redis.from_url(url, socket_timeout=1).delete(queue)
    except Exception:  # no Redis: nothing was queued either
        return


@pytest.fixture
def make_user(db):
    from django.contrib.auth.models import User

    def make(username: str = "alice", password: str = PASSWORD, **extra: Any) -> User:
        return User.objects.create_user(username=username, password=password, **extra)

    return make


@pytest.fixture
def valid_version(make_user):
    """A valid, active version of a new bot, without running its validation:
    `valid_version(owner, name, game, code=starter source, orders=None)`."""
    from armada.botspec import starter_file
    from armada_web.bots import services
    from armada_web.bots.models import BotVersion

    def make(owner: Any, name: str, game: str = "galaxy", code: str | None = None,
             orders: Any = None, starter: str = "greedy") -> BotVersion:
        bot = services.create_bot(owner, name, game)
        source = code if code is not None else starter_file(starter, game).read_text()
        version = services.upload_version(bot, owner, "main.py", source.encode())
        BotVersion.objects.filter(pk=version.pk).update(status="valid", orders=orders, race_name=name)
        services.refresh_active(bot)
        version.refresh_from_db()
        return version

    return make


@pytest.fixture
def api(make_user):
    """An API client authenticated as a fresh user (with a real token)."""
    from rest_framework.test import APIClient

    from armada_web.accounts.services import create_token

    def client_for(user: Any = None) -> APIClient:
        user = user or make_user()
        _token, secret = create_token(user, "test")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
        client.user = user  # type: ignore[attr-defined]
        return client

    return client_for


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_env() -> dict[str, str]:
    """Environment that points another process at the test database of this one."""
    from django.db import connection

    params = connection.settings_dict
    if params["ENGINE"].endswith("sqlite3"):
        return {"ARMADA_SQLITE_PATH": str(params["NAME"]), "DATABASE_URL": ""}
    url = (f"postgresql://{params['USER']}:{params['PASSWORD']}@{params['HOST'] or '127.0.0.1'}:"
           f"{params['PORT'] or 5432}/{params['NAME']}")
    return {"DATABASE_URL": url}


@dataclass
class LiveSite:
    """A running site: `url` (no trailing slash), its data folder, its processes."""

    url: str
    data_dir: Path
    env: dict[str, str]
    procs: dict[str, subprocess.Popen[str]] = field(default_factory=dict)

    def create_user(self, username: str = "alice", password: str = PASSWORD, **extra: Any) -> Any:
        from django.contrib.auth.models import User

        return User.objects.create_user(username=username, password=password, **extra)

    def start_worker(self) -> subprocess.Popen[str]:
        """(Re)start the validation worker (after `kill_worker`)."""
        log = open(self.data_dir / f"worker-{len(self.procs)}.log", "w")  # noqa: SIM115
        queue = self.env["ARMADA_VALIDATION_QUEUE"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "armada_web", "worker", "-Q", queue,
             "--pool", "solo", "--loglevel", "INFO", "-n", f"{queue}-{len(self.procs)}@%h",
             "--without-heartbeat", "--without-gossip", "--without-mingle"],
            cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, text=True)
        self.procs["worker"] = proc
        self.procs[f"worker-{len(self.procs)}"] = proc
        return proc

    def start_match_worker(self) -> subprocess.Popen[str]:
        """(Re)start the match worker (queues challenges and matches) after `kill_worker("matches")`."""
        log = open(self.data_dir / f"worker-matches-{len(self.procs)}.log", "w")  # noqa: SIM115
        queues = f"{self.env['ARMADA_CHALLENGES_QUEUE']},{self.env['ARMADA_MATCHES_QUEUE']}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "armada_web", "worker", "-Q", queues,
             "--pool", "solo", "--loglevel", "INFO", "-n", f"matches-{uuid.uuid4().hex[:6]}@%h",
             "--without-heartbeat", "--without-gossip", "--without-mingle"],
            cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, text=True)
        self.procs["matches"] = proc
        self.procs[f"matches-{len(self.procs)}"] = proc
        return proc

    def kill_worker(self, name: str = "worker") -> None:
        proc = self.procs[name]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    def log(self, name: str = "web") -> str:
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in sorted(self.data_dir.glob(f"{name}*.log")))

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_http(url: str, proc: subprocess.Popen[str], seconds: float, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the web server exited: {log.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the web server did not answer within {seconds} s: {log.read_text()[-2000:]}")


@pytest.fixture
def live_site(transactional_db, tmp_path, settings):
    """A web server process, a validation worker and a match worker (queues challenges and
    matches, each named for this test) on this test's database; Galaxy matches of 30 turns.

    Needs Redis (broker, shared cache) and Docker with the bot image (validation).
    """
    from tests.services import require_docker, require_redis

    require_redis()
    require_docker()
    port = free_port()
    queue = f"test-validation-{uuid.uuid4().hex[:8]}"
    settings.ARMADA_VALIDATION_QUEUE = queue
    settings.ARMADA_MATCHES_QUEUE = f"test-matches-{uuid.uuid4().hex[:8]}"
    settings.ARMADA_CHALLENGES_QUEUE = f"test-challenges-{uuid.uuid4().hex[:8]}"
    settings.ARMADA_GALAXY_MATCH_CONFIG = '{"max_turns": 30}'
    env = {
        **os.environ, **database_env(),
        "ARMADA_DATA_DIR": str(tmp_path), "ARMADA_VALIDATION_QUEUE": queue,
        "ARMADA_MATCHES_QUEUE": settings.ARMADA_MATCHES_QUEUE,
        "ARMADA_CHALLENGES_QUEUE": settings.ARMADA_CHALLENGES_QUEUE,
        "ARMADA_GALAXY_MATCH_CONFIG": settings.ARMADA_GALAXY_MATCH_CONFIG,
        "CACHE_PREFIX": f"test-{uuid.uuid4().hex[:8]}", "DEBUG": "true", "PYTHONUNBUFFERED": "1",
    }
    site = LiveSite(url=f"http://127.0.0.1:{port}", data_dir=tmp_path, env=env)
    web_log = tmp_path / "web.log"
    site.procs["web"] = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT, env=env, stdout=open(web_log, "w"), stderr=subprocess.STDOUT, text=True)  # noqa: SIM115
    try:
        site.start_worker()
        site.start_match_worker()
        _wait_http(f"{site.url}/api/version/", site.procs["web"], 60, web_log)
        yield site
    finally:
        site.stop()
        for name in (queue, settings.ARMADA_MATCHES_QUEUE, settings.ARMADA_CHALLENGES_QUEUE):
            _drop_queue(settings.REDIS_URL, name)
