"""What a team's name may be (pure: no Django)."""

from __future__ import annotations

import unicodedata
from typing import Any

NAME_MIN = 3
NAME_MAX = 40


def name_problem(name: Any) -> str | None:
    """Why `name` cannot name a team, or None when it can: 3..40 characters, no control or format
    characters, no spaces at either end (the comparison with other names ignores case)."""
    if not isinstance(name, str):
        return "the team's name must be text"
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for c in name):
        return "the team's name may not hold control characters (tabs, new lines, invisible marks)"
    if name != name.strip():
        return "the team's name may not start or end with a space"
    if not NAME_MIN <= len(name) <= NAME_MAX:
        return f"the team's name must be {NAME_MIN} to {NAME_MAX} characters long (it has {len(name)})"
    return None
