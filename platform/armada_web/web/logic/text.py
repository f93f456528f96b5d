"""Characters a name or a shown text may not hold (pure: no Django): controls, direction marks,
invisible marks. `web.inputs` applies them to what requests bring."""

from __future__ import annotations

import unicodedata

#: Unicode categories no name holds: controls (Cc), format characters (Cf: direction marks and
#: overrides such as U+202E, zero-width spaces and joiners), surrogates, private use, unassigned,
#: line and paragraph separators. Each turns, hides or breaks the text around it on a page.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def has_invisible(text: str) -> bool:
    """Whether `text` holds a character of `INVISIBLE_CATEGORIES` (a team's or a token's name may not)."""
    return any(unicodedata.category(c) in INVISIBLE_CATEGORIES for c in text)


def has_control(text: str) -> bool:
    """Whether `text` holds a control character (below 32, DEL, or the C1 controls U+0080..U+009F,
    such as U+009B, an escape to a terminal): none belongs in a name, a note or a search."""
    return any(ord(c) < 32 or 127 <= ord(c) <= 159 for c in text)


#: The marks that set the direction of the text around them (U+061C, U+200E, U+200F, U+202A..U+202E,
#: U+2066..U+2069): in a name, an override turns the text after it (on a list, in a title), so the name
#: reads as another or hides part of itself.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def has_bidi_control(text: str) -> bool:
    """Whether `text` holds a direction mark or override (BIDI_CONTROLS): none belongs in a name."""
    return any(c in BIDI_CONTROLS for c in text)
