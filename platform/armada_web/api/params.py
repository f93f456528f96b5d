"""The query parameters a list takes, and a 400 naming any other: a misspelt filter (`?ower=`,
`?bots=7`) returned the whole list as if it had been applied (an API-only trial).

`KnownParams` (the first default filter backend) checks a generic list's: its filters and its
paginator's; the match list and the replay list, which read their own, call `check_known`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework.filters import BaseFilterBackend
from rest_framework.mixins import ListModelMixin

from armada_web.web.errors import Invalid

#: Taken everywhere: DRF's own format override (`/api/schema/?format=json`).
ALWAYS = frozenset({"format"})
#: The paginators' parameter names.
PAGING = ("page_query_param", "page_size_query_param", "cursor_query_param")


def check_known(request: Any, known: Iterable[str]) -> None:
    """Invalid naming a query parameter that is not in `known` (nor ALWAYS)."""
    taken = set(known) | ALWAYS
    unknown = sorted(name for name in request.query_params if name not in taken)
    if unknown:
        raise Invalid(f"unknown query parameter {unknown[0][:40]!r}: this list takes "
                      f"{', '.join(sorted(taken - ALWAYS))}")


class KnownParams(BaseFilterBackend):
    """A generic list's parameters: its filterset's filters and its paginator's (only for the list
    itself: a detail view filters its queryset too, and takes its own)."""

    def filter_queryset(self, request: Any, queryset: Any, view: Any) -> Any:
        if isinstance(view, ListModelMixin) and getattr(view, "action", "list") == "list":
            filterset = getattr(view, "filterset_class", None)
            paginator = getattr(view, "paginator", None)
            check_known(request, [*(filterset.base_filters if filterset is not None else ()),
                                  *(name for attr in PAGING if (name := getattr(paginator, attr, None)))])
        return queryset
