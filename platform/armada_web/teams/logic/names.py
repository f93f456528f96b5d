"""What a team's name may be (pure: no Django)."""

from __future__ import annotations

import unicodedata
from typing import Any

from armada_web.web.logic.text import (
    has_invisible,
    hidden_selector_problem,
    mixed_alphabets_problem,
    stacked_marks_problem,
)

NAME_MIN = 3
NAME_MAX = 40
#: The most characters a form or the API reads of a name: a longer one is refused before it is read,
#: in the rule's own words (FAR_TOO_LONG), and any other length is left to `name_problem`.
NAME_READ_MAX = NAME_MAX * 4
FAR_TOO_LONG = (f"the team's name must be {NAME_MIN} to {NAME_MAX} characters long "
                f"(it has more than {NAME_READ_MAX})")


#: How the site names a user whose account is gone (an owner, a member in results, a decision).
DELETED_USER = "(deleted user)"

#: Names the site shows for what is no one's (D-S-9's team of deleted accounts' bots, an owner whose
#: account is gone): no team may take them, nor any name that starts like them, in any case.
RESERVED = ("(deleted accounts)", DELETED_USER)
RESERVED_START = "(deleted"


def name_problem(name: Any) -> str | None:
    """Why `name` cannot name a team, or None when it can: 3..40 characters, no control or format
    characters, no spaces at either end (the comparison with other names ignores case), and nothing
    that lets it pass for another team's name on a page: single spaces only, letters as NFKC writes
    them (no full-width or styled forms), one of the Latin, Cyrillic and Greek alphabets at most
    (`mixed_alphabets_problem`, which a new username follows too), no stack of accent marks
    (`stacked_marks_problem`, D-S-31)."""
    if not isinstance(name, str):
        return "the team's name must be text"
    if has_invisible(name):
        return "the team's name may not hold control characters (tabs, new lines, invisible marks)"
    if not name.strip():
        return "a team needs a name"
    if name != name.strip():
        return "the team's name may not start or end with a space"
    if not NAME_MIN <= len(name) <= NAME_MAX:
        return f"the team's name must be {NAME_MIN} to {NAME_MAX} characters long (it has {len(name)})"
    if " ".join(name.split()) != name or any(c.isspace() and c != " " for c in name):
        return "the team's name separates its words with single plain spaces (a page shows two as one)"
    if name.casefold() in RESERVED or name.casefold().startswith(RESERVED_START):
        return f"{name!r} is what the site shows for deleted accounts: choose another name"
    plain = unicodedata.normalize("NFKC", name)
    if plain != name:
        return f"write the team's name with plain characters: {plain!r} (a page shows the two alike)"
    return (mixed_alphabets_problem(name, what="the team's name", other="another team's name")
            or hidden_selector_problem(name, what="the team's name", other="another team's name")
            or stacked_marks_problem(name, what="the team's name"))
