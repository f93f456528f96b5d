"""Copied code, the pure part: the shared code that never counts, the similarity of two
fingerprints, the matching passages, and the inverted index that finds a version's matches
among thousands without comparing pairs (docs/integrity.md).

- **Shared code** (`shared_hashes`): every k-gram of the SDK's starter bots, of its bot library
  (`armada.bot`) and of the Python examples in the bot author's documents (`armada.docs`). It is
  taken out of both sides before they are compared, so a bot derived from a starter is not a
  copy of another derived from it: only what each author added counts.
- **Similarity** (`Similarity`): of what is left (a version's *own* fingerprints), the share
  that the other version holds too, from the smaller side: `shared / min(own_a, own_b)`. A copy
  with dead code added keeps the whole original inside it, so it scores as high as a plain
  copy; Jaccard and the containment each way are kept as evidence.
- **Tiny bots never count**: a side with fewer than `MIN_OWN` own fingerprints (a few lines
  beyond the starter) scores 0.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from armada import botspec, docs
from armada_web.integrity.logic.fingerprints import Fingerprint, Mark, all_grams

#: Own fingerprints a version needs before it can be (or be copied as) a copy: about ten lines
#: of code of its own beyond the shared code.
MIN_OWN = 20
#: The score from which a pair is a copy (the bench and tests/integrity measure it: planted copies
#: score 0.7 and more, honest pairs below 0.3).
THRESHOLD = 0.5
#: Passages closer than this many lines are one passage.
PASSAGE_GAP = 3
#: Passages kept as a finding's evidence (the longest).
MAX_PASSAGES = 20

_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def shared_sources() -> Iterator[str]:
    """The code everyone shares: the starters of every game, the bot library, the documents' examples."""
    for game in botspec.GAMES:
        for path in sorted(botspec.starters_dir(game).glob("*.py")):
            yield path.read_text(encoding="utf-8")
    for path in sorted((Path(botspec.__file__).resolve().parent / "bot").rglob("*.py")):
        yield path.read_text(encoding="utf-8")
    for path in sorted(docs.ROOT.rglob("*.md")):
        yield from _PYTHON_BLOCK.findall(path.read_text(encoding="utf-8"))


@functools.cache
def shared_hashes() -> frozenset[int]:
    """Every k-gram hash of the shared code (computed once per process)."""
    return all_grams(shared_sources())


@dataclass(frozen=True)
class Similarity:
    """How much two versions' own fingerprints overlap."""

    shared: int
    own_a: int
    own_b: int

    @property
    def tiny(self) -> bool:
        """One side has too little code of its own to be a copy or to be copied."""
        return min(self.own_a, self.own_b) < MIN_OWN

    @property
    def score(self) -> float:
        """The share of the smaller side's own fingerprints the other holds too; 0 for a tiny side."""
        return 0.0 if self.tiny else self.shared / min(self.own_a, self.own_b)

    @property
    def jaccard(self) -> float:
        union = self.own_a + self.own_b - self.shared
        return self.shared / union if union else 0.0

    @property
    def a_in_b(self) -> float:
        """The share of a's own fingerprints found in b."""
        return self.shared / self.own_a if self.own_a else 0.0

    @property
    def b_in_a(self) -> float:
        return self.shared / self.own_b if self.own_b else 0.0


def own(hashes: Iterable[int], shared: frozenset[int]) -> frozenset[int]:
    """The fingerprints that are not shared code."""
    return frozenset(hashes) - shared


def similarity(a: Iterable[int], b: Iterable[int], shared: frozenset[int]) -> Similarity:
    """The similarity of two fingerprints' hashes once the shared code is taken out."""
    own_a, own_b = own(a, shared), own(b, shared)
    return Similarity(len(own_a & own_b), len(own_a), len(own_b))


@dataclass(frozen=True)
class Span:
    """Lines `first`..`last` of one file."""

    file: str
    first: int
    last: int

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "first": self.first, "last": self.last}


