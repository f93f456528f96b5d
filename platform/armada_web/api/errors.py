"""Every API error is `{"detail": "one line"}` (field errors are folded into that line)."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_handler

from armada_web.web.errors import DomainError, http_status


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
        return Response({"detail": str(exc)}, status=http_status(exc))
    response = drf_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ValidationError) or not (isinstance(response.data, dict) and set(response.data) == {"detail"}):
        response.data = {"detail": "; ".join(_flatten(response.data)) or "bad request"}
    if response.status_code == status.HTTP_429_TOO_MANY_REQUESTS and getattr(exc, "wait", None):
        response.data = {"detail": f"too many requests; try again in {int(exc.wait) + 1} s"}  # type: ignore[attr-defined]
    return response
