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


#: The alphabets a name may not mix: a Cyrillic or Greek letter among Latin ones makes a look-alike
#: ("Red Fleet" with a Cyrillic "e", U+0435; "alice" with a Cyrillic "a", U+0430).
SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")


def mixed_alphabets_problem(text: str, *, what: str, other: str) -> str | None:
    """Why `text` could pass for `other` ("another team's name"), or None: it holds letters of two
    or more of the alphabets of SCRIPTS. The message names the alphabets and the letters that are
    not of the one most of the name is written in (a look-alike letter cannot be seen, only told).
    Other alphabets (Arabic, Han, ...) are not compared. A team's name and a new username apply it."""
    letters = [(i, c, script) for i, c in enumerate(text, 1) if c.isalpha()
               for script in SCRIPTS if unicodedata.name(c, "").startswith(script)]
    counts = {script: sum(1 for _i, _c, s in letters if s == script) for script in SCRIPTS}
    scripts = sorted(s.title() for s, n in counts.items() if n)
    if len(scripts) < 2:
        return None
    main = max(SCRIPTS, key=lambda s: counts[s])
    odd = [(i, c, s) for i, c, s in letters if s != main]
    said = ", ".join(f"{c!r} at {i} is {s.title()}" for i, c, s in odd[:3]) + (", ..." if len(odd) > 3 else "")
    return (f"{what} mixes alphabets ({', '.join(scripts)}): it could pass for {other}; write it in one "
            f"alphabet ({said})")


def is_variation_selector(c: str) -> bool:
    """U+FE00..U+FE0F and U+E0100..U+E01EF: they choose how the character before them is drawn."""
    return "\ufe00" <= c <= "\ufe0f" or "\U000e0100" <= c <= "\U000e01ef"


#: Characters a page draws as nothing (or as a blank) that are not format characters (those are
#: refused as invisible already): Unicode's other default-ignorable code points (the combining
#: grapheme joiner, Hangul fillers, Khmer's invisible vowels, Mongolian's variation selectors and
#: vowel separator) and the Braille blank.
BLANK_LOOKING = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u2800\u3164\uffa0")


def hidden_selector_problem(text: str, *, what: str, other: str) -> str | None:
    """Why `text` could pass for `other`, or None: it holds a character drawn as nothing
    (BLANK_LOOKING: "Red Fleet" + U+034F shows as "Red Fleet"), or a variation selector after a
    letter, a digit, a space or a punctuation mark, which draws it no differently ("Red Fleet" +
    U+FE0F). After a symbol a selector chooses an emoji's look ("❤" + U+FE0F) and stays, as in a
    keycap ("1" + U+FE0F + U+20E3)."""
    for i, c in enumerate(text):
        if c in BLANK_LOOKING:
            return (f"{what} holds a character drawn as nothing (U+{ord(c):04X}) at {i + 1}: it could pass for "
                    f"{other}; remove it")
        keycap = text[i + 1:i + 2] == "\u20e3"
        if is_variation_selector(c) and not keycap and (i == 0 or unicodedata.category(text[i - 1])[0] in "LNPZ"):
            after = f"after {text[i - 1]!r} at {i}" if i else "at its start"
            return (f"{what} holds an invisible variation selector (U+{ord(c):04X}) {after}: it could pass for "
                    f"{other}; remove it")
    return None


#: The most combining marks (Unicode categories Mn and Me) one character of a name carries once the
#: name is in NFC (D-S-31): NFC writes "e" + U+0301 as "é", so a mark left is one no letter has
#: built in, and two cover real writing (Thai's vowel and tone mark, Devanagari's nukta and virama,
#: Yoruba's "ẹ́", an emoji keycap); more is a stack ("Zalgo") that spills over the lines around it.
MAX_MARKS = 2


def stacked_marks_problem(text: str, *, what: str) -> str | None:
    """Why `text`, a name shown in lists, cannot be kept for its combining marks, or None: one
    character carries more than MAX_MARKS of them (in NFC, so a decomposed "é" counts none)."""
    longest = run = 0
    for c in unicodedata.normalize("NFC", text):
        run = run + 1 if unicodedata.category(c) in ("Mn", "Me") else 0
        longest = max(longest, run)
    if longest > MAX_MARKS:
        return (f"{what} has stacked accent marks ({longest} on one letter, at most {MAX_MARKS}): they spill "
                "over the lines above and below wherever it is shown")
    return None


#: Latin letters outside ASCII that a page draws like an ASCII one and that NFKD does not take
#: apart (D-S-34): dotless i and j, the IPA and small-capital forms.
LATIN_LOOKALIKES = str.maketrans({
    "\u0131": "i", "\u0237": "j", "\u0251": "a", "\u0261": "g", "\u0269": "i", "\u026a": "i",
    "\u029f": "l", "\u0274": "n", "\u0280": "r", "\u028f": "y", "\u1d00": "a", "\u1d04": "c",
    "\u1d05": "d", "\u1d07": "e", "\u1d0a": "j", "\u1d0b": "k", "\u1d0d": "m", "\u1d0f": "o",
    "\u1d18": "p", "\u1d1b": "t", "\u1d1c": "u", "\u1d20": "v", "\u1d21": "w", "\u1d22": "z",
    "\ua731": "s", "\u029c": "h", "\u0262": "g", "\u025b": "e", "\u0254": "o", "\u028b": "u",
})


#: Cyrillic and Greek letters a page draws as an ASCII one (from Unicode's confusables): a name
#: written wholly in them ("\u0440\u0435\u0440\u0435", Cyrillic, beside "pepe") reads as ASCII
#: although it mixes no alphabets (a security trial); a name with any other letter of theirs
#: ("\u0421\u0430\u0448\u0430") has no ASCII reading.
ALPHABET_LOOKALIKES = str.maketrans({
    # Cyrillic
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y", "\u0445": "x",
    "\u0455": "s", "\u0456": "i", "\u0458": "j", "\u04bb": "h", "\u04cf": "l", "\u0501": "d", "\u051b": "q",
    "\u051d": "w", "\u0410": "A", "\u0412": "B", "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H",
    "\u041e": "O", "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0423": "Y", "\u0425": "X", "\u0405": "S",
    "\u0406": "I", "\u0408": "J", "\u051a": "Q", "\u051c": "W",
    # Greek
    "\u03bf": "o", "\u03bd": "v", "\u03b1": "a", "\u03c1": "p", "\u03b9": "i", "\u03b3": "y",
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039a": "K",
    "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
})


def ascii_skeleton(text: str) -> str | None:
    """The ASCII name `text` could pass for, when it is not ASCII itself: its letters without their
    accents (NFKD), Latin look-alikes (LATIN_LOOKALIKES) and Cyrillic and Greek ones
    (ALPHABET_LOOKALIKES) as the ASCII letter, in lower case; None when `text` is ASCII already, or
    when something in it has no ASCII look-alike."""
    if text.isascii():
        return None
    bare = "".join(c for c in unicodedata.normalize("NFKD", _as_ascii(text))
                   if unicodedata.category(c) not in ("Mn", "Me"))
    bare = _as_ascii(bare).lower()
    return bare if bare.isascii() else None


def _as_ascii(text: str) -> str:
    return text.translate(LATIN_LOOKALIKES).translate(ALPHABET_LOOKALIKES)
