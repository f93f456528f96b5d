"""A bot's Python sources as a set of winnowed fingerprints (issue 28, copied code).

The sources are read with the standard library's `tokenize` and normalised, so that what a
copier changes cheaply changes nothing here:
- every identifier becomes one placeholder `N` (keywords and the built-in names stay as they are),
  every number `#`, every string `$`;
- comments, blank lines, line breaks, indentation and docstrings (a string that is a statement
  of its own) are dropped, so formatting and comments do not count;
- the token stream is cut into segments at each `def` and `class` that starts a line, and no
  k-gram spans two segments, so reordering functions or methods changes no fingerprint.

Each run of K tokens of a segment (a k-gram) is hashed (blake2b, 63 bits: stable between
processes, fits a signed 64-bit column), and winnowing (Schleimer, Wilkerson and Aiken, 2003)
keeps the smallest hash of every window of W consecutive k-grams. That guarantees that any
shared run of at least K + W - 1 = 24 normalised tokens (about three lines of code) gives both
sources at least one common fingerprint, and that nothing shorter than K = 15 tokens does (a
single generic statement never matches). A file that does not tokenize (a version that failed
validation) is read as text: words and punctuation, normalised the same way.
"""

from __future__ import annotations

import builtins
import hashlib
import io
import keyword
import re
import struct
import tokenize
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

#: Tokens per k-gram (the noise threshold: a shorter shared run never matches).
K = 15
#: k-grams per winnowing window (a shared run of K + W - 1 tokens always matches).
W = 10
#: The version of the normalisation, K and W: a stored fingerprint of another scheme is recomputed.
SCHEME = 1

_KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))
_DROPPED = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                      tokenize.ENCODING, tokenize.ENDMARKER})
_LINE_ENDS = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})  # a logical line's end
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)  # Python 3.12+: an f-string is several tokens
_FSTRING_END = getattr(tokenize, "FSTRING_END", -1)
_STRINGS = frozenset({tokenize.STRING, _FSTRING_START})
_SEGMENT_STARTS = frozenset({"def", "class"})
_TEXT_TOKEN = re.compile(r"""
    (?P<string>[rRbBfFuU]{0,2}(?:'{3}[\s\S]*?(?:'{3}|\Z)|"{3}[\s\S]*?(?:"{3}|\Z)
        |'(?:\\.|[^'\\\n])*'?|"(?:\\.|[^"\\\n])*"?))        # strings (an unclosed one ends its line)
    | (?P<skip>\#[^\n]*|\\\n|[ \t\f\r]+)                   # comments, continuations, spaces
    | (?P<end>\n)
    | (?P<name>[A-Za-z_]\w*) | (?P<number>\.?\d[\w.]*)
    | (?P<op>\*\*=|//=|>>=|<<=|\.\.\.|->|:=|[-+*/%&|^@<>=!]=|\*\*|//|<<|>>|\S)
""", re.VERBOSE)


class Token(NamedTuple):
    """One normalised token and the line it starts on (a tuple: a version has thousands)."""

    text: str
    line: int


@dataclass(frozen=True)
class Mark:
    """One kept fingerprint: the k-gram's hash and where it lies (file, first and last line)."""

    hash: int
    file: str
    first: int
    last: int


@dataclass(frozen=True)
class Fingerprint:
    """A version's fingerprint: its marks (in file and line order), how many normalised tokens its
    sources had, and the files read as text because they did not tokenize."""

    marks: tuple[Mark, ...]
    tokens: int
    text_files: tuple[str, ...] = ()

    @property
    def hashes(self) -> frozenset[int]:
        """The distinct fingerprint hashes."""
        return frozenset(mark.hash for mark in self.marks)


def fingerprint(files: Mapping[str, str]) -> Fingerprint:
    """The fingerprint of a bot's sources (`{path: text}`, only its `.py` files matter)."""
    marks: list[Mark] = []
    tokens = 0
    text_files: list[str] = []
    for path in sorted(files):
        segments, as_text = segments_of(files[path])
        if as_text:
            text_files.append(path)
        for segment in segments:
            tokens += len(segment)
            marks.extend(winnow(segment, path))
    return Fingerprint(tuple(marks), tokens, tuple(text_files))


def all_grams(files: Iterable[str]) -> frozenset[int]:
    """Every k-gram hash (not only the winnowed ones) of some sources: the shared code's set."""
    hashes: set[int] = set()
    for text in files:
        for segment in segments_of(text)[0]:
            hashes.update(gram_hash(segment[i:i + K]) for i in range(len(segment) - K + 1))
    return frozenset(hashes)


def segments_of(text: str) -> tuple[list[list[Token]], bool]:
    """The normalised tokens of one source cut at each `def` and `class` that starts a line; the
    flag says the source did not tokenize and was read as text."""
    try:
        tokens = list(normalised(text))
    except (tokenize.TokenError, SyntaxError, UnicodeError, ValueError):
        tokens, as_text = list(_text_tokens(text)), True
    else:
        as_text = False
    segments: list[list[Token]] = [[]]
    for token in tokens:
        if token.text in _SEGMENT_STARTS and token.line < 0:
            segments.append([])
        segments[-1].append(token if token.line > 0 else Token(token.text, -token.line))
    return [segment for segment in segments if segment], as_text


