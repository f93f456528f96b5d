"""The suite's PostgreSQL test databases commit without waiting for the disk (tests/conftest.py
`django_db_setup`); the site's own database is never changed so."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.support.services import missing


@pytest.mark.django_db
def test_a_test_database_commits_asynchronously():
    if connection.vendor != "postgresql":
        missing("the test database's commit mode is PostgreSQL's (set DATABASE_URL; CI does)")
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "off"
        cursor.execute("SELECT current_database()")
        assert cursor.fetchone()[0].startswith("test_")  # only the throwaway database
