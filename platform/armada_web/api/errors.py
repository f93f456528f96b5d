"""Every API error is `{"detail": "one line"}` (field errors are folded into that line): DRF's
through `exception_handler`, Django's own (404, CSRF, 500) through the handlers of
`armada_web.pages.errors`, and anything else under /api/ through the `JsonErrors` middleware."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, JsonResponse
from django.http.response import HttpResponseBase
from rest_framework import status
from rest_framework.exceptions import ParseError, UnsupportedMediaType, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_handler

from armada_web.web.errors import DomainError, RateLimited, http_status
from armada_web.web.inputs import printable


def _flatten(data: Any, prefix: str = "") -> list[str]:
    if isinstance(data, dict):
        out = []
        for key, value in data.items():
            label = "" if key in ("non_field_errors", "detail") else f"{prefix}{key}: "
            out.extend(_flatten(value, label))
        return out
    if isinstance(data, list):
        return [line for item in data for line in _flatten(item, prefix)]
    return [f"{prefix}{data}"]


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, with the domain's errors mapped (the API's one place for it) and every body
    shaped `{"detail": ...}`."""
    if isinstance(exc, DomainError):
        wait_s = exc.retry_after_s if isinstance(exc, RateLimited) else None
        return Response({"detail": printable(str(exc))}, status=http_status(exc),
                        headers={"Retry-After": str(max(1, math.ceil(wait_s)))} if wait_s is not None else None)
    default = re.fullmatch(r"No (\w+) matches the given query\.", str(exc)) if isinstance(exc, Http404) else None
    if default:  # get_object_or_404's words: the API's own, as for every other missing object
        exc = Http404(f"no such {default.group(1).lower()}")
    unknown_format = _unknown_format(exc, context)
    if unknown_format:  # DRF's content negotiation raises a bare Http404 ("Not found."): say what is wrong
        exc = Http404(unknown_format)
    response = drf_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ValidationError) or not (isinstance(response.data, dict) and set(response.data) == {"detail"}):
        response.data = {"detail": "; ".join(_flatten(response.data)) or "bad request"}
    # a refusal may repeat what the request sent: a lone surrogate of a JSON string (`"\\ud800"`)
    # would fail the renderer's UTF-8 (a 500 in place of the 400)
    response.data = {"detail": printable(str(response.data["detail"]))}
    if isinstance(exc, UnsupportedMediaType):
        response.data = {"detail": f"{response.data['detail'].rstrip('.')}: {_how_to_send(context)}"}
    elif isinstance(exc, ParseError) and "multipart" in str(exc).lower():  # ("Invalid boundary in multipart")
        response.data = {"detail": f"{response.data['detail'].rstrip('.')}: the multipart body is cut or has no "
                                   "boundary (a Content-Type header set by hand?); let your HTTP library write the "
                                   "form and its header (curl -F file=@bot.zip)"}
    if response.status_code == status.HTTP_429_TOO_MANY_REQUESTS and getattr(exc, "wait", None):
        response.data = {"detail": f"too many requests; try again in {int(exc.wait) + 1} s"}  # type: ignore[attr-defined]
    return response


def _unknown_format(exc: Exception, context: dict[str, Any]) -> str:
    """The 404 of a `?format=` no renderer of the view has (`?format=xml`), in words ("" for any other
    error): DRF's content negotiation raises a bare Http404, which read "Not found." of a bot that exists."""
    request, view = context.get("request"), context.get("view")
    if not isinstance(exc, Http404) or str(exc) or request is None or view is None:
        return ""
    asked = request.query_params.get("format") if hasattr(request, "query_params") else None
    known = [renderer.format for renderer in getattr(view, "renderer_classes", [])]
    if not asked or asked in known:
        return ""
    return (f"no format {printable(asked[:40])!r} here: ?format= takes {' or '.join(known)} (or leave it out, or "
            "send an Accept header)")


def _how_to_send(context: dict[str, Any]) -> str:
    """What a 415 adds to DRF's "Unsupported media type ... in request.": the body this operation takes
    (JSON, or an upload's multipart form), as the schema says, so the refusal says how to fix it."""
    request = context.get("request")
    types = [parser.media_type for parser in getattr(request, "parsers", None) or []]
    if "multipart/form-data" in types:
        return ('send the bot as a multipart form field named "file" (with a file name, e.g. '
                "curl -F file=@main.py)")
    if types and all("json" in media for media in types):
        return "send the body as a JSON object, with the header Content-Type: application/json"
    return "this operation takes " + (", ".join(types) or "no body")


#: Headers an error answer keeps when `JsonErrors` makes it JSON.
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate", "Vary")


class JsonErrors:
    """Middleware: an error under /api/ that is not JSON (a 405 or 413 of a view outside DRF, a
    page a handler rendered) becomes `{"detail": ...}` with its status. DRF's own answers keep
    their content negotiation (the browsable API), and with DEBUG on Django's technical 500 stays."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        code = response.status_code
        if (code < 400 or not request.path.startswith("/api/") or response.streaming
                or "json" in response.get("Content-Type", "") or getattr(response, "accepted_renderer", None)
                or (settings.DEBUG and code >= 500)):
            return response
        detail = f'method "{request.method}" not allowed' if code == 405 else response.reason_phrase.lower()
        answer = JsonResponse({"detail": detail}, status=code)
        for header in KEPT_HEADERS:
            if header in response:
                answer[header] = response[header]
        answer.cookies = response.cookies
        return answer
