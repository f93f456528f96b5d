"""OpenAPI (/api/schema/, drf-spectacular): how our token authentication appears, the error body
every operation may answer, and `answers`, which lists an operation's answers (its successes and
every error status it can give) for `extend_schema(responses=...)`."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class NamedTokenScheme(OpenApiAuthenticationExtension):
    target_class = "armada_web.accounts.tokens.NamedTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Token <secret>`: create one on your profile page or with `armada login`"}


class ErrorSerializer(serializers.Serializer):
    """Every error of the API: one line saying what was wrong (api/errors.py shapes them all)."""

    detail = serializers.CharField(help_text="what was wrong, in one line")


#: What each error status means, anywhere in the API (the schema's descriptions).
ERRORS: dict[int, str] = {
    400: "the input is wrong: a field, a filter, a page number or a query parameter given twice (the detail says "
         "which)",
    401: "not signed in, or the Authorization header is not a valid token",
    403: "signed in, but this is not yours (or a session's request without its CSRF token)",
    404: "no such object, or one you may not see; or a page past the last",
    409: "the object's state does not allow it",
    413: "the request body is larger than the site accepts",
    414: "the request line (path and query string) is longer than the web server reads",
    415: "the body is not JSON (or, for uploads, a multipart form)",
    429: "too many requests or failed attempts; the detail says how long to wait",
    503: "a service the request needs is down; nothing was changed, try again",
}
#: What any operation can answer: a query parameter given twice is refused everywhere (api/parsers.py),
#: so is a wrong token, throttles apply everywhere, and the web server (gunicorn) refuses a request
#: line past its limit before the site sees it.
ALWAYS = (400, 401, 414, 429)


def answers(ok: dict[Any, Any], *errors: int) -> dict[Any, Any]:
    """`extend_schema(responses=...)` for one operation: its successful answers (`ok`, status ->
    serializer or OpenApiResponse) and each error status it can give (beside ALWAYS), all `{"detail"}`."""
    out = dict(ok)
    for code in sorted({*errors, *ALWAYS}):
        out[code] = OpenApiResponse(ErrorSerializer, description=ERRORS[code])
    return out


def empty_is_not_given(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular's post-processing hook: every query parameter of the API reads an empty value
    (`?page=`, `?game=`, as a form sends them) as one not given, so the schema says `allowEmptyValue`."""
    for item in result.get("paths", {}).values():
        for operation in item.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                if parameter.get("in") == "query":
                    parameter["allowEmptyValue"] = True
    return result


def known_fields_only(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular's post-processing hook: a JSON request body takes only the fields it states
    (`additionalProperties: false`), as its serializer refuses any other (`fields.Body`)."""
    schemas = result.get("components", {}).get("schemas", {})
    for item in result.get("paths", {}).values():
        for operation in item.values():
            body = operation.get("requestBody", {}) if isinstance(operation, dict) else {}
            ref = body.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
            name = ref.rpartition("/")[2]
            if name in schemas:
                schemas[name]["additionalProperties"] = False
    return result
