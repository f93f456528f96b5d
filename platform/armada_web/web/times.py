"""Dates and times given by people (a command's option, a form, a JSON body): one parser."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.utils import timezone as django_timezone
from django.utils.dateparse import parse_datetime

from armada_web.web.errors import Invalid


def parse_time(value: Any, what: str) -> datetime | None:
    """A datetime in UTC from a datetime or an ISO 8601 text (no zone given: UTC); None for None or '';
    Invalid naming `what` for anything else, and for a time whose UTC falls outside years 1-9999.

    In UTC because ISO 8601 and Python allow offsets up to +-23:59 while PostgreSQL takes +-15:59
    (`2030-01-01T00:00+20:00` was a DataError when stored or compared in a query: a 500)."""
    if value is None or value == "":
        return None
    parsed: datetime | None = None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str) and len(value) <= 64:
        try:
            parsed = parse_datetime(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            parsed = None
    if parsed is None:
        plus = isinstance(value, str) and " " in value.strip()[10:]  # "...T00:57:00 01:00": a + unescaped
        raise Invalid(f"{what} must be a date and time in ISO 8601, e.g. 2026-03-01T12:00:00Z"
                      + (" (a + in a URL's query reads as a space: send it as %2B)" if plus else ""))
    aware = parsed if django_timezone.is_aware(parsed) else django_timezone.make_aware(parsed, UTC)
    try:
        return aware.astimezone(UTC)
    except OverflowError:
        raise Invalid(f"{what} is out of range: {str(value)[:40]!r}") from None
