"""Page numbers for the site's lists: parse one, and fetch one page of a long ordered list cheaply.

`page_number` refuses anything but 1, 2, ... (`Invalid`: the pages answer 400 with the message).
`keyed_page` takes the list's keys in order (a `values_list` an index can serve) and a loader:
the page's keys are read first (an index-only scan steps over the rows before it), then only
those rows with their joins, so the last page costs about what the first does. A page past the
last is refused with the list's range, never silently replaced by another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.core.paginator import Paginator

from armada_web.web.errors import Invalid

#: Longer numbers than this are no page of any list here (and never reach the database).
DIGITS = 9
#: The largest page number anything here takes (the API's schema states it as `page`'s maximum).
MAX_PAGE = 10**DIGITS - 1


def page_number(value: Any, name: str = "page") -> int:
    """The page number in a request's value (missing or empty: 1); Invalid for anything else."""
    text = "" if value is None else str(value).strip()
    if not text:
        return 1
    if not (text.isascii() and text.isdigit()) or len(text) > DIGITS or int(text) < 1:
        raise Invalid(f"{name} must be a whole number from 1 up; got {text[:20]!r}")
    return int(text)


@dataclass
class Paged:
    """One page of a list: its rows, its number, the list's length in rows and pages."""

    rows: list[Any]
    number: int
    count: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.count // self.per_page))

    @property
    def start(self) -> int:
        """The place (from 1) of the page's first row in the whole list."""
        return (self.number - 1) * self.per_page + 1

    @property
    def has_next(self) -> bool:
        return self.number < self.pages

    @property
    def has_previous(self) -> bool:
        return self.number > 1


def keyed_page(keys: Any, load: Callable[[list[Any]], Iterable[Any]], number: int, per_page: int,
               key: Callable[[Any], Any], name: str = "page") -> Paged:
    """Page `number` of the list whose keys `keys` gives in order; `load(keys)` returns those rows
    (any order) and `key(row)` a row's key."""
    count = int(keys.count())
    paged = Paged([], number, count, per_page)
    if number > paged.pages:
        raise Invalid(f"{name} {number} does not exist: this list has {paged.pages} page(s)")
    wanted = list(keys[(number - 1) * per_page: number * per_page])
    found = {key(row): row for row in load(wanted)}
    paged.rows = [found[k] for k in wanted if k in found]
    return paged


class CappedPaginator(Paginator):
    """Django's paginator for the admin's long lists: it counts at most CAP rows (an index range),
    so a list of a million matches shows CAP // per_page pages instead of counting them all."""

    CAP = 10_000

    @cached_property
    def count(self) -> int:
        return int(self.object_list[: self.CAP].count())  # type: ignore[attr-defined]
