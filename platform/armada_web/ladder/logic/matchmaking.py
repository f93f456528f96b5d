"""Pairing for ranked matches, the pure part of matchmaking: which bot plays next, against whom,
on which side.

The caller (the Celery beat task) reads the active bots, their ratings, game counts and last
game times, and the recent pairings, and calls `pick_match`; bench/ranking.py calls the same
functions on a simulated ladder.

The bot to play (the seed) is the candidate of highest priority:

    GAMES_WEIGHT * PROVISIONAL_GAMES / (PROVISIONAL_GAMES + games)   few games     (0..GAMES_WEIGHT]
  + SETTLING_WEIGHT while provisional (games < PROVISIONAL_GAMES)    settling      {0, SETTLING_WEIGHT}
  + SIGMA_WEIGHT * min(sigma / SIGMA, 1)                              uncertainty   [0..SIGMA_WEIGHT]
  + idle seconds / idle_unit                                          waiting       unbounded
                                                                      (infinite if never played)

(the first three are the `bonus`; a candidate marked by `mark_played` keeps it in its `due`, the
time its wait counts from: priority = (now - due) / idle_unit, so the seed order is the order of
`due`, which a database reads through an index).

A provisional version (fewer than PROVISIONAL_GAMES games) is marked further ahead: its due is
PROVISIONAL_HEAD idle units before its first game, and each later game moves it on by only
PROVISIONAL_STEP units (never to less than PROVISIONAL_HEAD units before that game), so new
versions settle in the order they started, ahead of settled bots that have not waited that long,
instead of sharing the games with every later arrival (bench/surge.py; docs/arena.md, "Deadline
day"). It may so have several ranked matches in flight at once while it settles.

Its opponent is the candidate of lowest cost of another owner and another team (`same_side`):

    (mu_seed - mu_opp)^2 / (2 beta^2 + sigma_seed^2 + sigma_opp^2)    close in skill, measured in
                                                                      the outcome's own uncertainty
  - INFO_WEIGHT * min(sigma_opp / SIGMA, 1)                           an uncertain opponent teaches more
  + REPEAT_WEIGHT * (games of this pairing among the recent ones)     not the same pairing over and over

No starvation: only the idle term is unbounded (a marked candidate's due is at most MAX_BONUS
idle units before its last game, the provisional head included), so a seed chosen while bot x
waits has priority at least x's, hence idle at least x's minus C = MAX_BONUS * idle_unit. A
bot that has played after x started waiting is C behind x's idle for ever after, so once x has
waited C, every pick removes a distinct bot from contention: x plays within C seconds plus
n - 1 picks (n candidates), provided some candidate of another owner exists.
tests/ladder/test_matchmaking.py checks this bound on 200 bots and 5,000 picks.

On a large ladder the tick never reads every candidate: `pick_bounded` takes the seeds from the
longest-waiting few and each seed's opponent from its neighbours in mu, through a `Pool` (the
database's reads them through indexes, ladder.matchmaking.RatingPool; `MemoryPool` is the same in
memory), with the same bound (its docstring).
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Protocol

from armada_web.ladder.logic.ratings import BETA, PROVISIONAL_GAMES, SIGMA, Skill

GAMES_WEIGHT = 1.0
SIGMA_WEIGHT = 1.0
#: Extra priority while a version is provisional (fewer than PROVISIONAL_GAMES games). 0: 1.0
#: settled bench/surge.py's new versions sooner (0.42 of first come first served against 0.50)
#: but blew up bench/ranking.py's placement tail (mean 31.6 games, p90 150, against 14.2 and
#: 30); docs/arena.md, "Deadline day".
SETTLING_WEIGHT = 0.0
#: A provisional version's head start at its first game, and its due's least move per later
#: game, in idle units (module docstring): chosen by bench/surge.py (docs/arena.md).
PROVISIONAL_HEAD = 3.2
PROVISIONAL_STEP = 0.25
#: The most a candidate's bonus can be (idle units): the no-starvation bound's C is this x idle_unit.
MAX_BONUS = max(GAMES_WEIGHT + SIGMA_WEIGHT + SETTLING_WEIGHT, PROVISIONAL_HEAD)
INFO_WEIGHT = 0.5
REPEAT_WEIGHT = 1.0
DEPTH_PER_WORKER = 2
#: A large ladder's tick (`pick_bounded`): seeds considered, and opponents read on each side of a seed's mu.
SEEDS = 16
NEAR = 12


@dataclass(frozen=True)
class Candidate:
    """An active bot version as matchmaking sees it."""

    id: int
    owner_id: int
    rating: Skill
    games: int
    last_played: datetime | None
    #: When its wait counts from for the seed order (`due`): its last game less its bonus in
    #: seconds; None: `last_played` (a candidate never marked with `mark_played`).
    due: datetime | None = None
    #: Its bot's team (None: only the owner counts): teammates' bots never meet (`same_side`).
    team_id: int | None = None


def same_side(a: Candidate, b: Candidate) -> bool:
    """Whether two candidates may not meet in a ranked match: one owner, or one team (a team's bots
    throwing games to each other would be rated like any other game)."""
    return a.owner_id == b.owner_id or (a.team_id is not None and a.team_id == b.team_id)


@dataclass(frozen=True)
class RecentGame:
    """A recent game: who sat first and who second."""

    first_id: int
    second_id: int


@dataclass(frozen=True)
class Pick:
    """The next match: the seed and its opponent, in seat order (`first` plays seat 0)."""

    first: Candidate
    second: Candidate
    seed_id: int


def target_depth(live_workers: int) -> int:
    """How many queued ranked matches to keep: enough that no live worker waits, no more."""
    return max(0, live_workers) * DEPTH_PER_WORKER


def bonus(games: int, sigma: float) -> float:
    """The part of a candidate's priority that is not its wait, in idle units (bounded by
    GAMES_WEIGHT + SIGMA_WEIGHT + SETTLING_WEIGHT)."""
    few_games = GAMES_WEIGHT * PROVISIONAL_GAMES / (PROVISIONAL_GAMES + games)
    settling = SETTLING_WEIGHT if games < PROVISIONAL_GAMES else 0.0
    return few_games + settling + SIGMA_WEIGHT * min(sigma / SIGMA, 1.0)


def priority(bot: Candidate, now: datetime, idle_unit: float) -> float:
    """How much `bot` needs a game now (higher plays first); idle_unit in seconds, > 0."""
    if bot.last_played is None:
        return math.inf  # a version that has never played goes first
    if bot.due is not None:  # marked by `mark_played`: its bonus is in its due
        return (now - bot.due).total_seconds() / idle_unit
    idle = max(0.0, (now - bot.last_played).total_seconds()) / idle_unit
    return bonus(bot.games, bot.rating.sigma) + idle


def mark_played(bot: Candidate, now: datetime, idle_unit: float) -> Candidate:
    """`bot` as the pool keeps it once a match is made for it at `now`: last played now, and due
    its bonus (with the game being made counted) earlier, so the seed order by `due` is the order
    of `priority` without reading every candidate: priority = (now - due) / idle_unit. A
    provisional version's due is the earlier of that and its provisional place (module docstring)."""
    due = now - timedelta(seconds=bonus(bot.games + 1, bot.rating.sigma) * idle_unit)
    if bot.games + 1 < PROVISIONAL_GAMES:
        head = now - timedelta(seconds=PROVISIONAL_HEAD * idle_unit)
        if bot.last_played is not None and bot.due is not None:
            head = max(head, bot.due + timedelta(seconds=PROVISIONAL_STEP * idle_unit))
        due = min(due, head)
    return replace(bot, last_played=now, due=due)


