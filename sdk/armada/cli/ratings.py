"""Ratings from a set of finished games (Bradley-Terry, shown on the Elo scale)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

#: Rating of an average player (and of the virtual anchor opponent).
BASE_RATING = 1500.0
#: Elo scale: 400 points of difference mean 10:1 odds.
ELO_SCALE = 400.0


def bradley_terry(
    games: Iterable[tuple[str, str, float]],
    players: Iterable[str] = (),
    *,
    prior_games: float = 1.0,
    iterations: int = 10_000,
    tolerance: float = 1e-10,
) -> dict[str, float]:
    """Maximum-likelihood Bradley-Terry ratings of every player, on the Elo scale.

    `games` holds (a, b, score of a): 1 win, 0.5 draw, 0 loss. Order does not matter. Each
    player also gets `prior_games` virtual games, half won, against an anchor of rating
    BASE_RATING; this keeps ratings finite for unbeaten or winless players and places a player
    without games at BASE_RATING. Solved with the minorise-maximise iteration (Hunter 2004).
    """
    if prior_games <= 0:
        raise ValueError("prior_games must be positive (ratings of unbeaten players would be infinite)")
    wins: dict[str, float] = defaultdict(float)
    meetings: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for name in players:
        wins[name] += 0.0
    for a, b, score in games:
        if a == b:
            raise ValueError(f"a game needs two different players, got {a!r} twice")
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score must be between 0 and 1, got {score}")
        wins[a] += score
        wins[b] += 1.0 - score
        meetings[a][b] += 1.0
        meetings[b][a] += 1.0
    strength = dict.fromkeys(wins, 1.0)
    for _ in range(iterations):
        new = {}
        for i in strength:
            denominator = prior_games / (strength[i] + 1.0)
            denominator += sum(n / (strength[i] + strength[j]) for j, n in meetings[i].items())
            new[i] = (wins[i] + prior_games / 2.0) / denominator
        change = max((abs(new[i] - strength[i]) / strength[i] for i in strength), default=0.0)
        strength = new
        if change < tolerance:
            break
    return {name: BASE_RATING + ELO_SCALE * math.log10(s) for name, s in strength.items()}


def expected_score(rating_a: float, rating_b: float) -> float:
    """Expected score of a against b for two ratings on the Elo scale."""
    return 1.0 / (1.0 + 10 ** ((rating_b - rating_a) / ELO_SCALE))
