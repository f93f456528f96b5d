"""Rows straight into tables: PostgreSQL's COPY (psycopg 3), `bulk_create` on any other database.

A row is a dict of column values by attribute name (`version_id`, not `version`); a column the
dict leaves out gets its field's default, so the seeder writes every column the models have
(generated columns are the database's). Ids are given by the caller (`Ids`), so rows can name
each other without reading anything back; `reset_sequences` then moves each table's id sequence
past them.
"""

from __future__ import annotations

import contextlib
import enum
import json
from collections.abc import Iterable, Iterator
from typing import Any

from django.core.management.color import no_style
from django.db import connection, models
from django.utils import timezone

BATCH = 2000


def _columns(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    return [f for f in model._meta.concrete_fields if not getattr(f, "generated", False)]


class Table:
    """One model's table: `write(rows)` adds them (COPY on PostgreSQL)."""

    def __init__(self, model: type[models.Model]) -> None:
        self.model = model
        self.fields = _columns(model)
        self.names = [f.attname for f in self.fields]
        self.json = {f.attname for f in self.fields if f.get_internal_type() == "JSONField"}
        now = timezone.now()
        self.defaults = {f.attname: now if _stamped(f) else None if f.null and not f.has_default() else f.get_default()
                         for f in self.fields}
        self.written = 0

    def _values(self, row: dict[str, Any]) -> tuple[Any, ...]:
        out = []
        for name in self.names:
            value = row[name] if name in row else self.defaults[name]
            if name in self.json and value is not None:
                value = json.dumps(value, separators=(",", ":"))
            elif isinstance(value, enum.Enum):
                value = value.value  # a TextChoices member: its value, never psycopg's enum name
            out.append(value)
        return tuple(out)

    def write(self, rows: Iterable[dict[str, Any]]) -> int:
        """Add `rows`; returns how many."""
        count = 0
        rows = list(rows)  # made before the COPY starts: no query may run on the connection during one
        if connection.vendor == "postgresql":
            table = connection.ops.quote_name(self.model._meta.db_table)
            columns = ", ".join(connection.ops.quote_name(f.column or f.attname) for f in self.fields)
            with connection.cursor() as cursor, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(self._values(row))
                    count += 1
        else:
            with _given_times(self.fields):
                batch: list[models.Model] = []
                for row in rows:
                    batch.append(self.model(**{name: row[name] if name in row else self.defaults[name]
                                               for name in self.names}))
                    count += 1
                    if len(batch) >= BATCH:
                        self.model._default_manager.bulk_create(batch)
                        batch = []
                self.model._default_manager.bulk_create(batch)
        self.written += count
        return count


def _stamped(field: models.Field[Any, Any]) -> bool:
    return bool(getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False))


@contextlib.contextmanager
def _given_times(fields: list[models.Field[Any, Any]]) -> Iterator[None]:
    """`bulk_create` keeps the times given instead of stamping auto_now(_add) fields with now."""
    stamped = [(f, f.auto_now, f.auto_now_add) for f in fields if _stamped(f)]  # type: ignore[attr-defined]
    for f, _, _ in stamped:
        f.auto_now = f.auto_now_add = False  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for f, now, add in stamped:
            f.auto_now, f.auto_now_add = now, add  # type: ignore[attr-defined]


class Ids:
    """The next free id of each model's table (read once), handed out in order."""

    def __init__(self) -> None:
        self._next: dict[type[models.Model], int] = {}

    def take(self, model: type[models.Model], count: int = 1) -> int:
        """The first of `count` new ids for `model`."""
        if model not in self._next:
            top = model._default_manager.order_by("-pk").values_list("pk", flat=True).first()
            self._next[model] = (top or 0) + 1
        first = self._next[model]
        self._next[model] = first + count
        return first


@contextlib.contextmanager
def loading(models: Iterable[type[models.Model]]) -> Iterator[None]:
    """While many rows pour into these tables: their secondary indexes and foreign keys are set
    aside and made again once the rows are in (one sort per index and one join per key, instead of
    updating every index and checking every key row by row). PostgreSQL only, inside the caller's
    transaction (so a failure leaves the schema as it was); elsewhere nothing changes."""
    if connection.vendor != "postgresql":
        yield
        return
    quote = connection.ops.quote_name
    saved: list[tuple[str, list[tuple[str, str]], list[tuple[str, str]]]] = []
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        for model in models:
            table = model._meta.db_table
            cursor.execute("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
                           "WHERE conrelid = %s::regclass AND contype = 'f'", [table])
            keys = cursor.fetchall()
            cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() "
                           "AND tablename = %s AND indexname NOT IN "
                           "(SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass)", [table, table])
            indexes = cursor.fetchall()
            for name, _ in keys:
                cursor.execute(f"ALTER TABLE {quote(table)} DROP CONSTRAINT {quote(name)}")
            for name, _ in indexes:
                cursor.execute(f"DROP INDEX {quote(name)}")
            saved.append((table, keys, indexes))
    yield
    with connection.cursor() as cursor:
        for table, keys, indexes in saved:
            for _, definition in indexes:
                cursor.execute(definition)
            for name, definition in keys:
                cursor.execute(f"ALTER TABLE {quote(table)} ADD CONSTRAINT {quote(name)} {definition}")


def reset_sequences(tables: Iterable[type[models.Model]]) -> None:
    """Move each table's id sequence past the ids written (PostgreSQL; SQLite follows by itself)."""
    statements = connection.ops.sequence_reset_sql(no_style(), list(tables))
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)
