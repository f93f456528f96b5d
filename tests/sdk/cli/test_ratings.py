"""Bradley-Terry ratings used by `armada tournament`."""

from __future__ import annotations

import random

import pytest

from armada.cli.ratings import BASE_RATING, bradley_terry, expected_score


def test_even_results_give_equal_ratings() -> None:
    r = bradley_terry([("a", "b", 1.0), ("a", "b", 0.0), ("a", "b", 0.5)])
    assert r["a"] == pytest.approx(BASE_RATING)
    assert r["b"] == pytest.approx(BASE_RATING)


def test_winner_rated_higher_and_finite() -> None:
    r = bradley_terry([("a", "b", 1.0)] * 10)
    assert r["a"] > BASE_RATING > r["b"]
    assert r["a"] - BASE_RATING == pytest.approx(BASE_RATING - r["b"])
    assert r["a"] - r["b"] < 2000


def test_ratings_fit_observed_share() -> None:
    # a scores 75 % against b over many games: expected score under the ratings is close to 0.75
    r = bradley_terry([("a", "b", 1.0)] * 300 + [("a", "b", 0.0)] * 100)
    assert expected_score(r["a"], r["b"]) == pytest.approx(0.75, abs=0.01)


def test_transitive_order_and_order_independence() -> None:
    games = ([("a", "b", 1.0)] * 6 + [("b", "a", 1.0)] * 2 + [("b", "c", 1.0)] * 6
             + [("c", "b", 1.0)] * 2 + [("a", "c", 1.0)] * 7 + [("a", "c", 0.5)])
    r1 = bradley_terry(games)
    shuffled = games[:]
    random.Random(3).shuffle(shuffled)
    r2 = bradley_terry(shuffled)
    assert r1["a"] > r1["b"] > r1["c"]
    for name in r1:
        assert r1[name] == pytest.approx(r2[name], abs=1e-6)


def test_seat_order_does_not_matter() -> None:
    r1 = bradley_terry([("a", "b", 1.0), ("a", "b", 1.0), ("a", "b", 0.0)])
    r2 = bradley_terry([("b", "a", 0.0), ("a", "b", 1.0), ("b", "a", 1.0)])
    assert r1 == pytest.approx(r2)


def test_player_without_games_is_average() -> None:
    r = bradley_terry([("a", "b", 1.0)], players=["a", "b", "idle"])
    assert r["idle"] == pytest.approx(BASE_RATING)
    assert set(r) == {"a", "b", "idle"}


@pytest.mark.parametrize(("games", "message"), [([("a", "a", 1.0)], "two different players"),
                                                ([("a", "b", 2.0)], "between 0 and 1")])
def test_bad_games_rejected(games: list[tuple[str, str, float]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bradley_terry(games)


def test_prior_must_be_positive() -> None:
    with pytest.raises(ValueError, match="prior_games"):
        bradley_terry([("a", "b", 1.0)], prior_games=0)
