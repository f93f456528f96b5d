"""Fixtures of the page tests: the site's (tests/web) and the browser's (tests/viewer)."""

from __future__ import annotations

import pytest

from tests.pages.data import Arena, build
from tests.viewer.conftest import chromium  # noqa: F401
from tests.web.conftest import _isolated_site, api, live_site, make_user, valid_version  # noqa: F401


@pytest.fixture
def arena(make_user, valid_version, tmp_path) -> Arena:  # noqa: F811
    return build(make_user, valid_version, tmp_path)
