"""Naming bot-supplied JSON values in messages the way their authors wrote them."""

from __future__ import annotations

import json
from typing import Any

#: JSON's names for the Python types a JSON document decodes to.
JSON_TYPES: dict[type, str] = {dict: "object", list: "array", str: "string", int: "number", float: "number",
                               bool: "boolean", type(None): "null"}


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type (object, array, string, number, boolean, null)."""
    return JSON_TYPES.get(type(value), type(value).__name__)


def shown(value: Any, limit: int = 40) -> str:
    """A value as JSON text (true, null, "3"), cut to `limit` characters."""
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
