"""The battle (MD-2, MD-4..MD-9): hand-built cases, the seed's golden example, and properties."""

from hypothesis import given, settings

from armada.games.mothership import battle, simulate
from armada.games.mothership.battle import shot_list

from .mothership_samples import ROOMY, orders_strategy, race, ziltoidians

#: A fighter that neither hurts nor dies quickly (the default filler of `race`).
WALL = (1, 20, [1])
#: A fighter destroyed by any shot, firing one point.
PAPER = (1, 1, [1])


def shots_of(events, seat, fighter):
    """Strengths fired by one fighter, round by round (None when it did not fire)."""
    out = []
    for event in events:
        fired = [s["strength"] for s in event["sides"][seat - 1]["shots"] if s["fighter"] == fighter]
        out.append(fired[0] if fired else None)
    return out


def test_md9_ziltoidians_draw_after_three_rounds_golden():
    """MD-9 (golden): the Ziltoidians against themselves: all fighters fall in round 3, no mothership damage, draw."""
    result, events = simulate(ziltoidians(), ziltoidians())
    assert result.winner is None and result.outcome == "draw"
    assert result.rounds == 3 and len(events) == 3
    assert result.damage_taken == (0, 0) and result.mothership_left == (40, 40)
    for number, event in enumerate(events, start=1):
        for side in event["sides"]:
            assert [s["strength"] for s in side["shots"]] == [[2, 2, 3][number - 1]] * 5
            assert all(s["target"] == "fighter" for s in side["shots"])
            assert all(s["destroyed"] == (number == 3) for s in side["shots"])
            assert side["mothership"] == 40
    assert [f["defence"] for f in events[1]["sides"][0]["fighters"]] == [1] * 5
    assert events[2]["sides"][1]["fighters"] == [{"attack": 0, "defence": 0}] * 5
    assert battle(ziltoidians(), ziltoidians()) == result


def test_md2_pattern_repeats_and_shot_is_capped_by_attack_left():
    """MD-2: the list is fired in order and restarts; a shot never exceeds the attack left."""
    assert shot_list(10, (1, 3)) == (1, 3, 1, 3, 1, 1)
    assert shot_list(7, (5,)) == (5, 2)
    assert shot_list(3, (10**30,)) == (3,)
    a = race(50, (10, 20, [1, 3]))
    _result, events = simulate(a, race(50), ROOMY)
    assert shots_of(events, 1, 1)[:6] == [1, 3, 1, 3, 1, 1]


def test_md2_fighter_without_attack_stops_firing():
    """MD-2: a fighter with 0 attack points left no longer fires (and the battle goes on without it)."""
    a = race(50, (2, 20, [1]), (5, 20, [1]))
    _, events = simulate(a, race(50), ROOMY)
    assert shots_of(events, 1, 1)[:5] == [1, 1, None, None, None]
    assert shots_of(events, 1, 2)[:5] == [1, 1, 1, 1, 1]
    assert events[2]["sides"][0]["fighters"][0] == {"attack": 0, "defence": 19}  # the enemy's 1-point shot


def test_md4_fighter_i_fires_at_position_i():
    """MD-4: fighter 3 fires at enemy position 3 only."""
    a = race(50, WALL, WALL, (20, 20, [20]), WALL, WALL)
    b = race(50, WALL, WALL, (1, 20, [1]), WALL, WALL)
    _, events = simulate(a, b, ROOMY)
    after = [f["defence"] for f in events[0]["sides"][1]["fighters"]]
    assert after == [19, 19, 0, 19, 19]
    shot = next(s for s in events[0]["sides"][0]["shots"] if s["fighter"] == 3)
    assert shot == {"fighter": 3, "strength": 20, "target": "fighter", "destroyed": True}


