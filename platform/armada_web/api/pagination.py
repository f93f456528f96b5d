"""Every list of the API: DRF's page-number pagination, `?page=N&page_size=M` (at most 200)."""

from rest_framework.pagination import PageNumberPagination


class PageNumber(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200
