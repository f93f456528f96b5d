"""Galaxy ratings: openskill's Weng-Lin models behind plain dataclasses (pure, deterministic).

Model: `MODEL_NAME` below, chosen by `bench/ranking.py` (the games per bot a 200-bot ladder
needs to reach Kendall tau 0.9, and the games a new version needs to be placed within 10
ranks); docs/arena.md keeps the figures. A rating is (mu, sigma); the ladder shows
mu - 3 sigma, so a bot climbs by winning and by becoming certain. Draws are draws (equal
ranks), and a forfeit (crash, timeout, protocol fault) is a loss for the faulty bot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from openskill.models import BradleyTerryFull, PlackettLuce, ThurstoneMostellerFull

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = SIGMA / 100
PROVISIONAL_GAMES = 10
# How far a new version's skill is assumed to be from its predecessor's (one standard deviation).
# Smaller than the 25/9 (SIGMA / 3) bench/ranking.py draws its new versions' changes from: the
# ladder shows mu - 3 sigma, so every unit of start sigma above the ladder's settled ~1.1 shows
# a new version 3 units (about 30 places mid-ladder) low until games bring it down. 2.25 was
# chosen among 0-2.78 on games to placement (median, mean and slow tail) on the bench's seeds and
# on 26 others; smaller raises win the median but strand large changes (docs/arena.md).
VERSION_DRIFT = 2.25

MODELS: dict[str, Any] = {
    "PlackettLuce": PlackettLuce,
    "BradleyTerryFull": BradleyTerryFull,
    "ThurstoneMostellerFull": ThurstoneMostellerFull,
}
MODEL_NAME = "ThurstoneMostellerFull"


@dataclass(frozen=True)
class Skill:
    """A bot version's skill estimate: mean and standard deviation (the Rating row holds one)."""

    mu: float
    sigma: float


class Outcome(StrEnum):
    """How a game between `winner` and `loser` ended, as `update` reads it."""

    WIN = "win"
    DRAW = "draw"  # the two arguments are then just the two players, in any order
    FORFEIT = "forfeit"  # the loser faulted: rated exactly as a loss


_models: dict[tuple[str, bool], Any] = {}


def _full_variance_step(c: float, k: int, mu: float, sigma_squared: float, team: Any, rank: int,
                        weights: Any = None) -> float:
    """Weng-Lin's gamma = 1: the whole variance update (openskill's default, sigma / c, damps it)."""
    return 1.0


def model(name: str = MODEL_NAME, damped: bool = False) -> Any:
    """The openskill model `name` with Armada's parameters (built once).

    Undamped (gamma = 1), Thurstone-Mosteller shrinks sigma game by game as TrueSkill does for
    a two-player game; openskill's default gamma needs about twice the games for the same sigma.
    """
    key = (name, damped)
    if key not in _models:
        extra = {} if damped else {"gamma": _full_variance_step}
        _models[key] = MODELS[name](mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, **extra)
    return _models[key]


def initial_rating() -> Skill:
    """The rating of a version with no history."""
    return Skill(MU, SIGMA)


def placement_start(predecessor: Skill | None) -> Skill:
    """Where a new active version starts: its predecessor's mu with sigma raised, else fresh.

    A new version is usually near the old one, so the old mu is the best first guess, and its
    uncertainty is the old one's plus the version's drift: sigma = sqrt(sigma^2 + VERSION_DRIFT^2)
    (about 2.5 on a settled ladder instead of 8.3 fresh). Its displayed score starts low and
    climbs as placement games shrink sigma; bench/ranking.py measures it against a fresh start.
    VERSION_DRIFT trades the typical version (a smaller raise shows it near its place sooner)
    against a large change (a smaller sigma moves mu more slowly); see its comment.
    """
    if predecessor is None:
        return initial_rating()
    return Skill(predecessor.mu, math.hypot(predecessor.sigma, VERSION_DRIFT))


def displayed(rating: Skill) -> float:
    """The ladder's score: mu - 3 sigma (a conservative estimate)."""
    return rating.mu - 3 * rating.sigma


def provisional(games: int) -> bool:
    """True while a version has played fewer than PROVISIONAL_GAMES rated games."""
    return games < PROVISIONAL_GAMES


def update(winner: Skill, loser: Skill, outcome: Outcome = Outcome.WIN,
           model_name: str = MODEL_NAME, damped: bool = False) -> tuple[Skill, Skill]:
    """The two ratings after one game: (winner's, loser's); for a draw, in argument order."""
    rater = model(model_name, damped)
    ranks = [0, 0] if outcome is Outcome.DRAW else [0, 1]
    teams = [[rater.rating(mu=winner.mu, sigma=winner.sigma)], [rater.rating(mu=loser.mu, sigma=loser.sigma)]]
    [[a], [b]] = rater.rate(teams, ranks=ranks)
    return Skill(a.mu, a.sigma), Skill(b.mu, b.sigma)
