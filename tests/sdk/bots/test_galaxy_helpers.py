"""The bot library's rule helpers: geometry (GX-1, GX-2, GX-6, GX-11), MLE (GX-5), battles (GX-13, GX-14)."""

import pytest

from armada.bot.galaxy import (
    Observation,
    Units,
    apply_losses,
    arrival_turn,
    battle_outcome,
    captures,
    distance,
    grid,
    home,
    mle,
    path,
    travel_time,
)
from tests.sdk.bots.galaxy_samples import RICH


def test_grid_numbering_row_by_row():
    """GX-1: 1 2 3 4 / 5 6 7 8 / ... planet 16 at the far corner."""
    assert grid.position(1) == (0, 0)
    assert grid.position(4) == (0, 3)
    assert grid.position(5) == (1, 0)
    assert grid.position(16) == (3, 3)
    assert all(grid.planet_at(*grid.position(p)) == p for p in range(1, 17))
    assert home(1) == 1 and home(2) == 16


def test_distance_is_chebyshev():
    """GX-2: a diagonal step counts 1."""
    assert distance(1, 1) == 0
    assert distance(1, 2) == 1
    assert distance(1, 6) == 1  # diagonal
    assert distance(1, 12) == 3
    assert distance(1, 16) == 3
    assert distance(4, 13) == 3
    assert distance(2, 15) == 3
    assert distance(6, 8) == 2
    assert all(distance(a, b) == distance(b, a) for a in range(1, 17) for b in range(1, 17))


def test_travel_time_doubles_with_battleships():
    """GX-6: cruisers 1 unit per turn, a fleet with any battleship 1 unit per 2 turns."""
    assert travel_time(1, 12) == 3
    assert travel_time(1, 12, battleships=2) == 6  # the seed's example
    assert travel_time(1, 12, battleships=True) == 6
    assert travel_time(6, 7, 0) == 1


def test_arrival_turn():
    """GX-11: launched in turn t with travel time d, it lands in turn t + d - 1."""
    assert arrival_turn(5, 1, 12, battleships=1) == 10
    assert arrival_turn(5, 1, 2) == 5  # one step: lands in the same turn's arrival step


def test_path_goes_diagonal_first():
    """GX-11: P1-P6-P11-P12, not P1-P2-P7-P12."""
    assert path(1, 12) == [1, 6, 11, 12]
    assert path(12, 1) == [12, 7, 2, 1]
    assert path(1, 4) == [1, 2, 3, 4]
    assert path(13, 4) == [13, 10, 7, 4]
    assert path(5, 5) == [5]
    for a in range(1, 17):
        for b in range(1, 17):
            assert len(path(a, b)) == distance(a, b) + 1


@pytest.mark.parametrize("bad", [0, 17, -1, "3", True, 2.0])
def test_bad_planet_ids_are_rejected(bad):
    with pytest.raises(ValueError, match="not a planet id"):
        distance(bad, 1)


def test_mirror_is_point_symmetry():
    """GX-4: planet k and 17 - k are twins."""
    assert grid.mirror(1) == 16
    assert grid.mirror(6) == 11
    assert all(grid.mirror(grid.mirror(p)) == p for p in range(1, 17))


def test_mle_values():
    """GX-5: battleship 4, cruiser 2, launcher 1."""
    assert mle(1, 0, 0) == 4
    assert mle(0, 1, 0) == 2
    assert mle(0, 0, 1) == 1
    assert mle(5, 10, 10) == 50
    assert Observation.mle(2, 3) == 14


def test_seed_battle_example():
    """GX-14: 2 battleships + 3 cruisers (14) beat 1 battleship + 1 cruiser + 3 launchers (9), keep 2 battleships."""
    out = battle_outcome(Units(2, 3, 0), Units(1, 1, 3))
    assert out.attacker_wins
    assert out.attacker_after == Units(2, 0, 0)
    assert out.defender_after == Units()
    assert out.survivors == Units(2, 0, 0)


def test_equal_forces_leave_one_cruiser():
    """GX-13: equal MLE, the attacker wins with exactly 1 cruiser left."""
    out = battle_outcome(Units(2, 0, 0), Units(0, 2, 4))
    assert out.attacker_wins and out.attacker_after == Units(0, 1, 0)
    assert captures(Units(0, 4), Units(0, 0, 8))
    assert not captures(Units(0, 4), Units(0, 0, 9))


def test_defender_wins_and_loses_launchers_first():
    """GX-13/14: larger defence wins; its launchers absorb damage first."""
    out = battle_outcome(Units(0, 3, 0), Units(1, 0, 5))
    assert not out.attacker_wins
    assert out.attacker_after == Units()
    assert out.defender_after == Units(1, 0, 0)  # 6 damage: 5 launchers, the remainder 1 only scratches
    assert out.survivors == Units(1, 0, 0)


def test_losses_order_and_partial_damage():
    """GX-14: launchers, then cruisers, then battleships; a remainder smaller than a unit kills nothing."""
    assert apply_losses(Units(3, 3, 3), 0) == Units(3, 3, 3)
    assert apply_losses(Units(3, 3, 3), 3) == Units(3, 3, 0)
    assert apply_losses(Units(3, 3, 3), 4) == Units(3, 3, 0)  # 1 left: not enough for a cruiser
    assert apply_losses(Units(3, 3, 3), 5) == Units(3, 2, 0)
    assert apply_losses(Units(3, 3, 3), 9) == Units(3, 0, 0)
    assert apply_losses(Units(3, 3, 3), 12) == Units(3, 0, 0)  # 3 left: not enough for a battleship
    assert apply_losses(Units(3, 3, 3), 13) == Units(2, 0, 0)
    assert apply_losses(Units(3, 3, 3), 100) == Units()
    with pytest.raises(ValueError, match="negative"):
        apply_losses(Units(1), -1)


def test_observation_planet_lists():
    obs = Observation.from_json(RICH)
    assert [p.id for p in obs.my_planets()] == [1, 6]
    assert [p.id for p in obs.enemy_planets()] == [11, 16]
    assert [p.id for p in obs.neutral_planets()] == [2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 14, 15]
    assert obs.planet(6).is_mine and not obs.planet(6).is_enemy
    assert obs.planet(11).is_enemy and not obs.planet(11).is_neutral
    assert obs.planet(2).is_neutral
    assert (obs.home, obs.enemy_home, obs.enemy_seat) == (1, 16, 2)
    assert obs.turns_left == 194
    with pytest.raises(KeyError, match="no planet 17"):
        obs.planet(17)


def test_observation_incoming_sorted_by_arrival():
    obs = Observation.from_json(RICH)
    assert [f.id for f in obs.incoming(12)] == [13, 12]  # 13 arrives in turn 8, 12 in turn 10
    assert [f.id for f in obs.incoming(obs.planet(7))] == [14]
    assert obs.incoming(5) == []


def test_observation_geometry_accepts_ids_and_planets():
    obs = Observation.from_json(RICH)
    p1, p12 = obs.planet(1), obs.planet(12)
    assert obs.distance(p1, p12) == obs.distance(1, 12) == 3
    assert obs.travel_time(p1, 12, battleships=1) == 6
    assert obs.arrival_turn(1, 2) == 7  # turn 7, one step
    assert obs.path(p1, p12) == [1, 6, 11, 12]
    assert [p.id for p in obs.nearest(6, obs.neutral_planets())][:3] == [2, 3, 5]


def test_my_mle_counts_garrisons_and_fleets():
    """The GX-21 tie-break figure as the player can compute it."""
    obs = Observation.from_json(RICH)
    assert obs.my_mle() == 50 + 4 + (8 + 6 + 2)
