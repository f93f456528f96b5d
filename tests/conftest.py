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

from tests.support.services import missing

#: The site's fixtures (users, API clients, live sites), for every folder.
pytest_plugins = ["tests.support.fixtures"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long modules (tests/live, and any module with a test marked `slow`) at the start of each
    xdist worker's share, each module's tests kept together and in order.

    pytest-xdist's `--dist worksteal` (infra/test.sh) gives worker k the k-th contiguous share of
    this list, and an idle worker later takes the second half of the longest queue. So the long
    modules are dealt out among the shares (each module to the share with the least weight so far,
    the heaviest first; `_weight`), each share then filled up with short tests: every worker
    starts on long tests and the run ends on short ones, instead of one worker waiting out another's
    long test (a 110 s one left last cost that much of the run)."""
    long = {item.path for item in items if item.get_closest_marker("slow") or "/tests/live/" in item.path.as_posix()}
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    modules: dict[Any, list[pytest.Item]] = {}
    for item in items:
        if item.path in long:
            modules.setdefault(item.path, []).append(item)
    short = [item for item in items if item.path not in long]
    shares: list[list[pytest.Item]] = [[] for _ in range(max(workers, 1))]
    weights = [0] * len(shares)
    for module in sorted(modules.values(), key=_weight, reverse=True):  # (stable: ties in collection order)
        k = weights.index(min(weights))
        shares[k].extend(module)
        weights[k] += _weight(module)
    ordered: list[pytest.Item] = []
    for k, share in enumerate(shares):
        left = len(shares) - k  # xdist's split: share k holds (what is left) // (shares left)
        size = (len(items) - len(ordered)) // left
        take = max(size - len(share), 0) if left > 1 else len(short)
        ordered += share + short[:take]
        short = short[take:]
    items[:] = ordered


def _weight(module: list[pytest.Item]) -> int:
    """A rough cost: a live test counts ten short ones, another test marked slow three."""
    return sum(10 if "/tests/live/" in item.path.as_posix() else 3 if item.get_closest_marker("slow") else 1
               for item in module)


CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, through Playwright (skips locally without it; fails under CI)."""
    if not os.access(CHROMIUM, os.X_OK):
        missing(f"{CHROMIUM} is not installed (Debian packages chromium and chromium-driver; infra/install.sh)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed (pip install -e '.[dev]')")
    with pytest.MonkeyPatch.context() as mp, sync_playwright() as pw:
        mp.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
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
