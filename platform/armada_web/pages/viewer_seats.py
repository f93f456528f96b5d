"""The viewer's `data-armada-seats` (docs/viewer.md): each seat under the name the site shows for it,
and whether it is the viewing user's own (marked "you")."""

from __future__ import annotations

import json


def seats_attribute(names: dict[int, str], yours: set[int]) -> str:
    """JSON for data-armada-seats: {"1": {"name": ..., "you": bool}, ...} (the template escapes it)."""
    return json.dumps({str(seat): {"name": name, "you": seat in yours} for seat, name in sorted(names.items())},
                      ensure_ascii=False)
