"""The estimates the bot page and /status/ show (`ladder.logic.estimates`): next game, settled rating."""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime

import pytest

from armada_web.ladder.logic import estimates
from armada_web.ladder.logic.matchmaking import NEAR, Candidate, MemoryPool, RecentGame, pick_opponent
from armada_web.ladder.logic.ratings import PROVISIONAL_GAMES, Skill


def queue(**changes: float) -> estimates.Queue:
    base = {"candidates": 1000, "per_second": 0.5, "queued": 20, "head_priority": 2.0, "idle_unit": 1000.0,
            "match_seconds": 60.0}
    return estimates.Queue(**{**base, **changes})  # type: ignore[arg-type]


def test_the_next_game_comes_sooner_for_a_higher_priority_and_a_faster_pace() -> None:
    q = queue()
    low, high = estimates.next_game(q, priority=0.5), estimates.next_game(q, priority=1.5)
    assert high < low
    assert estimates.next_game(queue(per_second=1.0), priority=0.5) < low
    # at the head: only the queued matches ahead (20 at 0.5 a second)
    assert estimates.next_game(q, priority=2.5) == pytest.approx(40.0)
    # never played: its place among the never-played, one a match at least
    assert estimates.next_game(q, priority=math.inf, place=9) == pytest.approx(10 / 0.5 + 40)
    assert estimates.next_game(q, priority=0.5, flying=True) == pytest.approx(20.0)


def test_the_wait_as_a_seed_is_shortened_by_the_chance_to_be_an_opponent() -> None:
    q = queue(per_second=0.5, candidates=100, queued=0)
    as_seed = (q.head_priority - 0.5) * q.idle_unit  # 1,500 s
    wait = estimates.next_game(q, priority=0.5)
    assert wait < as_seed and wait == pytest.approx((1 - math.exp(-0.005 * as_seed)) / 0.005)


def test_a_settled_rating_needs_no_time_and_a_new_one_its_games() -> None:
    q = queue(head_priority=3.0)
    assert estimates.settled(q, priority=0.3, games=PROVISIONAL_GAMES, sigma=1.1) == 0.0
    new = estimates.settled(q, priority=1.0, games=1, sigma=2.0)
    later = estimates.settled(q, priority=1.0, games=7, sigma=2.0)
    assert new > later > estimates.next_game(q, priority=1.0) + q.match_seconds
    # a version far above the head plays its games back to back: its queue, its game's length, then
    # each game left at least one ranked match start (0.5 a second) after the one before
    assert estimates.settled(queue(head_priority=0.1), priority=math.inf, games=0, sigma=8.3) == pytest.approx(
        1 / 0.5 + 40 + 60 + (PROVISIONAL_GAMES - 1) / 0.5)


def test_a_new_version_cannot_settle_faster_than_ranked_matches_start() -> None:
    """Without enough provisional games measured, the seed order alone said a version above the head
    plays its 9 games left in no time: /status/ showed "a settled rating in about 5 s" for a new
    version on a site starting a ranked match every 2 s (issue 29's trial). Each game is a ranked
    match, and they start at the measured pace: 9 games are at least 9 starts."""
    q = queue(head_priority=0.0, per_second=0.5, queued=0, match_seconds=1.0)
    assert estimates.settled(q, priority=math.inf, games=0, sigma=8.3) >= (PROVISIONAL_GAMES - 1) / 0.5


def test_measured_provisional_games_set_the_pace_of_settling() -> None:
    """With enough provisional games measured, they are shared among the provisional versions: P
    versions getting R games a second play one game each P / R seconds; more versions take longer."""
    few = queue(settling=10, settling_games=200)  # 200 games in 15 minutes among 10 versions
    assert estimates.settling_time(few, 9) == pytest.approx(9 * 10 / (200 / 900))
    assert estimates.settling_time(queue(settling=40, settling_games=200), 9) == pytest.approx(
        4 * estimates.settling_time(few, 9))
    assert estimates.settling_time(queue(settling=10, settling_games=400), 9) < estimates.settling_time(few, 9)
    assert estimates.settling_time(queue(settling=10, settling_games=5), 9) is None  # too few: the model
    # A site up for 5 minutes counted those 200 games in 300 s, not 900: three times the pace.
    assert estimates.settling_time(queue(settling=10, settling_games=200, settling_window=300.0), 9) == (
        pytest.approx(estimates.settling_time(few, 9) / 3))


