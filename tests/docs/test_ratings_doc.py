"""docs/ratings.md stays true: its worked examples' lines are what the site prints for those ratings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from armada_web.ladder.logic.explain import explain, seat_rating
from armada_web.ladder.logic.ratings import Skill, after_game, initial_rating

DOC = Path(__file__).resolve().parents[2] / "docs" / "ratings.md"


def line(me: Skill, other: Skill, winner: int, result: str) -> str:
    """`me` (seat 1) against `other`: seat 1's line."""
    after, _ = after_game(me, other, winner)
    return explain(seat_rating(me, after, other), result)


def other_line(me: Skill, other: Skill, winner: int, result: str) -> str:
    """`me` (seat 2) against `other` (seat 1): seat 2's line."""
    _, after = after_game(other, me, winner)
    return explain(seat_rating(me, after, other), result)


@pytest.mark.parametrize("shown", [
    line(Skill(30.0, 1.5), Skill(32.0, 1.2), 1, "win"),
    other_line(Skill(32.0, 1.2), Skill(30.0, 1.5), 1, "loss"),
    line(Skill(45.0, 1.1), Skill(30.0, 1.1), 1, "win").split(" (")[0],
    other_line(initial_rating(), Skill(40.0, 1.1), 1, "loss"),
])
def test_the_worked_examples_print_as_the_site_does(shown):
    quoted = re.findall(r"`([+-][0-9.]+: [^`]+)`", DOC.read_text(encoding="utf-8"))
    assert any(q == shown or (q.endswith("...)") and shown.startswith(q.split(" (")[0])) for q in quoted), (
        shown, quoted)
