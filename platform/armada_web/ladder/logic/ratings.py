"""Galaxy ratings: the SDK's rating model (`armada.ratings`) plus the ladder's placement policy.

The math is written once, in `armada.ratings` (standard library only), so `armada tournament`
rates local games exactly as the ladder does: Weng-Lin Thurstone-Mosteller with gamma = 1,
chosen by `bench/ranking.py` (the games per bot a 200-bot ladder needs to reach Kendall tau
0.9, and the games a new version needs to be placed within 10 ranks; docs/arena.md keeps the
figures). A skill is (mu, sigma): the SDK's `armada.ratings.Skill` (the Rating row in
the database holds one); the ladder shows mu - 3 sigma. Draws are draws (equal
ranks), and a forfeit (crash, timeout, protocol fault) is a loss for the faulty bot.
`model()` builds openskill's models with the same parameters, for the bench's comparison of
other models; the ladder asks it one thing only, a game's expected result (`win_chance`, its
`predict_win`), which each rated seat keeps and the pages explain (`ladder.logic.explain`).
"""

from __future__ import annotations

import math
from typing import Any

import openskill.models

from armada.ratings import (
    BETA,
    MU,
    PROVISIONAL_GAMES,
    SIGMA,
    TAU,
    Outcome,
    Skill,
    displayed,
    initial_rating,
    provisional,
    update,
)

__all__ = ["BETA", "MODELS", "MODEL_NAME", "MU", "PROVISIONAL_GAMES", "SHOWN_WEIGHT", "SIGMA", "TAU", "VERSION_DRIFT",
           "Outcome", "Skill", "after_game", "displayed", "initial_rating", "model", "placement_start", "provisional",
           "update", "win_chance"]

# How far a new version's skill is assumed to be from its predecessor's (one standard deviation),
# and how much of the sigma it adds is shown: the ladder shows mu - 3 sigma, so a new version
# started at its predecessor's mu with a raised sigma is shown 3 x (the raise) low, about 30 places
# mid-ladder per unit, until games bring sigma down. Starting its mu SHOWN_WEIGHT x (the raise)
# higher shows it where its predecessor was (SHOWN_WEIGHT = 3: the displayed score is unchanged),
# and games move it from there. bench/ranking.py chose both (docs/arena.md, "Placement").
VERSION_DRIFT = 3.0
SHOWN_WEIGHT = 3.0
#: A settled rating's sigma on a ladder (about 1.1-1.2).
SETTLED_SIGMA = 1.2
#: The sigma a new version starts at (at least): a settled predecessor's with the version's drift.
PLACEMENT_SIGMA = math.hypot(SETTLED_SIGMA, VERSION_DRIFT)

#: The model `update` implements, by openskill's name (the bench compares it with the others).
MODEL_NAME = "ThurstoneMostellerFull"
MODELS = ("PlackettLuce", "BradleyTerryFull", "ThurstoneMostellerFull")

_models: dict[tuple[str, bool], Any] = {}


def _full_variance_step(c: float, k: int, mu: float, sigma_squared: float, team: Any, rank: int,
                        weights: Any = None) -> float:
    """Weng-Lin's gamma = 1: the whole variance update (openskill's default, sigma / c, damps it)."""
    return 1.0


def model(name: str = MODEL_NAME, damped: bool = False) -> Any:
    """openskill's model `name` with the ladder's parameters (built once), for comparisons.

    Undamped (gamma = 1) Thurstone-Mosteller is what `update` computes; openskill's default
    gamma needs about twice the games for the same sigma.
    """
    key = (name, damped)
    if key not in _models:
        extra = {} if damped else {"gamma": _full_variance_step}
        _models[key] = getattr(openskill.models, name)(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, **extra)
    return _models[key]


def placement_start(predecessor: Skill | None) -> Skill:
    """Where a new active version starts: shown where its predecessor was, with sigma raised; else fresh.

    A new version is usually near the old one. Its uncertainty is a settled version's plus the
    version's drift, sigma' = PLACEMENT_SIGMA = sqrt(SETTLED_SIGMA^2 + VERSION_DRIFT^2) (3.2,
    instead of 8.3 fresh), or the predecessor's own when that is larger; its mu is raised by
    SHOWN_WEIGHT x (sigma' - sigma), so its displayed score mu - 3 sigma starts at its
    predecessor's: it is not shown 30 places low while its sigma comes down. The price: its mu
    starts that much high, a bias that its games wash out (to about 0.7 once its sigma is settled,
    fading with the ladder's tau); bench/ranking.py measures the placement against a fresh start
    and Halite's. A predecessor still placing (its sigma near PLACEMENT_SIGMA, its own raise not
    washed out) passes on its sigma with little or no raise: before, each version uploaded after a
    game or two of the last added a raise of about 3.5 on top of the last one's, and its draws
    with the bots around it handed them that mu (a whole ladder drifted up on deadline day).
    """
    if predecessor is None:
        return initial_rating()
    sigma = max(predecessor.sigma, PLACEMENT_SIGMA)
    return Skill(predecessor.mu + SHOWN_WEIGHT * (sigma - predecessor.sigma), sigma)


def after_game(first: Skill, second: Skill, winner: int | None, *, tau: float = TAU) -> tuple[Skill, Skill]:
    """Seat 1's and seat 2's skills after a game that `winner` (1, 2 or None: a draw) won; a
    forfeit is a loss like any other (`update`'s math is the same for both)."""
    if winner is None:
        return update(first, second, Outcome.DRAW, tau=tau)
    if winner == 1:
        return update(first, second, Outcome.WIN, tau=tau)
    after_second, after_first = update(second, first, Outcome.WIN, tau=tau)
    return after_first, after_second


def win_chance(me: Skill, other: Skill) -> float:
    """The model's chance that `me` beats `other`, from their skills before the game: openskill's
    `predict_win` for two players, Phi((mu - mu_other) / sqrt(2 BETA^2 + sigma^2 + sigma_other^2))
    (the dynamics term `update` adds first is left out: at most TAU^2 in each variance)."""
    m = model()
    chances = m.predict_win([[m.rating(mu=me.mu, sigma=me.sigma)], [m.rating(mu=other.mu, sigma=other.sigma)]])
    return float(chances[0])
