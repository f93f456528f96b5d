"""Fixtures shared by the test folders: one headless Chromium for the whole session.

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

from tests.services import missing

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
