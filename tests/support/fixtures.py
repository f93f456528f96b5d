"""Fixtures for the site's tests (a plugin of tests/conftest.py): private storage and caches per
test (`isolated_site`, made automatic by each site folder's conftest.py), users, API clients,
and `live_site`: a real web server process and real Celery workers (validation; finals,
challenges, events and matches) on the test database, with Redis and Docker, for end-to-end tests."""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support import localsite
from tests.support.localsite import LocalSite
from tests.support.passwords import HASHER

#: The production settings as `make up` runs them (DEBUG off, a key of the test's own, plain HTTP).
PRODUCTION = {"DEBUG": "false", "SECRET_KEY": "test-" + secrets.token_urlsafe(50), "ARMADA_HTTPS": "false"}

PASSWORD = "a-long-test-password-42"


@pytest.fixture
def isolated_site(settings, armada, tmp_path):
    """Each test: its own private storage folder, an in-process cache, its own validation queue (and
    finals, events and periodic queues: no worker reads them), and quick password hashes."""
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "armada_web.storage.objectstore.PrivateFileStorage",
                    "OPTIONS": {"location": str(tmp_path / "private")}},
    }
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": f"test-{uuid.uuid4().hex}"}}
    unconsumed = f"test-unconsumed-{uuid.uuid4().hex[:8]}"
    armada(validation_queue=unconsumed, finals_queue=unconsumed, events_queue=unconsumed,
           periodic_queue=unconsumed)
    settings.CELERY_BROKER_URL = settings.REDIS_URL
    settings.PASSWORD_HASHERS = [HASHER]  # (tests/support/passwords.py)
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
    `valid_version(owner, name, game, code=starter source, orders=None, team=its team's id)`."""
    from armada.botspec import starter_file
    from armada_web.bots import services
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion

    def make(owner: Any, name: str, game: str = "galaxy", code: str | None = None,
             orders: Any = None, starter: str = "greedy", team: Any = None) -> BotVersion:
        bot = services.create_bot(user=owner, name=name, game=game, team=team)
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

    def start_worker_process(self, name: str, queues: str, node: str,
                             env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Another worker of this site (e.g. a second host's, with its own DOCKER_HOST in `env`)."""
        return LocalSite.start_worker(self, name, queues, node, env=env)

    def stop(self, grace: float = 5) -> None:
        """Stop every process, then remove the containers and folders a killed worker left behind."""
        super().stop(grace)
        from armada_sandbox import sweep, sweep_folders

        with contextlib.suppress(Exception):
            sweep()
        with contextlib.suppress(Exception):
            sweep_folders()

    def kill_worker(self, name: str = "worker") -> None:
        self.kill(name)


@pytest.fixture
def live_site_factory(transactional_db, tmp_path, settings, armada):
    """`start(env=..., match_worker=True)`: a web server process, a validation worker and (unless
    told not to) a match worker on this test's database, their environment with `env` added (e.g.
    object storage, JSON logs). The queues are named for this test; Galaxy matches of 30 turns.
    Needs Redis (broker, shared cache) and Docker with the bot image (validation)."""
    from tests.support.services import require_docker, require_redis

    require_redis()
    require_docker()
    started: list[LiveSite] = []
    queues: list[str] = []

    def start(env: dict[str, str] | None = None, match_worker: bool = True) -> LiveSite:
        queue = f"test-validation-{uuid.uuid4().hex[:8]}"
        config = armada(validation_queue=queue, matches_queue=f"test-matches-{uuid.uuid4().hex[:8]}",
                        challenges_queue=f"test-challenges-{uuid.uuid4().hex[:8]}",
                        finals_queue=f"test-finals-{uuid.uuid4().hex[:8]}",
                        events_queue=f"test-events-{uuid.uuid4().hex[:8]}")
        armada.game("galaxy", match_config={"max_turns": 30})
        queues.extend([queue, config.matches_queue, config.challenges_queue, config.finals_queue,
                       config.events_queue])
        site = LiveSite({
            **os.environ, **database_env(),
            "ARMADA_DATA_DIR": str(tmp_path), "ARMADA_VALIDATION_QUEUE": queue,
            "ARMADA_MATCHES_QUEUE": config.matches_queue,
            "ARMADA_CHALLENGES_QUEUE": config.challenges_queue,
            "ARMADA_FINALS_QUEUE": config.finals_queue, "ARMADA_EVENTS_QUEUE": config.events_queue,
            "ARMADA_GALAXY_MATCH_CONFIG": '{"max_turns": 30}',
            "CACHE_PREFIX": f"test-{uuid.uuid4().hex[:8]}", "DEBUG": "true", "PYTHONUNBUFFERED": "1",
            "ARMADA_HEARTBEAT_S": "1",  # the workers' jobs beat every second (the tests' reaper waits 5 s)
            **(env or {}),
        }, tmp_path)
        started.append(site)
        site.start_web()
        site.start_worker()
        if match_worker:
            site.start_match_worker()
        site.wait_until("the web server", 60, site.web_answers)
        return site

    try:
        yield start
    finally:
        for site in started:
            site.stop()
        for name in queues:
            _drop_queue(settings.REDIS_URL, name)


@pytest.fixture
def live_site(live_site_factory):
    """A web server process, a validation worker and a match worker (queues finals, challenges,
    events and matches, each named for this test) on this test's database; Galaxy matches of 30 turns.

    Needs Redis (broker, shared cache) and Docker with the bot image (validation).
    """
    return live_site_factory()


@pytest.fixture
def validation_site(live_site_factory):
    """`live_site` without the match worker (its warm bot containers cost a test that plays no
    match seconds of the machine): the web server and the validation worker; a test that comes to
    play one calls `start_match_worker()`."""
    return live_site_factory(match_worker=False)


@pytest.fixture(scope="session")
def collected_static() -> Path:
    """The static files a site without DEBUG serves (hashed names), collected once for the machine."""
    return localsite.collected_static({**os.environ, **PRODUCTION})


@pytest.fixture
def live_web(transactional_db, tmp_path, armada, settings, collected_static):
    """The web server only (gunicorn as `make up` runs it, no Celery workers) on this test's
    database, its worker processes sharing one Redis cache, DEBUG off: `live_web(workers=3,
    THROTTLE_ANON="20/hour")` starts one with these variables added and returns its LocalSite.
    Validations and matches go to this test's own queue, which nothing consumes (dropped
    afterwards). Needs Redis."""
    from tests.support.services import require_redis

    require_redis()
    queue = f"test-unconsumed-{uuid.uuid4().hex[:8]}"
    armada(validation_queue=queue, matches_queue=queue, challenges_queue=queue, finals_queue=queue, events_queue=queue)
    (tmp_path / "static").symlink_to(collected_static, target_is_directory=True)
    base = {**os.environ, **database_env(), "ARMADA_DATA_DIR": str(tmp_path), "ARMADA_VALIDATION_QUEUE": queue,
            "ARMADA_MATCHES_QUEUE": queue, "ARMADA_CHALLENGES_QUEUE": queue, "ARMADA_FINALS_QUEUE": queue,
            "ARMADA_EVENTS_QUEUE": queue,
            "CACHE_PREFIX": f"test-{uuid.uuid4().hex[:8]}", **PRODUCTION, "PYTHONUNBUFFERED": "1"}
    sites: list[LocalSite] = []

    def start(workers: int = 2, **env: str) -> LocalSite:
        folder = tmp_path / f"web-{len(sites)}"
        folder.mkdir()
        site = LocalSite({**base, **env}, folder)
        sites.append(site)
        site.start_gunicorn(workers=workers)
        site.wait_until("the web server", 60, lambda: _answers(site))
        return site

    try:
        yield start
    finally:
        for site in sites:
            site.stop()
        _drop_queue(settings.REDIS_URL, queue)


def _answers(site: LocalSite) -> bool:
    """The server answers an unknown API path (a plain view: no throttle counts the probe)."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", site.port, timeout=2)
    try:
        connection.request("GET", "/api/not-a-path/")
        return connection.getresponse().status == 404
    except OSError:
        return False
    finally:
        connection.close()

