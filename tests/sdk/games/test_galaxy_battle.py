"""Battle arithmetic: MLE (GX-5), battles (GX-13), losses (GX-14), both seats at a neutral planet (GX-16)."""

from __future__ import annotations

from armada.games.galaxy.battle import contest, fight, mle, take_losses


def test_mle_weights() -> None:
    # GX-5: battleship 4, cruiser 2, launcher 1
    assert mle((1, 0, 0)) == 4
    assert mle((0, 1, 0)) == 2
    assert mle((0, 0, 1)) == 1
    assert mle((2, 3, 0)) == 14
    assert mle((1, 1, 3)) == 9


def test_seed_battle_14_against_9_keeps_two_battleships() -> None:
    # GX-14 seed example: 2 battleships + 3 cruisers attack 1 battleship + 1 cruiser + 3 launchers
    won, attacker, defender = fight((2, 3, 0), (1, 1, 3))
    assert won
    assert attacker == (2, 0, 0)
    assert defender == (0, 0, 0)


def test_larger_side_wins_and_loser_loses_everything() -> None:
    # GX-13
    won, attacker, defender = fight((0, 3, 0), (0, 1, 5))
    assert not won
    assert attacker == (0, 0, 0)
    assert defender == (0, 1, 0)  # 6 damage: 5 launchers, the last point does not kill the cruiser


def test_equal_mle_attacker_keeps_exactly_one_cruiser() -> None:
    # GX-13 tie: the attacker wins and exactly 1 cruiser remains, whatever it brought
    assert fight((0, 5, 0), (0, 0, 10)) == (True, (0, 1, 0), (0, 0, 0))
    assert fight((2, 0, 0), (0, 4, 0)) == (True, (0, 1, 0), (0, 0, 0))


def test_losses_order_and_partial_damage() -> None:
    # GX-14: launchers first, then cruisers, then battleships; only whole units die
    assert take_losses((1, 2, 3), 2) == (1, 2, 1)
    assert take_losses((1, 2, 3), 4) == (1, 2, 0)  # the last point hits a cruiser without killing it
    assert take_losses((1, 2, 3), 5) == (1, 1, 0)
    assert take_losses((2, 1, 0), 5) == (2, 0, 0)  # 3 left over cannot destroy a battleship
    assert take_losses((2, 0, 0), 7) == (1, 0, 0)
    assert take_losses((2, 0, 0), 8) == (0, 0, 0)
    assert take_losses((3, 5, 7), 0) == (3, 5, 7)


def no_draw() -> int:
    raise AssertionError("no draw expected")


def test_even_launchers_are_split_in_half() -> None:
    # GX-16: 8 launchers, each attacker fights 4; both win, survivors fight: 4 vs 2 cruisers worth
    result = contest(8, {1: (0, 4, 0), 2: (0, 3, 0)}, no_draw)
    assert result.split == {1: 4, 2: 4}
    assert result.drawn is None
    assert result.half_after == {1: (0, 2, 0), 2: (0, 1, 0)}
    assert result.final == ((0, 2, 0), (0, 1, 0))
    assert result.owner == 1
    assert result.garrison == (0, 1, 0)  # 2 cruisers take 2 damage: one lost


def test_odd_launchers_extra_one_to_the_larger_attacker() -> None:
    # GX-16: 7 launchers; seat 2 is larger, fights 4; seat 1 fights 3 and loses
    result = contest(7, {1: (0, 1, 0), 2: (1, 1, 0)}, no_draw)
    assert result.split == {1: 3, 2: 4}
    assert result.half_won == {1: False, 2: True}
    assert result.launchers_left == {1: 1, 2: 0}
    assert result.final is None
    assert result.owner == 2  # exactly one attacker left: it captures (GX-15, no launchers kept)
    assert result.garrison == (1, 0, 0)


def test_odd_launchers_equal_mle_uses_the_draw() -> None:
    # GX-16: equal MLE, the seeded draw decides who fights the extra launcher
    for drawn in (1, 2):
        result = contest(5, {1: (0, 2, 0), 2: (1, 0, 0)}, [drawn].pop)
        assert result.drawn == drawn
        assert result.split[drawn] == 3
        assert result.split[3 - drawn] == 2


def test_both_lose_the_planet_keeps_its_surviving_launchers() -> None:
    # GX-16: none left, the planet stays neutral with the launchers that survived
    result = contest(12, {1: (0, 1, 0), 2: (0, 2, 0)}, no_draw)
    assert result.owner == 0
    assert result.launchers_left == {1: 4, 2: 2}
    assert result.garrison == (0, 0, 6)


def test_equal_survivors_destroy_each_other() -> None:
    # GX-16: equal MLE in the final fight: both destroyed, neutral with 0 launchers
    result = contest(4, {1: (0, 3, 0), 2: (1, 1, 0)}, no_draw)
    assert result.half_after == {1: (0, 2, 0), 2: (1, 0, 0)}
    assert result.owner == 0
    assert result.after == {1: (0, 0, 0), 2: (0, 0, 0)}
    assert result.garrison == (0, 0, 0)


def test_half_won_on_a_tie_keeps_one_cruiser() -> None:
    # GX-13 inside GX-16: an attacker equal to its half wins with exactly 1 cruiser
    result = contest(6, {1: (0, 1, 0), 2: (0, 10, 0)}, no_draw)
    assert result.split == {1: 3, 2: 3}
    assert result.half_won == {1: False, 2: True}  # 2 against 3: lost
    result = contest(4, {1: (0, 1, 0), 2: (0, 10, 0)}, no_draw)
    assert result.half_after[1] == (0, 1, 0)
    assert result.final == ((0, 1, 0), (0, 9, 0))
    assert result.owner == 2
    assert result.garrison == (0, 8, 0)
