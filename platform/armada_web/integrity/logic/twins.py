"""Behavioural twins: versions of different owners that answer the probes' situations the same
way, beyond what the starters share and beyond what versions of their rating gap usually share.

Each version's signature is one hash per probe position (`integrity.logic.probes`). The
comparison (docs/integrity.md, "Behavioural twins"):
- **own answers only**: an answer some starter gives at that position is shared behaviour and
  never counts (as the starters' code never counts as copied); 0 (no answer) never counts;
- **rarity**: agreeing on an answer many owners give says little. An own answer `h` at position
  `t` weighs `log((N + 1) / n)`, `N` the owners probed, `n` those giving `h` there (counted by
  owner, so one author's many versions do not make their own answers look common): the
  surprise of a coincidence, like a word's IDF;
- **agreement**: `2 A / (M_a + M_b)`, `A` the weight of the positions where both give the same own
  answer, `M` each side's own weight (a weighted Dice index: 1 for identical own behaviour);
- **a version with fewer than `min_own` own answers** (a starter with a few edits) never counts;
- **what their ratings predict**: pairs of versions drawn from the population (all pairs, or
  `BASELINE_PAIRS` drawn at random), bucketed by their rating gap, give the agreement expected at
  that gap (the bucket's median) and its spread (the median absolute deviation, at least
  `SPREAD_FLOOR`; a bucket of fewer than `BUCKET_MIN` pairs borrows the whole population's
  figures, and a population of fewer pairs expects no agreement); a pair is reported when its
  agreement is at least `THRESHOLD` and lies `Z_MIN` spreads or more above the expected;
- **candidates through an index**: each signature's rare own answers (given by at most
  `RARE_SHARE` of the owners, or `RARE_MIN`; the others weigh little) are cut into bands of
  `band_rows` consecutive positions; two versions whose rare answers agree on a whole band share
  a bucket (buckets of more than `BUCKET_CAP` versions are skipped), and only pairs sharing at
  least `MIN_BANDS` buckets are scored. A pair agreeing on a share f of its positions, spread
  at random, shares fewer than 2 of 46 bands of 3 with chance 2% at f = 0.5, 0.01% at 0.6.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

#: The agreement a pair must reach to be reported (`score` maps it to the report's 0.5).
THRESHOLD = 0.75
#: How many spreads above what their rating gap predicts a reported pair must be.
Z_MIN = 4.0
#: The least spread assumed (a population of near-identical pairs has none).
SPREAD_FLOOR = 0.05
#: Pairs drawn for the expected agreement (all pairs when there are fewer).
BASELINE_PAIRS = 5000
#: A bucket of the gap needs this many pairs, else the whole population's figures serve.
BUCKET_MIN = 20
#: Rating gap buckets (absolute difference of mu), and the bucket of pairs with an unrated side.
GAP_EDGES = (1.0, 2.0, 4.0, 8.0)
UNRATED = "unrated"
#: Buckets of the index holding more versions are skipped (behaviour too common to tell anything).
BUCKET_CAP = 100
#: An answer enters the index only when at most this share of the owners (or `RARE_MIN`) give it.
RARE_SHARE = 0.01
RARE_MIN = 10
#: Buckets a pair must share to be scored (fewer when a side has fewer bands with rare answers).
MIN_BANDS = 2


@dataclass(frozen=True)
class Signature:
    """A version's behaviour: its key (version id), owner, rating (mu, None if unrated) and hashes."""

    key: int
    owner: int
    rating: float | None
    hashes: tuple[int, ...]


@dataclass(frozen=True)
class Agreement:
    """How two versions agree: the score, the positions where they gave the same own answer, and
    each side's own answers."""

    score: float
    agreed: tuple[int, ...]
    own_a: int
    own_b: int


#: A twin's `basis`.
GAP, ALL, NONE = "gap", "all", "none"


@dataclass(frozen=True)
class Twin:
    """A reported pair: its agreement, what their rating gap predicts, and how far above it they are."""

    a: int
    b: int
    agreement: Agreement
    expected: float
    spread: float
    z: float
    gap: str
    pairs_sampled: int
    #: Where `expected` comes from: pairs at its gap (GAP), of any gap (ALL: too few at its gap), or
    #: none measured (NONE: too few pairs in all, no agreement expected).
    basis: str = GAP


