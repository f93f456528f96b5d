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


def test_never_two_bots_of_one_team() -> None:
    """Teammates' bots (different owners, one shared team) never meet, in either pool: the team could
    feed one bot's rating with the other's thrown games."""
    from dataclasses import replace as with_

    seed = with_(bot(1, owner=7, mu=25), team_id=70)
    mate = with_(bot(2, owner=8, mu=25), team_id=70)
    far = with_(bot(3, owner=9, mu=40), team_id=90)
    assert matchmaking_logic.pick_opponent(seed, [seed, mate, far]) == far
    assert matchmaking_logic.pick_opponent(seed, [seed, mate]) is None
    assert matchmaking_logic.pick_match([seed, mate], [], NOW, 60) is None
    pool = matchmaking_logic.MemoryPool([seed, mate, far])
    assert [c.id for c in pool.near(seed, 5)] == [3]
    assert matchmaking_logic.pick_bounded(matchmaking_logic.MemoryPool([seed, mate]), [], NOW, 60) is None


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


def marked(bot_id: int, games: int, sigma: float, played_ago: float, idle_unit: float = 60.0,
           owner: int | None = None, mu: float = 25.0) -> Candidate:
    """A candidate as the matchmaker leaves it once a match is made for it `played_ago` seconds ago."""
    fresh = Candidate(bot_id, bot_id if owner is None else owner, Skill(mu, sigma), games, None)
    return matchmaking_logic.mark_played(fresh, NOW - timedelta(seconds=played_ago), idle_unit)


def test_the_seed_order_by_due_is_the_priority_order() -> None:
    """What a pool reads through its index (by due) is what the priority says, bonus included."""
    rng = random.Random(8)
    pool = [marked(i, rng.randrange(0, 60), rng.uniform(1, 8), rng.uniform(0, 900)) for i in range(300)]
    pool += [Candidate(300 + i, 300 + i, Skill(25, 8), 0, None) for i in range(3)]  # never played: first
    by_due = sorted(pool, key=matchmaking_logic.waiting_key)
    by_priority = sorted(pool, key=lambda c: (-matchmaking_logic.priority(c, NOW, 60.0), c.id))
    assert [c.id for c in by_due] == [c.id for c in by_priority]
    assert [c.id for c in by_due[:3]] == [300, 301, 302]


def test_a_provisional_version_is_seeded_before_a_settled_one_that_waited_a_little_longer() -> None:
    """Its bonus (few games, uncertain) counts in the seed order a large ladder reads, not only among the
    longest-waiting few."""
    settled = marked(1, games=80, sigma=1.2, played_ago=70)
    settling = marked(2, games=3, sigma=2.5, played_ago=40)
    assert matchmaking_logic.priority(settling, NOW, 60.0) > matchmaking_logic.priority(settled, NOW, 60.0)
    pool = matchmaking_logic.MemoryPool([settled, settling, marked(3, games=80, sigma=1.2, played_ago=0)])
    pick = must(matchmaking_logic.pick_bounded(pool, [], NOW, 60.0))
    assert pick.seed_id == 2
    # the settling bonus is bounded: a settled bot that waited MAX_BONUS idle units more goes first
    long_wait = marked(1, games=80, sigma=1.2, played_ago=40 + 60 * matchmaking_logic.MAX_BONUS)
    assert matchmaking_logic.priority(long_wait, NOW, 60.0) > matchmaking_logic.priority(settling, NOW, 60.0)


