"""Migrating a test database to a point and back (the data migrations' tests)."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets: list[tuple[str, str | None]]) -> Any:
    """Migrate to `targets` (an app's None: before its first migration); the apps as they stand there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps


def leaves() -> list[tuple[str, str | None]]:
    """Every app's latest migration."""
    return list(MigrationExecutor(connection).loader.graph.leaf_nodes())


def before(app: str, name: str) -> list[tuple[str, str | None]]:
    """Every app at its latest migration but `app`, at `name`."""
    return [(app, name) if leaf_app == app else (leaf_app, leaf) for leaf_app, leaf in leaves()]
