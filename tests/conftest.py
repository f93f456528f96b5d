"""Fixtures shared by the test folders: one headless Chromium for the whole session, and moto's
standalone S3 server (tests/support/storage_server.py) with a fresh bucket per test.

The viewer's tests (tests/viewer) and the pages' tests (tests/pages) both drive it. There is
one instance per session because Playwright's sync API runs an event loop in this thread for
as long as the browser lives, and a second `sync_playwright()` inside it is refused. While it
lives, Django's ORM is told that synchronous calls from this thread are fine.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser_env import chromium_env
from tests.support.services import in_ci, missing

#: The site's fixtures (users, API clients, live sites), for every folder.
pytest_plugins = ["tests.support.fixtures"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    """Under CI (`CI=true`) no test skips: a skip (a library the project's own files install that is
    missing, a root-only test run without root) fails with its reason, as a missing service does
    (`tests.support.services.missing`). Locally a skip stays a skip."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and in_ci() and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, where every test must run: {reason}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long modules first (tests/live, and any module with a test marked `slow`), each module's
    tests kept together and in order: with pytest-xdist's `--dist worksteal` (infra/test.sh) the
    workers then end on short tests together instead of one waiting out a long one."""
    long = {item.path for item in items if item.get_closest_marker("slow") or "/tests/live/" in item.path.as_posix()}
    items.sort(key=lambda item: item.path not in long)


CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Chromium, headless, through Playwright (skips locally without it; fails under CI),
    deaf to the host's network changes (tests/support/browser_env.py)."""
    if not os.access(CHROMIUM, os.X_OK):
        missing(f"{CHROMIUM} is not installed (Debian packages chromium and chromium-driver; infra/install.sh)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed (pip install -e '.[dev]')")
    with pytest.MonkeyPatch.context() as mp, sync_playwright() as pw:
        mp.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        env = chromium_env(tmp_path_factory.mktemp("chromium"))
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, env=env)
        yield browser
        browser.close()


class ArmadaSettings:
    """Change the site's typed settings (`settings.ARMADA`) for one test: `armada(uploads_per_hour=2)`,
    `armada.game("galaxy", match_config={"max_turns": 30})`; pytest-django restores them after."""

    def __init__(self, settings: Any) -> None:
        self._settings = settings

    def __call__(self, **changes: Any) -> Any:
        self._settings.ARMADA = self._settings.ARMADA.with_(**changes)
        return self._settings.ARMADA

    def game(self, slug: str, **changes: Any) -> Any:
        self._settings.ARMADA = self._settings.ARMADA.with_game(slug, **changes)
        return self._settings.ARMADA

    @property
    def current(self) -> Any:
        return self._settings.ARMADA


@pytest.fixture
def armada(settings: Any) -> ArmadaSettings:
    return ArmadaSettings(settings)


_cache_dirs = iter(range(1, 1 << 62))


@pytest.fixture(autouse=True)
def _own_unpack_cache(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test its own cache of unpacked versions (storage.unpacked; made only when a game is
    played): a version unpacked by an earlier test never hides what this one does to storage."""
    settings = request.getfixturevalue("settings")
    folder = tmp_path_factory.getbasetemp() / "unpacked" / str(next(_cache_dirs))
    settings.ARMADA = settings.ARMADA.with_(unpack_cache_dir=str(folder))


@pytest.fixture(scope="session")
def moto_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """moto's S3 server over real HTTP on a free loopback port, for the whole session (per xdist worker)."""
    try:
        import boto3  # noqa: F401
        import moto  # noqa: F401
    except ImportError:
        missing("moto[server] and boto3 are not installed (pip install -e '.[dev]')")
    from tests.support.storage_server import MotoServer

    server = MotoServer(tmp_path_factory.mktemp("moto"))
    yield server
    server.stop()


@pytest.fixture
def s3_bucket(moto_server: Any) -> Any:
    """A new empty bucket on the session's moto server: an S3Bucket (endpoint, name, credentials, env())."""
    return moto_server.bucket()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    """pytest-django's test databases; on PostgreSQL each one commits without waiting for its WAL
    to reach the disk (`synchronous_commit = off`: a test database is thrown away, so a crash may
    lose its last commits and nothing else). Every connection opened after this, the live sites'
    processes' too, has it; the suite's many committing tests (transactional and live) run faster."""
    from django.db import connections

    with django_db_blocker.unblock():
        for connection in connections.all():
            if connection.vendor != "postgresql":
                continue
            with connection.cursor() as cursor:
                cursor.execute(f'ALTER DATABASE "{connection.settings_dict["NAME"]}" SET synchronous_commit TO off')
            connection.close()  # the next connection has the setting
