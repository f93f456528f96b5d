"""Fixtures of the page tests: the site's (tests/support/fixtures.py, each test isolated as in the
other site folders); the browser is tests/conftest.py's."""

from __future__ import annotations

import pytest

from tests.pages.data import Arena, build
from tests.support.isolation import _isolated_site  # noqa: F401


@pytest.fixture
def arena(make_user, valid_version, tmp_path) -> Arena:
    return build(make_user, valid_version, tmp_path)
