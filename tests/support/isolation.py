"""The site folders' automatic fixture: a folder whose tests use the site (its database, storage,
cache or queues) imports `_isolated_site` into its conftest.py, and each of its tests then runs with
`isolated_site` (tests/support/fixtures.py): storage, cache and queues of its own."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_site(isolated_site: None) -> None:
    """`isolated_site` for every test of the folder."""
