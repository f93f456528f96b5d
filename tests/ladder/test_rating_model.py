"""The SDK's rating model (armada.ratings, standard library only) is openskill's ThurstoneMostellerFull
with gamma = 1 and the ladder's parameters, to 1e-9 over whole game sequences, and the ladder uses it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import ThurstoneMostellerFull

import armada.ratings as sdk
from armada_web.ladder.logic import ratings as ladder

#: The reference: openskill built here, independently of the platform's own `model()`.
REFERENCE = ThurstoneMostellerFull(mu=25.0, sigma=25.0 / 3, beta=25.0 / 3 / 2, tau=25.0 / 3 / 100,
                                   gamma=lambda *args: 1.0)

#: One game: (player a, player b, result) with result 1 a won, 0 a draw, -1 b won.
games = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from([1, 0, -1])).filter(
    lambda g: g[0] != g[1]), min_size=1, max_size=60)


def reference_game(a: tuple[float, float], b: tuple[float, float], result: int) -> tuple[tuple[float, float], ...]:
    teams = [[REFERENCE.rating(mu=a[0], sigma=a[1])], [REFERENCE.rating(mu=b[0], sigma=b[1])]]
    ranks = [0, 0] if result == 0 else [0, 1] if result == 1 else [1, 0]
    [[x], [y]] = REFERENCE.rate(teams, ranks=ranks)
    return (x.mu, x.sigma), (y.mu, y.sigma)


def sdk_game(a: sdk.Skill, b: sdk.Skill, result: int) -> tuple[sdk.Skill, sdk.Skill]:
    if result == 0:
        return sdk.update(a, b, sdk.Outcome.DRAW)
    if result == 1:
        return sdk.update(a, b, sdk.Outcome.WIN)
    after_b, after_a = sdk.update(b, a, sdk.Outcome.FORFEIT)
    return after_a, after_b


@settings(max_examples=150, deadline=None)
@given(games, st.lists(st.tuples(st.floats(-20, 70), st.floats(0.05, 12)), min_size=5, max_size=5))
def test_sdk_model_equals_openskill_thurstone_mosteller_full(sequence, starts) -> None:
    mine = [sdk.Skill(mu, sigma) for mu, sigma in starts]
    theirs = list(starts)
    for a, b, result in sequence:
        mine[a], mine[b] = sdk_game(mine[a], mine[b], result)
        theirs[a], theirs[b] = reference_game(theirs[a], theirs[b], result)
        for ours, ref in zip(mine, theirs, strict=True):
            assert abs(ours.mu - ref[0]) < 1e-9 and abs(ours.sigma - ref[1]) < 1e-9


def test_fresh_players_over_a_long_run() -> None:
    """From the ladder's start, 400 games (wins, draws, upsets): no drift between the two."""
    mine = [sdk.initial_rating() for _ in range(6)]
    theirs = [(sdk.MU, sdk.SIGMA)] * 6
    for k in range(400):
        a, b, result = k % 6, (k * 7 + 1) % 6, (1, 0, -1, 1, 1)[k % 5]
        if a == b:
            continue
        mine[a], mine[b] = sdk_game(mine[a], mine[b], result)
        theirs[a], theirs[b] = reference_game(theirs[a], theirs[b], result)
    for ours, ref in zip(mine, theirs, strict=True):
        assert abs(ours.mu - ref[0]) < 1e-9 and abs(ours.sigma - ref[1]) < 1e-9
    assert max(r.sigma for r in mine) < 2.5  # the run really learned something


def test_the_ladder_rates_with_the_sdk_model() -> None:
    assert ladder.update is sdk.update and ladder.Skill is sdk.Skill and ladder.Outcome is sdk.Outcome
    assert ladder.displayed is sdk.displayed and ladder.provisional is sdk.provisional
    assert (ladder.MU, ladder.SIGMA, ladder.BETA, ladder.TAU) == (25.0, 25.0 / 3, 25.0 / 3 / 2, 25.0 / 3 / 100)
    assert ladder.PROVISIONAL_GAMES == sdk.PROVISIONAL_GAMES == 10
    # the platform's openskill model (the bench's comparison) is the same model as the SDK's
    model = ladder.model()
    [[x], [y]] = model.rate([[model.rating(mu=30, sigma=4)], [model.rating(mu=22, sigma=7)]], ranks=[0, 1])
    a, b = sdk.update(sdk.Skill(30, 4), sdk.Skill(22, 7))
    assert abs(x.mu - a.mu) < 1e-12 and abs(y.sigma - b.sigma) < 1e-12
