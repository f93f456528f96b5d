"""The API's page-number lists, `?page=N&page_size=M`; the deep match list pages by cursor instead
(api/matches.py, matches.listing).

Both numbers are parsed by `inputs.parse_int` (ASCII digits) within the bounds the schema states
(`PAGE_PARAMETERS`): `page` from 1 to `paging.MAX_PAGE`, `page_size` from 1 to `MAX_PAGE_SIZE`;
anything else is a 400 with a detail (DRF alone would take `page_size=٣` as 3, ignore `page_size=x`
and shrink `page_size=5000` to its maximum, none of which the schema says).

A page within those bounds that the list does not have (past its last) answers 404 with the list's
range: the request is well formed, that page does not exist (the schema cannot know a list's
length). `KeyedPageNumber` fetches a page of a long ordered list in two steps: the page's keys (an
index-only scan steps over the rows before it), then those rows with their joins, so the last page
costs about what the first does.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

from armada_web.web.inputs import parse_int
from armada_web.web.paging import MAX_PAGE

#: The most rows a page of any API list holds (the match list's too: matches.listing.MAX_PAGE).
MAX_PAGE_SIZE = 200
#: Rows per page when `page_size` is not given (settings.REST_FRAMEWORK["PAGE_SIZE"]).
PAGE_SIZE = 50


def page_parameters(*, page_maximum: int = MAX_PAGE, page_description: str = "") -> list[dict[str, Any]]:
    """The OpenAPI query parameters `page` and `page_size`, with the bounds the site enforces."""
    return [
        {"name": "page", "in": "query", "required": False,
         "description": page_description or f"the page, from 1 (400 past {page_maximum}; 404 past the list's last)",
         "schema": {"type": "integer", "minimum": 1, "maximum": page_maximum}},
        {"name": "page_size", "in": "query", "required": False,
         "description": f"results per page, 1 to {MAX_PAGE_SIZE} ({PAGE_SIZE} when not given)",
         "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": PAGE_SIZE}},
    ]


def page_openapi_parameters(**bounds: Any) -> list[OpenApiParameter]:
    """`page_parameters` for `extend_schema(parameters=...)` (an operation that pages by itself)."""
    return [OpenApiParameter(p["name"], p["schema"], description=p["description"]) for p in page_parameters(**bounds)]


class PageNumber(PageNumberPagination):
    page_size = PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    last_page_strings = ()  # the schema's page is a number: `?page=last` is refused like any other word

    def get_page_number(self, request: Request, paginator: Any) -> int:
        raw = request.query_params.get(self.page_query_param)
        if raw in (None, ""):
            return 1
        return parse_int(raw, what=self.page_query_param, minimum=1, maximum=MAX_PAGE)

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw in (None, ""):
            return PAGE_SIZE
        return parse_int(raw, what=self.page_size_query_param, minimum=1, maximum=MAX_PAGE_SIZE)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return page_parameters()

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any] | None:
        try:
            return super().paginate_queryset(queryset, request, view)
        except NotFound:
            raw = request.query_params.get(self.page_query_param, "")[:30]
            pages = self.django_paginator_class(queryset, self.get_page_size(request)).num_pages
            raise NotFound(f"page {raw!r} does not exist: this list's pages run from 1 to {pages}") from None


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
