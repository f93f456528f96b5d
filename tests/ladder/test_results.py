"""One game counted for two sides (armada_web.ladder.logic.results.apply_game): the one function the
ladder, a season's finals and private events count a game with."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from armada_web.ladder.logic import ratings
from armada_web.ladder.logic.results import apply_game


@dataclass
class Row:
    mu: float = 25.0
    sigma: float = 25.0 / 3
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


@pytest.mark.parametrize("winner, counts", [(1, ((1, 0, 0), (0, 0, 1))), (2, ((0, 0, 1), (1, 0, 0))),
                                            (None, ((0, 1, 0), (0, 1, 0)))])
def test_counts_and_skills_move_in_seat_order(winner, counts):
    first, second = Row(mu=27.0, sigma=3.0), Row(mu=24.0, sigma=4.0)
    (before_1, after_1, expected_1), (before_2, after_2, expected_2) = apply_game(first, second, winner)
    assert expected_1 == pytest.approx(ratings.win_chance(before_1, before_2)) and expected_1 > 0.5
    assert expected_1 + expected_2 == pytest.approx(1.0)
    assert (before_1, before_2) == (ratings.Skill(27.0, 3.0), ratings.Skill(24.0, 4.0))
    assert (after_1, after_2) == ratings.after_game(before_1, before_2, winner)
    assert (first.mu, first.sigma, second.mu, second.sigma) == (after_1.mu, after_1.sigma, after_2.mu, after_2.sigma)
    for row, (wins, draws, losses) in zip((first, second), counts, strict=True):
        assert (row.games, row.wins, row.draws, row.losses) == (1, wins, draws, losses)


def test_the_winner_gains_whichever_seat_it_had():
    one, two = Row(), Row()
    apply_game(one, two, 2)
    assert two.mu > 25.0 > one.mu
    again_one, again_two = Row(), Row()
    apply_game(again_two, again_one, 1)  # the same game with the seats swapped
    assert (again_one.mu, again_two.mu) == pytest.approx((one.mu, two.mu))


def test_no_dynamics_term_and_unrated_games():
    frozen, drifting = (Row(sigma=2.0), Row(sigma=2.0)), (Row(sigma=2.0), Row(sigma=2.0))
    apply_game(*frozen, None, tau=0.0)
    apply_game(*drifting, None)
    assert frozen[0].sigma < drifting[0].sigma  # the ladder's tau widens sigma before each game
    table = (Row(mu=30.0), Row(mu=20.0))
    changes = apply_game(*table, 1, rated=False)  # a round robin's table: counts, no rating
    assert (table[0].mu, table[1].mu) == (30.0, 20.0) and changes[0][0] == changes[0][1]
    assert (table[0].wins, table[1].losses) == (1, 1)


def test_no_other_code_counts_a_game():
    """A side's wins, draws, losses and games are raised by one only in apply_game (a record's sum of
    other records, `Record.__iadd__`, adds whole records, not a game)."""
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "platform" / "armada_web"
    found = []
    for path in package.rglob("*.py"):
        if "migrations" in path.parts or path.name == "results.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute)
                    and node.target.attr in {"wins", "draws", "losses", "games"}
                    and isinstance(node.value, ast.Constant) and node.value.value == 1):
                found.append(f"{path.relative_to(package)}:{node.lineno}")
    assert found == []
