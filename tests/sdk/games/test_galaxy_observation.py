"""What a seat sees (GX-19): the observation's shape, and nothing of the opponent's hidden data."""

from __future__ import annotations

import copy

from armada.games.galaxy import GALAXY

from .galaxy_helpers import clear_board, fleet, new_state, observe, put, turn


def played_state():
    """A mid-game position with fleets in flight, battles and warnings on both sides."""
    state = new_state(21, neutral_growth=[0, 1])
    for p in state.planets:
        if not p.owner:
            p.launchers = 3
    turn(state, fleets={1: [fleet(1, 2, c=5), fleet(1, 11, b=2)], 2: [fleet(16, 15, c=6), fleet(16, 6, b=1)]})
    turn(state, fleets={1: [fleet(2, 3, c=1), fleet(9, 10, c=1)], 2: [fleet(15, 14, c=1), fleet(4, 3, c=1)]})
    return state


def test_observation_shape() -> None:
    # docs/games/galaxy-schema.md; GX-19 public info: turn, owners, seat; own planets in full
    state = played_state()
    obs = observe(state, 1)
    assert list(obs) == ["turn", "max_turns", "seat", "probes", "planets", "fleets", "battles", "warnings"]
    assert (obs["turn"], obs["max_turns"], obs["seat"]) == (3, 200, 1)
    assert [p["id"] for p in obs["planets"]] == list(range(1, 17))
    for p in obs["planets"]:
        assert p["owner"] == state.planet(p["id"]).owner
        assert (p["row"], p["col"]) == divmod(p["id"] - 1, 4)
        if p["owner"] == 1:
            assert set(p["garrison"]) == {"battleships", "cruisers", "launchers"}
            assert p["hold"] == state.planet(p["id"]).hold
        else:
            assert p["garrison"] is None and p["production"] is None and p["hold"] is None
    assert obs["probes"] == sum(1 for p in obs["planets"] if p["owner"] == 1)
    assert [(f["from"], f["to"], f["battleships"], f["turns_left"]) for f in obs["fleets"]] == [(1, 11, 2, 2)]
    assert obs["warnings"] == ["fleet order 2 dropped: planet 9 is not yours"]
    assert observe(state, 2)["warnings"] == ["fleet order 2 dropped: planet 4 is not yours"]


def test_battle_reports_only_for_battles_the_seat_took_part_in() -> None:
    # GX-19: battle reports for every battle its forces took part in, from the previous turn
    state = new_state(21, neutral_growth=[0, 0])
    clear_board(state)
    state.planet(2).launchers = 2
    state.planet(15).launchers = 2
    put(state, 3, 2, c=1)
    turn(state, fleets={1: [fleet(1, 2, c=2)], 2: [fleet(16, 15, c=2)]})
    b1 = observe(state, 1)["battles"]
    b2 = observe(state, 2)["battles"]
    assert [b["planet"] for b in b1] == [2]
    assert [b["planet"] for b in b2] == [15]
    assert set(b1[0]) == {"turn", "planet", "sides", "winner", "new_owner"}
    turn(state, fleets={2: [fleet(3, 2, c=1)]})  # seat 2 attacks seat 1's planet: both see it
    assert [b["planet"] for b in observe(state, 1)["battles"]] == [2]
    assert [b["planet"] for b in observe(state, 2)["battles"]] == [2]
    turn(state)
    assert observe(state, 1)["battles"] == [] and observe(state, 2)["battles"] == []


def hide_and_change(state, seat: int) -> None:
    """Change everything about `seat` and the neutrals that the other seat must not see (GX-19)."""
    for p in state.planets:
        if p.owner == seat:
            p.battleships += 3
            p.cruisers += 1
            p.launchers += 7
            p.hold += 4
            p.base = (9, 9, 9)
        elif p.owner == 0:
            p.launchers += 5
            p.base = (7, 7, 7)
    for f in state.fleets:
        if f.owner == seat:
            f.cruisers += 2
            f.arrives += 1
            f.target = 2 if f.target != 2 else 3
    state.fleet_counts[seat] += 10
    state.order_warnings[seat] = ["something else"]
    state.probe_warnings[seat] = ["x"]
    state.probes[seat] = [1, 2, 3]
    state.rng.next64()


def test_changing_the_opponents_hidden_data_does_not_change_an_observation() -> None:
    # GX-19: enemy fleets in flight, contents of foreign planets, the opponent's warnings are hidden
    for seat in (1, 2):
        state = played_state()
        before = observe(state, seat)
        changed = copy.deepcopy(state)
        hide_and_change(changed, 3 - seat)
        assert GALAXY.dump_state(changed) != GALAXY.dump_state(state)
        assert observe(changed, seat) == before
        # the same change on one's own side does show: the test can see a difference
        own = copy.deepcopy(state)
        hide_and_change(own, seat)
        assert observe(own, seat) != before


def test_hidden_data_does_not_leak_into_intel_beyond_the_probed_planets() -> None:
    state = played_state()
    GALAXY.step(state, {1: {"probes": [16]}, 2: {"probes": []}})
    intel = GALAXY.requests(state)[1].payload["intel"]
    assert [i["planet"] for i in intel] == [16]
