"""The API's page-number lists, `?page=N&page_size=M` (at most 200; more gives that many); the
deep match list pages by cursor instead (api/matches.py, matches.listing).

Both numbers are parsed by `inputs.parse_int` (ASCII digits, at least 1): anything else is a
400 with a detail (DRF alone would take `page_size=٣` as 3 and ignore `page_size=x`).

A page that does not exist (past the last, below 1, not a number) answers 400 with the list's
range, never 404 or 500. `KeyedPageNumber` fetches a page of a long ordered list in two steps:
the page's keys (an index-only scan steps over the rows before it), then those rows with their
joins, so the last page costs about what the first does.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

from armada_web.web.inputs import parse_int


class PageNumber(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_number(self, request: Request, paginator: Any) -> int | str:
        raw = request.query_params.get(self.page_query_param)
        if raw in (None, ""):
            return 1
        if raw in self.last_page_strings:
            return raw
        return parse_int(raw, what=self.page_query_param, minimum=1)

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw in (None, ""):
            return int(self.page_size or 50)
        return min(parse_int(raw, what=self.page_size_query_param, minimum=1), self.max_page_size)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"] = {"type": "integer", "minimum": 1}
            if parameter["name"] == self.page_size_query_param:
                parameter["description"] = f"results per page (at most {self.max_page_size}; more gives that many)"
        return parameters

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any] | None:
        try:
            return super().paginate_queryset(queryset, request, view)
        except NotFound:
            raw = request.query_params.get(self.page_query_param, "")[:30]
            pages = self.django_paginator_class(queryset, self.get_page_size(request) or 1).num_pages
            raise ValidationError(f"page {raw!r} does not exist: this list's pages run from 1 to {pages}") from None


class KeyedPageNumber(PageNumber):
    """Page numbers over a long ordered list, its rows loaded by `key` once the page's keys are known."""

    key = "pk"

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any] | None:
        rows: QuerySet[Any] = queryset
        keys = super().paginate_queryset(rows.values_list(self.key, flat=True), request, view)
        if keys is None:
            return None
        found = {getattr(row, self.key): row for row in rows.filter(**{f"{self.key}__in": keys})}
        return [found[key] for key in keys if key in found]


class LadderPages(KeyedPageNumber):
    key = "version_id"
