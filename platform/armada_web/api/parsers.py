"""The API's inputs before a view reads them: JSON bodies of bounded size and depth, query
strings that give each parameter once.

Query strings: every query parameter of the API is one value (the schema says so: none is an
array), while Django's `QueryDict.get` takes the last of `?page=1&page=2` and drops the others
silently. `OneValueEach` (middleware) answers such a request under /api/ with a 400 naming the
parameter, before the view or its authentication runs.

JSON bodies: a key given twice in one object is a 400 naming it (as a repeated query parameter).
DRF's JSONParser reads the whole body and hands it to `json.load`, which recurses once per
nesting level: a body of 100,000 `[` is a RecursionError (a 500) and a huge body is read into
memory whatever its size. `LimitedJSONParser` (the default parser, settings.REST_FRAMEWORK)
reads at most `ARMADA_API_JSON_MAX_BYTES` + 1 bytes (TooLarge, 413, past it) and measures the
depth of the brackets outside strings (Invalid, 400, past `ARMADA_API_JSON_MAX_DEPTH`) first.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.http.response import HttpResponseBase
from rest_framework.parsers import JSONParser

from armada_web.web.errors import Invalid, TooLarge

#: A JSON string (escapes included); what it holds is not structure.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nesting_depth(body: bytes) -> int:
    """The deepest nesting of arrays and objects in JSON text `body` (0 for a scalar)."""
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for byte in brackets:
        if byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


class LimitedJSONParser(JSONParser):
    """JSON bodies of bounded size and depth (see the module)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        config = settings.ARMADA
        body = stream.read(config.api_json_max_bytes + 1) if stream is not None else b""
        if len(body) > config.api_json_max_bytes:
            raise TooLarge(f"request body too large: more than {config.api_json_max_bytes} bytes of JSON")
        depth = nesting_depth(body)
        if depth > config.api_json_max_depth:
            raise Invalid(f"JSON nested too deeply: {depth} levels (at most {config.api_json_max_depth})")
        with contextlib.suppress(ValueError):  # not JSON: DRF's parse below says so
            json.loads(body, object_pairs_hook=_once_each)
        return super().parse(io.BytesIO(body), media_type, parser_context)


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different; Invalid naming a repeated one (as a query
    parameter given twice: `json` keeps the last silently)."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise Invalid(f"give each field of a JSON object once; repeated: {key[:40]}")
        seen[key] = value
    return seen


class OneValueEach:
    """Middleware: a query parameter given more than once under /api/ is a 400 (see the module)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.path.startswith("/api/"):
            repeated = sorted(name for name, values in request.GET.lists() if len(values) > 1)
            if repeated:
                names = ", ".join(name[:40] for name in repeated[:5])
                return JsonResponse({"detail": f"give each query parameter once; repeated: {names}"}, status=400)
        return self.get_response(request)