def test_md5_simultaneous_fire_and_destroyed_fighter_still_fires():
    """MD-5: shots are computed from the start of the round; a fighter destroyed in round r fires in round r."""
    a = race(50, (5, 5, [5]), PAPER, PAPER, PAPER, PAPER)
    result, events = simulate(a, a, ROOMY)
    first = events[0]
    for side in first["sides"]:
        assert len(side["shots"]) == 5
        assert all(s["destroyed"] for s in side["shots"])
        assert all(f["defence"] == 0 for f in side["fighters"])
    assert result.rounds == 1 and result.outcome == "draw"


def test_md6_no_carry_through_then_mothership_takes_shots():
    """MD-6: overkill on a fighter is lost; once it is destroyed, later shots at its position hit the mothership."""
    a = race(50, (20, 20, [10]))
    b = race(50, (1, 3, [1]))
    result, events = simulate(a, b, ROOMY)
    assert events[0]["sides"][1]["mothership"] == 50
    assert events[0]["sides"][0]["shots"][0] == {"fighter": 1, "strength": 10, "target": "fighter", "destroyed": True}
    assert events[1]["sides"][0]["shots"][0] == {
        "fighter": 1, "strength": 10, "target": "mothership", "destroyed": False}
    assert events[1]["sides"][1]["mothership"] == 40
    assert result.damage_taken == (0, 10) and result.winner == 1 and result.outcome == "damage"


def test_md6_target_destroyed_this_round_still_absorbs_the_shot():
    """MD-6: a fighter alive at the start of the round takes the shot; a destroying shot's extra 2 points are lost."""
    a = race(50, (20, 20, [3]))
    b = race(50, (1, 3, [1]))
    _, events = simulate(a, b, ROOMY)
    assert events[0]["sides"][0]["shots"][0]["target"] == "fighter"
    assert events[0]["sides"][1]["mothership"] == 50


def test_md7_battle_ends_the_round_a_mothership_falls():
    """MD-7: the battle stops after the first round a mothership reaches 0, even with attack left."""
    a = race(50, (20, 20, [5]))
    b = race(5, (1, 1, [1]))
    result, events = simulate(a, b, ROOMY)
    assert result.rounds == 2 and len(events) == 2
    assert events[-1]["sides"][0]["fighters"][0]["attack"] == 10
    assert events[-1]["sides"][0]["shots"][0]["destroyed"] is True
    assert result.winner == 1 and result.outcome == "destruction"
    assert result.damage_taken == (0, 5) and result.mothership_left == (50, 0)


def test_md7_battle_ends_when_no_fighter_can_fire():
    """MD-7: when every fighter is destroyed or out of attack, the battle is over."""
    a = race(30, (3, 20, [1]), (3, 20, [1]), (3, 20, [1]), (3, 20, [1]), (3, 20, [1]))
    result, events = simulate(a, a, ROOMY)
    assert result.rounds == 3 and result.outcome == "draw"
    assert all(f["attack"] == 0 for side in events[-1]["sides"] for f in side["fighters"])


def test_md8_both_destroyed_in_the_same_round_is_a_draw():
    """MD-8: both motherships destroyed in the same round: draw."""
    a = race(1, (20, 20, [1]), PAPER, PAPER, PAPER, PAPER)
    b = race(1, PAPER, (20, 20, [1]), PAPER, PAPER, PAPER)
    result, _ = simulate(a, b, ROOMY)
    assert result.rounds == 2
    assert result.mothership_left == (0, 0)
    assert result.winner is None and result.outcome == "draw"


def test_md8_less_damage_wins_on_damage_and_equal_damage_draws():
    """MD-8: neither destroyed: less damage taken wins; equal damage (not equal defence left) is a draw."""
    strong = (20, 20, [1])
    a = race(50, strong, PAPER, PAPER, PAPER, PAPER)
    b = race(50, PAPER, PAPER, PAPER, PAPER, PAPER)
    result = battle(a, b, ROOMY)
    assert (result.winner, result.outcome, result.damage_taken) == (1, "damage", (0, 19))
    c = race(20, PAPER, strong, PAPER, PAPER, PAPER)
    result = battle(a, c, ROOMY)
    assert result.damage_taken == (19, 19) and result.mothership_left == (31, 1)
    assert result.winner is None and result.outcome == "draw"


