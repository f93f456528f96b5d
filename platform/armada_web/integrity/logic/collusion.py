"""Thrown games and collusion (issue 28): pairs whose results against each other depart from what
their ratings predicted, by a test whose false-alarm rate is stated. Pure: the database side is
`integrity.collusion`.

For each ordered pair (A, B) of sides (bots) that met, the test asks whether A lost to B more
often than the ladder's own model predicted from the two ratings before each game:

- A decisive game's chance that B won is the ladder's Thurstone-Mosteller model's
  `predict_win` (openskill's, with the ladder's parameters: `ladder.logic.ratings.model()`),
  from each side's (mu, sigma) before the game; sigma counts, so an uncertain rating predicts
  less sharply. Draws are set aside (neither a loss nor a win).
- Given those chances, A's number of losses to B is a sum of independent Bernoulli variables
  (Poisson-binomial); its exact upper tail is the p-value: the chance of losing at least as
  often as A did, had both played honestly at their ratings.
- Every ordered pair with at least `min_games` decisive games is a hypothesis. The family-wise
  false-alarm rate is held at `alpha` (ALPHA = 0.01) by Bonferroni with Tarone's refinement for
  discrete tests: a pair whose every-game-lost p-value could not reach alpha / K is not counted
  among the K tests (it can never be flagged), and K is the smallest count that is consistent.
  So, on honest play at calibrated ratings, the chance that one or more pairs of a whole run are
  flagged is at most alpha (Tarone, Biometrics 46, 1990).

A flagged pair reports its games, losses, the losses expected, the p-value, the adjusted p-value
(p x K, at most 1) and its match ids. The same records serve ranked play and a season's finals.

**Against the field** (`field_tests`): a side that loses to every opponent alike in a season's
finals (to let a friend below it win, say) spreads its losses thin, pair by pair. So each finals
entry with decisive games against at least two others is also tested on all of them together,
against `FIELD` (its winner "*"): the same Poisson-binomial tail over its chances of losing each.
These tests join the pairs' in one family, so K and the false-alarm rate above hold for both.
(Finals only: over hundreds of ladder games a rating's small honest misses add up to "significant".)
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from armada_web.ladder.logic.ratings import Skill, model

#: The family-wise false-alarm rate (the chance that an honest run flags any pair).
ALPHA = 0.01
#: Decisive games a pair needs to be tested at all.
MIN_GAMES = 3
#: The winner of a side's test against every opponent it met (`field_tests`).
FIELD = "*"


@dataclass(frozen=True)
class Game:
    """One finished game between two sides (`first` in seat 1), who won (1, 2, None for a draw) and
    each side's rating before it."""

    match_id: int
    first: str
    second: str
    winner: int | None
    first_skill: Skill
    second_skill: Skill


@dataclass(frozen=True)
class PairTest:
    """How `loser` did against `winner`: the test of whether it lost more than its ratings predicted."""

    loser: str
    winner: str
    games: int  # decisive games between them
    draws: int
    losses: int  # the decisive games `loser` lost
    expected: float  # the losses the ratings predicted
    p_value: float  # the chance of at least `losses` at those ratings
    floor: float  # the smallest p-value these games could give (every one lost)
    adjusted: float = 1.0  # p_value x the number of tests counted (at most 1), once corrected
    match_ids: tuple[int, ...] = ()  # every game between them, oldest first
    lost: tuple[int, ...] = ()  # the games `loser` lost
    #: A test against the field's decisive games, (match id, the chance `loser` loses it): what its
    #: games with others than a flagged partner say (`flag`); () for a pair's test.
    decisive: tuple[tuple[int, float], ...] = ()


@dataclass
class Verdict:
    """The pairs tested, the number `counted` that alpha is divided by (Tarone's K, at most
    `tested`), and the pairs flagged at `alpha`."""

    alpha: float
    tested: int = 0
    counted: int = 0
    flagged: list[PairTest] = field(default_factory=list)