def test_settling_spans_count_each_versions_gaps_and_the_time_any_was_provisional() -> None:
    # (first game in the window, settled or now, games in the window), seconds before now
    spans = [(-800.0, -600.0, 10, False), (-700.0, -500.0, 4, True), (-300.0, 0.0, 3, False)]
    found = estimates.settling_spans(spans)
    assert found.intervals == 9 + 3 + 2
    assert found.exposure == pytest.approx(200 + 200 + 300)
    assert found.busy == pytest.approx(300 + 300)  # -800..-500 overlapping, then -300..0
    assert (found.fresh_intervals, found.fresh_exposure) == (3, pytest.approx(200))


def test_on_a_small_ladder_the_pace_one_version_kept_sets_the_settling_time() -> None:
    """Two new versions settled one after the other in the window, each 10 games in 200 s, and one
    version is provisional now. Shared over the whole window the 20 games said 405 s for 9 games
    (900 s x 1 / 20 a game), twice what each version took: the window's idle minutes and the other
    version's games counted as this one's share (bench/surge.py's small site: the estimates ran
    1.4-1.8 times long). Its pace is 200 s per 9 gaps."""
    spans = [(-800.0, -600.0, 10, False), (-500.0, -300.0, 10, False)]
    measured = estimates.settling_spans(spans)
    q = queue(settling=1, settling_games=20, spans=measured)
    assert estimates.settling_time(q, 9) == pytest.approx(9 * 400 / 18)
    # Fewer gaps than PACE_ENOUGH: the share over the window, as before.
    few = queue(settling=1, settling_games=20,
                spans=dataclasses.replace(measured, intervals=estimates.PACE_ENOUGH - 1))
    assert estimates.settling_time(few, 9) == pytest.approx(9 * 900 / 20)
    # Enough gaps but fewer than ENOUGH games: the pace alone is a measure.
    assert estimates.settling_time(queue(settling=1, settling_games=12, spans=estimates.Spans(
        intervals=10, exposure=300.0, busy=300.0)), 9) == pytest.approx(9 * 30)


def test_after_a_surge_one_version_alone_is_not_held_to_the_surges_pace() -> None:
    """A deadline-day trial: ten versions settled together (each 9 gaps in 100 s, ten at once), then one
    version alone was told 4 to 8 times its time: the pace a version kept in the surge, shared ten
    ways, was read as one version's. Each span's seconds count as many versions as shared them (here
    10): one alone keeps ten times that pace. Never slower than measured: with as many or more
    settling now the pace is as it was (bench/surge.py's estimates are unchanged)."""
    surge = [(-300.0, -200.0, 10, False)] * 10
    measured = estimates.settling_spans(surge)
    assert measured.exposure == pytest.approx(1000.0) and measured.busy == pytest.approx(100.0)
    alone_now = queue(settling=1, settling_games=100, spans=measured)
    assert estimates.settling_time(alone_now, 9) == pytest.approx(9 * 100 / 90)  # was 9 * 1000 / 90
    # each instant shared among the versions provisional then (a review: dividing a long span by its
    # average crowd counted a version alone for 900 s of 1,000 as 616 s alone)
    long_and_short = estimates.settling_spans([(-1000.0, 0.0, 10, False)] + [(-100.0, 0.0, 3, True)] * 9)
    assert long_and_short.busy == pytest.approx(900 + 100)  # all versions' seconds as if alone
    assert long_and_short.fresh_alone == pytest.approx(100 * 9 / 10)
    crowded_now = queue(settling=10, settling_games=100, spans=measured)
    assert estimates.settling_time(crowded_now, 9) == pytest.approx(9 * 1000 / 90)
    assert estimates.settling_time(queue(settling=20, settling_games=100, spans=measured), 9) >= \
        estimates.settling_time(crowded_now, 9)


def test_in_a_surge_the_share_of_the_versions_settling_now_sets_it() -> None:
    """Forty versions settling now where the window's versions overlapped less: each gets its share
    of the games they got together while any was provisional, slower than one version's pace."""
    q = queue(settling=40, settling_games=300, spans=estimates.Spans(intervals=250, exposure=5000.0, busy=900.0))
    assert estimates.settling_time(q, 9) == pytest.approx(9 * 40 * 900 / 300)
    assert estimates.settling_time(q, 9) > 9 * 5000 / 250


def test_a_new_bot_gets_its_share_by_the_pace_fresh_versions_kept() -> None:
    """bench/surge.py: a new bot's estimate ran about twice its time (median), a new version's 0.9:
    the matchmaker serves a fresh rating faster (its uncertainty, as seed and as opponent). The
    share is weighed by each kind's measured pace: here fresh versions kept a gap every 20 s,
    placed ones every 60 s; with one of each settling now, the fresh one gets three quarters."""
    q = queue(settling=2, settling_fresh=1, settling_games=40, spans=estimates.Spans(
        intervals=30, exposure=20 * 20.0 + 10 * 60.0, busy=900.0, fresh_intervals=20, fresh_exposure=400.0))
    share = 900.0 / 40  # seconds a provisional game, any version's
    assert estimates.settling_time(q, 9, fresh=True) == pytest.approx(9 * share * (1 / 20 + 1 / 60) / (1 / 20))
    assert estimates.settling_time(q, 9, fresh=False) == pytest.approx(9 * share * (1 / 20 + 1 / 60) / (1 / 60))
    same = queue(settling=2, settling_fresh=0, settling_games=40,  # one kind only: the share as before, P x busy / R
                 spans=estimates.Spans(intervals=30, exposure=1000.0, busy=900.0))
    assert estimates.settling_time(same, 9) == pytest.approx(9 * 2 * 900.0 / 40)