@dataclass(frozen=True)
class Passage:
    """Matching code side by side: where it is in a, where in b, and how many fingerprints tie them."""

    a: Span
    b: Span
    fingerprints: int

    def as_dict(self) -> dict[str, object]:
        return {"a": self.a.as_dict(), "b": self.b.as_dict(), "fingerprints": self.fingerprints}


def passages(a: Fingerprint, b: Fingerprint, shared: frozenset[int]) -> list[Passage]:
    """The matching passages of two fingerprints, the longest first (at most MAX_PASSAGES): each
    of a's marks that b holds too is paired with b's first mark of that hash, and pairs that
    follow each other on both sides (less than PASSAGE_GAP lines apart) make one passage, so a
    function moved elsewhere is a passage of its own."""
    common = (a.hashes & b.hashes) - shared
    in_b: dict[int, Mark] = {}
    for mark in b.marks:
        in_b.setdefault(mark.hash, mark)
    found: list[Passage] = []
    for mark in sorted((m for m in a.marks if m.hash in common), key=lambda m: (m.file, m.first, m.last)):
        other = in_b[mark.hash]
        if found and _follows(found[-1].a, mark) and _near(found[-1].b, other):
            last = found[-1]
            found[-1] = Passage(Span(last.a.file, last.a.first, max(last.a.last, mark.last)),
                                Span(last.b.file, min(last.b.first, other.first), max(last.b.last, other.last)),
                                last.fingerprints + 1)
        else:
            found.append(Passage(Span(mark.file, mark.first, mark.last), Span(other.file, other.first, other.last), 1))
    found.sort(key=lambda p: (-p.fingerprints, p.a.file, p.a.first))
    return found[:MAX_PASSAGES]


def _follows(span: Span, mark: Mark) -> bool:
    """The mark comes right after the span (or inside it), in the same file."""
    return span.file == mark.file and mark.first <= span.last + PASSAGE_GAP


def _near(span: Span, mark: Mark) -> bool:
    """The mark is inside the span or less than PASSAGE_GAP lines around it, in the same file."""
    return span.file == mark.file and span.first - PASSAGE_GAP <= mark.first <= span.last + PASSAGE_GAP


@dataclass(frozen=True)
class Match:
    """A version in the index that a query matched, and how well."""

    key: int
    similarity: Similarity


class CopyIndex:
    """An inverted index of own fingerprints (hash -> the versions holding it): a query costs the
    length of the posting lists of its own hashes, not a comparison with every version."""

    def __init__(self, shared: frozenset[int] = frozenset()) -> None:
        self.shared = shared
        self.postings: dict[int, list[int]] = {}
        self.sizes: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self.sizes)

    def add(self, key: int, hashes: Iterable[int]) -> None:
        """Index version `key` (added once) by its own fingerprints."""
        mine = own(hashes, self.shared)
        self.sizes[key] = len(mine)
        for value in mine:
            self.postings.setdefault(value, []).append(key)

    def query(self, hashes: Iterable[int], *, threshold: float = THRESHOLD,
              skip: Iterable[int] = ()) -> list[Match]:
        """The indexed versions whose similarity with `hashes` reaches `threshold`, the strongest
        first (ties by key); `skip` leaves keys out (the version itself, its owner's)."""
        mine = own(hashes, self.shared)
        if len(mine) < MIN_OWN:
            return []
        counts: Counter[int] = Counter()
        for value in mine:
            found = self.postings.get(value)
            if found:
                counts.update(found)
        for key in skip:
            counts.pop(key, None)
        matches = []
        for key, shared in counts.items():
            found_similarity = Similarity(shared, len(mine), self.sizes[key])
            if found_similarity.score >= threshold:
                matches.append(Match(key, found_similarity))
        matches.sort(key=lambda m: (-m.similarity.score, m.key))
        return matches
