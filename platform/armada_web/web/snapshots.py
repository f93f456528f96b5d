"""Reads that see the database at one moment, whatever commits meanwhile.

PostgreSQL's default isolation (READ COMMITTED) gives each query the commits made before it, so
an answer built from two queries can mix them: a bot's detail read its active version before a
validation committed and its versions after, and showed a new valid version beside the old
active one (an API trial). `one_moment()` runs its block's queries in one REPEATABLE READ snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def one_moment() -> Iterator[None]:
    """Run the block's queries in one snapshot (PostgreSQL, when no transaction is open). Inside
    another transaction the block runs in it; on SQLite as it is (a read there sees one moment only
    within a transaction, and the site's SQLite transactions take the write lock: `BEGIN IMMEDIATE`)."""
    if connection.in_atomic_block or connection.vendor != "postgresql":
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield
