"""Characters a name may not hold (pure: no Django)."""

from __future__ import annotations

import unicodedata

#: Unicode categories no name holds: controls (Cc), format characters (Cf: direction marks and
#: overrides such as U+202E, zero-width spaces and joiners), surrogates, private use, unassigned,
#: line and paragraph separators. Each turns, hides or breaks the text around it on a page.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def has_invisible(text: str) -> bool:
    """Whether `text` holds a character of `INVISIBLE_CATEGORIES` (a team's or a token's name may not)."""
    return any(unicodedata.category(c) in INVISIBLE_CATEGORIES for c in text)