def pair_key(a: int, b: int) -> tuple[int, int]:
    """A pairing's key, whatever the sides."""
    return (a, b) if a < b else (b, a)


def opponent_cost(seed: Candidate, other: Candidate, repeats: int) -> float:
    """How poor a match `other` makes for `seed` (lower is better)."""
    s, o = seed.rating, other.rating
    spread = 2 * BETA * BETA + s.sigma * s.sigma + o.sigma * o.sigma
    closeness = (s.mu - o.mu) ** 2 / spread
    return closeness - INFO_WEIGHT * min(o.sigma / SIGMA, 1.0) + REPEAT_WEIGHT * repeats


def pick_opponent(seed: Candidate, candidates: Sequence[Candidate],
                  recent: Sequence[RecentGame] = ()) -> Candidate | None:
    """The best opponent for `seed` among `candidates` (never the same owner or team), or None."""
    repeats = Counter(pair_key(p.first_id, p.second_id) for p in recent)
    best: Candidate | None = None
    best_cost = 0.0
    for other in candidates:
        if other.id == seed.id or same_side(other, seed):
            continue
        cost = opponent_cost(seed, other, repeats[pair_key(seed.id, other.id)])
        if best is None or cost < best_cost or (cost == best_cost and other.id < best.id):
            best, best_cost = other, cost
    return best


def choose_sides(seed: Candidate, opponent: Candidate, last_first_id: int | None) -> tuple[Candidate, Candidate]:
    """(first, second): whoever sat second in the pairing's last game sits first; the seed if new."""
    if last_first_id == seed.id:
        return opponent, seed
    return seed, opponent


def last_first(a: int, b: int, recent: Sequence[RecentGame]) -> int | None:
    """Who sat first in the latest of `recent` (oldest first) between a and b, or None."""
    key = pair_key(a, b)
    for p in reversed(recent):
        if pair_key(p.first_id, p.second_id) == key:
            return p.first_id
    return None


def pick_match(candidates: Sequence[Candidate], recent: Sequence[RecentGame], now: datetime,
               idle_unit: float, last_sides: dict[tuple[int, int], int] | None = None) -> Pick | None:
    """The next ranked match among `candidates`, or None when no two owners are present.

    `recent` are the latest games (oldest first) for the repeat penalty; `idle_unit` is about
    the seconds between two games of a bot (bots x match seconds / (2 x workers)).
    `last_sides` maps a pair_key to who sat first in that pairing's last game when it is older
    than `recent`.
    """
    order = sorted(candidates, key=lambda c: (-priority(c, now, idle_unit), c.id))
    for seed in order:
        pick = pick_for(seed, candidates, recent, last_sides)
        if pick is not None:
            return pick
    return None


