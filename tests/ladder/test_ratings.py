"""Skill updates: wins, draws, forfeits, determinism, provisional, placement start."""

from __future__ import annotations

import math

import pytest

from armada_web.ladder.logic import ratings
from armada_web.ladder.logic.ratings import Outcome, Skill


def test_a_win_raises_the_winner_and_lowers_the_loser() -> None:
    a, b = ratings.initial_rating(), ratings.initial_rating()
    won, lost = ratings.update(a, b, Outcome.WIN)
    assert won.mu > a.mu and lost.mu < b.mu
    assert won.sigma < a.sigma and lost.sigma < b.sigma
    assert math.isclose(won.mu - a.mu, b.mu - lost.mu)


def test_an_upset_moves_more_than_an_expected_win() -> None:
    strong, weak = Skill(30, 3), Skill(20, 3)
    expected, _ = ratings.update(strong, weak)
    _, upset = ratings.update(weak, strong)
    assert upset.mu - strong.mu < -(expected.mu - strong.mu)


def test_a_draw_between_equals_moves_mu_little_and_lowers_sigma() -> None:
    a, b = Skill(25, 5), Skill(25, 5)
    x, y = ratings.update(a, b, Outcome.DRAW)
    assert abs(x.mu - a.mu) < 1e-9 and abs(y.mu - b.mu) < 1e-9
    assert x.sigma < a.sigma and y.sigma < b.sigma


def test_a_draw_pulls_unequal_ratings_together_in_any_order() -> None:
    strong, weak = Skill(30, 3), Skill(20, 3)
    s1, w1 = ratings.update(strong, weak, Outcome.DRAW)
    w2, s2 = ratings.update(weak, strong, Outcome.DRAW)
    assert s1.mu < strong.mu and w1.mu > weak.mu
    assert math.isclose(s1.mu, s2.mu) and math.isclose(w1.mu, w2.mu)


def test_a_forfeit_is_rated_as_a_loss_for_the_faulty_bot() -> None:
    a, b = Skill(27, 4), Skill(24, 2)
    assert ratings.update(a, b, Outcome.FORFEIT) == ratings.update(a, b, Outcome.WIN)


def test_updates_are_deterministic() -> None:
    a, b = Skill(26.5, 6.1), Skill(23.2, 2.7)
    first = [ratings.update(a, b, o) for o in Outcome]
    again = [ratings.update(a, b, o) for o in Outcome]
    assert first == again
    assert ratings.update(a, b) == ratings.update(Skill(26.5, 6.1), Skill(23.2, 2.7))


def test_the_undamped_model_learns_faster_than_openskills_default() -> None:
    damped = ratings.model(damped=True)

    def damped_update(winner: Skill, loser: Skill) -> tuple[Skill, Skill]:
        [[a], [b]] = damped.rate([[damped.rating(mu=winner.mu, sigma=winner.sigma)],
                                  [damped.rating(mu=loser.mu, sigma=loser.sigma)]], ranks=[0, 1])
        return Skill(a.mu, a.sigma), Skill(b.mu, b.sigma)

    def after(update) -> float:
        r = ratings.initial_rating()
        for _ in range(10):
            r, _ = update(r, Skill(25, 1.5))
            _, r = update(Skill(25, 1.5), r)
        return r.sigma

    assert after(ratings.update) < 0.8 * after(damped_update)


def test_displayed_and_provisional() -> None:
    assert ratings.displayed(Skill(25, 2)) == 19
    assert ratings.displayed(ratings.initial_rating()) == 0
    assert ratings.provisional(0) and ratings.provisional(9)
    assert not ratings.provisional(10) and not ratings.provisional(50)


def test_placement_starts_where_the_predecessor_was_shown_with_sigma_raised() -> None:
    assert ratings.placement_start(None) == ratings.initial_rating()
    old = Skill(31.0, 1.2)
    new = ratings.placement_start(old)
    assert old.sigma < new.sigma < ratings.SIGMA
    assert new.sigma == pytest.approx(math.hypot(1.2, ratings.VERSION_DRIFT))
    assert new.mu > old.mu
    assert ratings.displayed(new) == pytest.approx(ratings.displayed(old))  # shown where it was
    veteran = ratings.placement_start(Skill(31.0, 0.8))  # more certain than settled: the same start sigma
    assert veteran.sigma == pytest.approx(ratings.PLACEMENT_SIGMA) and ratings.displayed(veteran) == pytest.approx(28.6)


def test_a_version_replacing_one_still_placing_adds_little_or_no_raise() -> None:
    """Deadline day (issue 29): versions uploaded a game or two apart each added a raise of about
    3.5 on top of the last one's, so a bot re-uploading the same code climbed the ladder and its
    draws handed that mu to its neighbours. Now a predecessor still placing passes its sigma on."""
    settled = Skill(25.0, ratings.SETTLED_SIGMA)
    placed = ratings.placement_start(settled)
    assert ratings.placement_start(placed) == placed  # replaced before any game: nothing added
    current = placed
    for _upload in range(6):  # six versions, each replaced after one draw with an equal settled bot
        current, _ = ratings.after_game(current, settled, None)
        before = current
        current = ratings.placement_start(current)
        assert current.sigma == pytest.approx(ratings.PLACEMENT_SIGMA)
        assert current.mu - before.mu == pytest.approx(3 * (ratings.PLACEMENT_SIGMA - before.sigma))
        assert current.mu - before.mu < 1.5
    assert current.mu < placed.mu + 0.5  # never above the first placement's start
