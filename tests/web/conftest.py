"""Fixtures for the site's tests: private storage and caches per test, users, API clients,
and `live_site`: a real web server process and real Celery workers (validation; challenges and
matches) on the test database, with Redis and Docker, for end-to-end tests."""

from __future__ import annotations

import contextlib
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.localsite import LocalSite

PASSWORD = "a-long-test-password-42"


@pytest.fixture(autouse=True)
def _isolated_site(settings, armada, tmp_path):
    """Each test: its own private storage folder, an in-process cache, its own validation queue (and
    finals and events queues: no worker reads them)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "armada_web.bots.storage.PrivateFileStorage",
                    "OPTIONS": {"location": str(tmp_path / "private")}},
    }
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": f"test-{uuid.uuid4().hex}"}}
    unconsumed = f"test-unconsumed-{uuid.uuid4().hex[:8]}"
    armada(validation_queue=unconsumed, finals_queue=unconsumed, events_queue=unconsumed)
    settings.CELERY_BROKER_URL = settings.REDIS_URL
    yield
    _drop_queue(settings.REDIS_URL, settings.ARMADA.validation_queue)


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
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion

    def make(owner: Any, name: str, game: str = "galaxy", code: str | None = None,
             orders: Any = None, starter: str = "greedy") -> BotVersion:
        bot = services.create_bot(user=owner, name=name, game=game)
        source = code if code is not None else starter_file(starter, game).read_text()
        version = services.upload_version(bot=bot, user=owner, filename="main.py", data=source.encode())
        BotVersion.objects.filter(pk=version.pk).update(status="valid", orders=orders, race_name=name)
        refresh_active(bot=bot)
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
        _token, secret = create_token(user=user, name="test")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
        client.user = user  # type: ignore[attr-defined]
        return client

    return client_for


def database_env() -> dict[str, str]:
    """Environment that points another process at the test database of this one."""
    from django.db import connection

    params = connection.settings_dict
    if params["ENGINE"].endswith("sqlite3"):
        return {"ARMADA_SQLITE_PATH": str(params["NAME"]), "DATABASE_URL": ""}
    url = (f"postgresql://{params['USER']}:{params['PASSWORD']}@{params['HOST'] or '127.0.0.1'}:"
           f"{params['PORT'] or 5432}/{params['NAME']}")
    return {"DATABASE_URL": url}


class LiveSite(LocalSite):
    """A running site on the test database: the web server, a validation worker and a match worker."""

    @property
    def data_dir(self) -> Path:
        return self.folder

    def create_user(self, username: str = "alice", password: str = PASSWORD, **extra: Any) -> Any:
        from django.contrib.auth.models import User

        return User.objects.create_user(username=username, password=password, **extra)

    def start_worker(self) -> subprocess.Popen[bytes]:  # type: ignore[override]
        """(Re)start the validation worker (after `kill_worker()`)."""
        queue = self.env["ARMADA_VALIDATION_QUEUE"]
        return super().start_worker("worker", queue, f"{queue}-{uuid.uuid4().hex[:6]}@%h")

    def start_match_worker(self) -> subprocess.Popen[bytes]:
        """(Re)start a match worker (queues finals, challenges, events and matches, as `make up`'s), e.g.
        after `kill_worker("matches")`.

        It keeps one warm slot pair, as `make up`'s match worker does (the validation worker
        here starts its bots cold, so tests running side by side never wait for the kept pair)."""
        queues = ",".join(self.env[f"ARMADA_{name}_QUEUE"] for name in ("FINALS", "CHALLENGES", "EVENTS", "MATCHES"))
        return super().start_worker("matches", queues, f"matches-{uuid.uuid4().hex[:6]}@%h",
                                    log_prefix="worker-matches", env={"ARMADA_SANDBOX_WARM_PAIRS": "1"})

    def stop(self) -> None:
        """Stop every process, then remove the containers a killed worker's slots left behind."""
        super().stop()
        from armada_sandbox import sweep

        with contextlib.suppress(Exception):
            sweep()

    def kill_worker(self, name: str = "worker") -> None:
        self.kill(name)


@pytest.fixture
def live_site(transactional_db, tmp_path, settings, armada):
    """A web server process, a validation worker and a match worker (queues challenges and
    matches, each named for this test) on this test's database; Galaxy matches of 30 turns.

    Needs Redis (broker, shared cache) and Docker with the bot image (validation).
    """
    from tests.services import require_docker, require_redis

    require_redis()
    require_docker()
    queue = f"test-validation-{uuid.uuid4().hex[:8]}"
    config = armada(validation_queue=queue, matches_queue=f"test-matches-{uuid.uuid4().hex[:8]}",
                    challenges_queue=f"test-challenges-{uuid.uuid4().hex[:8]}",
                    finals_queue=f"test-finals-{uuid.uuid4().hex[:8]}",
                    events_queue=f"test-events-{uuid.uuid4().hex[:8]}")
    armada.game("galaxy", match_config={"max_turns": 30})
    env = {
        **os.environ, **database_env(),
        "ARMADA_DATA_DIR": str(tmp_path), "ARMADA_VALIDATION_QUEUE": queue,
        "ARMADA_MATCHES_QUEUE": config.matches_queue,
        "ARMADA_CHALLENGES_QUEUE": config.challenges_queue,
        "ARMADA_FINALS_QUEUE": config.finals_queue, "ARMADA_EVENTS_QUEUE": config.events_queue,
        "ARMADA_GALAXY_MATCH_CONFIG": '{"max_turns": 30}',
        "CACHE_PREFIX": f"test-{uuid.uuid4().hex[:8]}", "DEBUG": "true", "PYTHONUNBUFFERED": "1",
    }
    site = LiveSite(env, tmp_path)
    site.start_web()
    try:
        site.start_worker()
        site.start_match_worker()
        site.wait_until("the web server", 60, site.web_answers)
        yield site
    finally:
        site.stop()
        for name in (queue, config.matches_queue, config.challenges_queue, config.finals_queue, config.events_queue):
            _drop_queue(settings.REDIS_URL, name)