def pick_for(seed: Candidate, candidates: Sequence[Candidate], recent: Sequence[RecentGame],
             last_sides: dict[tuple[int, int], int] | None = None) -> Pick | None:
    """`seed`'s match: its best opponent among `candidates` and the sides, or None without one."""
    opponent = pick_opponent(seed, candidates, recent)
    if opponent is None:
        return None
    before = last_first(seed.id, opponent.id, recent)
    if before is None and last_sides:
        before = last_sides.get(pair_key(seed.id, opponent.id))
    first, second = choose_sides(seed, opponent, before)
    return Pick(first, second, seed.id)


class Pool(Protocol):
    """The candidates as a large ladder serves them: a few at a time, each set through an index."""

    def longest_waiting(self, count: int) -> list[Candidate]:
        """The first `count` in the seed order (`waiting_key`): never played first (by id), then by
        `due` (then id)."""

    def near(self, seed: Candidate, count: int) -> list[Candidate]:
        """Candidates of other owners and teams than `seed`'s (`same_side`) nearest it in mu: up to
        `count` at or above its mu (by mu, then id; never `seed` itself) and up to `count` below (by
        mu descending, then id descending)."""


def pick_bounded(pool: Pool, recent: Sequence[RecentGame], now: datetime, idle_unit: float) -> Pick | None:
    """The next ranked match read from a `Pool`, never the whole ladder: `pick_match`'s rules on the
    SEEDS longest-waiting candidates as seeds (in priority order), each seed's opponent the best of
    the NEAR nearest in mu on each side.

    The no-starvation bound of `pick_match` holds unchanged: the longest-waiting candidate is
    always among the seeds, so the seed chosen has priority at least its idle term, hence at
    least that of any waiting bot x outside the seeds too (x's idle is no longer); the rest of the
    argument (module docstring) is the same. tests/ladder/test_matchmaking.py checks it on 10,000 bots.
    """
    for seed in sorted(pool.longest_waiting(SEEDS), key=lambda c: (-priority(c, now, idle_unit), c.id)):
        pick = pick_for(seed, pool.near(seed, NEAR), recent)
        if pick is not None:
            return pick
    return None


def waiting_key(c: Candidate) -> tuple[int, datetime, int]:
    """The seed order of a `Pool`: never played first (by id), then by `due` (else last game), then id."""
    if c.last_played is None:
        return (0, datetime.min, c.id)
    return (1, c.due or c.last_played, c.id)


class MemoryPool:
    """A `Pool` over candidates held in memory (simulations, tests): the same choices the
    database's pool (ladder.matchmaking.RatingPool) makes, in sorted lists kept by `update`."""

    def __init__(self, candidates: Sequence[Candidate]) -> None:
        self.by_id = {c.id: c for c in candidates}
        self._waiting = sorted(waiting_key(c) for c in candidates)
        self._mu = sorted((c.rating.mu, c.id) for c in candidates)

    def update(self, candidate: Candidate) -> None:
        """Replace the candidate of that id (it played: a new rating, game count, last game)."""
        old = self.by_id[candidate.id]
        self._waiting.pop(bisect.bisect_left(self._waiting, waiting_key(old)))
        bisect.insort(self._waiting, waiting_key(candidate))
        self._mu.pop(bisect.bisect_left(self._mu, (old.rating.mu, old.id)))
        bisect.insort(self._mu, (candidate.rating.mu, candidate.id))
        self.by_id[candidate.id] = candidate

    def remove(self, candidate_id: int) -> None:
        """The candidate of that id stops playing (a newer version, benched)."""
        old = self.by_id.pop(candidate_id)
        self._waiting.pop(bisect.bisect_left(self._waiting, waiting_key(old)))
        self._mu.pop(bisect.bisect_left(self._mu, (old.rating.mu, old.id)))

    def add(self, candidate: Candidate) -> None:
        """A candidate starts playing."""
        self.by_id[candidate.id] = candidate
        bisect.insort(self._waiting, waiting_key(candidate))
        bisect.insort(self._mu, (candidate.rating.mu, candidate.id))

    def longest_waiting(self, count: int) -> list[Candidate]:
        return [self.by_id[key[2]] for key in self._waiting[:count]]

    def near(self, seed: Candidate, count: int) -> list[Candidate]:
        middle = bisect.bisect_left(self._mu, (seed.rating.mu, -1))
        up: list[Candidate] = []
        for _, cid in self._mu[middle:]:
            if len(up) >= count:
                break
            other = self.by_id[cid]
            if cid != seed.id and not same_side(other, seed):
                up.append(other)
        down: list[Candidate] = []
        for _, cid in reversed(self._mu[:middle]):
            if len(down) >= count:
                break
            other = self.by_id[cid]
            if not same_side(other, seed):
                down.append(other)
        return up + down
