"""Fixtures of the page tests: the site's (tests/web); the browser is tests/conftest.py's."""

from __future__ import annotations

import pytest

from tests.pages.data import Arena, build
from tests.web.conftest import _isolated_site, api, live_site, live_site_factory, make_user, valid_version  # noqa: F401


@pytest.fixture
def arena(make_user, valid_version, tmp_path) -> Arena:  # noqa: F811
    return build(make_user, valid_version, tmp_path)