def normalised(text: str) -> Iterator[Token]:
    """The source's tokens normalised (module docstring); a token that starts a logical line has
    its line negated, for `segments_of`."""
    raw = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type != tokenize.ERRORTOKEN
           or not t.string.isspace()]
    at_start = True
    depth = 0  # inside an f-string (3.12+): its parts are one string
    i = 0
    while i < len(raw):
        token = raw[i]
        i += 1
        if depth:
            depth += (token.type == _FSTRING_START) - (token.type == _FSTRING_END)
            continue
        if token.type in _DROPPED:
            at_start = at_start or token.type in _LINE_ENDS
            continue
        if at_start and token.type in _STRINGS and _is_statement(raw, i - 1):
            i = _skip_strings(raw, i - 1)  # a docstring, or a string used as a comment
            continue
        line = -token.start[0] if at_start else token.start[0]
        at_start = False
        if token.type == _FSTRING_START:
            depth = 1
            yield Token("$", line)
        elif token.type == tokenize.NAME:
            yield Token(token.string if token.string in _KEPT_NAMES else "N", line)
        elif token.type == tokenize.NUMBER:
            yield Token("#", line)
        elif token.type == tokenize.STRING:
            yield Token("$", line)
        else:
            yield Token(token.string, line)


def _skip_strings(raw: list[tokenize.TokenInfo], i: int) -> int:
    """The index after the string statement starting at `i` (adjacent strings concatenate)."""
    depth = 0
    while i < len(raw):
        token = raw[i]
        if depth:
            depth += (token.type == _FSTRING_START) - (token.type == _FSTRING_END)
        elif token.type == _FSTRING_START:
            depth = 1
        elif token.type not in (tokenize.STRING, tokenize.NL, tokenize.COMMENT):
            return i
        i += 1
    return i


def _is_statement(raw: list[tokenize.TokenInfo], i: int) -> bool:
    """The strings starting at `i` make a statement of their own (nothing follows them on the line)."""
    j = _skip_strings(raw, i)
    return j >= len(raw) or raw[j].type in (tokenize.NEWLINE, tokenize.ENDMARKER)


def _text_tokens(text: str) -> Iterator[Token]:
    """A source that does not tokenize, read with a lenient pattern of Python's tokens (strings,
    comments, names, numbers, operators) and normalised alike: a line's first token has its line
    negated (as in `normalised`), and a string that fills its line is dropped (a docstring)."""
    line = 1
    at_start = True
    depth = 0  # open brackets: a line break inside them does not end the line
    for found in _TEXT_TOKEN.finditer(text):
        kind = found.lastgroup
        word = found.group()
        start = line
        line += word.count("\n")
        if kind == "end":
            at_start = at_start or depth == 0
            continue
        if kind == "skip":
            continue
        if kind == "string":
            after = text[found.end():].split("\n", 1)[0].split("#", 1)[0]
            if at_start and not after.strip():
                continue
            word = "$"
        elif kind == "number":
            word = "#"
        elif kind == "name" and word not in _KEPT_NAMES:
            word = "N"
        elif word in "([{" or word in ")]}":
            depth = max(0, depth + (1 if word in "([{" else -1))
        yield Token(word, -start if at_start else start)
        at_start = False


def gram_hash(gram: list[Token]) -> int:
    """The stable 63-bit hash of a k-gram's token texts."""
    return _digest("\x1f".join(t.text for t in gram))


def _digest(joined: str) -> int:
    return int.from_bytes(hashlib.blake2b(joined.encode(), digest_size=8).digest(), "little") >> 1


def winnow(segment: list[Token], file: str) -> list[Mark]:
    """The winnowed marks of one segment: the smallest k-gram hash of each window of W (the
    rightmost on a tie), each kept once; a segment of fewer than W k-grams keeps its smallest."""
    if len(segment) < K:
        return []
    texts = [t.text for t in segment]
    hashes = [_digest("\x1f".join(texts[i:i + K])) for i in range(len(segment) - K + 1)]
    window = min(W, len(hashes))
    chosen: list[int] = []
    best = -1
    for start in range(len(hashes) - window + 1):
        end = start + window - 1
        if best < start:  # the smallest left the window: look through it again (rightmost on a tie)
            best = start
            for j in range(start + 1, end + 1):
                if hashes[j] <= hashes[best]:
                    best = j
        elif hashes[end] <= hashes[best]:
            best = end
        if not chosen or chosen[-1] != best:
            chosen.append(best)
    return [Mark(hashes[i], file, segment[i].line, segment[i + K - 1].line) for i in chosen]


def pack(hashes: Iterable[int]) -> bytes:
    """The distinct hashes, sorted, as 8 little-endian bytes each (what the database keeps)."""
    values = sorted(set(hashes))
    return struct.pack(f"<{len(values)}q", *values)


def unpack(data: bytes) -> list[int]:
    """The sorted hashes `pack` wrote."""
    return list(struct.unpack(f"<{len(data) // 8}q", data))