def loss_chance(loser: Skill, winner: Skill) -> float:
    """The chance that `winner` wins a decisive game against `loser` (the ladder's model)."""
    m = model()
    return float(m.predict_win([[m.rating(mu=winner.mu, sigma=winner.sigma)],
                                [m.rating(mu=loser.mu, sigma=loser.sigma)]])[0])


def tail(chances: list[float], at_least: int) -> float:
    """P(at least `at_least` successes) of independent trials with these `chances` (exact)."""
    if at_least <= 0:
        return 1.0
    if at_least > len(chances):
        return 0.0
    dist = [1.0] + [0.0] * len(chances)
    for i, p in enumerate(chances, start=1):
        for k in range(i, 0, -1):
            dist[k] = dist[k] * (1 - p) + dist[k - 1] * p
        dist[0] *= 1 - p
    return min(1.0, sum(dist[at_least:]))


def pair_tests(games: Iterable[Game], *, min_games: int = 0) -> list[PairTest]:
    """Every ordered pair's unadjusted test (both directions of each pair with at least `min_games`
    decisive games). The games are read once: each keeps only its id, its result and one chance
    (a million games fit)."""
    # (a, b) with a < b -> [(match id, a's result: 1 won, 0 lost, None drew, the chance that a loses)]
    met: dict[tuple[str, str], list[tuple[int, int | None, float]]] = defaultdict(list)
    for g in games:
        if g.first == g.second:
            continue
        result = None if g.winner is None else int(g.winner == 1)
        if g.first < g.second:
            chance = loss_chance(g.first_skill, g.second_skill) if result is not None else 0.0
            met[(g.first, g.second)].append((g.match_id, result, chance))
        else:
            chance = loss_chance(g.second_skill, g.first_skill) if result is not None else 0.0
            met[(g.second, g.first)].append((g.match_id, None if result is None else 1 - result, chance))
    tests = []
    for (a, b), played in sorted(met.items()):
        played.sort()
        ids = tuple(match_id for match_id, _, _ in played)
        decisive = [(match_id, a_won, chance) for match_id, a_won, chance in played if a_won is not None]
        if len(decisive) < min_games:
            continue
        # The chance that `a` loses each decisive game (b's is one minus it: the model has no draws).
        a_loses = [chance for _, _, chance in decisive]
        for loser, winner, chances, lost in (
                (a, b, a_loses, [match_id for match_id, a_won, _ in decisive if not a_won]),
                (b, a, [1.0 - p for p in a_loses], [match_id for match_id, a_won, _ in decisive if a_won])):
            tests.append(PairTest(loser, winner, len(decisive), len(played) - len(decisive), len(lost),
                                  sum(chances), tail(chances, len(lost)), math.prod(chances),
                                  match_ids=ids, lost=tuple(lost)))
    return tests


def field_tests(games: Iterable[Game], *, sides: set[str] | None = None, min_games: int = 0) -> list[PairTest]:
    """Each side's test against the field (`FIELD`): all its decisive games, against at least two
    opponents (with one, it is its pair's test), at least `min_games` of them; only `sides` when
    given. Read once, as `pair_tests` reads them."""
    # side -> [(match id, its result: 1 won, 0 lost, None drew, its chance of losing)], and whom it met
    played: dict[str, list[tuple[int, int | None, float]]] = defaultdict(list)
    met: dict[str, set[str]] = defaultdict(set)
    for g in games:
        if g.first == g.second:
            continue
        result = None if g.winner is None else int(g.winner == 1)
        for side, other, won, mine, theirs in ((g.first, g.second, result, g.first_skill, g.second_skill),
                                               (g.second, g.first, None if result is None else 1 - result,
                                                g.second_skill, g.first_skill)):
            if sides is not None and side not in sides:
                continue
            played[side].append((g.match_id, won, loss_chance(mine, theirs) if won is not None else 0.0))
            if won is not None:
                met[side].add(other)
    tests = []
    for side, games_of in sorted(played.items()):
        decisive = [(match_id, won, chance) for match_id, won, chance in sorted(games_of) if won is not None]
        if len(met[side]) < 2 or len(decisive) < max(min_games, 1):
            continue
        chances = [chance for _, _, chance in decisive]
        lost = tuple(match_id for match_id, won, _ in decisive if not won)
        tests.append(PairTest(side, FIELD, len(decisive), len(games_of) - len(decisive), len(lost), sum(chances),
                              tail(chances, len(lost)), math.prod(chances),
                              match_ids=tuple(sorted(m for m, _, _ in games_of)), lost=lost,
                              decisive=tuple((match_id, chance) for match_id, _, chance in decisive)))
    return tests


