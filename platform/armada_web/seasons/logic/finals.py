"""A season's finals, the pure part: the stages' sizes, each stage's games, the cut, where ratings
start and how the final order is read. `seasons.finals` runs them on the database and
bench/finals.py on simulated entries with hidden skills; both call these functions.

The frozen entries play in stages: in each stage every entry still in plays `games` games, in
rounds of two against the entries near it in the current order (read again before each round),
then the lower part (a stage's cut fraction) is cut and the rest play on, until the last stage.
A rating moves with the ladder's own update (`ladder.logic.ratings.after_game`, a forfeit a loss as
there) with no dynamics term (FINALS_TAU): the entries are frozen, their skills cannot drift. The final order is:
the entries of the last stage by score, then those cut after the stage before by their score,
and so on. docs/seasons.md gives the defaults and the
simulation that chose them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from armada_web.ladder.logic import ratings

#: The dynamics term during the finals: none (the entries are frozen).
FINALS_TAU = 0.0
#: How much a kept ladder rating's sigma is raised at the start of the finals (Start.LADDER): as
#: much as a new version's at its placement was when bench/finals.py compared 1 to 6: 2.25 ranked
#: the top 10 best (docs/seasons.md); kept when the placement's raise became 3.0 (issue 29).
LADDER_RAISE = 2.25


class Start(StrEnum):
    """Where the entries' finals ratings start."""

    PRIOR = "prior"
    """Every entry at the prior (25, 25/3), as Halite II did: the ladder only seeds the first stage."""
    LADDER = "ladder"
    """Its ladder mu at the close, with sigma raised by LADDER_RAISE."""


@dataclass(frozen=True)
class Plan:
    """How a season's finals are staged."""

    stages: int
    #: Games each entry plays in each stage.
    games: int
    #: The fraction of entries cut after each stage but the last (the last value repeats).
    cuts: tuple[float, ...]
    #: A cut never leaves fewer entries than this.
    keep_min: int

    def cut_after(self, stage: int) -> float:
        """The fraction cut after stage `stage` (1-based)."""
        if not self.cuts:
            return 0.0
        return self.cuts[min(stage, len(self.cuts)) - 1]


def check_plan(plan: Plan) -> str | None:
    """Why `plan` cannot be played, or None."""
    if plan.stages < 1:
        return "a finals needs at least 1 stage"
    if plan.games < 1:
        return "each entry plays at least 1 game per stage"
    if any(not 0.0 <= c < 1.0 for c in plan.cuts):
        return "a cut fraction must be at least 0 and below 1"
    if plan.keep_min < 2:
        return "a cut must keep at least 2 entries"
    return None


def kept(entries: int, cut: float, keep_min: int) -> int:
    """Entries left after cutting the fraction `cut` of `entries` (never fewer than keep_min, nor
    more than there are)."""
    return min(entries, max(keep_min, entries - math.floor(entries * cut + 1e-9)))


def stage_sizes(entries: int, plan: Plan) -> list[int]:
    """How many entries play in each stage."""
    sizes = [entries]
    for stage in range(1, plan.stages):
        sizes.append(kept(sizes[-1], plan.cut_after(stage), plan.keep_min))
    return sizes


def rounds_in_stage(games: int) -> int:
    """Rounds of a stage whose entries play `games` games each (two games a round, the odd one last)."""
    return (games + 1) // 2


def round_games(order: Sequence[int], games: int, round_index: int) -> list[tuple[int, int]]:
    """The games of round `round_index` (0-based) of a stage, as (first seat, second seat) pairs of
    the ids in `order`, the entries' current order (best first).

    In round r every entry meets the entries at distance d = 1, 2, ... (r + 1, round the circle
    of `order`, never itself) on either side: one game as first seat, one as second, so every
    entry plays two games a round against entries of about its own strength, which is where a
    game says the most, and the order is read again before the next round. A stage of an odd
    number of games ends with a round of one game each between neighbours (an odd entry out sits
    it out).
    """
    n = len(order)
    if n < 2 or round_index >= rounds_in_stage(games):
        return []
    if round_index < games // 2:
        distance = round_index % (n - 1) + 1
        return [(order[i], order[(i + distance) % n]) for i in range(n)]
    return [(order[i], order[i + 1]) if (i // 2) % 2 == 0 else (order[i + 1], order[i]) for i in range(0, n - 1, 2)]


#: Why a planned game of two entries of one side is not played (`one_side`).
ONE_SIDE = ("not played: both bots are one owner's or one team's, and a team's bots never play each "
            "other in rated games (D-S-24)")


def one_side(one: tuple[int | None, int | None], two: tuple[int | None, int | None]) -> bool:
    """Whether two entries, each (owner id, team id at the close), are one side: one owner or one
    team, as ranked matchmaking keeps apart (`ladder.logic.matchmaking.same_side`); a deleted owner
    or team (None) matches nobody."""
    return any(a is not None and a == b for a, b in zip(one, two, strict=True))


def matches_in_round(entries: int, games: int, round_index: int) -> int:
    return len(round_games(range(entries), games, round_index))


def matches_in_stage(entries: int, games: int) -> int:
    """Matches of a stage of `entries` entries playing `games` each."""
    return sum(matches_in_round(entries, games, r) for r in range(rounds_in_stage(games)))


def total_matches(entries: int, plan: Plan) -> int:
    """Matches of the whole finals."""
    return sum(matches_in_stage(n, plan.games) for n in stage_sizes(entries, plan))


def matches_after(entries: int, plan: Plan, stage: int, next_round: int) -> int:
    """Matches still to plan when `entries` play stage `stage` (1-based) from round `next_round`
    (0-based) on: that stage's later rounds and every later stage, cut as the plan says."""
    rest = sum(matches_in_round(entries, plan.games, r) for r in range(next_round, rounds_in_stage(plan.games)))
    size = entries
    for after in range(stage, plan.stages):
        size = kept(size, plan.cut_after(after), plan.keep_min)
        rest += matches_in_stage(size, plan.games)
    return rest


def start_rating(start: Start, ladder: ratings.Skill | None, raise_by: float = LADDER_RAISE) -> ratings.Skill:
    """An entry's rating as the finals begin (`ladder`: its ladder rating at the close, if any;
    `raise_by`: how much its sigma grows, for the bench's comparison of other raises)."""
    if start is Start.PRIOR or ladder is None:
        return ratings.initial_rating()
    return ratings.Skill(ladder.mu, math.hypot(ladder.sigma, raise_by))


def score(skill: ratings.Skill) -> float:
    """An entry's finals score, what the cut and the final order read: mu - 3 sigma, as on the ladder."""
    return ratings.displayed(skill)


@dataclass(frozen=True)
class Standing:
    """An entry as the cut and the final order see it."""

    id: int
    #: The last stage it played in (1-based).
    stage: int
    skill: ratings.Skill
    #: Its order before the finals (the seeding), the last tie-break.
    seed: int = 0


def ordered(entries: Sequence[Standing]) -> list[Standing]:
    """The final order: later stage first, then higher score, then the better seed."""
    return sorted(entries, key=lambda e: (-e.stage, -score(e.skill), e.seed, e.id))


def cut(entries: Sequence[Standing], keep: int) -> tuple[list[Standing], list[Standing]]:
    """(the `keep` best of one stage by score, the rest)."""
    order = ordered(entries)
    return order[:keep], order[keep:]

