"""Every list of the API: DRF's page-number pagination, `?page=N&page_size=M` (at most 200).

Both numbers are parsed by `inputs.parse_int` (ASCII digits, at least 1): anything else is a
400 with a detail (DRF alone would take `page_size=٣` as 3 and ignore `page_size=x`); a page
past the last is a 404.
"""

from __future__ import annotations

from typing import Any

from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

from armada_web.inputs import parse_int


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
