"""The finals' pure functions (armada_web.seasons.logic.finals): stage sizes and cuts, each round's games,
the rating start, the finals update with no drift, the final order."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from armada_web.ladder.logic import ratings
from armada_web.seasons.logic import finals
from armada_web.seasons.logic.finals import Plan, Standing, Start


def test_stage_sizes_cut_each_stage_but_never_below_the_floor():
    plan = Plan(stages=4, games=4, cuts=(0.5,), keep_min=3)
    assert finals.stage_sizes(20, plan) == [20, 10, 5, 3]
    assert finals.stage_sizes(4, plan) == [4, 3, 3, 3]  # the floor holds
    assert finals.stage_sizes(2, plan) == [2, 2, 2, 2]  # never more than there are
    per_stage = Plan(stages=3, games=2, cuts=(0.8, 0.25), keep_min=2)
    assert finals.stage_sizes(50, per_stage) == [50, 10, 8]  # a cut fraction per stage


@given(st.integers(2, 40), st.integers(1, 12))
def test_each_round_pairs_every_entry_with_others_and_each_plays_its_games(n, games):
    order = list(range(100, 100 + n))
    played: Counter[int] = Counter()
    first: Counter[int] = Counter()
    total = 0
    for r in range(finals.rounds_in_stage(games)):
        pairs = finals.round_games(order, games, r)
        total += len(pairs)
        for a, b in pairs:
            assert a != b and a in order and b in order
            played[a] += 1
            played[b] += 1
            first[a] += 1
    assert total == finals.matches_in_stage(n, games)
    full = 2 * (games // 2)  # the rounds of two games each
    for entry in order:
        assert played[entry] in (full, full + 1)  # an odd entry out sits out the odd round only
        assert abs(first[entry] - (played[entry] - first[entry])) <= 1  # sides balanced
    if games % 2 == 0:
        assert set(played.values()) == {games}


def test_a_round_meets_the_entries_at_one_distance_round_the_circle():
    order = [10, 11, 12, 13, 14]
    assert finals.round_games(order, 4, 0) == [(10, 11), (11, 12), (12, 13), (13, 14), (14, 10)]
    assert finals.round_games(order, 4, 1) == [(10, 12), (11, 13), (12, 14), (13, 10), (14, 11)]
    assert finals.round_games(order, 3, 1) == [(10, 11), (13, 12)]  # the odd game: neighbours
    assert finals.round_games(order, 4, 2) == []
    assert finals.round_games([1], 4, 0) == []


def test_total_matches_adds_the_stages():
    plan = Plan(stages=3, games=2, cuts=(0.4,), keep_min=2)
    assert finals.stage_sizes(5, plan) == [5, 3, 2]
    assert finals.total_matches(5, plan) == 5 + 3 + 2


def test_the_finals_update_has_no_dynamics_term():
    a, b = ratings.Skill(25.0, 2.0), ratings.Skill(25.0, 2.0)
    still = ratings.after_game(a, b, None, tau=finals.FINALS_TAU)
    drifting = ratings.update(a, b, ratings.Outcome.DRAW)
    assert still[0].sigma < drifting[0].sigma  # the ladder's tau widens sigma before each game
    assert still == (ratings.update(a, b, ratings.Outcome.DRAW, tau=0.0))
    won_2 = ratings.after_game(a, b, 2, tau=finals.FINALS_TAU)
    assert won_2[1].mu > 25.0 > won_2[0].mu
    assert ratings.after_game(a, b, 1, tau=finals.FINALS_TAU) == tuple(reversed(won_2))


def test_the_start_is_the_prior_or_the_ladder_mu_with_sigma_raised():
    ladder = ratings.Skill(31.0, 1.5)
    assert finals.start_rating(Start.PRIOR, ladder) == ratings.initial_rating()
    kept = finals.start_rating(Start.LADDER, ladder)
    assert kept.mu == 31.0 and kept.sigma == pytest.approx((1.5 ** 2 + finals.LADDER_RAISE ** 2) ** 0.5)
    assert finals.start_rating(Start.LADDER, None) == ratings.initial_rating()  # never played: the prior


def test_the_order_is_stage_then_score_then_seed_and_the_cut_keeps_the_best():
    rows = [Standing(1, 1, ratings.Skill(40, 1), seed=1), Standing(2, 2, ratings.Skill(20, 1), seed=2),
            Standing(3, 2, ratings.Skill(30, 1), seed=3), Standing(4, 2, ratings.Skill(30, 1), seed=0)]
    assert [s.id for s in finals.ordered(rows)] == [4, 3, 2, 1]
    kept, out = finals.cut(rows[1:], 2)
    assert [s.id for s in kept] == [4, 3] and [s.id for s in out] == [2]


def test_a_plan_that_cannot_be_played_is_refused():
    assert finals.check_plan(Plan(0, 2, (0.5,), 2))
    assert finals.check_plan(Plan(2, 0, (0.5,), 2))
    assert finals.check_plan(Plan(2, 2, (1.0,), 2))
    assert finals.check_plan(Plan(2, 2, (0.5,), 1))
    assert finals.check_plan(Plan(2, 2, (0.5,), 2)) is None
