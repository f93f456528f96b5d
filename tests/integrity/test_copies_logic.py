"""The copy detector's pure part (integrity.logic.copies) on planted and honest bots
(tests/integrity/samples.py): every planted copy scores above the threshold, no honest pair
does, the shared code never counts, the passages point at the copied lines, and the inverted
index finds a copy among 10,000 versions."""

from __future__ import annotations

import itertools
import random

import pytest

from armada_web.integrity.logic import copies
from armada_web.integrity.logic.fingerprints import Fingerprint, fingerprint
from tests.integrity import samples

PLANTED = [("ORIGINAL", "RENAMED_REORDERED"), ("ORIGINAL", "DEAD_CODE"), ("RENAMED_REORDERED", "DEAD_CODE")]
HONEST = ["ORIGINAL", "HONEST_FRONTIER", "HONEST_WEAKEST", "STARTER_EDIT_1", "STARTER_EDIT_2", "TINY_1",
          "TINY_2", "GREEDY"]


def printed(name: str) -> Fingerprint:
    return fingerprint({"main.py": getattr(samples, name)})


@pytest.mark.parametrize(("a", "b"), PLANTED)
def test_every_planted_copy_is_found(a: str, b: str) -> None:
    found = copies.similarity(printed(a).hashes, printed(b).hashes, copies.shared_hashes())
    assert found.score >= copies.THRESHOLD + 0.2, found


def test_no_honest_pair_reaches_the_threshold() -> None:
    shared = copies.shared_hashes()
    prints = {name: printed(name) for name in HONEST}
    scores = {(a, b): copies.similarity(prints[a].hashes, prints[b].hashes, shared).score
              for a, b in itertools.combinations(HONEST, 2)}
    assert max(scores.values()) < copies.THRESHOLD / 2, scores


def test_shared_code_never_counts_and_tiny_bots_never_do() -> None:
    shared = copies.shared_hashes()
    for starter in ("greedy", "prober"):
        assert copies.own(fingerprint({"main.py": samples.starter_file(starter, "galaxy").read_text()}).hashes,
                          shared) == frozenset()
    derived = copies.similarity(printed("STARTER_EDIT_1").hashes, printed("STARTER_EDIT_2").hashes, shared)
    assert derived.tiny and derived.score == 0  # what they share is the starter's
    same = copies.similarity(printed("TINY_1").hashes, printed("TINY_1").hashes, shared)
    assert same.shared == same.own_a > 0 and same.tiny and same.score == 0  # identical, but too small
    without_sharing = copies.similarity(printed("STARTER_EDIT_1").hashes, printed("GREEDY").hashes, frozenset())
    assert without_sharing.score > 0.9  # what would be reported if the starter counted


def test_dead_code_leaves_the_original_inside_the_copy() -> None:
    found = copies.similarity(printed("ORIGINAL").hashes, printed("DEAD_CODE").hashes, copies.shared_hashes())
    assert found.a_in_b > 0.9 and found.own_b > found.own_a and found.score == found.a_in_b


def test_passages_pair_the_copied_lines() -> None:
    original, copy = printed("ORIGINAL"), printed("RENAMED_REORDERED")
    found = copies.passages(original, copy, copies.shared_hashes())
    assert found and found == sorted(found, key=lambda p: -p.fingerprints)
    lines_a, lines_b = samples.ORIGINAL.splitlines(), samples.RENAMED_REORDERED.splitlines()

    def line_of(lines: list[str], text: str) -> int:
        return next(number for number, line in enumerate(lines, start=1) if text in line)

    estimate, guess = line_of(lines_a, "def estimate("), line_of(lines_b, "def guess(")
    paired = [p for p in found if p.a.first <= estimate + 1 <= p.a.last]
    assert paired and paired[0].b.first <= guess + 1 <= paired[0].b.last  # the renamed method, moved
    assert paired[0].as_dict()["a"] == {"file": "main.py", "first": paired[0].a.first, "last": paired[0].a.last}


def test_the_index_finds_a_copy_among_10000_versions() -> None:
    rng = random.Random(28)
    common = [rng.getrandbits(63) for _ in range(200)]
    shared = frozenset(common)
    popular = [rng.getrandbits(63) for _ in range(300)]  # idioms many versions hold
    index = copies.CopyIndex(shared)
    originals = {}
    for key in range(10_000):
        own = range(key << 20, (key << 20) + (40 if key == 1234 else 5 + key % 20))  # distinct per version
        originals[key] = [*own, *popular[key % 290:key % 290 + 4], *common[key % 190:key % 190 + 10]]
        index.add(key, originals[key])
    assert len(index) == 10_000
    copied = set(rng.sample(sorted(set(originals[1234]) - shared), int(0.8 * len(set(originals[1234]) - shared))))
    query = copied | {rng.getrandbits(63) for _ in range(10)} | set(common[:50])
    matches = index.query(query)
    assert [m.key for m in matches] == [1234]
    assert matches[0].similarity.shared == len(copied) and matches[0].similarity.score >= 0.75
    assert index.query(query, skip=[1234]) == []
    assert index.query(set(common)) == []  # shared code only: nothing of its own
    small = set(rng.sample(sorted(set(originals[1234]) - shared), copies.MIN_OWN - 1))
    assert index.query(small) == []  # a tiny version is never a copy
