"""The links of a paged list on a page: the current query with one page parameter changed."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest

from armada_web.web.paging import Paged


@dataclass(frozen=True)
class Pager:
    """What `_pager.html` shows: page N of M and the neighbours' links (empty: none)."""

    number: int
    pages: int
    previous: str
    next: str


def pager(request: HttpRequest, page: Paged, param: str = "page") -> Pager:
    def link(number: int) -> str:
        query = request.GET.copy()
        query[param] = str(number)
        return f"?{query.urlencode()}"

    return Pager(page.number, page.pages, link(page.number - 1) if page.has_previous else "",
                 link(page.number + 1) if page.has_next else "")
