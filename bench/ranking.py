"""Ranking speed: Armada's matchmaking and ratings against Halite's policy on a simulated ladder.

Run: .venv/bin/python bench/ranking.py [--seeds N]   (ends with one `target ...` line per target)
     .venv/bin/python bench/ranking.py --batch --seeds 4   (the batch-rating experiment, docs/arena.md)

The ladder: 200 bots with hidden skills drawn from N(25, 25/3); in a game each side performs
its skill plus N(0, 25/6) and the better performance wins, a draw when the two are within
DRAW_MARGIN (about 7% of games between neighbours). Both policies play the same ladders
(same skills, owners and outcome noise seeds):
- Armada: armada_web.ladder.logic.matchmaking.pick_match and armada_web.ladder.logic.ratings.update (the
  SDK's armada.ratings), the functions the platform calls; the other rating models of the
  comparison are openskill's, with the same parameters (ratings.model);
- Halite: the longest-waiting bot against a random opponent among the k closest in mu, with
  k = int(5 / (0.01 + u) ** 0.65) (Halite II's coordinator), rated by TrueSkill (the trueskill
  package, its default environment).
Figures, each the median over the seeds:
- ladder: games per bot until the displayed order (mu - 3 sigma) reaches Kendall tau 0.9
  against the hidden order;
- placement: on the converged ladder, a bot is replaced by a new version (hidden skill = the
  old one's + N(0, 25/9)); the new version plays its games (it is the seed, its opponent is
  the one the policy picks for it) until its displayed rank is within 10 of its true rank and
  stays within 10 for the 5 games after; the figure is the games played until then.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "platform"))

import trueskill

from armada_web.ladder.logic import matchmaking as matchmaking_logic
from armada_web.ladder.logic import ratings
from armada_web.ladder.logic.matchmaking import Candidate, RecentGame
from armada_web.ladder.logic.ratings import Outcome

SKILL_MU = 25.0
SKILL_SIGMA = 25.0 / 3
NOISE = 25.0 / 6
DRAW_MARGIN = 0.55
VERSION_CHANGE = 25.0 / 9
TAU_GOAL = 0.9
PLACE_WITHIN = 10
PLACE_STAYS = 5
MAX_GAMES_PER_BOT = 150
PLACEMENT_MAX_GAMES = 150
START = datetime(2025, 1, 1)
MODEL_SEEDS = 5  # the other rating models run on the first seeds only (the bench's time)


def kendall_tau(hidden: Sequence[float], shown: Sequence[float]) -> float:
    """Kendall's tau-a between two scorings of the same items (O(n log n)); `hidden` has no ties."""
    n = len(hidden)
    seq = [s for _, s in sorted(zip(hidden, shown, strict=True))]
    discordant = _inversions(seq)
    counts: dict[float, int] = {}
    for s in shown:
        counts[s] = counts.get(s, 0) + 1
    tied = sum(c * (c - 1) // 2 for c in counts.values())
    pairs = n * (n - 1) // 2
    concordant = pairs - discordant - tied
    return (concordant - discordant) / pairs


def _inversions(seq: list[float]) -> int:
    """Pairs i < j with seq[i] > seq[j] strictly (merge sort; sorts `seq` in place)."""
    if len(seq) < 2:
        return 0
    mid = len(seq) // 2
    left, right = seq[:mid], seq[mid:]
    count = _inversions(left) + _inversions(right)
    i = j = k = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            seq[k] = left[i]
            i += 1
        else:
            seq[k] = right[j]
            count += len(left) - i
            j += 1
        k += 1
    seq[k:] = left[i:] + right[j:]
    return count


def play(skill_a: float, skill_b: float, rng: random.Random) -> int:
    """One game's result for a: 1 win, 0 draw, -1 loss."""
    diff = (skill_a + rng.gauss(0, NOISE)) - (skill_b + rng.gauss(0, NOISE))
    if abs(diff) < DRAW_MARGIN:
        return 0
    return 1 if diff > 0 else -1


@dataclass
class World:
    """The hidden truth of one ladder: skills, owners, and the outcome noise."""

    skills: list[float]
    owners: list[int]
    rng: random.Random
    draws: int = 0
    games: int = 0

    @classmethod
    def make(cls, n: int, seed: int) -> World:
        rng = random.Random(seed)
        skills = [rng.gauss(SKILL_MU, SKILL_SIGMA) for _ in range(n)]
        owners = [i if i < n * 85 // 100 else rng.randrange(n * 85 // 100) for i in range(n)]
        return cls(skills, owners, random.Random(seed * 7919 + 1))

    def result(self, a: int, b: int) -> int:
        r = play(self.skills[a], self.skills[b], self.rng)
        self.games += 1
        self.draws += r == 0
        return r


class Policy:
    """A matchmaking policy with its rating system, over bots 0..n-1."""

    name = ""

    def step(self) -> tuple[int, int]:
        """Pick a match and return (a, b)."""
        raise NotImplementedError

    def record(self, a: int, b: int, result: int) -> None:
        raise NotImplementedError

    def scores(self) -> list[float]:
        raise NotImplementedError

    def opponent_for(self, bot: int) -> int:
        raise NotImplementedError

    def replace_bot(self, bot: int, owner: int, fresh: bool) -> None:
        """Make `bot` a new version: fresh, or from its predecessor's rating."""
        raise NotImplementedError


@dataclass
class Armada(Policy):
    """The platform's own functions."""

    n: int
    owners: list[int]
    model_name: str = ratings.MODEL_NAME
    damped: bool = False
    recent_size: int = 0
    rng: random.Random = field(default_factory=random.Random)
    name: str = "armada"

    def __post_init__(self) -> None:
        self.tick = 0
        self.bots = [Candidate(i, self.owners[i], ratings.initial_rating(), 0, None) for i in range(self.n)]
        self.recent: deque[RecentGame] = deque(maxlen=self.recent_size or self.n)
        self.idle_unit = self.n / 2  # seconds between two games of a bot at one pick a second

    def step(self) -> tuple[int, int]:
        now = START + timedelta(seconds=self.tick)
        pick = matchmaking_logic.pick_match(self.bots, self.recent, now, self.idle_unit)
        assert pick is not None
        return pick.first.id, pick.second.id

    def opponent_for(self, bot: int) -> int:
        found = matchmaking_logic.pick_opponent(self.bots[bot], self.bots, self.recent)
        assert found is not None
        return found.id

    def rate(self, winner: ratings.Skill, loser: ratings.Skill, outcome: Outcome) -> tuple[ratings.Skill, ...]:
        """The ladder's own update, or openskill's `model_name` (damped or not) for the comparison."""
        if self.model_name == ratings.MODEL_NAME and not self.damped:
            return ratings.update(winner, loser, outcome)
        rater = ratings.model(self.model_name, self.damped)
        teams = [[rater.rating(mu=winner.mu, sigma=winner.sigma)], [rater.rating(mu=loser.mu, sigma=loser.sigma)]]
        [[x], [y]] = rater.rate(teams, ranks=[0, 0] if outcome is Outcome.DRAW else [0, 1])
        return ratings.Skill(x.mu, x.sigma), ratings.Skill(y.mu, y.sigma)

    def record(self, a: int, b: int, result: int) -> None:
        ra, rb = self.bots[a].rating, self.bots[b].rating
        if result > 0:
            ra, rb = self.rate(ra, rb, Outcome.WIN)
        elif result < 0:
            rb, ra = self.rate(rb, ra, Outcome.WIN)
        else:
            ra, rb = self.rate(ra, rb, Outcome.DRAW)
        now = START + timedelta(seconds=self.tick)
        for i, r in ((a, ra), (b, rb)):
            bot = self.bots[i]
            self.bots[i] = replace(bot, rating=r, games=bot.games + 1, last_played=now)
        self.recent.append(RecentGame(a, b))
        self.tick += 1

    def scores(self) -> list[float]:
        return [ratings.displayed(b.rating) for b in self.bots]

    def replace_bot(self, bot: int, owner: int, fresh: bool) -> None:
        old = self.bots[bot]
        start = ratings.initial_rating() if fresh else ratings.placement_start(old.rating)
        self.bots[bot] = Candidate(bot, owner, start, 0, None)


@dataclass
class Halite(Policy):
    """Halite II: longest-waiting seed, random opponent among the k nearest in mu, TrueSkill."""

    n: int
    owners: list[int]
    rng: random.Random
    name: str = "halite"

    def __post_init__(self) -> None:
        self.env = trueskill.TrueSkill()
        self.ratings = [self.env.create_rating() for _ in range(self.n)]
        self.last = [-1] * self.n
        self.tick = 0

    def step(self) -> tuple[int, int]:
        seed = min(range(self.n), key=lambda i: (self.last[i], i))
        return seed, self.opponent_for(seed)

    def opponent_for(self, bot: int) -> int:
        k = int(5.0 / (0.01 + self.rng.random()) ** 0.65)
        mu = self.ratings[bot].mu
        near = sorted((i for i in range(self.n) if i != bot), key=lambda i: abs(self.ratings[i].mu - mu))[:k]
        self.rng.shuffle(near)
        for i in near:
            if self.owners[i] != self.owners[bot]:
                return i
        return next(i for i in range(self.n) if self.owners[i] != self.owners[bot])

    def record(self, a: int, b: int, result: int) -> None:
        ra, rb = self.ratings[a], self.ratings[b]
        if result < 0:
            rb, ra = trueskill.rate_1vs1(rb, ra, env=self.env)
        else:
            ra, rb = trueskill.rate_1vs1(ra, rb, drawn=result == 0, env=self.env)
        self.ratings[a], self.ratings[b] = ra, rb
        self.last[a] = self.last[b] = self.tick
        self.tick += 1

    def scores(self) -> list[float]:
        return [r.mu - 3 * r.sigma for r in self.ratings]

    def replace_bot(self, bot: int, owner: int, fresh: bool) -> None:
        self.ratings[bot] = self.env.create_rating()
        self.last[bot] = -1


def ladder_games(world: World, policy: Policy, check_every: int = 20, extra: float = 0.0) -> float:
    """Games per bot until tau(displayed, hidden) >= TAU_GOAL; then `extra` games per bot more."""
    n = len(world.skills)
    played = 0
    reached = math.inf
    limit = MAX_GAMES_PER_BOT * n // 2
    while played < limit:
        a, b = policy.step()
        policy.record(a, b, world.result(a, b))
        played += 1
        checked = reached == math.inf and played % check_every == 0
        if checked and kendall_tau(world.skills, policy.scores()) >= TAU_GOAL:
            reached = 2 * played / n
            limit = played + int(extra * n / 2)
    return reached


def ranks(scores: Sequence[float]) -> list[int]:
    """Rank of each item (0 = best)."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    out = [0] * len(scores)
    for r, i in enumerate(order):
        out[i] = r
    return out


def placement_games(world: World, policy: Policy, bot: int, skill: float, fresh: bool) -> int:
    """Games until the new version of `bot` is placed (see the module's docstring)."""
    world.skills[bot] = skill
    policy.replace_bot(bot, world.owners[bot], fresh)
    true_rank = ranks(world.skills)[bot]
    inside: list[bool] = []
    for games in range(PLACEMENT_MAX_GAMES + PLACE_STAYS + 1):
        inside.append(abs(ranks(policy.scores())[bot] - true_rank) <= PLACE_WITHIN)
        start = games - PLACE_STAYS
        if start >= 0 and all(inside[start:]):
            return start
        other = policy.opponent_for(bot)
        a, b = (bot, other) if games % 2 == 0 else (other, bot)
        policy.record(a, b, world.result(a, b))
    return PLACEMENT_MAX_GAMES


Factory = Callable[[World, int], Policy]


def _with_model(n: int, model_name: str) -> Factory:
    return lambda w, s: Armada(n, w.owners, model_name=model_name)


def run(seeds: int, n: int, newcomers: int, models: bool = True, out: Callable[[str], None] = print) -> list[str]:
    """Measure both figures for both policies; return the target lines."""
    import copy

    policies: dict[str, Factory] = {
        "armada": lambda w, s: Armada(n, w.owners),
        "halite": lambda w, s: Halite(n, w.owners, random.Random(s)),
    }
    # Other openskill models under the same matchmaking: the ladder figure only.
    variants: dict[str, Factory] = {
        f"{ratings.MODEL_NAME} damped": lambda w, s: Armada(n, w.owners, damped=True),
    }
    for other in ratings.MODELS:
        if other != ratings.MODEL_NAME:
            variants[other] = _with_model(n, other)
    ladder: dict[str, list[float]] = {k: [] for k in [*policies, *(variants if models else [])]}
    place: dict[str, list[int]] = {"armada": [], "armada-fresh": [], "halite": []}
    draws = games = 0
    shown = {"armada": seeds, "halite": seeds, **{k: min(seeds, MODEL_SEEDS) for k in variants}}
    for seed in range(seeds):
        for name, make in policies.items():
            world = World.make(n, seed)
            policy = make(world, seed)
            ladder[name].append(ladder_games(world, policy, extra=20))
            draws, games = draws + world.draws, games + world.games
            pick = random.Random(seed * 31 + 7)
            for _ in range(newcomers):
                bot = pick.randrange(n)
                skill = world.skills[bot] + pick.gauss(0, VERSION_CHANGE)
                starts = [("armada", False), ("armada-fresh", True)] if name == "armada" else [(name, True)]
                for label, fresh in starts:
                    w2, p2 = copy.deepcopy(world), copy.deepcopy(policy)
                    place[label].append(placement_games(w2, p2, bot, skill, fresh))
        for name, make in variants.items() if models and seed < MODEL_SEEDS else ():
            world = World.make(n, seed)
            ladder[name].append(ladder_games(world, make(world, seed)))
    out(f"ladder of {n} bots, {seeds} seeds, {newcomers} new versions per seed; "
        f"draws {100 * draws / max(1, games):.1f}% of {games} games; rating model {ratings.MODEL_NAME}")
    med = {k: statistics.median(v) for k, v in ladder.items()}
    pmed = {k: statistics.median(v) for k, v in place.items()}
    for k in ladder:
        out(f"  {k:30} games per bot to tau {TAU_GOAL}: median {med[k]:6.1f}   "
            f"range {min(ladder[k]):.1f}-{max(ladder[k]):.1f} ({shown[k]} seeds)")
    for k in place:
        out(f"  {k:30} placement games:            median {pmed[k]:6.1f}   "
            f"mean {statistics.mean(place[k]):.1f} ({len(place[k])} new versions)")
    ratio = med["armada"] / med["halite"]
    pratio = pmed["armada"] / pmed["halite"]
    return [
        f"target ranking-games-ratio: {ratio:.2f} <= 0.8 {'ok' if ratio <= 0.8 else 'short'}",
        f"target placement-games-ratio: {pratio:.2f} <= 0.45 {'ok' if pratio <= 0.45 else 'short'}",
    ]


def batch_figure(seeds: int, n: int, out: Callable[[str], None] = print) -> None:
    """Games per bot until tau 0.9 with the online ratings and with a batch rating of the same games
    (`_batch_rating`, every BATCH_EVERY games), both policies; medians over the seeds."""
    import _batch_rating

    figures: dict[str, list[tuple[float, float]]] = {"armada": [], "halite": []}
    for seed in range(seeds):
        for name in figures:
            world = World.make(n, seed)
            policy: Policy = (Armada(n, world.owners) if name == "armada"
                              else Halite(n, world.owners, random.Random(seed)))
            games: list[tuple[int, int, int]] = []
            online = batch = math.inf
            mu = None
            while len(games) < MAX_GAMES_PER_BOT * n // 2 and math.inf in (online, batch):
                a, b = policy.step()
                result = world.result(a, b)
                policy.record(a, b, result)
                games.append((a, b, result))
                per_bot = 2 * len(games) / n
                checked = online == math.inf and len(games) % 20 == 0
                if checked and kendall_tau(world.skills, policy.scores()) >= TAU_GOAL:
                    online = per_bot
                if batch == math.inf and len(games) % BATCH_EVERY == 0:
                    mu, sigma = _batch_rating.fit(n, games, DRAW_MARGIN, mu)
                    if kendall_tau(world.skills, [float(s) for s in mu - 3 * sigma]) >= TAU_GOAL:
                        batch = per_bot
            figures[name].append((online, batch))
            out(f"  seed {seed} {name:7} games per bot to tau {TAU_GOAL}: online {online:.1f}, batch {batch:.1f}")
    for name, pairs in figures.items():
        out(f"  {name:7} median: online {statistics.median(p[0] for p in pairs):.1f}, "
            f"batch {statistics.median(p[1] for p in pairs):.1f} ({seeds} seeds)")


#: Games between two batch ratings in `batch_figure`.
BATCH_EVERY = 100


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=11)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--newcomers", type=int, default=10)
    parser.add_argument("--no-models", action="store_true", help="skip the other rating models")
    parser.add_argument("--batch", action="store_true",
                        help="an experiment, no targets: online ratings against a batch rating of the same games")
    args = parser.parse_args()
    if args.batch:
        batch_figure(args.seeds, args.bots)
        print("(an experiment: no target lines; run without --batch for the targets)")
        return 0
    started = time.perf_counter()
    targets = run(args.seeds, args.bots, args.newcomers, not args.no_models)
    print(f"({time.perf_counter() - started:.0f} s)")
    print()
    for line in targets:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
