"""A bot's Python sources as a set of winnowed fingerprints (issue 28, copied code).

The sources are read with one pattern of Python's tokens (what the standard library's `tokenize`
yields on every source it reads, about three times faster) and normalised, so that what a
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
single generic statement never matches). A file that `tokenize` would refuse (a bracket, string
or line continuation open at its end, a dedent to a column never indented to: a version that
failed validation) is read the same way and marked as read as text.
"""

from __future__ import annotations

import builtins
import hashlib
import keyword
import re
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

#: Tokens per k-gram (the noise threshold: a shorter shared run never matches).
K = 15
#: k-grams per winnowing window (a shared run of K + W - 1 tokens always matches).
W = 10
#: The version of the normalisation, K and W: a stored fingerprint of another scheme is recomputed.
#: 2: one pattern reads the sources (the same tokens as `tokenize` where it reads them); 3: main.py
#: first, 256 KiB a file, what is not read kept (`integrity.fingerprints`): every version is read again.
SCHEME = 3

_KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))
_SEGMENT_STARTS = frozenset({"def", "class"})
_PREFIX = r"(?:[rR][bBfF]|[bBfF][rR]|[rRuUfFbB])?"
_DIGITS = r"\d(?:_?\d)*"
_TOKEN = re.compile(rf"""
    (?P<string>{_PREFIX}(?:'{{3}}[\s\S]*?(?:'{{3}}|\Z)|"{{3}}[\s\S]*?(?:"{{3}}|\Z)
        |'(?:\\[\s\S]|[^'\\\n])*'|"(?:\\[\s\S]|[^"\\\n])*"))   # strings (an unclosed quote is an operator)
    | (?P<continuation>\\\r?\n)
    | (?P<skip>\#[^\n]*|[ \t\f\r]+)                          # comments, spaces
    | (?P<end>\n)
    | (?P<number>0[xXoObB]\w*|(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?[jJ]?)
    | (?P<name>[^\W\d]\w*)
    | (?P<op>\*\*=|//=|>>=|<<=|\.\.\.|->|:=|[-+*/%&|^@<>=!]=|\*\*|//|<<|>>|\S)
""", re.VERBOSE)
_OPENS, _CLOSES = frozenset("([{"), frozenset(")]}")


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
    flag says `tokenize` would refuse the source (it was read as text)."""
    tokens, tokenizes = read(text)
    segments: list[list[Token]] = [[]]
    for token in tokens:
        if token.text in _SEGMENT_STARTS and token.line < 0:
            segments.append([])
        segments[-1].append(token if token.line > 0 else Token(token.text, -token.line))
    return [segment for segment in segments if segment], not tokenizes


def normalised(text: str) -> list[Token]:
    """The source's tokens normalised (module docstring), a logical line's first token with its line
    negated (for `segments_of`)."""
    return read(text)[0]


def read(text: str) -> tuple[list[Token], bool]:
    """`normalised`'s tokens, and whether `tokenize` reads the source: no bracket, string or line
    continuation open at its end, and every dedent back to a column indented to before."""
    tokens: list[Token] = []
    statement: list[Token] = []  # the strings opening a logical line: dropped if they are all of it
    line, depth, indents = 1, 0, [0]
    at_start, continued, tokenizes = True, False, True
    for found in _TOKEN.finditer(text):
        kind, word = found.lastgroup, found.group()
        start = line
        if kind == "end":
            line += 1
            if depth <= 0:  # as `tokenize`: a stray closing bracket ends a line too
                statement.clear()  # a string statement (a docstring, or a string used as a comment)
                at_start = True
            continue
        continued = kind == "continuation"
        if kind in ("skip", "continuation"):
            line += continued
            continue
        if at_start and depth == 0:
            tokenizes = _indented(text, found.start(), indents) and tokenizes
        if kind == "string":
            line += word.count("\n")
            tokenizes = tokenizes and _closed(word)
            if at_start or statement:
                statement.append(Token("$", -start if at_start else start))
                at_start = False
                continue
            word = "$"
        elif statement:
            tokens.extend(statement)  # the strings begin an expression: they count
            statement.clear()
        if kind == "number":
            word = "#"
        elif kind == "name":
            word = word if word in _KEPT_NAMES else "N"
        elif word in _OPENS:
            depth += 1
        elif word in _CLOSES:
            depth -= 1
        tokens.append(Token(word, -start if at_start else start))
        at_start = False
    return tokens, tokenizes and depth == 0 and not continued


def _indented(text: str, at: int, indents: list[int]) -> bool:
    """Track a logical line's indentation as `tokenize` does (a tab to the next multiple of 8, a
    form feed back to 0); False for a dedent to a column that no enclosing line had."""
    column = 0
    for char in text[text.rfind("\n", 0, at) + 1:at]:
        column = (column // 8 + 1) * 8 if char == "\t" else 0 if char == "\f" else column + 1
    if column > indents[-1]:
        indents.append(column)
    while column < indents[-1]:
        indents.pop()
    return column == indents[-1]


def _closed(string: str) -> bool:
    """A triple-quoted string that reaches the end of the source unclosed is not closed."""
    body = string.lstrip("rRbBfFuU")
    quote = body[:3]
    return quote not in ("'''", '"""') or (len(body) >= 6 and body.endswith(quote))


def gram_hash(gram: list[Token]) -> int:
    """The stable 63-bit hash of a k-gram's token texts."""
    return _digest("\x1f".join(t.text for t in gram))


def _digest(joined: str) -> int:
    return int.from_bytes(hashlib.blake2b(joined.encode(), digest_size=8).digest(), "little") >> 1


def gram_hashes(texts: list[str]) -> list[int]:
    """`gram_hash` of every k-gram of a segment's token texts, in order: each a slice of the
    segment's text joined once (the same bytes `gram_hash` joins)."""
    joined = "\x1f".join(texts).encode()
    starts = [0]
    for text in texts:
        starts.append(starts[-1] + len(text.encode()) + 1)  # where the next token's bytes begin
    blake2b, from_bytes = hashlib.blake2b, int.from_bytes
    return [from_bytes(blake2b(joined[starts[i]:starts[i + K] - 1], digest_size=8).digest(), "little") >> 1
            for i in range(len(texts) - K + 1)]


def winnow(segment: list[Token], file: str) -> list[Mark]:
    """The winnowed marks of one segment: the smallest k-gram hash of each window of W (the
    rightmost on a tie), each kept once; a segment of fewer than W k-grams keeps its smallest."""
    if len(segment) < K:
        return []
    hashes = gram_hashes([t.text for t in segment])
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
