"""The site while its database is briefly unreachable: 503 with a message, never a traceback.

A view that cannot reach the database (a restart, a network blip) answers 503 and says to try again
in a moment: JSON `{"detail": ...}` under /api/, a plain page elsewhere (no template: rendering the
site's pages would ask the database again). The next request connects anew (Django closes a
broken connection at the end of each request).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db.utils import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

log = logging.getLogger(__name__)
MESSAGE = "the database is unreachable for a moment; try again in a minute"
PAGE = ("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Armada: try again in a minute"
        "</title></head><body><h1>Armada is back in a minute</h1><p>" + MESSAGE + ".</p></body></html>")


class DatabaseDownMiddleware:
    """Answer 503 for a view that failed because the database could not be reached."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        log.warning("%s %s: the database is unreachable (%s)", request.method, request.path, exception)
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse({"detail": MESSAGE}, status=503)
        else:
            response = HttpResponse(PAGE, status=503)
        response["Retry-After"] = "30"
        return response