def score(agreement: float, threshold: float = THRESHOLD) -> float:
    """The report's score of an agreement: 0.5 at the threshold, 1 for identical own behaviour
    (the scale every kind shares, integrity.checks)."""
    if threshold >= 1:
        return 1.0 if agreement >= 1 else 0.0
    return round(min(1.0, max(0.0, 0.5 + 0.5 * (agreement - threshold) / (1 - threshold))), 4)


def min_own(positions: int) -> int:
    """The own answers a version needs to count at all: a tenth of the positions, at least 3."""
    return max(3, positions // 10)


def band_rows(positions: int) -> int:
    """Positions per band of the index: 3, or 1 for a short probe set (Mothership's 8 configs)."""
    return 1 if positions < 16 else 3


def own(hashes: Sequence[int], shared: Sequence[frozenset[int]]) -> tuple[int, ...]:
    """The signature with every answer a starter gives (and every missing one) as 0."""
    return tuple(0 if not h or h in shared[i] else h for i, h in enumerate(hashes))


@dataclass
class Population:
    """Every signature of one probe set, with their own answers and each answer's weight."""

    signatures: list[Signature]
    shared: Sequence[frozenset[int]]
    owns: dict[int, tuple[int, ...]] = field(default_factory=dict)
    weights: list[dict[int, float]] = field(default_factory=list)
    owners: int = 0
    #: Per version: the weight of its own answer at each position (0: none), their sum, their count.
    own_weights: dict[int, tuple[float, ...]] = field(default_factory=dict)
    mass: dict[int, float] = field(default_factory=dict)
    counts: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        positions = len(self.shared)
        self.owns = {s.key: own(s.hashes, self.shared) for s in self.signatures if len(s.hashes) == positions}
        givers: list[dict[int, set[int]]] = [defaultdict(set) for _ in range(positions)]
        for s in self.signatures:
            for i, h in enumerate(self.owns.get(s.key, ())):
                if h:
                    givers[i][h].add(s.owner)
        self.owners = len({s.owner for s in self.signatures})
        self.weights = [{h: math.log((self.owners + 1) / len(who)) for h, who in at.items()} for at in givers]
        for key, hashes in self.owns.items():
            weights = tuple(self.weights[i][h] if h else 0.0 for i, h in enumerate(hashes))
            self.own_weights[key] = weights
            self.mass[key] = sum(weights)
            self.counts[key] = sum(1 for h in hashes if h)

    def givers(self, position: int, answer: int) -> int:
        """How many owners give `answer` at `position` (from its weight)."""
        weight = self.weights[position].get(answer)
        return 0 if weight is None else round((self.owners + 1) / math.exp(weight))

    def score(self, a: int, b: int) -> float:
        """The agreement of versions `a` and `b` (see the module), quickly."""
        total = self.mass[a] + self.mass[b]
        if total <= 0:
            return 0.0
        shared = sum(w for x, y, w in zip(self.owns[a], self.owns[b], self.own_weights[a], strict=True) if x == y and x)
        return 2 * shared / total

    def agreement(self, a: int, b: int) -> Agreement:
        """How versions `a` and `b` agree, with the positions where they gave the same own answer."""
        agreed = tuple(i for i, (x, y) in enumerate(zip(self.owns[a], self.owns[b], strict=True)) if x and x == y)
        return Agreement(self.score(a, b), agreed, self.counts[a], self.counts[b])

    def candidates(self) -> set[tuple[int, int]]:
        """Pairs of versions of different owners sharing at least `MIN_BANDS` buckets of the banded
        index (or all their bands, when they have fewer)."""
        positions = len(self.shared)
        rows = band_rows(positions)
        enough = min_own(positions)
        buckets: dict[tuple[int, tuple[int, ...]], list[int]] = defaultdict(list)
        owner = {s.key: s.owner for s in self.signatures}
        common = math.log((self.owners + 1) / max(RARE_MIN, self.owners * RARE_SHARE))
        bands: dict[int, int] = {}
        for key, hashes in self.owns.items():
            if self.counts[key] < enough:
                continue
            rare = tuple(h if h and self.weights[i][h] >= common else 0 for i, h in enumerate(hashes))
            bands[key] = 0
            for band, start in enumerate(range(0, positions, rows)):
                part = rare[start:start + rows]
                if any(part):
                    buckets[(band, part)].append(key)
                    bands[key] += 1
        shared: dict[tuple[int, int], int] = defaultdict(int)
        for members in buckets.values():
            if len(members) > BUCKET_CAP:
                continue
            for a, b in combinations(sorted(members), 2):
                if owner[a] != owner[b]:
                    shared[(a, b)] += 1
        return {pair for pair, n in shared.items() if n >= min(MIN_BANDS, bands[pair[0]], bands[pair[1]])}


def gap_of(one: float | None, two: float | None) -> str:
    """The rating gap bucket of two ratings: `0-1`, `1-2`, ..., `8+`, or `unrated`."""
    if one is None or two is None:
        return UNRATED
    gap = abs(one - two)
    low = 0.0
    for edge in GAP_EDGES:
        if gap < edge:
            return f"{low:g}-{edge:g}"
        low = edge
    return f"{low:g}+"


@dataclass(frozen=True)
class Expectation:
    """What a rating gap predicts: the median agreement, its spread, and the pairs it is from."""

    median: float
    spread: float
    pairs: int


def _expectation(scores: list[float]) -> Expectation:
    if not scores:
        return Expectation(0.0, SPREAD_FLOOR, 0)
    middle = statistics.median(scores)
    deviation = statistics.median(abs(s - middle) for s in scores) * 1.4826
    return Expectation(middle, max(deviation, SPREAD_FLOOR), len(scores))


def baseline(population: Population, *, pairs: int = BASELINE_PAIRS, seed: int = 28) -> dict[str, Expectation]:
    """The expected agreement per rating gap bucket (and `all`), from pairs of versions of
    different owners: every pair when there are at most `pairs`, else `pairs` drawn at random."""
    signatures = [s for s in population.signatures if s.key in population.owns]
    total = len(signatures) * (len(signatures) - 1) // 2
    chosen: list[tuple[Signature, Signature]]
    if total <= pairs:
        chosen = list(combinations(signatures, 2))
    else:
        rng = random.Random(seed)
        chosen = [tuple(rng.sample(signatures, 2)) for _ in range(pairs)]  # type: ignore[misc]
    by_gap: dict[str, list[float]] = defaultdict(list)
    every = []
    for one, two in chosen:
        if one.owner == two.owner:
            continue
        score = population.score(one.key, two.key)
        by_gap[gap_of(one.rating, two.rating)].append(score)
        every.append(score)
    found = {gap: _expectation(scores) for gap, scores in by_gap.items()}
    found["all"] = _expectation(every)
    return found


def find(signatures: list[Signature], shared: Sequence[frozenset[int]], *, threshold: float = THRESHOLD,
         z_min: float = Z_MIN) -> tuple[list[Twin], Population]:
    """The twins among `signatures` (one probe set's), the strongest first, and the population."""
    population = Population(signatures, shared)
    enough = min_own(len(shared))
    expected = baseline(population)
    by_key = {s.key: s for s in signatures}
    found = []
    for a, b in population.candidates():
        if population.score(a, b) < threshold or min(population.counts[a], population.counts[b]) < enough:
            continue
        agreement = population.agreement(a, b)
        gap = gap_of(by_key[a].rating, by_key[b].rating)
        expectation, basis = expected.get(gap), GAP
        if expectation is None or expectation.pairs < BUCKET_MIN:
            expectation, basis = expected["all"], ALL
        if expectation.pairs < BUCKET_MIN:  # too few versions to predict from: no agreement expected
            expectation, basis = Expectation(0.0, SPREAD_FLOOR, expectation.pairs), NONE
        z = (agreement.score - expectation.median) / expectation.spread
        if z >= z_min:
            found.append(Twin(a, b, agreement, expectation.median, expectation.spread, z, gap, expectation.pairs,
                              basis))
    found.sort(key=lambda t: (-t.agreement.score, t.a, t.b))
    return found, population
