"""The ladder's rating model for one two-player game, in plain math (the site and `armada tournament`).

A rating is a `Skill`, (mu, sigma): a skill estimate and its uncertainty. The displayed score is
mu - 3 sigma, so a bot climbs by winning and by becoming certain. The model is Weng and Lin's
Thurstone-Mosteller "full pairing" update (JMLR 12, 2011, algorithm 3) with gamma = 1, the
whole variance step, which for two players shrinks sigma as TrueSkill does; it equals
openskill's `ThurstoneMostellerFull(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, gamma=1)` (a test
compares the two to 1e-9). For one game between players i and q, after the dynamics step
sigma_i^2 += TAU^2:

    c     = sqrt(sigma_i^2 + sigma_q^2 + 2 BETA^2)        x = (mu_i - mu_q) / c,  t = EPSILON / c
    win:  mu_i += sigma_i^2 / c * V(x, t)                 sigma_i^2 *= max(1 - sigma_i^2 / c^2 * W(x, t), KAPPA)
    loss: mu_i -= sigma_i^2 / c * V(-x, t)                (W(-x, t) in sigma's factor)
    draw: mu_i += sigma_i^2 / c * Vt(x, t)                (Wt(x, t) in sigma's factor)

with V = pdf/cdf and W = V (V + x - t) of the truncated normal, Vt and Wt their two-sided
(draw) forms. A forfeit is rated exactly as a loss of the faulty player; a draw is a draw
(equal ranks). Pure and deterministic: the standard library's `statistics.NormalDist` only.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from enum import StrEnum
from statistics import NormalDist

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
#: Sigma's growth before each game, so a rating never freezes (the dynamics factor).
TAU = SIGMA / 100
#: The draw margin of the Thurstone-Mosteller model, in performance units.
EPSILON = 0.1
#: Sigma never shrinks below sqrt(KAPPA) of itself in one game.
KAPPA = 0.0001
#: Games below which a rating is provisional (marked P on the ladder).
PROVISIONAL_GAMES = 10
#: The score shown (the ladder's order, a season's cut): mu - SCORE_SIGMAS x sigma, a conservative estimate.
SCORE_SIGMAS = 3

_NORMAL = NormalDist()
_TINY = sys.float_info.epsilon


@dataclass(frozen=True)
class Skill:
    """A skill estimate: mean and standard deviation."""

    mu: float
    sigma: float


class Outcome(StrEnum):
    """How a game between `winner` and `loser` ended, as `update` reads it."""

    WIN = "win"
    DRAW = "draw"  # the two arguments are then just the two players, in any order
    FORFEIT = "forfeit"  # the loser faulted: rated exactly as a loss


def initial_rating() -> Skill:
    """The rating of a player with no history."""
    return Skill(MU, SIGMA)


def displayed(rating: Skill) -> float:
    """The ladder's score: mu - 3 sigma (a conservative estimate)."""
    return rating.mu - SCORE_SIGMAS * rating.sigma


def provisional(games: int) -> bool:
    """True while a player has played fewer than PROVISIONAL_GAMES rated games."""
    return games < PROVISIONAL_GAMES


def _v(x: float, t: float) -> float:
    d = x - t
    p = _NORMAL.cdf(d)
    return -d if p < _TINY else _NORMAL.pdf(d) / p


def _w(x: float, t: float) -> float:
    d = x - t
    if _NORMAL.cdf(d) < _TINY:
        return 1.0 if x < 0 else 0.0
    v = _v(x, t)
    return v * (v + d)


def _vt(x: float, t: float) -> float:
    a = abs(x)
    b = _NORMAL.cdf(t - a) - _NORMAL.cdf(-t - a)
    if b < 1e-5:
        return -x - t if x < 0 else -x + t
    top = _NORMAL.pdf(-t - a) - _NORMAL.pdf(t - a)
    return (-top if x < 0 else top) / b


def _wt(x: float, t: float) -> float:
    a = abs(x)
    b = _NORMAL.cdf(t - a) - _NORMAL.cdf(-t - a)
    if b < _TINY:
        return 1.0
    return ((t - a) * _NORMAL.pdf(t - a) + (t + a) * _NORMAL.pdf(-t - a)) / b + _vt(x, t) ** 2


def _grown(sigma: float, tau: float = TAU) -> float:
    """Sigma after the dynamics step that precedes every game."""
    return math.sqrt(sigma ** 2 + tau ** 2)


def _one_side(me: Skill, other: Skill, score: float, tau: float = TAU) -> Skill:
    """`me` after a game against `other` that `me` won (1), drew (0.5) or lost (0)."""
    sigma = _grown(me.sigma, tau)  # the dynamics step, then the game
    var, other_var = sigma ** 2, _grown(other.sigma, tau) ** 2
    c = math.sqrt(var + other_var + 2 * BETA ** 2)
    x, t, share = (me.mu - other.mu) / c, EPSILON / c, var / c
    if score == 1.0:
        omega, delta = share * _v(x, t), share / c * _w(x, t)
    elif score == 0.0:
        omega, delta = -share * _v(-x, t), share / c * _w(-x, t)
    else:
        omega, delta = share * _vt(x, t), share / c * _wt(x, t)
    return Skill(me.mu + omega, sigma * math.sqrt(max(1 - delta, KAPPA)))


def update(winner: Skill, loser: Skill, outcome: Outcome = Outcome.WIN, *,
           tau: float = TAU) -> tuple[Skill, Skill]:
    """The two ratings after one game: (winner's, loser's); for a draw, in argument order.

    `tau` is the dynamics term added to both sigmas before the game; 0 where skills cannot drift
    (a season's finals: the entries are frozen).
    """
    if outcome is Outcome.DRAW:
        return _one_side(winner, loser, 0.5, tau), _one_side(loser, winner, 0.5, tau)
    return _one_side(winner, loser, 1.0, tau), _one_side(loser, winner, 0.0, tau)
