"""Strict readers for the raw Galaxy JSON (docs/games/galaxy-schema.md).

Every reader takes the value and a `where` label ("observation.planets[3]") so that a
malformed message fails with a message naming the exact place.
"""

from __future__ import annotations

from typing import Any


def need_dict(value: Any, where: str) -> dict[str, Any]:
    """`value` if it is a JSON object, else a ValueError naming `where`."""
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def need_list(value: Any, where: str) -> list[Any]:
    """`value` if it is a JSON array, else a ValueError naming `where`."""
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def need_key(data: dict[str, Any], key: str, where: str) -> Any:
    """`data[key]`, or a ValueError saying which key is missing where."""
    if key not in data:
        raise ValueError(f"{where}: missing key {key!r}")
    return data[key]


def need_int(value: Any, where: str, *, minimum: int | None = None) -> int:
    """`value` if it is an integer (booleans are not), optionally at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{where}: expected an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{where}: must be at least {minimum}, got {value}")
    return value


def int_field(data: dict[str, Any], key: str, where: str, *, minimum: int | None = None) -> int:
    """The integer under `key` of `data`."""
    return need_int(need_key(data, key, where), f"{where}.{key}", minimum=minimum)


def optional_int(data: dict[str, Any], key: str, where: str) -> int | None:
    """The integer under `key`, or None when the key holds null or is absent."""
    value = data.get(key)
    return None if value is None else need_int(value, f"{where}.{key}")


def str_list(value: Any, where: str) -> tuple[str, ...]:
    """A list of strings as a tuple."""
    items = need_list(value, where)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise ValueError(f"{where}[{i}]: expected a string, got {item!r}")
    return tuple(items)
