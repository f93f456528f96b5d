"""Every test here runs with storage, cache and queues of its own (tests/support/isolation.py)."""

from tests.support.isolation import _isolated_site  # noqa: F401
