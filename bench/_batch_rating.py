"""A batch rating for `bench/ranking.py --batch`: every game so far rated together, not one by one.

The maximum-a-posteriori skills of a Thurstone model with the ratings' prior N(MU, SIGMA^2),
outcome noise sqrt(2) BETA and the ladder's draw margin (a win is a performance difference
above the margin, a draw one within it), found by Newton's method; each skill's sigma is the
square root of the inverse Hessian's diagonal (Laplace). docs/arena.md, "Where the benchmark
stands", keeps what it measured: how much sooner than the online ratings the shown order
(mu - 3 sigma) reaches Kendall tau 0.9 on the same games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from armada.ratings import BETA, MU, SIGMA

_erf = np.vectorize(math.erf, otypes=[float])
NOISE = math.sqrt(2) * BETA


def _cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + _erf(x / math.sqrt(2)))


def _pdf(x: np.ndarray) -> np.ndarray:
    return np.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def fit(n: int, games: Sequence[tuple[int, int, int]], margin: float, start: np.ndarray | None = None,
        iterations: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(mu, sigma) of bots 0..n-1 from `games` (a, b, result for a: 1, 0 draw, -1)."""
    g = np.asarray(games, dtype=np.int64).reshape(-1, 3)
    won = g[:, 2] != 0
    winners = np.where(g[:, 2] > 0, g[:, 0], g[:, 1])[won]
    losers = np.where(g[:, 2] > 0, g[:, 1], g[:, 0])[won]
    drawn_a, drawn_b = g[~won, 0], g[~won, 1]
    mu = np.full(n, MU) if start is None else start.copy()
    e = margin / NOISE
    hessian = np.eye(n) / SIGMA**2
    for _ in range(iterations):
        gradient = -(mu - MU) / SIGMA**2
        hessian = np.eye(n) / SIGMA**2
        # A win: log Phi((mu_w - mu_l - margin) / NOISE).
        t = (mu[winners] - mu[losers] - margin) / NOISE
        v = _pdf(t) / np.maximum(_cdf(t), 1e-300)
        _add(gradient, hessian, winners, losers, v / NOISE, v * (v + t) / NOISE**2)
        # A draw: log (Phi(e - d) - Phi(-e - d)), d the scaled difference.
        d = (mu[drawn_a] - mu[drawn_b]) / NOISE
        z = np.maximum(_cdf(e - d) - _cdf(-e - d), 1e-300)
        first = (_pdf(-e - d) - _pdf(e - d)) / z
        second = -((e - d) * _pdf(e - d) + (e + d) * _pdf(-e - d)) / z - first**2
        _add(gradient, hessian, drawn_a, drawn_b, first / NOISE, -second / NOISE**2)
        step = np.linalg.solve(hessian, gradient)
        mu = mu + step
        if float(np.max(np.abs(step))) < 1e-6:
            break
    return mu, np.sqrt(np.diag(np.linalg.inv(hessian)))


def _add(gradient: np.ndarray, hessian: np.ndarray, a: np.ndarray, b: np.ndarray, slope: np.ndarray,
         curvature: np.ndarray) -> None:
    """Add games between a and b: the log-likelihood's slope in (mu_a - mu_b) and minus its curvature."""
    np.add.at(gradient, a, slope)
    np.add.at(gradient, b, -slope)
    np.add.at(hessian, (a, a), curvature)
    np.add.at(hessian, (b, b), curvature)
    np.add.at(hessian, (a, b), -curvature)
    np.add.at(hessian, (b, a), -curvature)