def ladder_of(mus: list[float]) -> list[Candidate]:
    """Settled bots of one owner each, at `mus`, their last game a minute ago."""
    last = datetime(2026, 1, 1)
    return [Candidate(i, i, Skill(mu, 1.2), 100, last) for i, mu in enumerate(mus)]


def test_the_top_bot_far_above_the_rest_is_never_an_opponent_and_waits_its_turn_as_seed() -> None:
    """A tester's live site: a bot far above the others in mu said "next ranked game in about 17-20 s"
    for 72 s, and played 83 s after the first reading (median error 0.67 over 107 readings). The even
    share said every bot is an opponent per_second / candidates times a second, so the wait could never
    exceed candidates / per_second however far its turn as seed was; but each seed's opponent is its
    nearest in mu (`matchmaking.pick_opponent`), never the bot far above. Its wait is its turn as seed,
    and that counts down as its priority grows."""
    bots = ladder_of([20.0 + 0.2 * i for i in range(30)] + [40.0])
    top = bots[-1]
    assert estimates.opponent_share(top, bots, candidates=len(bots)) == 0.0
    # the matchmaker agrees: whichever bot is the seed, its opponent is never the top one
    pool = MemoryPool(bots)
    assert all(pick_opponent(seed, pool.near(seed, NEAR)) != top for seed in bots[:-1])
    q = queue(candidates=31, per_second=1.0, queued=0, head_priority=1.0, idle_unit=225.0)
    wait = estimates.next_game(q, priority=0.6, share=estimates.opponent_share(top, bots, candidates=len(bots)))
    assert wait == pytest.approx(0.4 * 225.0)  # 90 s: its turn as seed
    assert estimates.next_game(q, priority=0.6) < 31 < wait / 2  # the even share: about 29 s
    # 20 s later: 20 s less
    share = estimates.opponent_share(top, bots, candidates=len(bots))
    later = estimates.next_game(q, priority=0.6 + 20 / 225.0, share=share)
    assert later == pytest.approx(wait - 20.0)


def test_the_opponent_shares_follow_the_nearest_in_mu_and_add_up_to_one_pick() -> None:
    """Every seed names one opponent, so the shares over the ladder add up to one pick (each seed
    about as often); a bot in the middle of an even ladder gets about its even share, one alone at
    the bottom (farther from the next than that one is from its own neighbour) none."""
    mus = [10.0] + [20.0 + 0.1 * i for i in range(60)]
    bots = ladder_of(mus)
    shares = [estimates.opponent_share(b, bots, candidates=len(bots)) for b in bots]
    assert sum(shares) == pytest.approx(1.0)
    assert shares[0] == 0.0
    assert shares[30] == pytest.approx(1 / len(bots), abs=1 / len(bots))
    # a bot met just now is met less: the repeat penalty sends its neighbours elsewhere
    assert shares[30] > 0
    recent = [RecentGame(29, 30), RecentGame(30, 31)]
    assert estimates.opponent_share(bots[30], bots, recent, candidates=len(bots)) == 0.0


def test_on_a_ladder_larger_than_the_window_the_shares_still_add_up_to_one_pick() -> None:
    """The window read around a bot (AROUND on each side) is not the ladder: each bot's share is of
    the whole ladder's picks (a review: divided by the window, a 1,000-bot ladder's shares added up to
    14 picks and a middle bot's wait came out at a ninth of its own)."""
    bots = ladder_of([20.0 + 0.01 * i for i in range(400)])
    ranked = sorted(bots, key=lambda b: b.rating.mu)

    def window(i: int) -> list[Candidate]:
        return ranked[max(0, i - estimates.AROUND):i + estimates.AROUND + 1]

    shares = [estimates.opponent_share(b, window(i), candidates=len(bots)) for i, b in enumerate(ranked)]
    assert sum(shares) == pytest.approx(1.0)
    pool = MemoryPool(bots)
    picked = sum(pick_opponent(seed, pool.near(seed, NEAR)) == ranked[200] for seed in bots)
    assert shares[200] == pytest.approx(picked / len(bots))