def tarone(floors: Iterable[float], alpha: float) -> int:
    """Tarone's K: the smallest count with at most K of these floors (each test's smallest
    possible p-value) at or below alpha / K; 0 without tests."""
    ordered = sorted(floors)
    if not ordered:
        return 0
    counted = 1
    while bisect.bisect_right(ordered, alpha / counted) > counted:
        counted += 1
    return counted


def flag(tests: Iterable[PairTest], *, alpha: float, tested: int, counted: int) -> Verdict:
    """The verdict on `tests` once K (`counted`) is known: those whose p-value reaches alpha / K,
    most significant first (`tested` is the size of the whole family, for the evidence); a side's
    test against the field is left out when one of its pairs is flagged and its games with the rest
    of the field are as its ratings predicted (the pair says more: `rest_of_field`)."""
    verdict = Verdict(alpha=alpha, tested=tested, counted=counted)
    every = list(tests)
    for t in every:
        if counted and t.p_value <= alpha / counted:
            verdict.flagged.append(replace(t, adjusted=min(1.0, t.p_value * counted)))
    # A side flagged against a partner, honest with everyone else, is the pair's finding alone; one that
    # loses to the rest of the field too keeps that finding beside (an organiser's trial: a bot that lost
    # 105 of its 119 finals games to every entry was flagged against two innocent partners only).
    partners: dict[str, set[str]] = defaultdict(set)
    for t in verdict.flagged:
        if t.winner != FIELD:
            partners[t.loser].add(t.winner)
    pair_games = {(t.loser, t.winner): set(t.match_ids) for t in every if t.winner != FIELD}
    verdict.flagged = [t for t in verdict.flagged if t.winner != FIELD or not partners[t.loser] or rest_of_field(
        t, set().union(*(pair_games.get((t.loser, w), set()) for w in partners[t.loser]))) <= alpha]
    verdict.flagged.sort(key=lambda t: (t.p_value, t.loser, t.winner))
    return verdict


def rest_of_field(field_test: PairTest, left_out: set[int]) -> float:
    """The p-value of a side's test against the field without the games `left_out` (those with its
    flagged partners): small, it loses to everyone; 1.0 when nothing is left."""
    rest = [(match_id, chance) for match_id, chance in field_test.decisive if match_id not in left_out]
    lost_ids = set(field_test.lost)
    lost = sum(1 for match_id, _ in rest if match_id in lost_ids)
    return tail([chance for _, chance in rest], lost) if rest else 1.0


def thrown(games: Iterable[Game], *, alpha: float = ALPHA, min_games: int = MIN_GAMES,
           finals: Iterable[Game] | None = None) -> Verdict:
    """The ordered pairs, and each side against the field in the `finals` games when given, whose
    losses depart from their ratings at family-wise rate `alpha` (Bonferroni-Tarone, see the
    module), most significant first."""
    tests = pair_tests(games, min_games=min_games)
    if finals is not None:
        tests += field_tests(finals, min_games=min_games)
    return flag(tests, alpha=alpha, tested=len(tests), counted=tarone((t.floor for t in tests), alpha))