def test_md8_destruction_win_and_damage_capped_at_defence():
    """MD-8: exactly one mothership destroyed wins by destruction; damage taken never exceeds the defence."""
    a = race(50, (20, 20, [1]), PAPER, PAPER, PAPER, PAPER)
    b = race(10, PAPER, PAPER, PAPER, PAPER, PAPER)
    result = battle(a, b, ROOMY)
    assert (result.winner, result.outcome) == (1, "destruction")
    assert result.damage_taken == (0, 10) and result.destroyed == (False, True)
    assert result.rounds == 11  # round 1 kills the paper fighter, rounds 2..11 deal 1 each
    assert battle(b, a, ROOMY).winner == 2


# --- properties ------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(orders_strategy, orders_strategy)
def test_fast_battle_equals_round_by_round_simulation(a, b):
    """The league's fast battle gives exactly the simulator's result (MD-4..MD-8)."""
    assert battle(a, b, ROOMY) == simulate(a, b, ROOMY)[0]


@settings(max_examples=150, deadline=None)
@given(orders_strategy, orders_strategy)
def test_every_battle_ends_and_counts_never_go_negative(a, b):
    """MD-7 bound: each round every firing fighter spends >= 1 attack, so rounds <= the largest attack.
    Boards only ever go down and never below 0; damage taken matches the board."""
    result, events = simulate(a, b, ROOMY)
    largest = max(f.attack for f in a.fighters + b.fighters)
    assert 1 <= result.rounds == len(events) <= largest
    previous = [
        (a.mothership, [(f.attack, f.defence) for f in a.fighters]),
        (b.mothership, [(f.attack, f.defence) for f in b.fighters]),
    ]
    for event in events:
        for s, side in enumerate(event["sides"]):
            board = (side["mothership"], [(f["attack"], f["defence"]) for f in side["fighters"]])
            assert board[0] >= 0 and all(x >= 0 for pair in board[1] for x in pair)
            assert board[0] <= previous[s][0]
            assert all(n[0] <= o[0] and n[1] <= o[1] for n, o in zip(board[1], previous[s][1], strict=True))
            previous[s] = board
    assert result.mothership_left == (previous[0][0], previous[1][0])
    assert result.damage_taken == (a.mothership - previous[0][0], b.mothership - previous[1][0])


@settings(max_examples=150, deadline=None)
@given(orders_strategy, orders_strategy)
def test_swapping_sides_mirrors_the_result(a, b):
    """The battle is symmetric (MD-10: sides do not matter): swapping the races mirrors everything."""
    ab, events_ab = simulate(a, b, ROOMY)
    ba, events_ba = simulate(b, a, ROOMY)
    assert ba.rounds == ab.rounds and ba.outcome == ab.outcome
    assert ba.winner == {1: 2, 2: 1, None: None}[ab.winner]
    assert ba.damage_taken == ab.damage_taken[::-1]
    for x, y in zip(events_ab, events_ba, strict=True):
        for s in (0, 1):
            mine, theirs = dict(x["sides"][s]), dict(y["sides"][1 - s])
            mine.pop("seat")
            theirs.pop("seat")
            assert mine == theirs


@settings(max_examples=150, deadline=None)
@given(orders_strategy)
def test_a_race_against_itself_draws(a):
    result = battle(a, a, ROOMY)
    assert result.winner is None and result.outcome == "draw"
    assert result.damage_taken[0] == result.damage_taken[1]


def test_fast_battle_equals_simulation_on_many_random_races():
    """Bulk cross-check on the random orders the league bench uses (default config)."""
    from armada.games.mothership import random_orders
    from armada.games.rng import Rng

    rng = Rng(2024)
    races = [random_orders(rng) for _ in range(120)]
    outcomes = set()
    for i in range(0, 120, 2):
        for j in range(1, 120, 7):
            fast = battle(races[i], races[j])
            assert fast == simulate(races[i], races[j])[0]
            outcomes.add(fast.outcome)
    assert outcomes == {"destruction", "damage", "draw"}
