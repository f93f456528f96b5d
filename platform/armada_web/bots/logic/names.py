"""Bot names: 3..40 characters of ASCII letters (a-z, A-Z), digits, `-` and `_`, not digits alone
(`armada challenge 012` and `?bot=012` read digits as a bot's id)."""

from __future__ import annotations

import re
from typing import Any

#: The one rule (the API's schema states it as its pattern; armada.cli.botinfo.SITE_NAME_RE is the
#: SDK's copy): 3 to 40 of A-Z a-z 0-9 - _, not digits alone.
NAME_RE = re.compile(r"(?![0-9]+$)[A-Za-z0-9_-]{3,40}")
#: The longest name, and the rule in the words forms and the API's schema show.
NAME_MAX = 40
NAME_RULE = "3 to 40 ASCII letters (a-z, A-Z), digits, '-' and '_', not digits alone; unique per game"


def name_problem(name: Any) -> str | None:
    """None for a good name, else the message saying what is wrong."""
    if not isinstance(name, str) or not name:
        return "a bot needs a name"
    if len(name) < 3 or len(name) > 40:
        return f"a bot name has 3 to 40 characters (this one has {len(name)})"
    if name.isascii() and name.isdigit():
        return (f"a bot name of digits alone reads as a bot's id (in `armada challenge {name}` and the match "
                "list's filter): add a letter, '-' or '_'")
    if not NAME_RE.fullmatch(name):
        return "a bot name may hold only ASCII letters (a-z, A-Z), digits, '-' and '_'"
    return None
