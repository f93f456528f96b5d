"""Matchmaking rules: owners, skill, repeats, sides, priority, queue depth, no starvation."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta

from armada_web.ladder.logic import matchmaking as matchmaking_logic
from armada_web.ladder.logic import ratings
from armada_web.ladder.logic.matchmaking import Candidate, RecentGame
from armada_web.ladder.logic.ratings import Outcome, Skill

NOW = datetime(2025, 6, 1, 12, 0)


def must(pick: matchmaking_logic.Pick | None) -> matchmaking_logic.Pick:
    assert pick is not None
    return pick


def must_id(found: Candidate | None) -> int:
    assert found is not None
    return found.id


def bot(bot_id: int, owner: int | None = None, mu: float = 25.0, sigma: float = 2.0, games: int = 30,
        idle: float = 60.0) -> Candidate:
    owner_id = bot_id if owner is None else owner
    return Candidate(bot_id, owner_id, Skill(mu, sigma), games, NOW - timedelta(seconds=idle))


def test_never_the_same_owner() -> None:
    seed = bot(1, owner=7, mu=25)
    twin = bot(2, owner=7, mu=25)
    far = bot(3, owner=8, mu=40)
    assert matchmaking_logic.pick_opponent(seed, [seed, twin, far]) == far
    assert matchmaking_logic.pick_opponent(seed, [seed, twin]) is None
    assert matchmaking_logic.pick_match([seed, twin], [], NOW, 60) is None


def test_the_opponent_is_close_in_skill() -> None:
    seed = bot(1, mu=25)
    others = [bot(2, mu=35), bot(3, mu=26), bot(4, mu=18), bot(5, mu=29)]
    assert must_id(matchmaking_logic.pick_opponent(seed, [seed, *others])) == 3


def test_recent_repeats_are_penalised() -> None:
    seed = bot(1, mu=25)
    near, next_near = bot(2, mu=25.5), bot(3, mu=26.5)
    pool = [seed, near, next_near]
    assert must_id(matchmaking_logic.pick_opponent(seed, pool)) == 2
    recent = [RecentGame(1, 2), RecentGame(2, 1)]
    assert must_id(matchmaking_logic.pick_opponent(seed, pool, recent)) == 3
    assert must_id(matchmaking_logic.pick_opponent(seed, pool, [RecentGame(3, 2), RecentGame(2, 3)])) == 2


def test_sides_alternate_between_games_of_a_pairing() -> None:
    a, b = bot(1, mu=25, games=0), bot(2, mu=25)
    first = must(matchmaking_logic.pick_match([a, b], [], NOW, 60))
    assert (first.first.id, first.second.id, first.seed_id) == (1, 2, 1)
    again = must(matchmaking_logic.pick_match([a, b], [RecentGame(1, 2)], NOW, 60))
    assert (again.first.id, again.second.id) == (2, 1)
    third = must(matchmaking_logic.pick_match([a, b], [RecentGame(1, 2), RecentGame(2, 1)], NOW, 60))
    assert (third.first.id, third.second.id) == (1, 2)
    older = must(matchmaking_logic.pick_match([a, b], [], NOW, 60, last_sides={(1, 2): 1}))
    assert (older.first.id, older.second.id) == (2, 1)


def test_the_seed_has_few_games_high_sigma_or_a_long_wait() -> None:
    base = [bot(i, games=40, sigma=1.5, idle=30) for i in range(1, 6)]

    def seed_of(pool: list[Candidate]) -> int:
        pick = matchmaking_logic.pick_match(pool, [], NOW, idle_unit=60)
        assert pick is not None
        return pick.seed_id

    assert seed_of([*base[:4], replace(base[4], games=2)]) == 5
    assert seed_of([*base[:4], replace(base[4], rating=Skill(25, 6))]) == 5
    assert seed_of([*base[:4], replace(base[4], last_played=NOW - timedelta(seconds=600))]) == 5
    assert seed_of([*base[:4], replace(base[4], last_played=None, games=60)]) == 5


def test_target_depth_follows_live_workers() -> None:
    assert matchmaking_logic.target_depth(0) == 0
    assert matchmaking_logic.target_depth(-1) == 0
    assert matchmaking_logic.target_depth(1) < matchmaking_logic.target_depth(4)
    assert matchmaking_logic.target_depth(3) >= 3


def test_no_bot_starves() -> None:
    """200 bots, 5,000 picks at one a second: no bot waits more than C + n picks."""
    n, picks = 200, 5000
    rng = random.Random(5)
    skills = [rng.gauss(25, 8) for _ in range(n)]
    owners = [i % 150 for i in range(n)]  # 50 owners with two bots
    pool = [Candidate(i, owners[i], ratings.initial_rating(), 0, None) for i in range(n)]
    idle_unit = n / 2
    bound = (matchmaking_logic.GAMES_WEIGHT + matchmaking_logic.SIGMA_WEIGHT) * idle_unit + n
    recent: list[RecentGame] = []
    last = [0] * n
    worst = 0
    for t in range(1, picks + 1):
        now = NOW + timedelta(seconds=t)
        pick = matchmaking_logic.pick_match(pool, recent[-n:], now, idle_unit)
        assert pick is not None
        a, b = pick.first, pick.second
        assert a.owner_id != b.owner_id
        if skills[a.id] + rng.gauss(0, 4) >= skills[b.id] + rng.gauss(0, 4):
            ra, rb = ratings.update(a.rating, b.rating, Outcome.WIN)
        else:
            rb, ra = ratings.update(b.rating, a.rating, Outcome.WIN)
        for c, r in ((a, ra), (b, rb)):
            worst = max(worst, t - last[c.id])
            last[c.id] = t
            pool[c.id] = replace(c, rating=r, games=c.games + 1, last_played=now)
        recent.append(RecentGame(a.id, b.id))
    worst = max(worst, max(picks + 1 - t for t in last))
    print(f"longest gap {worst} picks, bound {bound:.0f}")
    assert worst <= bound, (worst, bound)
    assert min(c.games for c in pool) >= picks * 2 // n // 3


def test_no_bot_starves_on_10000_with_the_bounded_pool():
    """pick_bounded over a MemoryPool (what the tick reads from the database: the longest-waiting
    seeds, opponents near in mu): 10,000 bots, 25,000 picks at one a second, the same bound."""
    n, picks = 10_000, 25_000
    rng = random.Random(17)
    skills = [rng.gauss(25, 8) for _ in range(n)]
    owners = [i % 7000 for i in range(n)]  # 3,000 owners with two bots
    pool = matchmaking_logic.MemoryPool([Candidate(i, owners[i], ratings.initial_rating(), 0, None) for i in range(n)])
    idle_unit = n / 2
    bound = (matchmaking_logic.GAMES_WEIGHT + matchmaking_logic.SIGMA_WEIGHT) * idle_unit + n
    recent: list[RecentGame] = []
    last = [0] * n
    worst = 0
    near_in_mu = 0
    for t in range(1, picks + 1):
        now = NOW + timedelta(seconds=t)
        pick = matchmaking_logic.pick_bounded(pool, recent[-200:], now, idle_unit)
        assert pick is not None
        a, b = pick.first, pick.second
        assert a.owner_id != b.owner_id
        near_in_mu += abs(a.rating.mu - b.rating.mu) < 3
        if skills[a.id] + rng.gauss(0, 4) >= skills[b.id] + rng.gauss(0, 4):
            ra, rb = ratings.update(a.rating, b.rating, Outcome.WIN)
        else:
            rb, ra = ratings.update(b.rating, a.rating, Outcome.WIN)
        for c, r in ((a, ra), (b, rb)):
            worst = max(worst, t - last[c.id])
            last[c.id] = t
            pool.update(replace(c, rating=r, games=c.games + 1, last_played=now))
        recent.append(RecentGame(a.id, b.id))
    worst = max(worst, max(picks + 1 - t for t in last))
    print(f"longest gap {worst} picks, bound {bound:.0f}; opponents within 3 mu: {near_in_mu / picks:.0%}")
    assert worst <= bound, (worst, bound)
    assert min(c.games for c in pool.by_id.values()) >= 2
    assert near_in_mu > 0.9 * picks  # opponents still come from near the seed's rating