def test_no_bot_starves_with_new_versions_arriving() -> None:
    """pick_bounded over a MemoryPool marked as the platform marks it (mark_played), 400 bots of
    which 60 are replaced by new versions during the run (they get the settling bonus): no bot
    waits longer than MAX_BONUS idle units + n picks; new versions settle sooner than the rest play."""
    n, picks = 400, 2500
    rng = random.Random(23)
    idle_unit = n / 2
    pool = matchmaking_logic.MemoryPool([marked(i, 50, 1.2, rng.uniform(0, 2 * idle_unit), idle_unit,
                                                mu=rng.gauss(25, 8)) for i in range(n)])
    skills = {c.id: c.rating.mu for c in pool.by_id.values()}
    replaced = dict(zip(range(200, 260), rng.sample(range(n), 60), strict=True))  # pick -> the bot replaced
    bound = matchmaking_logic.MAX_BONUS * idle_unit + n
    last: dict[int, int] = {i: 0 for i in range(n)}
    worst = 0
    games_at: dict[int, int] = {}
    for t in range(1, picks + 1):
        now = NOW + timedelta(seconds=t)
        if t in replaced:
            old = pool.by_id[replaced[t]]
            pool.remove(old.id)
            del last[old.id]
            new_id = n + t
            pool.add(Candidate(new_id, old.owner_id, ratings.placement_start(old.rating), 0, None))
            skills[new_id], last[new_id] = skills[old.id] + rng.gauss(0, 2), t
        pick = must(matchmaking_logic.pick_bounded(pool, [], now, idle_unit))
        a, b = pool.by_id[pick.first.id], pool.by_id[pick.second.id]
        assert a.owner_id != b.owner_id
        if skills[a.id] + rng.gauss(0, 4) >= skills[b.id] + rng.gauss(0, 4):
            ra, rb = ratings.update(a.rating, b.rating, Outcome.WIN)
        else:
            rb, ra = ratings.update(b.rating, a.rating, Outcome.WIN)
        for c, r in ((a, ra), (b, rb)):
            worst = max(worst, t - last[c.id])
            last[c.id] = t
            pool.update(matchmaking_logic.mark_played(replace(c, rating=r, games=c.games + 1), now, idle_unit))
            if c.id > n and c.games + 1 == ratings.PROVISIONAL_GAMES:
                games_at[c.id] = t - (c.id - n)
    worst = max(worst, max(picks + 1 - t for t in last.values()))
    print(f"longest gap {worst} picks, bound {bound:.0f}; new versions settled {len(games_at)}")
    assert worst <= bound, (worst, bound)
    assert len(games_at) >= 55  # most new versions settled
    # ten games took a new version well under the ten gaps (n / 2 picks each) a settled bot plays them in
    assert sorted(games_at.values())[len(games_at) // 2] < 10 * n / 2 / 3


def test_provisional_versions_keep_the_order_they_started_in_and_a_bounded_head() -> None:
    """A provisional version is due PROVISIONAL_HEAD units before its first game and moves on one
    PROVISIONAL_STEP a game: one that started first stays ahead of a later one for a while, and
    its head never exceeds PROVISIONAL_HEAD units before its latest game (the no-starvation C)."""
    unit = 60.0
    head, step = matchmaking_logic.PROVISIONAL_HEAD, matchmaking_logic.PROVISIONAL_STEP

    def at(seconds: float) -> datetime:
        return NOW + timedelta(seconds=seconds)

    early = matchmaking_logic.mark_played(Candidate(1, 1, Skill(25, 8), 0, None), at(0), unit)
    assert early.due == at(-head * unit)
    early = matchmaking_logic.mark_played(replace(early, games=1), at(10), unit)
    assert early.due == at((step - head) * unit)  # one step on, not a whole head from its new game
    late = matchmaking_logic.mark_played(Candidate(2, 2, Skill(25, 8), 0, None), at(20), unit)
    pool = matchmaking_logic.MemoryPool([late, early])
    assert [c.id for c in pool.longest_waiting(2)] == [1, 2]  # the one that started first is seeded first
    idle = matchmaking_logic.mark_played(replace(early, games=2), at(3600), unit)  # back after an hour
    assert idle.due == at(3600 - head * unit)
    assert head <= matchmaking_logic.MAX_BONUS
    settled = matchmaking_logic.mark_played(replace(early, games=ratings.PROVISIONAL_GAMES), at(3600), unit)
    assert settled.due == at(3600 - matchmaking_logic.bonus(11, 8) * unit)  # settled: its bonus only
