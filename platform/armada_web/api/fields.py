"""Small pieces the API's serializers share."""

from __future__ import annotations

from typing import Any


def absolute(context: dict[str, Any], path: str) -> str:
    """`path` as an absolute URL of the request in `context` (the path alone without one)."""
    request = context.get("request")
    return request.build_absolute_uri(path) if request else path
