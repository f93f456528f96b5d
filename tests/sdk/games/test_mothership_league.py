"""The league (MD-10, MD-11): points 3/2/1/0 and the table order."""

import pytest

from armada.games.mothership import Race, battle, league, random_orders
from armada.games.mothership.league import battle_points, table_order
from armada.games.rng import Rng

from .mothership_samples import ziltoidians

POINTS = {"destruction": 3, "damage": 2, "draw": 1}


def uniform(mothership, attack, defence, pattern):
    return {
        "mothership": {"defence": mothership},
        "fighters": [{"attack": attack, "defence": defence, "pattern": pattern} for _ in range(5)],
    }


def test_md10_points_match_each_battle_result():
    """MD-10: 3 for a win by destruction, 2 on damage, 1 for a draw, 0 for a loss; every pair meets once."""
    rng = Rng(5)
    races = [Race(f"r{i}", random_orders(rng).to_dict(), submitted=i) for i in range(14)]
    races.append(Race("zilt", ziltoidians(), submitted=99))
    expected = {r.name: [0, 0, 0, 0, 0, 0, 0] for r in races}  # points, wd, wdam, draws, losses, dealt, taken
    for i, a in enumerate(races):
        for b in races[i + 1:]:
            res = battle(a.orders, b.orders)
            for me, them, k in ((a, b, 0), (b, a, 1)):
                tally = expected[me.name]
                tally[5] += res.damage_taken[1 - k]
                tally[6] += res.damage_taken[k]
                if res.winner is None:
                    tally[0] += 1
                    tally[3] += 1
                elif res.winner == k + 1:
                    tally[0] += POINTS[res.outcome]
                    tally[1 if res.outcome == "destruction" else 2] += 1
                else:
                    tally[4] += 1
    table = league(races)
    assert [row.position for row in table] == list(range(1, 16))
    for row in table:
        got = [row.points, row.wins_destruction, row.wins_damage, row.draws, row.losses,
               row.damage_dealt, row.damage_taken]
        assert got == expected[row.race.name], row.race.name
        assert row.played == 14
    assert sum(r.wins_destruction + r.wins_damage for r in table) == sum(r.losses for r in table)
    assert {r.wins_destruction for r in table} != {0} and {r.wins_damage for r in table} != {0}


def test_md10_table_is_ordered_by_points_then_tie_breaks():
    rng = Rng(8)
    table = league([Race(f"r{i}", random_orders(rng), submitted=i) for i in range(40)])
    keys = [(r.points, r.wins_destruction, r.damage_difference) for r in table]
    assert keys == sorted(keys, reverse=True)


def test_md10_identical_races_draw_and_earlier_submission_ranks_first():
    """MD-10: the last tie-break is the earlier submission (not the list order)."""
    orders = uniform(20, 8, 8, [3])
    table = league([Race("late", orders, submitted=30), Race("early", orders, submitted=10),
                    Race("middle", orders, submitted=20)])
    assert [r.race.name for r in table] == ["early", "middle", "late"]
    assert all((r.points, r.draws) == (2, 2) for r in table)


def test_md10_battle_points():
    assert battle_points(0, 10, 50, 10) == (3, 0)  # 2 destroyed
    assert battle_points(5, 5, 5, 5) == (1, 1)  # both destroyed
    assert battle_points(3, 9, 50, 50) == (2, 0)
    assert battle_points(9, 3, 50, 50) == (0, 2)
    assert battle_points(4, 4, 50, 20) == (1, 1)


def never(a, b):
    raise AssertionError("no head-to-head needed")


def test_md10_order_points_then_destruction_wins_then_damage_difference():
    keys = [(10, 1, 5), (12, 0, 0), (10, 2, -9), (10, 1, 7)]
    assert table_order(keys, [0, 1, 2, 3], never) == [1, 2, 3, 0]


def test_md10_head_to_head_between_two_tied_races():
    """MD-10: tied on points, destruction wins and damage difference: who won their battle ranks first."""
    keys = [(9, 1, 3), (9, 1, 3), (15, 0, 0)]
    calls = []

    def h2h(a, b):
        calls.append((a, b))
        return (0, 3) if (a, b) == (0, 1) else (3, 0)

    assert table_order(keys, [0, 1, 2], h2h) == [2, 1, 0]
    assert calls == [(0, 1)]


def test_md10_head_to_head_among_three_uses_points_between_them_then_submission():
    keys = [(6, 0, 0)] * 3

    def cycle(a, b):  # 0 beats 1, 1 beats 2, 2 beats 0: all level, so submission decides
        return {(0, 1): (2, 0), (1, 2): (2, 0), (0, 2): (0, 2)}[(a, b)]

    assert table_order(keys, [5, 3, 4], cycle) == [1, 2, 0]

    def ladder(a, b):  # 2 beats both, 0 beats 1
        return {(0, 1): (3, 0), (1, 2): (0, 3), (0, 2): (0, 3)}[(a, b)]

    assert table_order(keys, [0, 1, 2], ladder) == [2, 0, 1]


def test_md11_league_uses_each_races_stored_orders_once():
    """MD-11: orders are given once per race and reused for every battle; N races, N(N-1)/2 battles."""
    rng = Rng(3)
    races = [Race(f"r{i}", random_orders(rng)) for i in range(10)]
    table = league(races)
    battles = sum(r.wins_destruction + r.wins_damage + r.losses for r in table) // 2 + sum(r.draws for r in table) // 2
    assert battles == 45
    assert sum(r.damage_dealt for r in table) == sum(r.damage_taken for r in table)


def test_league_rejects_invalid_orders_naming_the_race():
    """MD-12: invalid orders never enter a league; a caller passing them gets a clear error."""
    with pytest.raises(ValueError, match=r"race 'broken': mothership\.defence: must be an integer from 1 to 50"):
        league([Race("ok", ziltoidians()), Race("broken", uniform(0, 7, 5, [1]))])


def test_tiny_leagues():
    assert league([]) == []
    (row,) = league([Race("alone", ziltoidians())])
    assert (row.position, row.played, row.points, row.losses) == (1, 0, 0, 0)
