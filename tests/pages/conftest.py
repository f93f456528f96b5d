"""Fixtures of the page tests: the site's (tests/web) and the browser's (tests/viewer)."""

from __future__ import annotations

import pytest

from tests.pages.data import Arena, build
from tests.viewer.conftest import chromium  # noqa: F401
from tests.web.conftest import _isolated_site, api, live_site, make_user, valid_version  # noqa: F401


@pytest.fixture
def arena(make_user, valid_version, tmp_path) -> Arena:  # noqa: F811
    return build(make_user, valid_version, tmp_path)


@pytest.fixture(scope="session", autouse=True)
def _orm_beside_playwright():
    """Playwright's sync API keeps an event loop running in this thread; the ORM calls made
    here (fixtures, assertions, the database's flush) are still plain synchronous ones."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield
