"""Every test here runs with storage, cache and queues of its own (tests/support/isolation.py)."""

import pytest

from tests.support.isolation import _isolated_site  # noqa: F401


@pytest.fixture
def five(make_user, valid_version):
    """Five Galaxy bots of five owners (with e-mail addresses), playing."""
    return [valid_version(make_user(f"user{n}", email=f"user{n}@example.com"), f"bot{n}") for n in range(5)]
